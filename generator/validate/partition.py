"""Splitting a large input into batches that can be validated one at a time, with equal results.

Every rule looks at one cluster's objects together, and a few look across clusters only through
names: an object refers to another (``controlPlaneRef``, ``clusterName``, an ASO ``owner``, the
``credential-from`` annotation), or two objects must be compared because they share an identity
(a duplicate) or an Azure parent given by ARM ID (subnets of one VNet). :func:`document_keys`
reads those names from a parsed document as small integer *keys*; :class:`Partitioner` joins the
documents that share keys (union-find) into components, and packs consecutive components into
batches. Validating the batches one by one then finds what validating everything at once finds,
while only one batch is held in memory.

Joining is conservative: a name that *might* be a reference joins (more joining costs memory,
never correctness). One exception keeps a fleet from collapsing into one component: a shared
object many clusters refer to (the ASO credential Secret, an AzureClusterIdentity, a
ClusterClass, a Namespace) is a *hub*. Its component is joined to its first referrer only, and
copied as a *guest* into every other batch that refers to it; findings about guests are merged
without repeats by the caller.
"""

from __future__ import annotations

import importlib
from array import array
from collections.abc import Callable, Iterator
from typing import Final, Protocol

from generator.validate.batches import Batch, Part
from generator.validate.partition_keys import (
    HUB_KINDS,
    DocumentKeys,
    PackedKeys,
    document_keys,
    pack_keys,
)
from generator.validate.partition_tables import Everywhere, IntTable, Multimap, UnionFind

__all__ = [
    "HUB_KINDS",
    "HUB_REFERRERS",
    "Batch",
    "DocumentKeys",
    "PackedKeys",
    "Part",
    "Partitioner",
    "document_keys",
    "pack_keys",
]

HUB_REFERRERS = 8  # a shareable object referred to by more documents than this is a hub
MAX_GUEST_DOCUMENTS = 256  # a larger hub component is joined instead of copied


class Sets(Protocol):
    """Disjoint sets of document numbers, the root of each its earliest document."""

    def __len__(self) -> int: ...  # how many documents

    def find(self, item: int, /) -> int: ...

    def union(self, a: int, b: int, /) -> None: ...


class Joiner(Sets, Protocol):
    """What joins documents: the sets, the first declarer of each key, every declarer of each
    namespace-free key, and the loop over packed codes that fills them. The compiled build's is
    C (``generator/validate/_joiner.c``), a pure install's :class:`PythonJoiner`; either is made
    with the Partitioner's own dictionaries and flags, by keyword, and updates them."""

    def get(self, key: int, /) -> int | None: ...  # the first declarer of a key

    def declarers(self, keys: set[int], /) -> dict[int, list[int]]: ...  # latest first

    def add_packed(
        self, codes: array[int], start: int, end: int, kinds: tuple[str, ...], /
    ) -> tuple[int, int]: ...  # the first document's number and the next number


def _native_joiner() -> Callable[..., Joiner] | None:
    """The C joiner's type (made with the Partitioner's dictionaries, set and flags, by
    keyword), or None in a pure install."""
    try:
        # an optional extension, only in compiled wheels; looked for once, at import
        extension = importlib.import_module("generator.validate._joiner")
    except ImportError:
        return None
    found: Callable[..., Joiner] = extension.Joiner
    return found


NATIVE_JOINER: Final = _native_joiner()
"""The C joiner (None without it): what every Partitioner joins with unless told otherwise; the
union-find of the 1,000-cluster fleet's keys took 20 ms of the caller's CPU in compiled Python,
on the way from the workers' keys to the first batch."""


class PythonJoiner:
    """The joiner of a pure install (the C one's twin, :class:`Joiner`): the sets, the first
    declarer of each key and every declarer in compact tables (``partition_tables``), and the
    loop over a piece's codes. Made, like the C one, with the Partitioner's own Multimaps'
    dictionaries, unresolved keys, kinds and namespace flags, which it updates."""

    def __init__(
        self,
        *,
        pending_first: dict[int, int],
        pending_more: dict[int, array[int]],
        hub_first: dict[int, int],
        hub_more: dict[int, array[int]],
        unresolved: dict[int, int],
        kinds: set[str],
        namespaced: list[bool],
    ) -> None:
        self._sets = UnionFind()
        self._declared = IntTable()  # key -> first declaring document
        self._everywhere = Everywhere()
        self._pending = Multimap(pending_first, pending_more)
        self._hub_referrers = Multimap(hub_first, hub_more)
        self._unresolved = unresolved
        self._kinds = kinds
        self._namespaced = namespaced

    def __len__(self) -> int:
        return len(self._sets)

    def find(self, item: int, /) -> int:
        return self._sets.find(item)

    def union(self, a: int, b: int, /) -> None:
        self._sets.union(a, b)

    def get(self, key: int, /) -> int | None:
        return self._declared.get(key)

    def declarers(self, keys: set[int], /) -> dict[int, list[int]]:
        return self._everywhere.declarers(keys)

    def add_packed(
        self, packed: array[int], start: int, end: int, names: tuple[str, ...], /
    ) -> tuple[int, int]:
        """Add the documents packed in ``packed[start:end]``; returns the first one's number
        and the next number."""
        # a list of the codes, not the array: compiled, indexing a list[int] is a native load
        codes: list[int] = packed[start:end].tolist()
        stop, at, before = len(codes), 0, len(self._sets)
        while at < stop:
            doc = self._sets.add()
            kind, namespaced, declared = codes[at], codes[at + 1], codes[at + 2]
            if kind >= 0:
                self._kinds.add(names[kind])
            if namespaced >= 0:
                self._namespaced[namespaced] = True
            first = at + 3
            for k in range(first, first + 3 * declared, 3):
                self._declare(codes[k], codes[k + 2] if codes[k + 1] else None, doc)
            at = first + 3 * declared
            referred, first = codes[at], at + 1
            for k in range(first, first + 3 * referred, 3):
                flags = codes[k + 1]
                self._refer(codes[k], flags & 1, codes[k + 2] if flags & 2 else None, doc)
            at = first + 3 * referred
        return before, len(self._sets)

    def _declare(self, code: int, namefree: int | None, doc: int) -> None:
        if namefree is not None:
            self._everywhere.add(namefree, doc)
        first = self._declared.setdefault(code, doc)
        if first != doc:
            self._sets.union(first, doc)
        for waiting in self._pending.pop(code):
            self._sets.union(doc, waiting)
        self._unresolved.pop(code, None)  # resolved after all: no need to look elsewhere

    def _refer(self, code: int, hub: int, namefree: int | None, doc: int) -> None:
        declarer = None if hub else self._declared.get(code)
        if declarer is not None:
            self._sets.union(declarer, doc)
            return
        (self._hub_referrers if hub else self._pending).add(code, doc)
        if code not in self._unresolved and namefree is not None:
            self._unresolved[code] = namefree


class Partitioner:
    """Joins documents by their keys as they come, in one pass (union-find).

    Only what a later document may still need is kept: the first declarer of each key (hashed;
    a hash collision can only join more), references to keys nobody declared yet, and the
    referrers of possible hubs. A fleet of 50,000 clusters keeps a few dozen bytes per object.
    """

    def __init__(self, joiner: Callable[..., Joiner] | None = NATIVE_JOINER) -> None:
        self._pending = Multimap()  # key nobody declared yet -> its referrers
        self._hub_referrers = Multimap()  # shareable kinds: joined or copied at the end
        self._unresolved: dict[int, int] = {}  # pending or hub key -> its namespace-free key
        self._dropped: set[int] = set()
        self._namespaced = [False, False]  # seen documents without / with a namespace
        self.kinds: set[str] = set()  # every kind of the input
        # the C joiner where there is one, else (or given None, as tests compare them) Python's
        self._joiner: Joiner = (PythonJoiner if joiner is None else joiner)(
            pending_first=self._pending.first,
            pending_more=self._pending.more,
            hub_first=self._hub_referrers.first,
            hub_more=self._hub_referrers.more,
            unresolved=self._unresolved,
            kinds=self.kinds,
            namespaced=self._namespaced,
        )

    def add(self, keys: DocumentKeys) -> int:
        """Register the next document; returns its number (0, 1, ... in input order)."""
        return self.add_packed(pack_keys([keys]))[0]

    def add_packed(self, packed: PackedKeys, start: int = 0, end: int | None = None) -> list[int]:
        """Register the documents packed in ``packed.codes[start:end]``, in order; returns
        their numbers."""
        stop = len(packed.codes) if end is None else end
        first, last = self._joiner.add_packed(packed.codes, start, stop, packed.kinds)
        return list(range(first, last))

    def _join_elsewhere(self) -> None:
        """A reference unresolved in its namespace joins the same name in every namespace."""
        left = [
            (self._unresolved[key], referrers)
            for key, referrers in [*self._pending.items(), *self._hub_referrers.items()]
            if self._joiner.get(key) is None and key in self._unresolved
        ]
        declarers = self._joiner.declarers({namefree for namefree, _ in left})
        for namefree, referrers in left:
            others = declarers.get(namefree, [])
            for doc in (*others, *referrers) if others else ():
                self._joiner.union(others[0], doc)

    def drop(self, doc: int) -> None:
        """Leave ``doc`` out of every batch (its file turned out unreadable); its keys stay,
        which can only join more."""
        self._dropped.add(doc)

    @property
    def count(self) -> int:
        """How many documents were added."""
        return len(self._joiner)

    def batches(self, max_documents: int) -> list[Batch]:
        """Components packed in input order into batches of about ``max_documents``.

        An input that mixes objects with and without ``metadata.namespace`` is one batch: an
        object without a namespace may refer to one in any namespace, which keys cannot tell.
        """
        kept = (doc for doc in range(self.count) if doc not in self._dropped)
        if all(self._namespaced):
            everything = array("i", kept)
            return [Batch.of_parts([Part(everything, array("i"))])] if everything else []
        self._join_elsewhere()
        guests = self._guest_components()
        members: dict[int, array[int]] = {}
        for doc in kept:
            root = self._joiner.find(doc)
            found = members.get(root)
            if found is None:
                found = members[root] = array("i")
            found.append(doc)
        return list(_pack(members, guests, max_documents))

    def _guest_components(self) -> dict[int, set[int]]:
        """Join the referrers of shared objects, or for hubs, list which components need a copy:
        component root -> roots of hub components."""
        sizes: dict[int, int] = {}
        for doc in range(self.count):
            root = self._joiner.find(doc)
            sizes[root] = sizes.get(root, 0) + 1
        needs: dict[int, set[int]] = {}
        for key, referrers in self._hub_referrers.items():
            declarer = self._joiner.get(key)
            if declarer is None:
                continue
            hub = self._joiner.find(declarer)
            if len(referrers) <= HUB_REFERRERS or sizes.get(hub, 0) > MAX_GUEST_DOCUMENTS:
                for doc in referrers:
                    self._joiner.union(hub, doc)
                continue
            self._joiner.union(hub, referrers[0])  # its home: the batch of its first referrer
            for doc in referrers[1:]:
                needs.setdefault(doc, set()).add(hub)
        return _by_final_root(needs, self._joiner)


def _by_final_root(needs: dict[int, set[int]], sets: Sets) -> dict[int, set[int]]:
    result: dict[int, set[int]] = {}
    for doc, hubs in needs.items():
        root = sets.find(doc)
        wanted = {sets.find(hub) for hub in hubs} - {root}
        if wanted:
            result.setdefault(root, set()).update(wanted)
    return result


def _pack(
    members: dict[int, array[int]],
    guests: dict[int, set[int]],
    max_documents: int,
) -> Iterator[Batch]:
    """Consecutive components (ordered by their first document) into batches."""
    parts: list[Part] = []
    size = 0
    for root in sorted(members):
        needed = _closure({root}, guests) - {root}
        hub_docs = array("i", sorted(doc for hub in needed for doc in members[hub]))
        parts.append(Part(members[root], hub_docs))
        size += len(members[root])
        if size >= max_documents:
            yield Batch.of_parts(parts)
            parts, size = [], 0
    if parts:
        yield Batch.of_parts(parts)


def _closure(roots: set[int], guests: dict[int, set[int]]) -> set[int]:
    """The hub components ``roots`` need, and the ones those need (a hub may use a hub)."""
    found: set[int] = set()
    todo = [hub for root in roots for hub in guests.get(root, ())]
    while todo:
        hub = todo.pop()
        if hub not in found:
            found.add(hub)
            todo.extend(guests.get(hub, ()))
    return found
