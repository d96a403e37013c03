"""Files cut into chunks at their ``---`` lines: the layer below the validate run and kubeconform.

A chunk is the text between two separators: one document, rarely more. Both the validate run
(which parses and places documents chunk by chunk, in any process) and kubeconform's file runs
(which map its report back to the documents of a file) cut texts the same way, with this one
rule; a text's digest names it between the passes and in the result cache.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import pairwise

from generator.documents import Document
from generator.errors import InputOutputError, Location, YamlError
from generator.yamlio.block import fast_spans
from generator.yamlio.load import load_documents, separators


@dataclass(frozen=True, slots=True)
class Chunk:
    """The text between two ``---`` lines of a source: one document (rarely more, after ``...``)."""

    source: int  # position in the list of sources
    start: int  # character offsets in the source's text
    end: int
    index: int  # the source's document index of the chunk's first document
    line: int  # 1-based line of the chunk's first character


# One chunk of a source: (start, end, first line), as :func:`spans_of` gives it; plain tuples, as
# many as the input has documents (the validate run pickles them to its workers).
Span = tuple[int, int, int]


def text_digest(text: str) -> str:
    """A file's identity between the passes (a hash of its text)."""
    # lazy: hashlib loads OpenSSL (2.3 ms), on the way to the first piece of a -j N run
    import hashlib

    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def changed_while_reading(name: str) -> InputOutputError:
    """A file read twice (large inputs) that differs the second time."""
    msg = "the file changed while capzgen was validating it"
    return InputOutputError(msg, location=Location(file=name), hint="run capzgen validate again")


def spans_of(text: str, name: str) -> list[Span]:
    """(start, end, first line) of the text between ``---`` lines (the separator rule checked):
    from the C reader where it is built in (one pass, 1.3 ms for the 3.4 MB fleet against 5.1),
    else, or for a separator line it refuses, here."""
    fast = fast_spans(text)
    return checked_spans(text, name) if fast is None else fast


def checked_spans(text: str, name: str) -> list[Span]:
    """:func:`spans_of` in Python (a pure install's, and where a ``---`` line is an error)."""
    bounds = separators(text, name)
    if not bounds or bounds[0] != 0:
        bounds.insert(0, 0)
    bounds.append(len(text))
    found = []
    line = 1
    for start, end in pairwise(bounds):
        if end > start:
            found.append((start, end, line))
        line += text.count("\n", start, end)
    return found


def parse_chunk(chunk: Chunk, text: str, name: str) -> list[Document]:
    """The documents of one chunk, numbered and placed as in the whole source."""
    try:
        documents = load_documents(text[chunk.start : chunk.end], source=name)
    except YamlError as error:
        raise _moved(error, chunk) from None
    return [
        Document(
            name,
            chunk.index + number,
            document.obj,
            None if document.start_line is None else document.start_line + chunk.line - 1,
        )
        for number, document in enumerate(documents)
    ]


def _moved(error: YamlError, chunk: Chunk) -> YamlError:
    loc = error.location
    if loc is None:
        return error
    moved = Location(
        file=loc.file,
        line=None if loc.line is None else loc.line + chunk.line - 1,
        column=loc.column,
        document=None if loc.document is None else loc.document + chunk.index,
    )
    return YamlError(error.message, location=moved, hint=error.hint)


def parsed_by_chunk(source: int, text: str, name: str) -> Iterator[tuple[Chunk, list[Document]]]:
    """Each chunk of ``text`` holding documents, with them: a parse error names its line in the
    whole text, and the chunks before it have been yielded already."""
    index = 0
    for start, end, line in spans_of(text, name):
        chunk = Chunk(source, start, end, index, line)
        documents = parse_chunk(chunk, text, name)
        if documents:
            yield chunk, documents
            index += len(documents)


def one_per_chunk(
    spans: Sequence[tuple[int, int, int]], documents: Sequence[Document], text: str
) -> bool:
    """Whether ``documents``, parsed from the text of ``spans`` at once, are one per span and in
    them (each starts within its span): then each document can be placed in its chunk."""
    return len(spans) == len(documents) and all(
        document.start_line is None
        or line <= document.start_line <= line + text.count("\n", start, end)
        for (start, end, line), document in zip(spans, documents, strict=True)
    )


def parsed_whole(source: int, text: str, name: str) -> list[tuple[Chunk, list[Document]]] | None:
    """The documents of the whole text with the chunk each came from, when there is exactly one
    document per chunk (the usual case; ``...`` end markers are not), else None."""
    spans = [span for span in spans_of(text, name) if text[span[0] : span[1]].strip()]
    documents = load_documents(text, source=name)
    if not one_per_chunk(spans, documents, text):
        return None
    return [
        (Chunk(source, start, end, document.index, line), [document])
        for (start, end, line), document in zip(spans, documents, strict=True)
    ]
