"""Deterministic YAML output in the style clusterctl produces (sigs.k8s.io/yaml + go-yaml v2).

Keys in go-yaml v2 order, block style, two-space indent with list items at their parent's
indentation, documents joined by ``---``, one trailing newline, no anchors or aliases. A string
is double-quoted when it would read back as something else (``"123"``, ``"yes"``, ``""``),
single-quoted when libyaml's own analysis forbids a plain scalar (leading space, ``: ``,
``{{ x }}``, ``*``...), and written as a literal block when it spans lines (``|+`` when it ends in
blank lines, as go-yaml v2 writes it).

Long lines are folded as go-yaml v2 folds them, because clusterctl's output goes through it
(sigs.k8s.io/yaml) and capzgen's must be the same bytes: go-yaml v2 is a Go port of libyaml's
emitter and keeps its line-breaking rules, so libyaml with the same best width (80) breaks the
same way. A plain, single- or double-quoted scalar is broken at a single space found once the
column is past 80 (never inside a run of spaces for plain and single-quoted scalars, never at
a quoted scalar's first or last character, a double-quoted continuation that starts with a
space is escaped with a backslash), and the continuation line is indented where a value nested
under that key or item would be. A key of up to 128 characters is a simple key and stays on one
line; literal blocks are never folded.
Measured against clusterctl v1.13.3 (tests/envsubst/test_clusterctl_peer.py).

Nodes are built here and handed to libyaml's C emitter; PyYAML's Python representer is skipped,
which keeps emission fast (thousands of objects in well under a second).
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from typing import Any, Final

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from generator.jsontypes import Json
from generator.yamlio.gcpause import gc_paused
from generator.yamlio.keyorder import key_order
from generator.yamlio.scalars import go_format_float, key_text, needs_quotes

_TAG: Final = "tag:capzgen,2024:implicit"
_INT64_LIMIT: Final = 1 << 63
_FORCE_DOUBLE: Final = frozenset("\r\x85\u2028\u2029")  # breaks a block scalar would not keep
# go-yaml v2's default best width: sigs.k8s.io/yaml never changes it, so clusterctl folds here.
GO_YAML_WIDTH: Final = 80
# What libyaml (0.2.5 and later) writes at the end of a stream whose last block scalar keeps its
# trailing blank lines (``|+``); go-yaml v2 writes nothing there, so it is cut off.
_OPEN_ENDED_MARK: Final = "...\n"


class _Emitter(yaml.CSafeDumper):
    """libyaml's emitter with every node implicit: styles are chosen by :func:`_scalar`."""

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        """Every node carries ``_TAG``, so none is ever written with an explicit tag."""
        return _TAG


def _string_style(text: str) -> str | None:
    if "\n" in text:
        if "\r" in text or (not text.isascii() and _FORCE_DOUBLE.intersection(text)):
            return '"'
        return "|"
    if "\r" in text or (not text.isascii() and _FORCE_DOUBLE.intersection(text)):
        return '"'
    return '"' if needs_quotes(text) else None


_STYLES: dict[str, str | None] = {}
_STYLE_CACHE_LIMIT: Final = 65536


def _style(text: str) -> str | None:
    """Cached :func:`_string_style`: keys and many values repeat across documents."""
    try:
        return _STYLES[text]
    except KeyError:
        style = _string_style(text)
        if len(_STYLES) < _STYLE_CACHE_LIMIT and len(text) < 256:
            _STYLES[text] = style
        return style


def _number(value: float) -> str:
    """Floats as they come out of Kubernetes' JSON round trip: ``1.0`` -> ``1``, else Go 'g'."""
    if math.isfinite(value) and value.is_integer() and abs(value) < _INT64_LIMIT:
        return str(int(value))
    return go_format_float(value)


def _scalar(value: Json) -> ScalarNode:
    if type(value) is str:
        return ScalarNode(_TAG, value, None, None, _style(value))
    if isinstance(value, str):
        return ScalarNode(_TAG, str(value), None, None, _style(str(value)))
    if value is None:
        text = "null"
    elif isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, int):
        text = str(int(value))
    elif isinstance(value, float):
        text = _number(float(value))
    else:
        msg = f"cannot write a {type(value).__name__} as YAML: {value!r}"
        raise TypeError(msg)
    return ScalarNode(_TAG, text, None, None, None)


def _sorted_keys(mapping: dict[Json, Json]) -> list[str]:
    keys = [key if type(key) is str else key_text(key) for key in mapping]
    if len(keys) > 1:
        keys.sort(key=key_order)
    return keys


def _node(value: Json) -> Node:
    """A fresh node tree: repeated Python objects become repeated text, never aliases."""
    if isinstance(value, dict):
        if all(type(key) is str for key in value):
            pairs = [(_scalar(key), _node(value[key])) for key in _sorted_keys(value)]
        else:
            by_text = {key_text(key): item for key, item in value.items()}
            pairs = [(_scalar(key), _node(by_text[key])) for key in _sorted_keys(by_text)]
        return MappingNode(_TAG, pairs, None, None, False)
    if isinstance(value, list | tuple):
        return SequenceNode(_TAG, [_node(item) for item in value], None, None, False)
    return _scalar(value)


def _emit(nodes: Sequence[Node]) -> str:
    stream = io.StringIO()
    emitter = _Emitter(
        stream,
        default_flow_style=False,
        allow_unicode=True,
        indent=2,
        width=80,
        sort_keys=False,
    )
    emitter.open()
    for node in nodes:
        emitter.serialize(node)
    emitter.close()
    return stream.getvalue()


def _is_block(value: Json) -> bool:
    """Roots libyaml writes below a bare ``---`` line; others (scalars, ``{}``) share its line."""
    return isinstance(value, dict | list | tuple) and len(value) > 0


def dump_documents(objects: Sequence[Json]) -> str:
    """Multi-document YAML of ``objects``: ``---`` between documents, one trailing newline."""
    with gc_paused():
        return _dump(objects)


def _keeps_blank_lines(value: Json) -> bool:
    """A string written as a ``|+`` block: it ends in a blank line or is nothing but breaks."""
    return isinstance(value, str) and _style(value) == "|" and value.endswith("\n")


def _emit_blocks(nodes: Sequence[Node]) -> str:
    """Block documents as one stream, without libyaml's end-of-stream ``...`` after a ``|+``
    block. In a stream of block documents that mark is never content: a top-level key or item
    starting with ``...`` is quoted and block scalar lines are indented."""
    return _emit(nodes).removesuffix(_OPEN_ENDED_MARK)


def _dump(objects: Sequence[Json]) -> str:
    chunks: list[str] = []
    run: list[Node] = []
    for value in objects:
        if _is_block(value):
            run.append(_node(value))
            continue
        if run:
            chunks.append(_emit_blocks(run))
            run = []
        # A top-level string is never a Kubernetes object; it keeps the quoting it always had,
        # since a root ``|+`` block and libyaml's end marks would be hard to tell apart.
        node = (
            ScalarNode(_TAG, value, None, None, '"') if _keeps_blank_lines(value) else _node(value)
        )
        text = _emit([node])
        chunks.append(text.removesuffix("...\n") if text != "...\n" else text)
    if run:
        chunks.append(_emit_blocks(run))
    return "---\n".join(chunks)


def object_texts(objects: Sequence[Json]) -> tuple[list[str], str]:
    """Each object as YAML, and the multi-document stream of them all, writing each object once:
    for objects that are non-empty mappings the stream is exactly the texts joined by ``---``
    lines (the emitter writes each block document the same alone or in a stream)."""
    if objects and all(isinstance(obj, dict) and obj for obj in objects):
        texts = [dump_documents([obj]) for obj in objects]
        return texts, "---\n".join(texts)
    return [], dump_documents(objects)
