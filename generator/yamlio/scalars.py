"""Scalar rules of the YAML library Kubernetes decodes with (go-yaml v2, via sigs.k8s.io/yaml).

The API server never sees YAML: ``kubectl`` and ``clusterctl`` turn every document into JSON with
go-yaml v2 first. So the types a manifest really carries are the ones go-yaml v2 resolves, which
are YAML 1.1-flavoured: ``yes``/``no``/``on``/``off``/``y``/``n`` are booleans, ``010`` is octal,
``1_000`` is an integer. This module is the single place those rules live, used both to read
(:func:`resolve_plain`, :func:`key_text`) and to decide when a string must be quoted on output
(:func:`needs_quotes`).
"""

from __future__ import annotations

import math
import re
import struct
from decimal import Decimal
from typing import Final

from generator.jsontypes import Json, JsonObject

_INT64_MIN: Final = -(1 << 63)
_INT64_MAX: Final = (1 << 63) - 1
_UINT64_MAX: Final = (1 << 64) - 1
_FLOAT32_MAX: Final = 3.4028234663852886e38

# go-yaml v2 ``resolveMap``: exact spellings that are not strings.
_RESOLVE_MAP: Final[JsonObject] = {
    **dict.fromkeys(("y", "Y", "yes", "Yes", "YES", "on", "On", "ON"), True),
    **dict.fromkeys(("true", "True", "TRUE"), True),
    **dict.fromkeys(("n", "N", "no", "No", "NO", "off", "Off", "OFF"), False),
    **dict.fromkeys(("false", "False", "FALSE"), False),
    **dict.fromkeys(("~", "null", "Null", "NULL"), None),
    **dict.fromkeys((".nan", ".NaN", ".NAN"), math.nan),
    **dict.fromkeys((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), math.inf),
    **dict.fromkeys(("-.inf", "-.Inf", "-.INF"), -math.inf),
}
_MISSING: Final = object()

# go-yaml v2 ``resolveTable``: the first character decides whether a lookup is worth trying.
_HINT: Final[dict[str, str]] = {
    **dict.fromkeys("+-", "S"),
    **dict.fromkeys("0123456789", "D"),
    **dict.fromkeys("yYnNtTfFoO~", "M"),
    ".": ".",
}

# strconv.ParseInt(s, 0, 64) after go-yaml removed every underscore.
_GO_INT: Final = re.compile(
    r"([-+]?)(?:0[xX]([0-9a-fA-F]+)|0[oO]([0-7]+)|0[bB]([01]+)|0([0-7]*)|([1-9][0-9]*))"
)
_GO_YAML_FLOAT: Final = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
# strconv.ParseFloat on a text starting with ".": underscores only between digits.
_GO_DOT_FLOAT: Final = re.compile(r"\.[0-9](?:_?[0-9])*(?:[eE][-+]?[0-9](?:_?[0-9])*)?")
# Only used to decide quoting, so a generous match is the safe side.
_TIMESTAMP: Final = re.compile(r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt ].*)?")
_BASE60: Final = re.compile(r"[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?")
# YAML 1.2 core schema numbers, so that our output also reads back right in 1.2 parsers.
_CORE_NUMBER: Final = re.compile(
    r"[-+]?(?:[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+|0b[01]+|(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?)"
)


def _go_int(text: str) -> int | None:
    """``strconv.ParseInt(text, 0, 64)`` falling back to ``ParseUint``; None when both fail."""
    match = _GO_INT.fullmatch(text)
    if match is None:
        return None
    sign, hexa, octal, binary, legacy_octal, decimal = match.groups()
    if hexa is not None:
        value = int(hexa, 16)
    elif octal is not None:
        value = int(octal, 8)
    elif binary is not None:
        value = int(binary, 2)
    elif legacy_octal is not None:
        value = int(legacy_octal or "0", 8)
    else:
        value = int(decimal)
    if sign == "-":
        value = -value
    if _INT64_MIN <= value <= _INT64_MAX:
        return value
    if not sign and value <= _UINT64_MAX:
        return value
    return None


def _float_or(text: str, fallback: str) -> float | str:
    """``float(text)``, or ``fallback`` when it overflows (Go reports an error; go-yaml keeps the
    scalar as a string)."""
    value = float(text)
    return value if math.isfinite(value) else fallback


def resolve_plain(text: str) -> Json:
    """Value of an untagged plain scalar exactly as go-yaml v2 resolves it for ``interface{}``.

    Timestamps stay strings (go-yaml v2 does that for untyped targets), ``<<`` is a string here
    (merge keys are recognised by the caller, which knows the scalar is a key).
    """
    if not text:
        return None
    hint = _HINT.get(text[0])
    if hint is None:
        return text
    known = _RESOLVE_MAP.get(text, _MISSING)
    if known is not _MISSING:
        return known
    if hint == "M":
        return text
    if hint == ".":
        return _float_or(text.replace("_", ""), text) if _GO_DOT_FLOAT.fullmatch(text) else text
    plain = text.replace("_", "")
    integer = _go_int(plain)
    if integer is not None:
        return integer
    return _float_or(plain, text) if _GO_YAML_FLOAT.fullmatch(plain) else text


def needs_quotes(text: str) -> bool:
    """Whether ``text`` written as a plain scalar would read back as something else.

    Checks go-yaml v2 (what Kubernetes uses), the YAML 1.2 core schema and the YAML 1.1 extras
    go-yaml v2 still quotes on output (timestamps, sexagesimal numbers), plus ``<<`` which a
    go-yaml reader takes for a merge key.
    """
    if not isinstance(resolve_plain(text), str) or text == "<<":
        return True
    lowered = text.lower()
    if lowered in _RESOLVE_MAP or lowered in ("y", "n", "yes", "no", "on", "off"):
        return True  # odd casings such as "yEs": harmless to quote, and other readers differ
    first = text[0]
    if first in "0123456789+-.":
        return bool(
            _TIMESTAMP.fullmatch(text) or _BASE60.fullmatch(text) or _CORE_NUMBER.fullmatch(text)
        )
    return False


def _shortest_digits(value: float, *, single: bool) -> tuple[str, int]:
    """Shortest decimal digits (no leading/trailing zeros) and the decimal point position.

    ``value = 0.<digits> * 10**point``; with ``single`` the digits are the shortest that
    round-trip through a 32-bit float, as Go's ``FormatFloat(f, 'g', -1, 32)`` produces.
    """
    if single:
        target = struct.unpack("<f", struct.pack("<f", value))[0]
        for precision in range(1, 10):
            candidate = f"{target:.{precision - 1}e}"
            if struct.unpack("<f", struct.pack("<f", float(candidate)))[0] == target:
                text = candidate
                break
        else:  # pragma: no cover - nine digits always round-trip a float32
            text = repr(target)
    else:
        text = repr(value)
    sign, digits, exponent = Decimal(text).normalize().as_tuple()
    del sign
    assert isinstance(exponent, int)
    digit_text = "".join(map(str, digits))
    return digit_text, len(digit_text) + exponent


def go_format_float(value: float, *, single: bool = False) -> str:
    """Go's ``strconv.FormatFloat(value, 'g', -1, 64 or 32)`` with YAML spellings of inf/nan."""
    if math.isnan(value):
        return ".nan"
    if single and abs(value) > _FLOAT32_MAX:
        value = math.copysign(math.inf, value)
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    if value == 0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    sign = "-" if value < 0 else ""
    digits, point = _shortest_digits(abs(value), single=single)
    exponent = point - 1
    if exponent < -4 or exponent >= 6:  # shortest 'g' switches to %e at precision 6
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{mantissa}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return f"{sign}{digits}{'0' * (point - len(digits))}"
    return f"{sign}{digits[:point]}.{digits[point:]}"


class InvalidKey(ValueError):
    """A mapping key Kubernetes cannot turn into a JSON object key."""


def key_text(value: Json) -> str:
    """The JSON object key sigs.k8s.io/yaml makes of a resolved YAML key.

    Kubernetes converts boolean, integer and float keys to strings (``1`` -> ``"1"``,
    ``true`` -> ``"true"``, ``1.5`` -> ``"1.5"`` formatted as a 32-bit float) and rejects null
    and collection keys. Doing the same here means every later stage can rely on ``str`` keys.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return go_format_float(value, single=True)
    if value is None:
        msg = "a mapping key is null, which Kubernetes cannot convert to JSON"
        raise InvalidKey(msg)
    msg = "a mapping key is a mapping or a sequence; keys must be scalars"
    raise InvalidKey(msg)
