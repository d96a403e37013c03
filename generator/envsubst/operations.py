"""What each drone/envsubst operator does to a value (drone's funcs.go, behaviour for behaviour).

All functions take the variable's value (``""`` when unset: envsubst cannot tell the two apart)
and the already evaluated arguments. Offsets, lengths and pattern matching work on the UTF-8
bytes of the value, exactly like Go, so results can cut a multi-byte character.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from generator.envsubst import casing
from generator.envsubst.encoding import canonical, encode_runes, from_bytes, go_runes, to_bytes
from generator.envsubst.glob import BadPattern, glob_match

_GO_INT = re.compile(r"[+-]?[0-9]+")
_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1


class NegativeSubstring(Exception):
    """``${A:off:len}`` with a negative end before the start: Go panics (slice out of range)."""

    def __init__(self, offset: int, length: int, size: int) -> None:
        super().__init__(f"offset {offset}, length {length}, value of {size} bytes")
        self.offset = offset
        self.length = length
        self.size = size


def _atoi(text: str) -> int | None:
    """Go's ``strconv.Atoi``: optional sign, ASCII digits, int64 range; ``None`` when invalid."""
    if not _GO_INT.fullmatch(text):
        return None
    number = int(text)
    return number if _INT64_MIN <= number <= _INT64_MAX else None


def _wrap_int64(number: int) -> int:
    return ((number - _INT64_MIN) % (1 << 64)) + _INT64_MIN


def substring(value: str, args: Sequence[str]) -> str:
    """``${A:off}`` / ``${A:off:len}`` on bytes.

    Unparsable numbers return the value unchanged; a negative offset counts from the end (clamped
    at 0); an offset past the end gives ``""``; ``off+len`` past the end gives the rest. A
    negative length whose end lands before the offset panics in Go and raises
    :class:`NegativeSubstring` here.
    """
    offset = _atoi(args[0])
    if offset is None:
        return value
    data = to_bytes(value)
    size = len(data)
    if offset < 0:
        offset = max(size + offset, 0)
    if len(args) == 1:
        return from_bytes(data[offset:]) if offset < size else ""
    length = _atoi(args[1])
    if length is None:
        return value
    stop = _wrap_int64(offset + length)  # Go's int arithmetic wraps
    if stop >= size:
        return from_bytes(data[offset:]) if offset < size else ""
    if stop < offset:
        raise NegativeSubstring(offset, length, size)
    return from_bytes(data[offset:stop])


def _trim_prefix(data: bytes, pattern: bytes, *, longest: bool) -> bytes:
    """Remove the shortest/longest glob-matching prefix; prefixes of byte length len..1 are
    tried (never the empty one), and a malformed pattern leaves the value unchanged."""
    shortest = 0
    for length in range(len(data), 0, -1):
        try:
            matched = glob_match(pattern, data[:length])
        except BadPattern:
            return data
        if matched:
            if longest:
                return data[length:]
            shortest = length
    return data[shortest:]


def _reverse(data: bytes) -> bytes:
    """Reverse rune-wise like Go's ``[]rune`` round trip (invalid bytes become U+FFFD)."""
    return encode_runes(go_runes(data)[::-1])


def trim(value: str, args: Sequence[str], *, suffix: bool, longest: bool) -> str:
    """``#``/``##`` (prefix) and ``%``/``%%`` (suffix, done on the rune-reversed value and
    pattern, like drone)."""
    data, pattern = to_bytes(value), to_bytes(args[0])
    if suffix:
        return from_bytes(
            _reverse(_trim_prefix(_reverse(data), _reverse(pattern), longest=longest))
        )
    return from_bytes(_trim_prefix(data, pattern, longest=longest))


def _replace_empty(value: str, new: str, *, every: bool) -> str:
    """Go's ``strings.Replace`` with an empty pattern: insert before each rune (and invalid byte)
    and at the end, or only at the start."""
    if not every:
        return new + value
    return canonical(value).replace("", new)


def replace(op: str, value: str, args: Sequence[str]) -> str:
    """``/`` ``//`` ``/#`` ``/%``: literal (not glob) replacement; ``/#`` and ``/%`` need both
    arguments and do nothing without a replacement."""
    if op in ("/#", "/%") and len(args) != 2:
        return value
    old = to_bytes(args[0])
    new = to_bytes(args[1]) if len(args) > 1 else b""
    if not old and op in ("/", "//"):
        return _replace_empty(value, from_bytes(new), every=op == "//")
    data = to_bytes(value)
    if op == "/":
        return from_bytes(data.replace(old, new, 1))
    if op == "//":
        return from_bytes(data.replace(old, new))
    if op == "/#":
        return from_bytes(new + data[len(old) :]) if data.startswith(old) else value
    return from_bytes(data[: len(data) - len(old)] + new) if data.endswith(old) else value


def default(value: str, args: Sequence[str]) -> str:
    """``=`` ``:=`` ``:-`` ``:?`` ``:+``: the value when non-empty, otherwise the arguments joined.
    drone gives ``:?`` and ``:+`` no bash meaning and assigns nothing."""
    return value if value else "".join(args)


def length(value: str) -> str:
    """``${#A}``: the length in bytes."""
    return str(len(to_bytes(value)))


_UNARY: dict[str, Callable[[str], str]] = {
    "": lambda value: value,
    "^": casing.upper_first,
    "^^": casing.upper_all,
    ",": casing.lower_first,
    ",,": casing.lower_all,
    ",^": lambda value: value,
    "^,": lambda value: value,
}


def apply(op: str, value: str, args: Sequence[str]) -> str:
    """Evaluate operator ``op`` on ``value`` with evaluated ``args``."""
    if not args:
        if op == "#":
            return length(value)
        unary = _UNARY.get(op)
        if unary is not None:
            return unary(value)
        return value  # a default-family operator without arguments
    first = op[0]
    if first == ":" and op != ":":
        return default(value, args)
    if first == "=":
        return default(value, args)
    if op == ":":
        return substring(value, args)
    if first == "/":
        return replace(op, value, args)
    if first == "#":
        return trim(value, args, suffix=False, longest=op == "##")
    if first == "%":
        return trim(value, args, suffix=True, longest=op == "%%")
    return value
