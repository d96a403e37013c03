"""The texts between ``---`` lines of a file (its spans), parsed only where needed, and the objects
of a file as kubeconform's report names them (:mod:`generator.kubeconform.files`).

A span is one document in every stream capzgen reads; cutting a file at its ``---`` lines is a
cheap scan, so the spans that matter (those that can embed resources, those that changed) are
parsed alone, in one call for all of them.
"""

from __future__ import annotations

from collections.abc import Sequence

from generator.documents import Document
from generator.findings import JsonPath
from generator.kubeconform.report import Sent
from generator.kubeconform.sent import sent_objects
from generator.kubeconform.stream import object_signature
from generator.yamlio.chunks import Chunk, Span, one_per_chunk, parse_chunk, spans_of
from generator.yamlio.load import load_documents


class FileObjects:
    """One file's objects as kubeconform's report names them: top-level objects by signature,
    embedded resources by place."""

    def __init__(self, text: str, label: str) -> None:
        self.top: dict[tuple[str, str, str], list[Sent]] = {}
        self.embedded: dict[tuple[int, int, JsonPath], Sent] = {}
        spans = spans_of(text, label)
        filled = [n for n, (start, end, _) in enumerate(spans) if text[start:end].strip()]
        for span, documents in parse_spans(text, label, spans, filled, whole=True):
            for number, document in enumerate(documents):
                for sent in sent_objects([document]):
                    if sent.prefix:
                        self.embedded[(span, number, sent.prefix)] = sent
                    else:
                        self.top.setdefault(object_signature(sent.obj), []).append(sent)

    def at(self, span: int, number: int, prefix: JsonPath) -> Sent | None:
        """The embedded resource at ``prefix`` of document ``number`` of span ``span``."""
        return self.embedded.get((span, number, prefix))


def parse_spans(
    text: str, label: str, spans: Sequence[Span], chosen: Sequence[int], *, whole: bool = False
) -> list[tuple[int, list[Document]]]:
    """The documents of the ``chosen`` spans (numbers into ``spans``), each span's own list.

    The spans are parsed in one call, joined (``whole``: ``text`` itself, every span that is not
    blank chosen), when that gives exactly one document per span, as it does for any stream
    capzgen reads; otherwise span by span. Document numbers are those of the whole file only
    with ``whole``.
    """
    if whole:
        joined, pieces = text, [spans[n] for n in chosen]
    else:
        joined, pieces = joined_spans(text, [spans[n] for n in chosen])
    documents = load_documents(joined, source=label)
    if one_per_chunk(pieces, documents, joined):
        return [(n, [document]) for n, document in zip(chosen, documents, strict=True)]
    parsed: list[tuple[int, list[Document]]] = []
    index = 0
    for n in chosen:
        start, end, line = spans[n]
        found = parse_chunk(Chunk(0, start, end, index, line), text, label)
        index += len(found)
        parsed.append((n, found))
    return parsed


def joined_spans(text: str, spans: Sequence[Span]) -> tuple[str, list[Span]]:
    """The text of ``spans`` as one stream, each a document of its own, and where each now lies."""
    parts: list[str] = []
    pieces: list[Span] = []
    offset, line = 0, 1
    for start, end, _ in spans:
        piece = text[start:end]
        if not piece.startswith("---"):
            piece = "---\n" + piece
        if not piece.endswith("\n"):
            piece += "\n"
        parts.append(piece)
        pieces.append((offset, offset + len(piece), line))
        offset += len(piece)
        line += piece.count("\n")
    return "".join(parts), pieces
