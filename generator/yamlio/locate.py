"""Line numbers for findings: where a JSON path of a loaded document sits in the text.

Values are loaded without positions (that is what keeps loading fast); only when a finding needs
a line is the text parsed again into a light tree of line numbers (:mod:`generator.yamlio.linetree`,
which loads PyYAML), and only the document that has the finding (cut at its ``---`` lines, as the
loader cuts a stream), once. Document indexes are libyaml's, so they match
:func:`~generator.yamlio.load.load_documents`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from generator.errors import YamlError
from generator.findings import JsonPath
from generator.yamlio.detect import stream_markers
from generator.yamlio.load import document_spans, layout

if TYPE_CHECKING:
    from generator.yamlio.linetree import Node


def line_trees(text: str, base: int = 1) -> list[Node]:
    """The line tree of every document of ``text`` (see :func:`generator.yamlio.linetree.build`)."""
    # lazy: PyYAML and the tree builder load only when a finding needs a line
    from generator.yamlio.linetree import build

    return build(text, base)


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
        self._roots: dict[int, Node | None] | None = None
        self._whole: list[Node] | None = None

    def _root(self, document: int) -> Node | None:
        if self._roots is None:
            self._roots = {}
            self._spans = _spans(self._text)
        if document not in self._roots:
            self._roots[document] = self._read(document)
        return self._roots[document]

    def _read(self, document: int) -> Node | None:
        if self._spans is None:
            if self._whole is None:
                self._whole = line_trees(self._text)
            roots = self._whole
            return roots[document] if 0 <= document < len(roots) else None
        if not 0 <= document < len(self._spans):
            return None
        start, end, line = self._spans[document]
        roots = line_trees(self._text[start:end], line)
        return roots[0] if roots else None

    def line_of(self, document: int, path: JsonPath) -> int | None:
        """1-based line of ``path`` in document ``document``.

        A mapping entry answers with the line of its key; a path that does not exist answers
        with the line of its deepest existing ancestor; a document the line tree cannot read
        (libyaml gives up on it before its first node) with the line it starts at; an unknown
        document with None.
        """
        node = self._root(document)
        if node is None:
            spans = self._spans
            return spans[document][2] if spans is not None and 0 <= document < len(spans) else None
        line = node.line
        for part in path:
            found = node.child(part)
            if found is None:
                break
            line, node = found
        return line
