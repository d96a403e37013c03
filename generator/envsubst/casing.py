"""Go's per-rune case mapping (``unicode.ToUpper``/``ToLower``, ``strings.ToUpper``/``ToLower``).

Go maps one rune to one rune using the *simple* mappings of UnicodeData.txt. Python's
``str.upper``/``str.lower`` apply the *full* mappings of SpecialCasing.txt, which can turn one
character into several (``ß`` → ``SS``, ``İ`` → ``i̇``). For a single character the two agree
whenever Python's result is a single character; the few characters with a multi-character full
mapping are resolved here with their simple mapping (or left unchanged when there is none).

Invalid bytes (escape surrogates) become U+FFFD, as Go's decoder turns them into ``RuneError``.
"""

from __future__ import annotations

from generator.envsubst.encoding import canonical, is_invalid_byte

_REPLACEMENT = "\ufffd"

# Simple uppercase of the characters whose full uppercase has several characters (Greek with
# ypogegrammeni/prosgegrammeni); every other such character has no simple uppercase at all.
_SIMPLE_UPPER: dict[str, str] = {
    **{chr(code): chr(code + 8) for code in range(0x1F80, 0x1F88)},
    **{chr(code): chr(code + 8) for code in range(0x1F90, 0x1F98)},
    **{chr(code): chr(code + 8) for code in range(0x1FA0, 0x1FA8)},
    "\u1fb3": "\u1fbc",
    "\u1fc3": "\u1fcc",
    "\u1ff3": "\u1ffc",
}
# Only U+0130 (İ) has a multi-character full lowercase; its simple lowercase is "i".
_SIMPLE_LOWER: dict[str, str] = {"\u0130": "i"}


def upper_rune(char: str) -> str:
    """``unicode.ToUpper`` for one character of a surrogateescape string."""
    if is_invalid_byte(char):
        return _REPLACEMENT
    mapped = char.upper()
    return mapped if len(mapped) == 1 else _SIMPLE_UPPER.get(char, char)


def lower_rune(char: str) -> str:
    """``unicode.ToLower`` for one character of a surrogateescape string."""
    if is_invalid_byte(char):
        return _REPLACEMENT
    mapped = char.lower()
    return mapped if len(mapped) == 1 else _SIMPLE_LOWER.get(char, char)


def upper_all(value: str) -> str:
    """``strings.ToUpper``: ASCII fast path, otherwise every rune (and invalid byte) is mapped."""
    if value.isascii():
        return value.upper()
    return "".join(map(upper_rune, canonical(value)))


def lower_all(value: str) -> str:
    """``strings.ToLower``."""
    if value.isascii():
        return value.lower()
    return "".join(map(lower_rune, canonical(value)))


def upper_first(value: str) -> str:
    """drone's ``^``: the first rune through ``unicode.ToUpper``, the rest byte for byte."""
    if not value:
        return value
    value = canonical(value)
    return upper_rune(value[0]) + value[1:]


def lower_first(value: str) -> str:
    """drone's ``,``."""
    if not value:
        return value
    value = canonical(value)
    return lower_rune(value[0]) + value[1:]
