"""The light tree of line numbers :mod:`generator.yamlio.locate` answers from, built from libyaml's
events with an explicit stack, like :mod:`generator.yamlio.precise` and for the same reason:
PyYAML's C composer recurses once per nesting level and can crash on hostile input.

A module of its own so that PyYAML loads only when a finding needs a line.
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

from generator.findings import PathPart
from generator.yamlio.limits import MAX_DEPTH
from generator.yamlio.scalars import InvalidKey, key_text, resolve_plain

_NO_KEY = object()


class Node:
    """Line of a node and, for collections, where its children are."""

    __slots__ = ("entries", "items", "line", "merges")

    def __init__(self, line: int) -> None:
        self.line = line
        self.entries: dict[str, tuple[int, Node]] | None = None  # mapping: key -> (key line, value)
        self.items: list[Node] | None = None  # sequence items
        self.merges: list[Node] = []  # values of "<<" keys, searched after explicit keys

    def child(self, part: PathPart) -> tuple[int, Node] | None:
        """The key line and value of a mapping entry (``<<`` merges searched after the explicit
        keys), or the line and node of a sequence item; None when there is no such child."""
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


def _alias_of(node: Node, line: int) -> Node:
    """A node at the alias' own line that shares the anchored node's children."""
    alias = Node(line)
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

    def __init__(self, node: Node) -> None:
        self.node = node
        self.key: Any = _NO_KEY
        self.key_line = 0
        self.merge = False


def _attach(stack: list[_Frame], node: Node, event: Any) -> None:
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
    event: Any, stack: list[_Frame], anchors: dict[str, Node], doc_line: int, base: int
) -> Node:
    """The node an event starts, attached to its parent (or returned as a document root)."""
    line = event.start_mark.line + base
    name: str | None = event.anchor
    if event.__class__ is AliasEvent:
        target = anchors.get(name) if name is not None else None
        return _alias_of(target, line) if target is not None else Node(line)
    empty = (
        event.__class__ is ScalarEvent
        and event.value == ""
        and event.tag is None
        and event.implicit[0]
    )
    node = Node(doc_line if empty and not stack else line)
    if name is not None:
        anchors[name] = node
    return node


def build(text: str, base: int = 1) -> list[Node]:
    """Root node of every document, as far as the text can be read (errors end the reading).

    ``base`` is the line number of the text's first line (a document cut from a stream).
    """
    roots: list[Node] = []
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


def _read_events(loader: Any, roots: list[Node], base: int) -> None:
    """Build the tree from ``loader``'s events, appending each document's root to ``roots``."""
    stack: list[_Frame] = []
    anchors: dict[str, Node] = {}
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
