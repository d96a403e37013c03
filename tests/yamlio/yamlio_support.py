"""Helpers shared by the YAML I/O tests."""

from __future__ import annotations

import math
from typing import Any

from generator.documents import Document
from generator.yamlio.limits import MAX_DEPTH, MAX_NODES
from generator.yamlio.precise import parse_documents


def precise(text: str, source: str = "t.yaml") -> list[Document]:
    """The precise path alone (no fast path), with the production limits."""
    return parse_documents(text, source=source, max_depth=MAX_DEPTH, max_nodes=MAX_NODES)


def objects(documents: list[Document]) -> list[Any]:
    return [document.obj for document in documents]


def same(left: Any, right: Any) -> bool:
    """Equal values of the same types (``True != 1``, ``1 != 1.0``, ``-0.0 != 0.0``), in the
    same key order; NaN equals NaN. Python's ``==`` says yes to all of those."""
    if type(left) is not type(right):
        return False
    if isinstance(left, dict):
        return list(left) == list(right) and all(same(left[k], right[k]) for k in left)
    if isinstance(left, list | tuple):
        return len(left) == len(right) and all(same(a, b) for a, b in zip(left, right, strict=True))
    if isinstance(left, float):
        if left != left:
            return bool(right != right)
        return left == right and math.copysign(1.0, left) == math.copysign(1.0, right)
    return bool(left == right)
