"""Helpers shared by the YAML I/O tests."""

from __future__ import annotations

from typing import Any

from generator.documents import Document
from generator.yamlio.limits import MAX_DEPTH, MAX_NODES
from generator.yamlio.precise import parse_documents


def precise(text: str, source: str = "t.yaml") -> list[Document]:
    """The precise path alone (no fast path), with the production limits."""
    return parse_documents(text, source=source, max_depth=MAX_DEPTH, max_nodes=MAX_NODES)


def objects(documents: list[Document]) -> list[Any]:
    return [document.obj for document in documents]
