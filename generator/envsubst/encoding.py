"""Go string semantics on top of Python ``str``.

drone/envsubst works on Go strings, which are byte strings that are *usually* UTF-8. capzgen reads
files with ``errors="surrogateescape"``, so every byte that is not part of valid UTF-8 arrives as a
lone surrogate U+DC80..U+DCFF. Python's UTF-8 decoder splits an invalid sequence into one surrogate
per byte, exactly like Go's ``utf8.DecodeRune`` yields one ``RuneError`` of width 1 per byte, so
"one character of a surrogateescape string" and "one decoding step of Go" are the same unit.

Everything that Go does on bytes (lengths, offsets, glob matching) goes through :func:`to_bytes`
and back through :func:`from_bytes`, so a multi-byte character cut in half round-trips to the very
same bytes clusterctl would print.
"""

from __future__ import annotations

import codecs
from typing import Final

RUNE_ERROR = 0xFFFD
_ESCAPE_LOW = 0xDC80
_ESCAPE_HIGH = 0xDCFF
_HANDLER = "capzgen.envsubst.bytes"


def _encode_surrogates(error: UnicodeError) -> tuple[bytes, int]:
    """Encode lone surrogates: U+DC80..U+DCFF are raw bytes, any other surrogate is kept as the
    three bytes a UTF-8 encoder without checks would write (Go would see three invalid bytes).
    """
    if not isinstance(error, UnicodeEncodeError):
        raise error
    out = bytearray()
    for char in error.object[error.start : error.end]:
        code = ord(char)
        if _ESCAPE_LOW <= code <= _ESCAPE_HIGH:
            out.append(code - 0xDC00)
        else:
            out += char.encode("utf-8", "surrogatepass")
    return bytes(out), error.end


codecs.register_error(_HANDLER, _encode_surrogates)


def to_bytes(text: str) -> bytes:
    """The bytes a Go program would hold for ``text``."""
    return text.encode("utf-8", _HANDLER)


def from_bytes(data: bytes) -> str:
    """Inverse of :func:`to_bytes` for any byte string (invalid bytes become escape surrogates)."""
    return data.decode("utf-8", "surrogateescape")


def canonical(text: str) -> str:
    """``text`` with every invalid byte as exactly one escape surrogate (one Go decoding step)."""
    if text.isascii():
        return text
    return from_bytes(to_bytes(text))


def is_invalid_byte(char: str) -> bool:
    """True for the escape surrogate that stands for one byte that is not valid UTF-8."""
    return _ESCAPE_LOW <= ord(char) <= _ESCAPE_HIGH


def go_width(char: str) -> int:
    """Bytes Go's decoder consumes for this character (1 for an invalid byte or any surrogate)."""
    code = ord(char)
    if code < 0x80 or 0xD800 <= code <= 0xDFFF:
        return 1
    if code < 0x800:
        return 2
    if code < 0x10000:
        return 3
    return 4


# Go's ``utf8.first`` and ``acceptRanges`` tables in one: for each byte that starts a multi-byte
# sequence, the number of continuation bytes and the range the first of them must be in (which
# rules out overlong forms, surrogates and values above U+10FFFF). Other bytes never start one.
_LEAD_RANGES: Final = (
    # first byte, last byte, continuation bytes, low, high
    (0xC2, 0xDF, 1, 0x80, 0xBF),
    (0xE0, 0xE0, 2, 0xA0, 0xBF),
    (0xE1, 0xEC, 2, 0x80, 0xBF),
    (0xED, 0xED, 2, 0x80, 0x9F),
    (0xEE, 0xEF, 2, 0x80, 0xBF),
    (0xF0, 0xF0, 3, 0x90, 0xBF),
    (0xF1, 0xF3, 3, 0x80, 0xBF),
    (0xF4, 0xF4, 3, 0x80, 0x8F),
)
_LEADS: Final = {
    byte: (need, low, high)
    for first, last, need, low, high in _LEAD_RANGES
    for byte in range(first, last + 1)
}


def decode_rune(data: bytes, index: int) -> tuple[int, int]:
    """Go's ``utf8.DecodeRune(data[index:])``: (rune, width), ``(RUNE_ERROR, 1)`` when invalid.

    ``index`` must be inside ``data``.
    """
    first = data[index]
    if first < 0x80:
        return first, 1
    lead = _LEADS.get(first)
    if lead is None or len(data) - index <= lead[0]:
        return RUNE_ERROR, 1
    need, low, high = lead
    if not low <= data[index + 1] <= high:
        return RUNE_ERROR, 1
    for offset in range(2, need + 1):
        if not 0x80 <= data[index + offset] <= 0xBF:
            return RUNE_ERROR, 1
    return ord(data[index : index + need + 1].decode("utf-8")), need + 1


def go_runes(data: bytes) -> list[int]:
    """``[]rune(string(data))``: invalid bytes become U+FFFD."""
    return [RUNE_ERROR if is_invalid_byte(char) else ord(char) for char in from_bytes(data)]


def encode_runes(runes: list[int]) -> bytes:
    """``string(runes)`` for runes that are all valid scalar values."""
    return "".join(map(chr, runes)).encode("utf-8")
