"""Mapping key order of go-yaml v2 (``keyList.Less``), the order clusterctl writes keys in.

go-yaml v2 compares two keys character by character; at the first difference it decides by:
both letters -> code point; one letter -> the letter sorts last; otherwise the numbers formed by
the digit runs starting there (``a2`` < ``a10``), then the run lengths (``a1`` < ``a01``), then the
code points (``-`` < ``_``). So non-letters sort before digits, digits before letters, and
upper-case before lower-case (``B`` < ``a``).

That comparison is expressed here as a sort key (fast, cached) instead of a comparator: each key
becomes a tuple of units ``(class, value, length)`` with class 0 for other characters, 1 for a
digit run (its numeric value and length) and 2 for letters. The two agree wherever go-yaml's
comparison is itself consistent; go-yaml's is not transitive in one corner (a digit run that is
a prefix of another and is followed by a letter: ``a1b`` vs ``a10``), where its output depends on
Go's map iteration order anyway, and this key picks the numeric order.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Final

_UNITS: Final = re.compile(r"[0-9]+|.", re.DOTALL)
Unit = tuple[int, int, int]


@lru_cache(maxsize=16384)
def key_order(key: str) -> tuple[Unit, ...]:
    """Sort key reproducing go-yaml v2's mapping key order for string keys."""
    units: list[Unit] = []
    for match in _UNITS.finditer(key):
        token = match.group()
        first = token[0]
        if "0" <= first <= "9":
            units.append((1, int(token), len(token)))
        elif first.isalpha():
            units.append((2, ord(first), 0))
        else:
            units.append((0, ord(first), 0))
    return tuple(units)
