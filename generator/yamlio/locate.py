"""Line numbers for findings: where a JSON path of a loaded document sits in the text.

Values are loaded without positions (that is what keeps loading fast); only when a finding needs
a line is the text parsed again into a light tree of line numbers, and only the document that
has the finding (cut at its ``---`` lines, as the loader cuts a stream), once. The tree is built from
libyaml's events with an explicit stack, like :mod:`generator.yamlio.precise` and for the same
reason: PyYAML's C composer recurses once per nesting level and can crash on hostile input.
Document indexes are libyaml's, so they match :func:`~generator.yamlio.load.load_documents`.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.events import (
    AliasEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)

from generator.errors import YamlError
from generator.findings import JsonPath, PathPart
from generator.yamlio.detect import stream_markers
from generator.yamlio.limits import MAX_DEPTH
from generator.yamlio.load import document_spans, layout
from generator.yamlio.scalars import InvalidKey, key_text, resolve_plain

_NO_KEY = object()


class _Node:
    """Line of a node and, for collections, where its children are."""

    __slots__ = ("entries", "items", "line", "merges")

    def __init__(self, line: int) -> None:
        self.line = line
        self.entries: dict[str, tuple[int, _Node]] | None = (
            None  # mapping: key -> (key line, value)
        )
        self.items: list[_Node] | None = None  # sequence items
        self.merges: list[_Node] = []  # values of "<<" keys, searched after explicit keys

    def child(self, part: PathPart) -> tuple[int, _Node] | None:
        if self.entries is not None and isinstance(part, str):
            found = self.entries.get(part)
            if found is not None:
                return found
            for merged in self.merges:
                for source in merged.items if merged.items is not None else [merged]:
                    inner = source.child(part)
                    if inner is not None:
                        return inner
            return None
        items = self.items
        if items is not None and type(part) is int and 0 <= part < len(items):
            return items[part].line, items[part]
        return None


def _alias_of(node: _Node, line: int) -> _Node:
    """A node at the alias' own line that shares the anchored node's children."""
    alias = _Node(line)
    alias.entries, alias.items, alias.merges = node.entries, node.items, node.merges
    return alias


def _key(event: Any) -> str:
    value = resolve_plain(event.value) if event.tag is None and event.implicit[0] else event.value
    try:
        return key_text(value)
    except InvalidKey:
        return str(event.value)


class _Frame:
    __slots__ = ("key", "key_line", "merge", "node")

    def __init__(self, node: _Node) -> None:
        self.node = node
        self.key: Any = _NO_KEY
        self.key_line = 0
        self.merge = False


def _attach(stack: list[_Frame], node: _Node, event: Any) -> None:
    top = stack[-1]
    parent = top.node
    if parent.items is not None:
        parent.items.append(node)
        return
    if top.key is _NO_KEY:
        scalar = event.__class__ is ScalarEvent
        top.merge = scalar and event.value == "<<" and event.tag is None and event.implicit[0]
        top.key = _key(event) if scalar else None
        top.key_line = node.line
        return
    if top.merge:
        parent.merges.append(node)
    elif isinstance(top.key, str) and parent.entries is not None:
        parent.entries.setdefault(top.key, (top.key_line, node))
    top.key = _NO_KEY


def _new_node(
    event: Any, stack: list[_Frame], anchors: dict[str, _Node], doc_line: int, base: int
) -> _Node:
    """The node an event starts, attached to its parent (or returned as a document root)."""
    line = event.start_mark.line + base
    name: str | None = event.anchor
    if event.__class__ is AliasEvent:
        target = anchors.get(name) if name is not None else None
        return _alias_of(target, line) if target is not None else _Node(line)
    empty = (
        event.__class__ is ScalarEvent
        and event.value == ""
        and event.tag is None
        and event.implicit[0]
    )
    node = _Node(doc_line if empty and not stack else line)
    if name is not None:
        anchors[name] = node
    return node


def _build(text: str, base: int = 1) -> list[_Node]:
    """Root node of every document, as far as the text can be read (errors end the reading).

    ``base`` is the line number of the text's first line (a document cut from a stream).
    """
    roots: list[_Node] = []
    try:
        loader = yaml.CSafeLoader(text)
    except UnicodeEncodeError:
        return roots
    try:
        _read_events(loader, roots, base)
    except yaml.YAMLError:
        pass  # keep what was read: lines before a syntax error are still right
    finally:
        loader.dispose()
    return roots


def _read_events(loader: Any, roots: list[_Node], base: int) -> None:
    """Build the tree from ``loader``'s events, appending each document's root to ``roots``."""
    stack: list[_Frame] = []
    anchors: dict[str, _Node] = {}
    doc_line = 1
    while True:
        event: Any = loader.get_event()
        cls = event.__class__
        if cls is StreamEndEvent:
            break
        if cls is DocumentStartEvent:
            doc_line = event.start_mark.line + base
            anchors = {}
            stack = []
        elif cls in (ScalarEvent, AliasEvent, MappingStartEvent, SequenceStartEvent):
            node = _new_node(event, stack, anchors, doc_line, base)
            if stack:
                _attach(stack, node, event)
            else:
                roots.append(node)
            if cls is MappingStartEvent or cls is SequenceStartEvent:
                if len(stack) >= MAX_DEPTH:
                    break
                if cls is MappingStartEvent:
                    node.entries = {}
                else:
                    node.items = []
                stack.append(_Frame(node))
        elif stack and cls in (MappingEndEvent, SequenceEndEvent):
            stack.pop()


def _spans(text: str) -> list[tuple[int, int, int]] | None:
    """Offsets and first line of every document, or None when the stream must be read whole
    (directives, end markers, unusual line breaks, or ``---`` lines the loader refuses)."""
    if stream_markers(text):
        return None
    try:
        found = layout(text, "<lines>")
    except YamlError:
        return None
    spans = []
    line, previous = 1, 0
    for start, end in document_spans(text, found):
        line += text.count("\n", previous, start)
        previous = start
        spans.append((start, end, line))
    return spans


class LineLocator:
    """Finds the line of a path inside one document of a text; parses lazily, each document at
    most once, and only the documents asked about."""

    def __init__(self, text: str) -> None:
        self._text = text.removeprefix("\ufeff")  # as the loader reads it; lines are the same
        self._spans: list[tuple[int, int, int]] | None = None
        self._roots: dict[int, _Node | None] | None = None
        self._whole: list[_Node] | None = None

    def _root(self, document: int) -> _Node | None:
        if self._roots is None:
            self._roots = {}
            self._spans = _spans(self._text)
        if document not in self._roots:
            self._roots[document] = self._read(document)
        return self._roots[document]

    def _read(self, document: int) -> _Node | None:
        if self._spans is None:
            if self._whole is None:
                self._whole = _build(self._text)
            roots = self._whole
            return roots[document] if 0 <= document < len(roots) else None
        if not 0 <= document < len(self._spans):
            return None
        start, end, line = self._spans[document]
        roots = _build(self._text[start:end], line)
        return roots[0] if roots else None

    def line_of(self, document: int, path: JsonPath) -> int | None:
        """1-based line of ``path`` in document ``document``.

        A mapping entry answers with the line of its key; a path that does not exist answers
        with the line of its deepest existing ancestor; an unknown document with None.
        """
        node = self._root(document)
        if node is None:
            return None
        line = node.line
        for part in path:
            found = node.child(part)
            if found is None:
                break
            line, node = found
        return line
