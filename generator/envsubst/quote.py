"""Go's ``strconv.Quote`` (what ``fmt`` prints for ``%q``), used for defaults in listings."""

from __future__ import annotations

from generator.envsubst.encoding import canonical, is_invalid_byte

_NAMED_ESCAPES = {
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
    '"': '\\"',
    "\\": "\\\\",
}


def _quote_char(char: str) -> str:
    if is_invalid_byte(char):
        return f"\\x{ord(char) - 0xDC00:02x}"
    named = _NAMED_ESCAPES.get(char)
    if named is not None:
        return named
    # Go prints letters, marks, numbers, punctuation, symbols and the ASCII space; Python's
    # isprintable() is the same set (everything except categories C* and Z* other than " ").
    if char.isprintable():
        return char
    code = ord(char)
    if code < 0x20 or code == 0x7F:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def go_quote(value: str) -> str:
    """``strconv.Quote``: double-quoted, Go escapes, lower-case hex, invalid bytes as ``\\xNN``,
    printable Unicode kept as is, ``'`` not escaped."""
    text = canonical(value)
    if text.isascii() and text.isprintable() and '"' not in text and "\\" not in text:
        return f'"{text}"'
    return '"' + "".join(map(_quote_char, text)) + '"'
