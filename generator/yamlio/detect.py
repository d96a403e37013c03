"""Decide whether the fast YAML 1.2 parser may read a text, or the precise go-yaml v2 one must.

ryaml resolves scalars by the YAML 1.2 core schema; Kubernetes (go-yaml v2) by YAML 1.1-ish
rules. The two agree on almost every real manifest, so the fast path is used unless the raw text
contains something on which they could disagree. The scan is deliberately generous: a false
alarm only costs speed, a miss would give a wrong value.

Where the compiled C reader (:mod:`generator.yamlio.block`) accepts a text, this scan does not run
at all: that reader answers only for texts inside a subset on which both parsers provably agree
(it refuses every spelling listed below itself), which is what makes it worth having.

Speed matters as much as coverage (the scan runs before every fast load): every pattern starts
with a literal character so the regex engine skips through the text at C speed, and rare
characters are checked with ``in`` (memchr) before any regex runs. About 30 ms for 3 MB,
against about 200 ms for ryaml itself.

Disagreements covered (see :mod:`generator.yamlio.scalars` for the go-yaml rules):

* ``y``, ``n``, ``yes``, ``no``, ``on``, ``off`` in any case (booleans for go-yaml);
* numbers with a leading zero (``010`` is octal 8 for go-yaml, a string for YAML 1.2), an
  upper-case base prefix (``0X1F``) or an underscore (``1_000``);
* keys that resolve to something other than a string (``1:``, ``true:``, ``~:``, ``: x``,
  ``? complex``), which ryaml returns as ``int``/``bool``/``None`` while we convert them to
  strings as Kubernetes does;
* merge keys ``<<`` (go-yaml merges, ryaml keeps a literal key), tags ``!x`` (ryaml wraps them
  in a one-key mapping), anchors and aliases (alias expansion must be counted);
* stream shapes whose document count or line numbers the fast path does not reproduce:
  directives ``%``, document end markers ``...``, line breaks other than LF and CRLF.
"""

from __future__ import annotations

import re
from typing import Final

# A plain scalar can start at the beginning of the text, after white space, after a flow
# indicator, or after ":" (JSON-like flow keys: {"a":yes}). "x(?<![^...]x)" reads "x, not
# preceded by any other character", which also holds at the very start of the text.
_BOUNDARY: Final = r"\s\[{,:"


def _table(mapping: dict[bytes, int]) -> bytes:
    table = bytearray(range(256))
    for chars, target in mapping.items():
        for char in chars:
            table[char] = target
    for char in range(ord("A"), ord("Z") + 1):
        table[char] = char + 32
    return bytes(table)


# For booleans: blanks become " ", everything that can end (or start) a plain scalar becomes
# "\n", letters are lower-cased. A boolean is then a word between [ \n] and " "* + \n.
_WORD_TABLE: Final = _table({b" \t": 32, b"\r\n,]}#[{?:": 10})
_WORD_END: Final = rb"(?= *(?:\n|\Z))"
_BOOLEANS: Final = tuple(
    re.compile(pattern)
    for pattern in (
        rb"n\n(?<![^ \n]n\n)",
        rb"n (?<![^ \n]n )" + _WORD_END,
        rb"no(?<![^ \n]no)" + _WORD_END,
        rb"on(?<![^ \n]on)" + _WORD_END,
        rb"off(?<![^ \n]off)" + _WORD_END,
        rb"y(?<![^ \n]y)(?:es)?" + _WORD_END,
    )
)
# For keys: blanks, flow indicators, digits, "." and "~" all become "0". A key that is not a
# string then ends in "0:" (a number, "~", or nothing: ": x") or is one of a few words; the
# character after the ":" is checked in the original bytes (it must be a blank or flow end).
_KEY_TABLE: Final = _table({b" \t\r\n[]{},?0123456789.~": 48})
_NUMBER_KEY: Final = re.compile(rb"0:")
_WORD_KEYS: Final = tuple(
    re.compile(word + rb"(?<![^0:]" + word + rb")0*:")
    for word in (b"true", b"false", b"null", b"inf", b"nan")
)
# Leading zero or upper-case base prefix (0X, 0O, 0B), and hexadecimal keys such as "0xff:"
# (they end in a letter, so the key patterns above do not see them).
# After ":" only when a quote precedes it ({"a":010}) and after a sign only when the sign
# starts the token, so that quoted times like "02:00" and "-05:00" pass.
_ZERO: Final = re.compile(
    rf"0(?<![^{_BOUNDARY}+\-]0)(?<![^\"']:0)(?<![^{_BOUNDARY}][+\-]0)(?:[0-9_XOB]|[xX][0-9a-fA-F_]*[ \t]*:(?:\s|\Z))"
)
# A token that starts like a number ("+", "-", ".", a digit) at a scalar boundary and holds an
# underscore before the next boundary. The lookbehind lets a match start only where a token
# starts and the run stops at the first underscore or boundary, so each character is looked at
# a bounded number of times: linear in the text, whatever the tokens look like. The pattern
# starts with its character set, which the engine finds at C speed.
_NUMERIC_UNDERSCORE: Final = re.compile(rf"[+\-.0-9](?<![^{_BOUNDARY}][+\-.0-9])[^{_BOUNDARY}_]*_")
_HEX_UNDERSCORE: Final = re.compile(r"0[xX][0-9a-fA-F]*_")
_PROPERTIES: Final = tuple(
    re.compile(rf"{char}(?<![^{_BOUNDARY}]{char})") for char in (r"&", r"\*", "!")
)
_COMPLEX_KEY: Final = re.compile(r"\?(?<![^\s\[{,]\?)(?=[ \t\r\n]|\Z)")
_DOCUMENT_END: Final = re.compile(r"\n\.\.\.")
_LONE_CR: Final = re.compile(r"\r(?!\n)")
_UNICODE_BREAKS: Final = re.compile("[\x85\u2028\u2029]")


# The same rule token by token, for ASCII texts with few underscores (a fleet's VM sizes such
# as Standard_D2s_v3): the regex above starts with a character class, which the engine tries at
# every position; finding the underscores and looking back to their token's start is ten times
# faster there. Boundaries become spaces; the table is derived from the regex's own class.
_TOKEN_TABLE: Final = bytes(
    32 if re.match(rf"[{_BOUNDARY}]", chr(char)) else char for char in range(256)
)
_NUMBER_START: Final = frozenset(b"+-.0123456789")
_SPARSE: Final = 256  # at most one underscore per this many characters: look token by token


def _numeric_underscore(text: str) -> bool:
    """True when an underscore sits in a token that starts like a number (go-yaml drops it).

    Generous on purpose: ``1a_b`` is a string for both parsers but is sent to the precise one
    anyway, which costs only speed; one linear scan matters more than a tight rule.
    """
    if _HEX_UNDERSCORE.search(text):
        return True
    if text.isascii() and text.count("_") * _SPARSE <= len(text):
        return _sparse_numeric_underscore(text.encode("ascii").translate(_TOKEN_TABLE))
    return bool(_NUMERIC_UNDERSCORE.search(text))


def _sparse_numeric_underscore(spaced: bytes) -> bool:
    """:data:`_NUMERIC_UNDERSCORE` on ``spaced`` (boundaries as spaces), one token with an
    underscore at a time: each character is looked at most twice."""
    at = spaced.find(b"_")
    while at != -1:
        start = spaced.rfind(b" ", 0, at) + 1
        if spaced[start] in _NUMBER_START:
            return True
        end = spaced.find(b" ", at)
        if end == -1:
            return False
        at = spaced.find(b"_", end)
    return False


def stream_markers(text: str) -> bool:
    """Directives, document end markers and unusual line breaks: leave them to libyaml.

    They also decide where documents start and end, so a stream holding one is read whole by
    the precise parser rather than cut at its ``---`` lines.
    """
    if text.startswith(("%", "...")) or ("%" in text and "\n%" in text):
        return True
    if _DOCUMENT_END.search(text):
        return True
    if "\r" in text and _LONE_CR.search(text):
        return True
    return not text.isascii() and bool(_UNICODE_BREAKS.search(text))


def _properties(text: str) -> bool:
    """Anchors, aliases, tags, merge keys and complex keys: rare, so memchr first."""
    if "<" in text and "<<" in text:
        return True
    if "?" in text and _COMPLEX_KEY.search(text):
        return True
    return any(
        char in text and pattern.search(text)
        for char, pattern in zip("&*!", _PROPERTIES, strict=True)
    )


def _booleans(data: bytes) -> bool:
    words = data.translate(_WORD_TABLE)
    if any(pattern.search(words) for pattern in _BOOLEANS):
        return True
    last = words.rstrip(b" ").rsplit(b"\n", 1)[-1].rsplit(b" ", 1)[-1]
    return last in (b"n", b"no", b"y", b"yes", b"on", b"off")


def _keys(data: bytes) -> bool:
    keys = data.translate(_KEY_TABLE)
    if keys.lstrip(b"0").startswith(b":"):
        return True  # may be an empty key; a number at the start is caught below anyway
    patterns = (_NUMBER_KEY, *_WORD_KEYS)
    for pattern in patterns:
        for match in pattern.finditer(keys):
            after = match.end()
            if after == len(data) or data[after] in b" \t\r\n,[]{}":
                return True
    return False


def needs_precise(text: str) -> bool:
    """Whether ``text`` may resolve differently under go-yaml v2 than under YAML 1.2 (ryaml)."""
    if stream_markers(text) or _properties(text):
        return True
    if _ZERO.search(text) or ("_" in text and _numeric_underscore(text)):
        return True
    data = text.encode("utf-8", "surrogatepass")
    return _booleans(data) or _keys(data)
