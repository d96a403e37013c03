"""Multi-document YAML to Python objects: fast when safe, precise when it matters.

Two parsers read the same text into the same values:

* the fast path, ``ryaml`` (Rust, YAML 1.2 core schema), about twice as fast as building values
  from libyaml events in Python (scan included), used when :func:`~generator.yamlio.detect.needs_precise`
  finds nothing on which YAML 1.2 and Kubernetes' go-yaml v2 could disagree;
* the precise path (:mod:`generator.yamlio.precise`), libyaml's C parser with go-yaml v2 rules,
  used otherwise and whenever the fast path fails for any reason, so every error message comes
  from one place and carries a line, a column and the document index.

Before both, where the compiled wheel carries it, a small C reader (:mod:`generator.yamlio.block`)
reads plain block YAML another seven times faster than ryaml; it answers only for texts on which
both parsers agree, so it skips the scan too, and gives way to the two above on anything else.

The choice is made per document: a stream the scan clears is read by ryaml in one call; otherwise
it is cut at its ``---`` lines, each document is scanned on its own, and only the documents that
need it are read precisely (one ``yes`` in a 7,000-document fleet no longer sends all of them to
the slower parser). Both paths share one node and expanded-size budget per stream.

Both paths see the separator rule of clusterctl's splitter first: a line starting with ``---``
may only carry a comment after it (``--- a: 1`` is valid YAML, but clusterctl refuses it).
"""

from __future__ import annotations

import functools
import json
import re
from itertools import pairwise
from typing import Any, Final, final

import ryaml

from generator.documents import Document
from generator.errors import Location, YamlError
from generator.jsontypes import Json
from generator.yamlio.block import block_documents, fast_layout
from generator.yamlio.budget import Budget, Part
from generator.yamlio.detect import needs_precise, stream_markers
from generator.yamlio.gcpause import gc_paused
from generator.yamlio.limits import MAX_BYTES, MAX_DEPTH, MAX_EXPANDED_BYTES, MAX_NODES
from generator.yamlio.source import iter_files, read_source

__all__ = [
    "MAX_BYTES",
    "MAX_DEPTH",
    "MAX_EXPANDED_BYTES",
    "MAX_NODES",
    "iter_files",
    "load_documents",
    "read_source",
]


def _first_content_line(text: str, pos: int, end: int, line: int) -> int | None:
    """Line number of the first line in ``text[pos:end]`` that is not blank or a comment."""
    while pos < end:
        eol = text.find("\n", pos, end)
        if eol == -1:
            eol = end
        stripped = text[pos:eol].lstrip(" \t")
        if stripped and stripped[0] not in "#\r":
            return line
        pos = eol + 1
        line += 1
    return None


@final
class Layout:
    """Where the documents of a text are, found from its ``---`` lines alone (a plain class, as
    the records imported before ``validate`` forks its workers are: see
    :class:`~generator.validate.passes.RunInputs`)."""

    __slots__ = ("separators", "starts")

    def __init__(self, separators: list[int], starts: list[int]) -> None:
        self.separators: Final = separators  # offsets of the "---" lines
        self.starts: Final = starts  # first content line of every document (1-based)


def separators(text: str, source: str) -> list[int]:
    """The offsets of the ``---`` lines of ``text``, each checked (only a comment may follow it):
    all that cutting a text into chunks needs (:func:`generator.yamlio.chunks.spans_of`), without
    the first content line of every document that :func:`layout` finds besides."""
    found, _, _ = _checked_separators(text, source)
    return found


def layout(text: str, source: str) -> Layout:
    """Find the documents of ``text``, checking each ``---`` line on the way.

    A ``---`` at the start of a line always begins a document in YAML (inside a scalar it is
    an error), so these positions are exact; the fast path uses them as ``start_line`` and to
    check that ryaml saw the same number of documents as libyaml will.
    """
    fast = fast_layout(text)  # the C reader's one pass, where it is built in
    return checked_layout(text, source) if fast is None else Layout(*fast)


def checked_layout(text: str, source: str) -> Layout:
    """:func:`layout` in Python (a pure install's, and where a ``---`` line is an error)."""
    found, implicit, ends = _checked_separators(text, source)
    starts = [] if implicit is None else [implicit]
    line = 1
    previous = 0
    for number, (offset, eol) in enumerate(zip(found, ends, strict=True)):
        line += text.count("\n", previous, offset)
        previous = offset
        end = found[number + 1] if number + 1 < len(found) else len(text)
        content = _first_content_line(text, eol + 1, end, line + 1)
        starts.append(line if content is None else content)
    return Layout(found, starts)


def _checked_separators(text: str, source: str) -> tuple[list[int], int | None, list[int]]:
    """The ``---`` lines of ``text`` (where each starts and ends, checked) and the first
    content line of a document before the first of them, if there is one."""
    found = _separator_offsets(text)
    implicit = _first_content_line(text, 0, found[0] if found else len(text), 1)
    return found, implicit, _checked_line_ends(text, source, found, implicit is not None)


def _separator_offsets(text: str) -> list[int]:
    """Where the lines starting with ``---`` start."""
    found = [0] if text.startswith("---") else []
    at = text.find("\n---")
    while at != -1:
        found.append(at + 1)
        at = text.find("\n---", at + 4)
    return found


def _checked_line_ends(text: str, source: str, found: list[int], implicit: bool) -> list[int]:
    """Where each ``---`` line of ``found`` ends; a YamlError for the first one followed by more
    than a comment (``implicit``: a document comes before the first, which counts it)."""
    ends = []
    for number, offset in enumerate(found):
        eol = text.find("\n", offset)
        eol = len(text) if eol == -1 else eol
        rest = text[offset + 3 : eol]
        trailing = rest.strip(" \t\r")
        if trailing and (rest[0] not in " \t" or not trailing.startswith("#")):
            msg = (
                f'invalid document separator "{text[offset:eol].rstrip()}": only a comment may '
                'follow "---" on its line'
            )
            line = text.count("\n", 0, offset) + 1
            where = Location(file=source, line=line, column=1, document=implicit + number)
            raise YamlError(
                msg, location=where, hint='put the document content on the line after "---"'
            )
        ends.append(eol)
    return ends


def _shallow(text: str, separators: list[int]) -> bool:
    """Whether no document can nest flow collections deeper than MAX_DEPTH.

    libyaml (inside ryaml too) slows down quadratically with flow nesting depth, and ryaml reads
    a whole document before its own depth check, so ``{a: {a: ...`` a million times deep would
    hang it. Counting every ``[`` and ``{`` of a document over-estimates its depth (brackets in
    strings count too), which is the safe direction; such texts go to the precise path, which
    stops at MAX_DEPTH.
    """
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return True
    bounds = [0, *separators, len(text)]
    return all(
        text.count("[", start, end) + text.count("{", start, end) <= MAX_DEPTH
        for start, end in pairwise(bounds)
    )


_NODE_SITES: Final = ("\n", ",", ":", "-", "?", "[", "{")


def node_estimate(text: str) -> int:
    """An upper bound of the nodes in ``text``, from a few byte counts.

    Every node starts a line or follows one of ``, : - ? [ {`` on its line, and no such place
    starts more than two nodes (``a: b`` at a line start opens a mapping and its first key), so
    twice the number of these places bounds the count.
    """
    return 2 * (1 + sum(text.count(site) for site in _NODE_SITES))


def few_nodes(text: str, limit: int = MAX_NODES) -> bool:
    """Whether ``text`` surely holds at most ``limit`` nodes.

    ryaml builds a whole stream before Python sees any of it (16 million numbers are 5 GB in
    its tree), so a text that may hold more nodes than the bound goes to the precise path, which
    counts them exactly as it reads and stops at the bound. A text under ``limit / 2``
    characters needs no counting: a place is at least one character.
    """
    return 2 * (len(text) + 1) <= limit or node_estimate(text) <= limit


def _ryaml_loads_all(text: str) -> list[Json]:
    """ryaml's public ``loads_all``.

    ryaml's ``__init__`` re-exports it from its compiled module with a plain ``from ._ryaml import
    ...``, which mypy --strict does not count as an explicit re-export (the stub types are still
    found), hence the one ``attr-defined`` ignore, kept here instead of importing ``ryaml._ryaml``.
    """
    return ryaml.loads_all(text)  # type: ignore[attr-defined]


def _fast_documents(
    text: str, source: str, found: Layout, first_index: int = 0
) -> list[Document] | None:
    """ryaml's reading, or None when it fails or disagrees on the number of documents.

    ryaml has no bounds of its own, so each is settled before it runs: size by the reader,
    nesting by :func:`_shallow`, nodes by :func:`few_nodes`, and alias expansion (nodes and
    characters) by never giving it a text with an alias: :func:`needs_precise` sends every
    ``&anchor`` and ``*alias`` to the precise path, which counts both.
    """
    if not (_shallow(text, found.separators) and few_nodes(text)):
        return None
    try:
        with gc_paused():
            objects: list[Json] | None = _ryaml_loads_all(text)
    except Exception:  # any failure: the precise path re-reads and explains
        return None
    objects = objects or []
    if len(objects) != len(found.starts):
        return None
    return [
        Document(source, index, obj, start_line=line)
        for index, (obj, line) in enumerate(zip(objects, found.starts, strict=True), first_index)
    ]


def _block_documents(text: str, source: str, found: Layout) -> list[Document] | None:
    """The C reader's documents (:mod:`generator.yamlio.block`), or None when it is absent, the
    text is outside its subset or it saw another number of documents than ``found``.

    It only answers where ryaml and go-yaml v2 agree, so no :func:`needs_precise` scan is needed;
    its bounds are the caller's (size, :func:`few_nodes`) and its own depth cap, below MAX_DEPTH.
    """
    with gc_paused():
        objects = block_documents(text)
    if objects is None or len(objects) != len(found.starts):
        return None
    return [
        Document(source, index, obj, start_line=line)
        for index, (obj, line) in enumerate(zip(objects, found.starts, strict=True))
    ]


def document_spans(text: str, found: Layout) -> list[tuple[int, int]]:
    """Start and end offset of every document of ``text``, cut at its ``---`` lines.

    A text before the first ``---`` that holds no document (comments) goes with the first one.
    """
    cuts = found.separators
    if cuts and len(found.starts) == len(cuts):
        cuts = cuts[1:]  # no implicit first document
    return list(pairwise([0, *cuts, len(text)]))


@final
class _Group:
    """Consecutive documents that go to the same parser: text[start:end], documents first..."""

    __slots__ = ("end", "first", "layout", "precise", "start")

    def __init__(self, start: int, end: int, precise: bool, first: int, layout: Layout) -> None:
        self.start: Final = start
        self.end: Final = end
        self.precise: Final = precise
        self.first: Final = first  # index of its first document in the stream
        self.layout: Final = layout  # separators relative to ``start``, lines in the stream


def _groups(text: str, found: Layout) -> list[_Group]:
    """The stream cut at its ``---`` lines, each document judged by :func:`needs_precise` alone,
    and neighbours with the same verdict joined (one ryaml call per run of fast documents)."""
    groups: list[_Group] = []
    for index, (start, end) in enumerate(document_spans(text, found)):
        precise = needs_precise(text[start:end])
        if groups and groups[-1].precise == precise:
            last = groups[-1]
            separators = [*last.layout.separators, start - last.start]
            starts = [*last.layout.starts, found.starts[index]]
            groups[-1] = _Group(last.start, end, precise, last.first, Layout(separators, starts))
        else:
            separators = [0] if text.startswith("---", start) else []
            groups.append(
                _Group(start, end, precise, index, Layout(separators, [found.starts[index]]))
            )
    return groups


def load_documents(text: str, *, source: str) -> list[Document]:
    """Every document of ``text`` (empty ones too, as ``obj=None``), values as Kubernetes reads them.

    Non-mapping documents are returned as they are; deciding that a document must be a
    Kubernetes object is validation's job. Keys are always strings (Kubernetes converts ``1:``
    to ``"1"``); a duplicate key, a syntax error or a broken limit is a YamlError.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    found = layout(text, source)
    if not found.starts or stream_markers(text) or not few_nodes(text):
        return _precise(text, source)  # the precise path counts every node of a dense stream
    block = _block_documents(text, source, found)
    if block is not None:  # plain block YAML: the C reader, which needs no needs_precise scan
        return block
    if not needs_precise(text):  # the common case: one scan and one ryaml call for the stream
        whole = _fast_documents(text, source, found)
        if whole is not None:
            return whole
    documents: list[Document] = []
    budget = Budget()
    for group in _groups(text, found):
        part = text[group.start : group.end]
        fast = None if group.precise else _fast_documents(part, source, group.layout, group.first)
        if fast is None:
            where = Part(text.count("\n", 0, group.start) + 1, group.first)
            documents.extend(_precise(part, source, where, budget))
        else:
            budget.nodes += node_estimate(part)
            budget.chars += len(part)
            documents.extend(fast)
    return documents


def _precise(
    text: str, source: str, part: Part | None = None, budget: Budget | None = None
) -> list[Document]:
    # lazy: PyYAML (~10 ms of start-up) loads only when a text needs the precise path
    from generator.yamlio.precise import parse_documents

    with gc_paused():
        return parse_documents(
            text,
            source=source,
            max_depth=MAX_DEPTH,
            max_nodes=MAX_NODES,
            max_expanded_bytes=MAX_EXPANDED_BYTES,
            part=part,
            budget=budget,
        )


@functools.cache
def _value_loader() -> Any:
    """PyYAML's safe reading without timestamps (dates stay strings, as everywhere in capzgen);
    built on first use, so that reading manifests alone does not load PyYAML."""
    # lazy: as the docstring says
    import yaml

    class ValueLoader(yaml.CSafeLoader):
        """The safe loader, its timestamp resolver left out."""

    ValueLoader.yaml_implicit_resolvers = {
        key: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for key, resolvers in yaml.CSafeLoader.yaml_implicit_resolvers.items()
    }
    return ValueLoader


def load_manifest_value(text: str, *, source: str) -> Json:
    """One document read as Kubernetes reads manifests (go-yaml semantics, every bound), for YAML
    or JSON text embedded in manifests (CAPZ's patch strings); an empty text is None."""
    documents = [d for d in load_documents(text, source=source) if d.obj is not None]
    if len(documents) > 1:
        msg = f"expected one YAML document, found {len(documents)}"
        raise YamlError(msg, location=Location(file=source, line=documents[1].start_line))
    return documents[0].obj if documents else None


def load_value(text: str, *, source: str) -> Json:
    """One YAML (or JSON) document as a plain value, for the small YAML inputs that are not
    manifests: clusterctl config, flavor metadata, typed variable values, sources lists.

    The manifest loader runs first as a guard, so every bound holds (size, depth, nodes, alias
    expansion) and duplicate keys are refused; the value itself is PyYAML's safe reading, which is
    what these files have always meant (``n`` is a string here, while go-yaml v2, and so a
    manifest, reads it as false). An empty text is None.
    """
    if load_manifest_value(text, source=source) is None:
        return None
    loader = _value_loader()
    # lazy: PyYAML, loaded by _value_loader just before
    import yaml

    try:
        return yaml.load(text, Loader=loader)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        msg = f"invalid YAML: {getattr(error, 'problem', None) or error}"
        line = mark.line + 1 if mark is not None else None
        raise YamlError(msg, location=Location(file=source, line=line)) from None


# A JSON string: no quote or backslash, or a backslash and any one character. The two
# alternatives never match the same character, so the scan is linear.
_JSON_STRING: Final = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)


def _json_nodes(text: str) -> int:
    """Most values (and keys) ``text`` can hold as JSON, without building any of them.

    A value other than the first follows a ``[``, a ``,`` or a ``:`` outside strings; keys follow
    a ``{`` or a ``,``. Counting those characters over the whole text first is an upper bound
    that settles almost every input; only a text it cannot clear is counted again with its
    strings blanked out (one linear pass).
    """
    if 2 * (1 + sum(text.count(site) for site in "[{,:")) <= MAX_NODES:
        return 0
    bare = _JSON_STRING.sub('""', text)
    return 1 + sum(bare.count(site) for site in "[{,:")


def load_json(text: str, *, source: str) -> Json:
    """Strict JSON (no YAML leniency) within the depth and node bounds, checked before the value
    is built; errors carry line and column."""
    if _json_nodes(text) > MAX_NODES:
        msg = f"more than {MAX_NODES:,} values in one JSON text"
        raise YamlError(msg, location=Location(file=source))
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        msg = f"invalid JSON: {error.msg}"
        raise YamlError(
            msg, location=Location(file=source, line=error.lineno, column=error.colno)
        ) from None
    except RecursionError:
        value = None
        too_deep = True
    else:
        too_deep = nests_deeper_than(value, MAX_DEPTH)
    if too_deep:
        msg = f"nested deeper than {MAX_DEPTH} levels"
        raise YamlError(msg, location=Location(file=source))
    return value


def nests_deeper_than(value: Json, limit: int) -> bool:
    """Whether ``value`` nests lists or mappings more than ``limit`` deep (iteratively)."""
    stack: list[tuple[Json, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict | list):
            if depth > limit:
                return True
            children = node.values() if isinstance(node, dict) else node
            stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False
