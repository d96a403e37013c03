"""The C fast path for block-style YAML (``_blockyaml.c``): Kubernetes manifests without ryaml.

Most manifests are plain block YAML: mappings, sequences, one-line scalars, a few literal blocks.
For those, a small hand-written C reader builds the values about seven times faster than ryaml
(the cost is ryaml's parser, not building the objects). Its contract is strict: it returns the
documents' values only where they are exactly what both ryaml (YAML 1.2) and the precise path
(go-yaml v2, :mod:`generator.yamlio.precise`) return, types, values and key order alike, and
None for anything outside its conservative subset or anything either parser would refuse
(duplicate keys, bad indentation). So when it answers, the loader needs neither ryaml nor the
:func:`~generator.yamlio.detect.needs_precise` scan: plain scalars on which YAML 1.2 and
go-yaml v2 could disagree (``yes``, ``010``, ``1_000``, ``0x1F``, ``.inf``, timestamps, ...),
anchors, aliases, tags, merge and complex keys all make it answer None.

The subset (``_blockyaml.c`` has the details): ASCII text without tabs, carriage returns or
control characters; ``---`` lines with at most a comment after them; comments; block mappings
and sequences as Kubernetes writes them (``key:`` followed by ``- item`` at the key's column
too); one-line plain, single- and double-quoted scalars (common escapes only); flow collections
on one line; literal blocks ``|``, ``|-``, ``|+``; plain scalars resolved only where both
schemas agree (``null``/``~``/``true``/``False``..., decimal ints up to 18 digits, simple
decimals, and strings that no number form of either schema could match). Refused: folded
blocks, indentation indicators, multi-line scalars, anchors, aliases, tags, complex and merge
keys, directives, ``...``, keys that are not strings, scalar documents, nesting beyond 100.

The same extension cuts a text at its ``---`` lines (:func:`fast_spans`, :func:`fast_layout`:
what every parse of a stream starts with) and finds a control
byte in a file's bytes (:func:`first_control`): what the parent of a ``-j N`` run does to the
whole input before its workers get their first piece, in one pass each and without a copy.

The extension is built only into compiled wheels (``hatch_build.py``); pure installs (editable,
sdist) have no compiler step and read every text the way they always did.
"""

from __future__ import annotations

from types import ModuleType
from typing import Final

from generator.jsontypes import Json


def _extension() -> ModuleType | None:
    """The compiled reader, or None in a pure install."""
    try:
        # lazy: an optional extension, only in compiled wheels; looked for once, at import
        from generator.yamlio import _blockyaml
    except ImportError:
        return None
    return _blockyaml  # type: ignore[no-any-return]


_READER: Final = _extension()

VERSION: Final[int | None] = None if _READER is None else int(_READER.VERSION)
"""The fast reader's version (None without it): part of the result cache's key, so a fixed
reader never reuses verdicts reached with an older one."""


def block_documents(text: str) -> list[Json] | None:
    """The values of every document of ``text`` (an empty one is None), or None when the fast
    reader is absent or the text is not in its subset (the caller then reads it as before)."""
    if _READER is None:
        return None
    found: list[Json] | None = _READER.load_all(text)
    return found


def fast_spans(text: str) -> list[tuple[int, int, int]] | None:
    """What :func:`generator.yamlio.chunks.spans_of` finds, from the extension: None when it is
    absent, or when a ``---`` line has more than a comment after it (the Python path then raises
    the error, with its place)."""
    if _READER is None:
        return None
    found: list[tuple[int, int, int]] | None = _READER.spans(text)
    return found


def first_control(data: bytes) -> int | None:
    """The offset of the first control byte YAML forbids in ``data`` (-1: none), or None where
    the extension is absent (see :func:`generator.yamlio.source.decode_source`)."""
    if _READER is None:
        return None
    return int(_READER.first_control(data))


def fast_layout(text: str) -> tuple[list[int], list[int]] | None:
    """What :func:`generator.yamlio.load.layout` finds (the ``---`` lines' offsets, the first
    content line of every document), from the extension: None when it is absent, or when a
    ``---`` line has more than a comment after it (the Python path raises the error)."""
    if _READER is None:
        return None
    found: tuple[list[int], list[int]] | None = _READER.layout(text)
    return found
