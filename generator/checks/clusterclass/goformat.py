"""How Go prints, compares and converts the values a patch template works on.

CAPI hands templates the variables after a JSON round trip, so every number a template reads is a
Go ``float64`` (a Python ``float`` here) while number literals in the template text are Go ``int``
(a Python ``int``). The difference shows in the output: ``{{ .replicas }}`` prints ``3`` but
``1e+06`` for a million, and ``printf "%d" .replicas`` prints ``%!d(float64=3)``. These helpers
reproduce that, and the text of the sprig functions the subset supports.
"""

from __future__ import annotations

import json
from decimal import Decimal

import yaml

from generator.jsontypes import Json


class Missing:
    """What a missing map key evaluates to: printed as ``<no value>``, passed to functions as nil."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING = Missing()


def go_float(value: float) -> str:
    """Go's ``%v`` of a ``float64``: the shortest digits, in exponent form from 1e+06 (or below
    1e-04) on, with a two-digit exponent at least."""
    if value != value:  # NaN
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "-0" if str(value).startswith("-") else "0"
    sign, digits, exponent = Decimal(repr(value)).normalize().as_tuple()
    assert isinstance(exponent, int)
    text = "".join(map(str, digits))
    exp = len(text) + exponent - 1
    prefix = "-" if sign else ""
    if exp < -4 or exp >= 6:
        mantissa = text[0] + ("." + text[1:] if len(text) > 1 else "")
        return f"{prefix}{mantissa}e{'-' if exp < 0 else '+'}{abs(exp):02d}"
    return prefix + format(Decimal(repr(abs(value))).normalize(), "f")


def go_print(value: Json) -> str:
    """``fmt``'s ``%v`` as ``text/template`` prints an action's value."""
    if value is MISSING:
        return "<no value>"
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return go_float(value)
    if isinstance(value, list):
        return "[" + " ".join(go_print(item) for item in value) + "]"
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{go_print(value[k])}" for k in sorted(value)) + "]"
    return str(value)


def go_type(value: Json) -> str:
    """The Go type name ``fmt`` shows in ``%!verb(type=value)``."""
    if isinstance(value, bool):
        return "bool"
    names = {int: "int", float: "float64", str: "string", list: "[]interface {}"}
    return names.get(type(value), "map[string]interface {}")


def go_quote(text: str) -> str:
    """``strconv.Quote``, close enough: JSON's escapes, non-ASCII kept."""
    return json.dumps(text, ensure_ascii=False)


def truth(value: Json) -> bool:
    """Go's ``if``: false, 0, nil, and empty strings, lists and maps are false."""
    if value is MISSING or value is None:
        return False
    if isinstance(value, bool | int | float):
        return bool(value)
    if isinstance(value, str | list | dict):
        return len(value) > 0
    return True


def _plain(value: Json) -> Json:
    """A JSON value with integral floats as ints (how Go's encoders write a ``float64`` 3)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return int(value)
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return None if value is MISSING else value


def to_json(value: Json) -> str:
    """sprig ``toJson``: compact, sorted keys, HTML characters escaped as Go's encoder does."""
    text = json.dumps(_plain(value), separators=(",", ":"), sort_keys=True, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def to_yaml(value: Json) -> str:
    """sprig ``toYaml``: block style, sorted keys, no final newline."""
    text = yaml.safe_dump(
        _plain(value), default_flow_style=False, sort_keys=True, allow_unicode=True, width=1 << 20
    )
    text = text.removesuffix("\n...\n")
    return text.removesuffix("\n")
