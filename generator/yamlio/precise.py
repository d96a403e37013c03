"""Precise loading: libyaml's C parser, go-yaml v2 scalar rules, and hard limits.

PyYAML's own composer recurses in C once per nesting level and crashes the process on a deeply
nested input (``[[[[...`` a hundred thousand times), so documents are built here from the parser's
event stream with an explicit stack: nesting, alias expansion and every error are under our
control and reported with a line, a column and the document index.

Semantics are those of go-yaml v2 as Kubernetes uses it: scalars resolve by
:func:`~generator.yamlio.scalars.resolve_plain`, keys become strings like sigs.k8s.io/yaml makes
them, ``<<`` merges mappings in text order (later wins, like go-yaml v2), unknown tags are
ignored. Unlike Kubernetes, a key that appears twice in one mapping is an error rather than
"last one wins": it is almost always a mistake that silently drops configuration.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any, Final

import yaml
from yaml.events import (
    AliasEvent,
    DocumentEndEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)

from generator.documents import Document
from generator.errors import Location, YamlError
from generator.yamlio.budget import Budget, Part
from generator.yamlio.dense import block_nodes, flow_nodes
from generator.yamlio.limits import MAX_EXPANDED_BYTES
from generator.yamlio.scalars import InvalidKey, key_text, resolve_plain

_NO_KEY: Final = object()
_MERGE: Final = object()
_TAG: Final = "tag:yaml.org,2002:"


class _Frame:
    """An open mapping or sequence while its events are being read."""

    __slots__ = (
        "anchor",
        "container",
        "explicit",
        "is_map",
        "key",
        "key_lines",
        "key_mark",
        "mark",
        "start",
    )

    def __init__(self, container: Any, is_map: bool, anchor: str | None, mark: Any, start: int):
        self.container = container
        self.is_map = is_map
        self.anchor = anchor
        self.mark = mark
        self.start = start  # node count before this node, to size it for alias accounting
        self.key: Any = _NO_KEY
        self.explicit: set[str] | None = None  # explicit keys, tracked once a merge happened
        self.key_lines: dict[str, int] | None = None  # first line of each key (re-read only)
        self.key_mark: Any = None  # mark of the key being read (re-read only)


class _DuplicateKey(Exception):
    """Internal: a duplicate was found; the caller re-reads with key lines to report both."""


class _Anchor:
    __slots__ = ("chars", "height", "size", "value")

    def __init__(self, value: Any, size: int) -> None:
        self.value = value
        self.size = size
        self.height = -1  # measured at the first alias, see _measure
        self.chars = 0


def _copy(value: Any) -> Any:
    """Independent copy of an aliased value, so that editing one occurrence leaves the others."""
    if type(value) is dict:
        return {key: _copy(item) for key, item in value.items()}
    if type(value) is list:
        return [_copy(item) for item in value]
    return value


def _measure(value: Any) -> tuple[int, int]:
    """Nesting height of an anchored value and the characters of its scalars, keys included.

    Each alias adds the characters to the stream's expanded size: a copied string is shared,
    not duplicated, in memory here, but every later step (schema checks, JSON, output) pays for
    each occurrence. Anchored values are at most MAX_DEPTH deep, so recursion is safe.
    """
    if type(value) is str:
        return 0, len(value)
    if type(value) is dict:
        pairs = [(len(key), *_measure(item)) for key, item in value.items()]
        height = max((pair[1] for pair in pairs), default=0)
        return 1 + height, sum(pair[0] + pair[2] for pair in pairs)
    if type(value) is list:
        parts = [_measure(item) for item in value]
        return 1 + max((part[0] for part in parts), default=0), sum(part[1] for part in parts)
    return 0, 1


def _tagged_scalar(event: ScalarEvent) -> Any:
    """A scalar with an explicit tag, as go-yaml v2 reads it into ``interface{}``."""
    tag, text = event.tag, event.value
    if tag in ("!", _TAG + "str", _TAG + "timestamp"):
        return text
    expected = {_TAG + "int": "int", _TAG + "float": "float", _TAG + "bool": "bool"}
    if tag in expected or tag == _TAG + "null":
        value = resolve_plain(text)
        kind = expected.get(tag, "null")
        if kind == "null" and value is None:
            return None
        if kind == "bool" and isinstance(value, bool):
            return value
        if kind in ("int", "float") and isinstance(value, int) and not isinstance(value, bool):
            return float(value) if kind == "float" else value
        if kind == "float" and isinstance(value, float):
            return value
        msg = f"cannot read {text!r} as !!{kind}"
        raise ValueError(msg)
    if tag == _TAG + "binary":
        try:
            return base64.b64decode("".join(text.split()), validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError) as exc:
            msg = f"!!binary value is not base64 of UTF-8 text ({exc})"
            raise ValueError(msg) from None
    return text  # go-yaml keeps the text of a scalar with an unknown or local tag


class _Builder:
    """Turns one stream of events into documents. One instance per call; not reusable."""

    def __init__(
        self,
        text: str,
        source: str,
        limits: tuple[int, int, int],
        track: bool,
        where: tuple[Part, Budget],
    ):
        self.text = text
        self.source = source
        self.max_depth, self.max_nodes, self.max_chars = limits
        self.track = track
        self.part, self.budget = where
        self.document = -1
        self.dense_end = 0
        # Scalars written in the text never hold more characters than the text itself.
        self.chars = self.budget.chars + len(text)

    def fail(self, message: str, mark: Any) -> YamlError:
        return YamlError(
            message,
            location=Location(
                file=self.source,
                line=mark.line + self.part.line if mark is not None else None,
                column=mark.column + 1 if mark is not None else None,
                document=max(self.document, 0) + self.part.document,
            ),
        )

    def run(self) -> list[Document]:  # noqa: C901 - one loop per YAML event on purpose, see docstring
        """Every document of the text, built from libyaml's events.

        One long loop on purpose: it runs once per YAML event, the hot path of the precise parser.
        The loop keeps its state in local variables and dispatches on the event class inline;
        splitting it into a method per event would add a call and attribute look-ups to every
        event of a large input. The rarer cases (merge keys, duplicates, errors) are methods.
        """
        loader = yaml.CSafeLoader(self.text)
        get_event = loader.get_event
        source, track = self.source, self.track
        max_depth, max_nodes = self.max_depth, self.max_nodes
        docs: list[Document] = []
        stack: list[_Frame] = []
        anchors: dict[str, _Anchor] = {}
        nodes = self.budget.nodes
        base = self.part.line  # line numbers: mark.line is 0-based within this part
        document_base = self.part.document
        root: Any = None
        root_line = doc_line = base
        dense_until = 0  # text up to here was counted by _dense already
        try:
            while True:
                event: Any = get_event()
                cls = event.__class__
                merge_key = False
                if cls is ScalarEvent:
                    nodes += 1
                    if nodes > max_nodes:
                        raise self.fail(self._too_many(), event.start_mark)
                    if event.tag is None:
                        if event.implicit[0]:
                            value = resolve_plain(event.value)
                            merge_key = event.value == "<<"
                        else:
                            value = event.value
                    else:
                        merge_key = event.tag == _TAG + "merge"
                        try:
                            value = _tagged_scalar(event)
                        except ValueError as exc:
                            raise self.fail(str(exc), event.start_mark) from None
                    if event.anchor is not None:
                        anchors[event.anchor] = _Anchor(value, 1)
                    if not stack:
                        root = value
                        empty = event.value == "" and event.implicit[0] and event.tag is None
                        root_line = doc_line if empty else event.start_mark.line + base
                        continue
                elif cls is MappingStartEvent or cls is SequenceStartEvent:
                    if len(stack) >= max_depth:
                        msg = f"document nests deeper than {max_depth} levels"
                        raise self.fail(msg, event.start_mark)
                    if not stack:
                        root_line = event.start_mark.line + base
                    is_map = cls is MappingStartEvent
                    frame = _Frame(
                        {} if is_map else [], is_map, event.anchor, event.start_mark, nodes
                    )
                    if track and is_map:
                        frame.key_lines = {}
                    nodes += 1
                    if nodes > max_nodes or (
                        event.start_mark.index >= dense_until
                        and nodes + self._dense(event, is_map, max_nodes - nodes) > max_nodes
                    ):
                        raise self.fail(self._too_many(), event.start_mark)
                    dense_until = max(dense_until, self.dense_end)
                    stack.append(frame)
                    continue
                elif cls is MappingEndEvent or cls is SequenceEndEvent:
                    frame = stack.pop()
                    value = frame.container
                    if frame.anchor is not None:
                        anchors[frame.anchor] = _Anchor(value, nodes - frame.start)
                    if not stack:
                        root = value
                        continue
                elif cls is AliasEvent:
                    entry = anchors.get(event.anchor)
                    if entry is None:
                        raise self.fail(self._alias_problem(event.anchor, stack), event.start_mark)
                    if entry.height < 0:
                        entry.height, entry.chars = _measure(entry.value)
                    if len(stack) + entry.height > max_depth:
                        msg = (
                            f"document nests deeper than {max_depth} levels "
                            f"(through alias *{event.anchor})"
                        )
                        raise self.fail(
                            msg,
                            event.start_mark,
                        )
                    nodes += entry.size
                    self._expand(entry, nodes, event)
                    value = _copy(entry.value)
                    if not stack:
                        root = value
                        root_line = event.start_mark.line + base
                        continue
                elif cls is DocumentStartEvent:
                    self.document += 1
                    anchors = {}
                    root = None
                    doc_line = root_line = event.start_mark.line + base
                    continue
                elif cls is DocumentEndEvent:
                    index = self.document + document_base
                    docs.append(Document(source, index, root, start_line=root_line))
                    continue
                elif cls is StreamEndEvent:
                    break
                else:  # StreamStartEvent
                    continue

                # Attach ``value`` to the innermost open collection.
                top = stack[-1]
                if not top.is_map:
                    top.container.append(value)
                elif top.key is _NO_KEY:
                    if merge_key:
                        top.key = _MERGE
                    else:
                        try:
                            top.key = key_text(value)
                        except InvalidKey as exc:
                            mark = event.start_mark if cls is not MappingEndEvent else None
                            raise self.fail(str(exc), mark or top.mark) from None
                        if top.key_lines is not None:
                            top.key_mark = event.start_mark
                            top.key_lines.setdefault(top.key, event.start_mark.line + base)
                else:
                    key = top.key
                    top.key = _NO_KEY
                    mapping = top.container
                    if key is _MERGE:
                        self._merge(top, value, event)
                    elif top.explicit is None:
                        if key in mapping:
                            self._duplicate(top, key)
                        mapping[key] = value
                    else:
                        if key in top.explicit:
                            self._duplicate(top, key)
                        top.explicit.add(key)
                        mapping[key] = value
        except yaml.MarkedYAMLError as exc:
            raise self._syntax_error(exc) from None
        except yaml.reader.ReaderError as exc:
            raise self._reader_error(exc) from None
        finally:
            loader.dispose()
        self.budget.nodes, self.budget.chars = nodes, self.chars
        return docs

    def _dense(self, event: Any, is_map: bool, needed: int) -> int:
        """The nodes the collection ``event`` opens surely holds (:mod:`generator.yamlio.dense`),
        counted from its first entry on; :attr:`dense_end` is where the counted text ends.

        Every node counted takes at least one character, so where the rest of the text is
        shorter than ``needed`` nothing is counted: texts under the node bound never pay."""
        if len(self.text) - event.start_mark.index <= needed:
            self.dense_end = 0
            return 0
        if event.flow_style:
            found, self.dense_end = flow_nodes(self.text, event.end_mark.index, needed)
        else:
            mark = event.start_mark
            found, self.dense_end = block_nodes(
                self.text, mark.index, mark.column, pairs=is_map, needed=needed
            )
        return found

    def _too_many(self) -> str:
        return f"more than {self.max_nodes:,} nodes (scalars, lists and mappings) in one stream"

    def _expand(self, entry: _Anchor, nodes: int, event: Any) -> None:
        """Count one alias: its nodes (already added to ``nodes``) and its characters."""
        if nodes > self.max_nodes:
            msg = f"alias expansion exceeds {self.max_nodes:,} nodes in one stream"
            raise self.fail(msg, event.start_mark)
        self.chars += entry.chars
        if self.chars > self.max_chars:
            msg = (
                f"alias expansion exceeds {self.max_chars >> 20} MiB: *{event.anchor} copies "
                f"{entry.chars:,} characters each time it is used"
            )
            raise self.fail(msg, event.start_mark)

    def _alias_problem(self, name: str, stack: list[_Frame]) -> str:
        if any(frame.anchor == name for frame in stack):
            return f"alias *{name} refers to a node that contains it"
        return f"alias *{name} has no anchor &{name} before it in this document"

    def _merge(self, frame: _Frame, value: Any, event: Any) -> None:
        """go-yaml v2 ``<<``: copy the source mapping(s) in, overwriting, earlier sources win."""
        if type(value) is dict:
            sources = [value]
        elif type(value) is list and all(type(item) is dict for item in value):
            sources = list(reversed(value))
        else:
            msg = "map merge requires map or sequence of maps as the value"
            raise self.fail(msg, event.start_mark)
        mapping = frame.container
        if frame.explicit is None:
            frame.explicit = set(mapping)
        for item in sources:
            mapping.update(item)

    def _duplicate(self, frame: _Frame, key: str) -> None:
        if frame.key_lines is None or frame.key_mark is None:
            raise _DuplicateKey  # re-read with key positions recorded, see parse_documents
        msg = f'duplicate key "{key}" (first at line {frame.key_lines[key]})'
        raise self.fail(msg, frame.key_mark)

    def _syntax_error(self, exc: yaml.MarkedYAMLError) -> YamlError:
        problem = exc.problem or "invalid YAML"
        if _LIBYAML_DEPTH in problem:
            # libyaml's own depth limit (PyYAML >= 6.0.4, deeper than ours) can fire while its
            # scanner looks ahead, before the events that would have crossed ours: same answer
            return self.fail(
                f"document nests deeper than {self.max_depth} levels", exc.problem_mark
            )
        if exc.context:
            problem = f"{problem} ({exc.context})"
        return self.fail(problem, exc.problem_mark or exc.context_mark)

    def _reader_error(self, exc: yaml.reader.ReaderError) -> YamlError:
        offset = exc.position
        line = self.text.encode("utf-8", "surrogatepass")[:offset].count(b"\n") + self.part.line
        character = exc.character
        what = f"U+{character:04X}" if isinstance(character, int) else repr(character)
        return YamlError(
            f"{exc.reason}: character {what} is not allowed in YAML",
            location=Location(
                file=self.source, line=line, document=max(self.document, 0) + self.part.document
            ),
        )


_LIBYAML_DEPTH = "exceeded maximum nesting depth"


def parse_documents(
    text: str,
    *,
    source: str,
    max_depth: int,
    max_nodes: int,
    max_expanded_bytes: int = MAX_EXPANDED_BYTES,
    part: Part | None = None,
    budget: Budget | None = None,
) -> list[Document]:
    """Every document of ``text`` with go-yaml v2 values; YamlError with a location otherwise.

    ``max_nodes`` counts every node, written or copied by an alias, as it is read: a stream over
    the bound stops there, before the rest of its value is built. ``part`` says where ``text``
    sits in a larger stream (lines and document indexes are reported in the stream), ``budget``
    carries the bounds' use from the stream's other parts and is updated.
    """
    limits = (max_depth, max_nodes, max_expanded_bytes)
    where = (part or Part(), budget or Budget())
    try:  # the budget is updated only by a run that succeeds
        return _Builder(text, source, limits, False, where).run()
    except _DuplicateKey:
        return _Builder(text, source, limits, True, where).run()
    except UnicodeEncodeError as exc:
        line = text.count("\n", 0, exc.start) + 1
        msg = f"text contains an unpaired surrogate U+{ord(text[exc.start]):04X}"
        raise YamlError(
            msg,
            location=Location(file=source, line=line),
        ) from None
