"""Kubernetes CEL library functions that cel-python does not ship, with cel-go's semantics.

The API server evaluates ``x-kubernetes-validations`` with cel-go plus Kubernetes' libraries. The
CRDs capzgen validates (Cluster API v1.13, CAPZ v1.26) only use standard CEL (``has``, ``size``,
``matches``, ``in`` and the ``all``/``exists``/``exists_one``/``filter`` macros), which cel-python
implements. The functions below are the simple, exactly specified ones from cel-go's ``ext.Strings``
and Kubernetes' ``lists`` and ``regex`` libraries, so that user-supplied CRDs using them are
evaluated too. Every other library (``isURL``/``url``, ``ip``/``cidr``, ``quantity``, ``format.*``,
``sets.*``, optional types ...) is *not* implemented: rules using it are reported as unsupported by
``capzgen schemas list --cel`` instead of being evaluated approximately.

Indexes count Unicode code points, as cel-go does. A misuse returns a :class:`CELEvalError`, which
the evaluator turns into a "could not be evaluated" warning naming the rule.
"""

from __future__ import annotations

import itertools
import operator
from typing import Any

import re2
from celpy import celtypes
from celpy.evaluation import CELEvalError, CELFunction, Result

from generator.schemastore.compiler import re2_options

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_ASCII_UPPER = str.maketrans("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def _error(message: str) -> CELEvalError:
    return CELEvalError(message, ValueError, None)


def _string(value: celtypes.Value, function: str) -> str:
    if not isinstance(value, str):
        msg = f"{function}: expected a string, got {type(value).__name__}"
        raise TypeError(msg)
    return value


def _int(value: celtypes.Value, function: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        msg = f"{function}: expected an int, got {type(value).__name__}"
        raise TypeError(msg)
    return int(value)


# --- strings (cel-go ext.Strings) ----------------------------------------------------------------


def char_at(text: celtypes.Value, index: celtypes.Value) -> celtypes.StringType | CELEvalError:
    """CEL ``charAt``: the code point at ``index`` as a string; ``index == size`` gives ``""``."""
    value, position = _string(text, "charAt"), _int(index, "charAt")
    if position < 0 or position > len(value):
        return _error(f"index out of range: {position}")
    return celtypes.StringType(value[position : position + 1])


def index_of(
    target: celtypes.Value, needle: celtypes.Value, offset: celtypes.Value = None
) -> celtypes.IntType | CELEvalError:
    """CEL ``indexOf``: the index of the first match at or after ``offset``, or -1.

    On a list this is Kubernetes' lists function: the first position of an equal element.
    """
    if isinstance(target, list):
        return _list_index(target, needle, last=False)
    value, sub = _string(target, "indexOf"), _string(needle, "indexOf")
    start = 0 if offset is None else _int(offset, "indexOf")
    if start < 0 or start > len(value):
        return _error(f"index out of range: {start}")
    return celtypes.IntType(value.find(sub, start))


def last_index_of(
    target: celtypes.Value, needle: celtypes.Value, offset: celtypes.Value = None
) -> celtypes.IntType | CELEvalError:
    """CEL ``lastIndexOf``: the index of the last match that starts at or before ``offset``, or -1.

    On a list this is Kubernetes' lists function: the last position of an equal element.
    """
    if isinstance(target, list):
        return _list_index(target, needle, last=True)
    value, sub = _string(target, "lastIndexOf"), _string(needle, "lastIndexOf")
    end = len(value) if offset is None else _int(offset, "lastIndexOf")
    if end < 0 or end > len(value):
        return _error(f"index out of range: {end}")
    # cel-go: the match may start at ``offset`` at the latest.
    return celtypes.IntType(value.rfind(sub, 0, end + len(sub)))


def lower_ascii(text: celtypes.Value) -> celtypes.StringType:
    """CEL ``lowerAscii``: only A-Z are lowered; other characters are kept as they are."""
    return celtypes.StringType(_string(text, "lowerAscii").translate(_ASCII_LOWER))


def upper_ascii(text: celtypes.Value) -> celtypes.StringType:
    """CEL ``upperAscii``: only a-z are raised; other characters are kept as they are."""
    return celtypes.StringType(_string(text, "upperAscii").translate(_ASCII_UPPER))


def replace(
    text: celtypes.Value, old: celtypes.Value, new: celtypes.Value, count: celtypes.Value = None
) -> celtypes.StringType:
    """CEL ``replace``: at most ``count`` replacements; all when ``count`` is absent or negative."""
    value = _string(text, "replace")
    limit = -1 if count is None else _int(count, "replace")
    replaced = value.replace(_string(old, "replace"), _string(new, "replace"), limit)
    return celtypes.StringType(replaced)


def split(
    text: celtypes.Value, separator: celtypes.Value, count: celtypes.Value = None
) -> celtypes.ListType:
    """CEL ``split`` as Go's ``SplitN``: ``count`` 0 gives no parts, a positive ``count`` at most
    that many (the last keeps the rest); an empty separator splits into code points."""
    value, sep = _string(text, "split"), _string(separator, "split")
    limit = -1 if count is None else _int(count, "split")
    if limit == 0:
        return celtypes.ListType([])
    if sep == "":  # Go splits into code points
        parts = list(value)
        if limit > 0 and len(parts) > limit:
            parts = [*parts[: limit - 1], "".join(parts[limit - 1 :])]
    else:
        parts = value.split(sep, limit - 1 if limit > 0 else -1)
    return celtypes.ListType([celtypes.StringType(part) for part in parts])


def substring(
    text: celtypes.Value, start: celtypes.Value, end: celtypes.Value = None
) -> celtypes.StringType | CELEvalError:
    """CEL ``substring``: code points ``[start, end)``; bounds out of range or reversed fail."""
    value = _string(text, "substring")
    begin = _int(start, "substring")
    stop = len(value) if end is None else _int(end, "substring")
    if begin < 0 or begin > len(value):
        return _error(f"index out of range: {begin}")
    if stop < 0 or stop > len(value):
        return _error(f"index out of range: {stop}")
    if begin > stop:
        return _error(f"invalid substring range. start: {begin}, end: {stop}")
    return celtypes.StringType(value[begin:stop])


def trim(text: celtypes.Value) -> celtypes.StringType:
    """CEL ``trim``: leading and trailing whitespace removed."""
    return celtypes.StringType(_string(text, "trim").strip())


def join(items: celtypes.Value, separator: celtypes.Value = None) -> celtypes.StringType:
    """CEL ``join``: a list of strings joined with ``separator`` (none by default)."""
    if not isinstance(items, list):
        msg = f"join: expected a list, got {type(items).__name__}"
        raise TypeError(msg)
    sep = "" if separator is None else _string(separator, "join")
    return celtypes.StringType(sep.join(_string(item, "join") for item in items))


# --- lists (Kubernetes library) ------------------------------------------------------------------


def _list(value: celtypes.Value, function: str) -> list[celtypes.Value]:
    if not isinstance(value, list):
        msg = f"{function}: expected a list, got {type(value).__name__}"
        raise TypeError(msg)
    return value


def _ordered(value: celtypes.Value, function: str) -> list[Any]:
    """The list's elements, compared with Python's operators as CEL orders them.

    ``Any`` because no static type says "CEL values ordered among themselves": comparing two that
    are not raises TypeError, which cel-python reports as an error of the call."""
    return _list(value, function)


def _list_index(
    items: list[celtypes.Value], needle: celtypes.Value, *, last: bool
) -> celtypes.IntType:
    positions = range(len(items) - 1, -1, -1) if last else range(len(items))
    for position in positions:
        if items[position] == needle:
            return celtypes.IntType(position)
    return celtypes.IntType(-1)


def is_sorted(items: celtypes.Value) -> celtypes.BoolType:
    """Kubernetes ``isSorted``: whether the list is in ascending order (an empty list is)."""
    values = _ordered(items, "isSorted")
    return celtypes.BoolType(all(a <= b for a, b in itertools.pairwise(values)))


def sum_(items: celtypes.Value) -> Result:
    """Kubernetes ``sum``: the sum of the elements with CEL's ``+``; an empty list sums to int 0."""
    values = _list(items, "sum")
    if not values:
        return celtypes.IntType(0)
    total: Result = values[0]
    for value in values[1:]:
        total = operator.add(total, value)  # ``+`` on whatever CEL values the list holds
    return total


def max_(items: celtypes.Value) -> Result:
    """Kubernetes ``max``: the largest element; an empty list is an error."""
    values = _ordered(items, "max")
    if not values:
        return _error("max of an empty list")
    result: Result = max(values)
    return result


# --- regex (Kubernetes library) ------------------------------------------------------------------


def find(text: celtypes.Value, pattern: celtypes.Value) -> celtypes.StringType | CELEvalError:
    """Kubernetes ``find``: the first match of the RE2 ``pattern``, ``""`` when there is none."""
    value, regex = _string(text, "find"), _string(pattern, "find")
    try:
        match = re2.compile(regex, re2_options()).search(value)
    except re2.error as error:
        return _error(f"invalid regular expression: {error}")
    return celtypes.StringType(match.group(0) if match else "")


def find_all(
    text: celtypes.Value, pattern: celtypes.Value, count: celtypes.Value = None
) -> celtypes.ListType | CELEvalError:
    """Kubernetes ``findAll``: the RE2 matches in order, no more than a positive ``count``."""
    value, regex = _string(text, "findAll"), _string(pattern, "findAll")
    limit = -1 if count is None else _int(count, "findAll")
    try:
        compiled = re2.compile(regex, re2_options())
    except re2.error as error:
        return _error(f"invalid regular expression: {error}")
    found: list[celtypes.Value] = []
    if limit != 0:
        for match in compiled.finditer(value):
            found.append(celtypes.StringType(match.group(0)))
            if 0 < limit <= len(found):
                break
    return celtypes.ListType(found)


def dyn(value: celtypes.Value) -> celtypes.Value:
    """``dyn(x)`` only tells cel-go's type checker to stop checking; the value is unchanged."""
    return value


EXTENSIONS: dict[str, CELFunction] = {
    "charAt": char_at,
    "indexOf": index_of,
    "lastIndexOf": last_index_of,
    "lowerAscii": lower_ascii,
    "upperAscii": upper_ascii,
    "replace": replace,
    "split": split,
    "substring": substring,
    "trim": trim,
    "join": join,
    "isSorted": is_sorted,
    "sum": sum_,
    "max": max_,
    "find": find,
    "findAll": find_all,
    "dyn": dyn,
}
