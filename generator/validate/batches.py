"""What the partition hands the validate run: batches of documents, each made of parts.

Kept apart from :mod:`generator.validate.partition` because these values travel: a batch is
pickled to the worker that validates it, and the partitioner itself is compiled (mypyc), whose
frozen dataclasses pickle refuses to rebuild.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import overload


@dataclass(frozen=True, slots=True)
class Part:
    """One component of a batch: its documents, and the hub documents it needs as guests.

    Validating a part alone gives the findings about its documents that validating everything
    gives, so a part whose inputs are unchanged can be skipped (:mod:`generator.validate.cache.store`).
    """

    home: array[int]  # ascending
    guests: array[int]  # ascending, none of them in ``home``


class Parts(Sequence[Part]):
    """The parts of a batch, kept in four flat arrays (a fleet of 50,000 clusters has 50,000 of
    them; an object and two arrays each cost more than the batches themselves). A :class:`Part`
    is made when one is asked for."""

    __slots__ = ("_guest_ends", "_guests", "_home", "_home_ends")

    def __init__(self, parts: Sequence[Part] = ()) -> None:
        self._home, self._home_ends = array("i"), array("i")
        self._guests, self._guest_ends = array("i"), array("i")
        for part in parts:
            self._home.extend(part.home)
            self._home_ends.append(len(self._home))
            self._guests.extend(part.guests)
            self._guest_ends.append(len(self._guests))

    def __len__(self) -> int:
        return len(self._home_ends)

    def first_homes(self) -> list[int]:
        """The first home document of every part, in order (no part made for it)."""
        home, ends = self._home, self._home_ends
        return [home[end] for end in (0, *ends[:-1])] if ends else []

    @overload
    def __getitem__(self, index: int) -> Part: ...

    @overload
    def __getitem__(self, index: slice) -> list[Part]: ...

    def __getitem__(self, index: int | slice) -> Part | list[Part]:
        if isinstance(index, slice):
            return [self[n] for n in range(len(self))[index]]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        home_start = self._home_ends[index - 1] if index else 0
        guest_start = self._guest_ends[index - 1] if index else 0
        return Part(
            self._home[home_start : self._home_ends[index]],
            self._guests[guest_start : self._guest_ends[index]],
        )


@dataclass(frozen=True, slots=True)
class Batch:
    """Documents validated together: ``home`` ones are reported here, ``guests`` are hub copies."""

    home: array[int]  # document numbers, ascending (flat arrays: a fleet has 350,000 of them)
    guests: array[int]
    parts: Parts = field(default_factory=Parts)  # the components the batch packs, in input order

    @classmethod
    def of_parts(cls, parts: Sequence[Part]) -> Batch:
        """The batch validating ``parts`` together (a guest that is home to one of them is home)."""
        home = array("i", sorted(doc for part in parts for doc in part.home))
        mine = set(home)
        guests = sorted({doc for part in parts for doc in part.guests} - mine)
        return cls(home, array("i", guests), Parts(parts))
