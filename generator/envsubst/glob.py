"""The glob dialect of drone/envsubst's ``#``/``%`` operators (a modified copy of Go's path.Match).

Differences from shell globbing that users will notice, all kept on purpose:

* ``*`` matches any byte sequence *including* ``/``; ``?`` matches one character (or one invalid
  byte) including ``/``.
* Classes are ``[...]`` with ranges ``a-z``, negation is ``[^...]`` (not ``!``), ``\\`` escapes;
  a class must be non-empty and closed, otherwise the pattern is malformed.
* Malformed patterns are only detected on the path the matcher actually walks (like Go), and the
  callers then leave the value unchanged.
* Everything runs on bytes: the trim operators try byte-length prefixes, so a prefix may end in
  the middle of a multi-byte character.
"""

from __future__ import annotations

from generator.envsubst.encoding import RUNE_ERROR, decode_rune

_STAR = ord("*")
_QUESTION = ord("?")
_OPEN = ord("[")
_CLOSE = ord("]")
_CARET = ord("^")
_DASH = ord("-")
_BACKSLASH = ord("\\")


class BadPattern(Exception):
    """The pattern is malformed at the point the matcher reached."""


def _split_chunk(pattern: bytes) -> tuple[bool, bytes, bytes]:
    """Leading stars (any number count as one), then the literal/class/``?`` run up to the next
    star outside a class."""
    index = 0
    while index < len(pattern) and pattern[index] == _STAR:
        index += 1
    star = index > 0
    pattern = pattern[index:]
    in_class = False
    cursor = 0
    while cursor < len(pattern):
        byte = pattern[cursor]
        if byte == _BACKSLASH:
            if cursor + 1 < len(pattern):
                cursor += 1
        elif byte == _OPEN:
            in_class = True
        elif byte == _CLOSE:
            in_class = False
        elif byte == _STAR and not in_class:
            break
        cursor += 1
    return star, pattern[:cursor], pattern[cursor:]


def _class_member(chunk: bytes) -> tuple[int, bytes]:
    """One (possibly escaped) character of a class; the class must continue after it."""
    if not chunk or chunk[0] in (_DASH, _CLOSE):
        raise BadPattern
    if chunk[0] == _BACKSLASH:
        chunk = chunk[1:]
        if not chunk:
            raise BadPattern
    rune, width = decode_rune(chunk, 0)
    rest = chunk[width:]
    if (rune == RUNE_ERROR and width == 1) or not rest:
        raise BadPattern
    return rune, rest


def _match_class(chunk: bytes, rune: int) -> tuple[bool, bytes]:
    """Whether ``rune`` is in the class that ``chunk`` starts (just after its ``[``), and the rest
    of the chunk after the class's ``]``. Every range is parsed, as in Go, so a malformed class
    raises :class:`BadPattern` even when an earlier range matched."""
    negated = bool(chunk) and chunk[0] == _CARET
    if negated:
        chunk = chunk[1:]
    matched = False
    while True:  # a class has at least one range: "[]" and "[^]" are malformed
        low, chunk = _class_member(chunk)  # never leaves ``chunk`` empty
        high = low
        if chunk[0] == _DASH:
            high, chunk = _class_member(chunk[1:])
        if low <= rune <= high:
            matched = True
        if chunk[0] == _CLOSE:
            return matched != negated, chunk[1:]


def _match_chunk(chunk: bytes, name: bytes) -> bytes | None:
    """If ``chunk`` matches a prefix of ``name``, the rest of ``name``; otherwise ``None``."""
    while chunk:
        if not name:
            return None
        head = chunk[0]
        if head == _OPEN:
            rune, width = decode_rune(name, 0)
            name = name[width:]
            matched, chunk = _match_class(chunk[1:], rune)
            if not matched:
                return None
        elif head == _QUESTION:
            _, width = decode_rune(name, 0)
            name = name[width:]
            chunk = chunk[1:]
        else:
            if head == _BACKSLASH:
                chunk = chunk[1:]
                if not chunk:
                    raise BadPattern
            if chunk[0] != name[0]:
                return None
            name = name[1:]
            chunk = chunk[1:]
    return name


def glob_match(pattern: bytes, name: bytes) -> bool:
    """Whether all of ``name`` matches ``pattern``; raises :class:`BadPattern`."""
    while pattern:
        star, chunk, pattern = _split_chunk(pattern)
        if star and not chunk:
            return True  # a trailing star swallows everything, "/" included
        rest = _match_chunk(chunk, name)
        if rest is not None and (not rest or pattern):
            name = rest
            continue
        if star:
            advanced = False
            for skip in range(1, len(name) + 1):
                rest = _match_chunk(chunk, name[skip:])
                if rest is None or (not pattern and rest):
                    continue
                name = rest
                advanced = True
                break
            if advanced:
                continue
        return False
    return not name
