"""Compact integer structures for partitioning inputs of hundreds of thousands of documents:
flat arrays instead of dictionaries of int objects (12 bytes a key instead of ~90)."""

from __future__ import annotations

from array import array
from collections.abc import Iterator


class UnionFind:
    """Disjoint sets of document numbers; the root of a set is its earliest document."""

    def __init__(self) -> None:
        self.parent = array("l")

    def __len__(self) -> int:
        return len(self.parent)

    def add(self) -> int:
        """A new single-element set; returns its number."""
        self.parent.append(len(self.parent))
        return len(self.parent) - 1

    def find(self, item: int) -> int:
        """The root of ``item``'s set (paths compressed on the way)."""
        parent = self.parent
        root = item
        while parent[root] != root:
            root = parent[root]
        while parent[item] != root:
            parent[item], item = root, parent[item]
        return root

    def union(self, a: int, b: int) -> None:
        """Join the sets of ``a`` and ``b``."""
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)  # the earliest document stays the root


class IntTable:
    """int -> non-negative int, open addressing over two flat arrays: 12 bytes a slot instead of
    a dict entry with two int objects (~90 bytes). Holds the first declarer of every key, the one
    structure that grows with the whole input."""

    _EMPTY = -1

    def __init__(self, capacity: int = 1 << 12) -> None:
        self._keys = array("q", bytes(8 * capacity))
        self._values = array("i", [self._EMPTY]) * capacity
        self._mask = capacity - 1
        self._used = 0

    def __len__(self) -> int:
        return self._used

    def _slot(self, key: int) -> int:
        mask, keys, values = self._mask, self._keys, self._values
        slot = key & mask
        while values[slot] != self._EMPTY and keys[slot] != key:
            slot = (slot + 1) & mask
        return slot

    def get(self, key: int) -> int | None:
        """The value of ``key``, or None."""
        value = self._values[self._slot(key)]
        return None if value == self._EMPTY else value

    def setdefault(self, key: int, value: int) -> int:
        """The value of ``key``, storing ``value`` first if there is none."""
        slot = self._slot(key)
        found = self._values[slot]
        if found != self._EMPTY:
            return found
        self._keys[slot], self._values[slot] = key, value
        self._used += 1
        if self._used * 3 > self._mask * 2:
            self._grow()
        return value

    def set(self, key: int, value: int) -> None:
        """Store ``value`` for ``key``, replacing any."""
        slot = self._slot(key)
        if self._values[slot] == self._EMPTY:
            self._used += 1
        self._keys[slot], self._values[slot] = key, value
        if self._used * 3 > self._mask * 2:
            self._grow()

    def _grow(self) -> None:
        old_keys, old_values = self._keys, self._values
        capacity = 4 * (self._mask + 1)  # each rehash is a loop over every slot: few of them
        self._keys = array("q", bytes(8 * capacity))
        self._values = array("i", [self._EMPTY]) * capacity
        self._mask = capacity - 1
        for key, value in zip(old_keys, old_values, strict=True):
            if value != self._EMPTY:
                slot = self._slot(key)
                self._keys[slot], self._values[slot] = key, value


class Multimap:
    """key hash -> documents in order, compact: one int for the common single document, an
    array only for keys held by several."""

    def __init__(
        self, first: dict[int, int] | None = None, more: dict[int, array[int]] | None = None
    ) -> None:
        self.first: dict[int, int] = {} if first is None else first
        self.more: dict[int, array[int]] = {} if more is None else more  # arrays of 'q'

    def add(self, key: int, doc: int) -> None:
        """Append ``doc`` to ``key``'s documents (a repeat of the first is dropped)."""
        first = self.first.setdefault(key, doc)
        if first != doc:
            self.more.setdefault(key, array("q")).append(doc)

    def pop(self, key: int) -> list[int]:
        """Remove ``key``; returns its documents (none if absent)."""
        first = self.first.pop(key, None)
        if first is None:
            return []
        return [first, *self.more.pop(key, ())]

    def items(self) -> Iterator[tuple[int, list[int]]]:
        """Every key with its documents."""
        for key, first in self.first.items():
            yield key, [first, *self.more.get(key, ())]


class Everywhere:
    """Every declarer of a key whatever its namespace, as (key, document) pairs in two flat arrays,
    appended as they come. They are asked for only about references left unresolved in their own
    namespace (whose findings say where the object is instead: "found in namespace x"), at the
    end and for a few keys, so the lookup is built then, for just those keys: a table kept up to
    date for every declaration cost a fifth of adding a fleet's keys."""

    def __init__(self) -> None:
        self._keys = array("q")
        self._docs = array("i")

    def add(self, key: int, doc: int) -> None:
        """Record that ``doc`` declares ``key``."""
        self._keys.append(key)
        self._docs.append(doc)

    def declarers(self, keys: set[int]) -> dict[int, list[int]]:
        """For each of ``keys`` declared somewhere, every document that declared it, latest
        first."""
        found: dict[int, list[int]] = {}
        if keys:
            for key, doc in zip(self._keys, self._docs, strict=True):
                if key in keys:
                    found.setdefault(key, []).append(doc)
        for docs in found.values():
            docs.reverse()
        return found
