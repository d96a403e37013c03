"""Deterministic YAML output in the style clusterctl produces (sigs.k8s.io/yaml + go-yaml v2).

Keys in go-yaml v2 order, block style, two-space indent with list items at their parent's
indentation, documents joined by ``---``, one trailing newline, no anchors or aliases, no line
folding. A string is double-quoted when it would read back as something else (``"123"``,
``"yes"``, ``""``), single-quoted when libyaml's own analysis forbids a plain scalar (leading
space, ``: ``, ``{{ x }}``, ``*``...), and written as a literal block when it spans lines.

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


class _Emitter(yaml.CSafeDumper):
    """libyaml's emitter with every node implicit: styles are chosen by :func:`_scalar`."""

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        """Every node carries ``_TAG``, so none is ever written with an explicit tag."""
        return _TAG


def _string_style(text: str) -> str | None:
    if "\n" in text:
        if "\r" in text or (not text.isascii() and _FORCE_DOUBLE.intersection(text)):
            return '"'
        # Keep-chomping (|+) makes libyaml end the stream with "..."; quote instead.
        return '"' if text.endswith("\n\n") or not text.strip("\n") else "|"
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
        width=-1,  # never fold long lines
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


def _dump(objects: Sequence[Json]) -> str:
    chunks: list[str] = []
    run: list[Node] = []
    for value in objects:
        if _is_block(value):
            run.append(_node(value))
            continue
        if run:
            chunks.append(_emit(run))
            run = []
        text = _emit([_node(value)])
        chunks.append(text.removesuffix("...\n") if text != "...\n" else text)
    if run:
        chunks.append(_emit(run))
    return "---\n".join(chunks)


def object_texts(objects: Sequence[Json]) -> tuple[list[str], str]:
    """Each object as YAML, and the multi-document stream of them all, writing each object once:
    for objects that are non-empty mappings the stream is exactly the texts joined by ``---``
    lines (the emitter writes each block document the same alone or in a stream)."""
    if objects and all(isinstance(obj, dict) and obj for obj in objects):
        texts = [dump_documents([obj]) for obj in objects]
        return texts, "---\n".join(texts)
    return [], dump_documents(objects)
