"""Which worker parsed which chunks in pass 1, and the batches of pass 2 split by it, so that a
worker validates the documents it already holds (:mod:`generator.validate.workers`)."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

from generator.validate.batches import Batch, Part
from generator.validate.passes import Places
from generator.yamlio.chunks import Chunk


class Owners:
    """Which worker parsed which chunks in pass 1: per source, the first chunk offset of each
    piece and its worker (pieces are recorded in order)."""

    def __init__(self) -> None:
        self._starts: dict[int, list[int]] = {}
        self._workers: dict[int, list[int]] = {}

    def record(self, source: int, start: int, worker: int) -> None:
        """The piece of ``source`` from offset ``start`` on went to ``worker``."""
        self._starts.setdefault(source, []).append(start)
        self._workers.setdefault(source, []).append(worker)

    def of(self, chunk: Chunk) -> int | None:
        """The worker that parsed ``chunk``, if a worker did."""
        starts = self._starts.get(chunk.source)
        if not starts:
            return None
        at = bisect_right(starts, chunk.start) - 1
        return self._workers[chunk.source][at] if at >= 0 else None


def by_owner(places: Places, batches: Sequence[Batch], owners: Owners) -> list[Batch]:
    """Each batch split by the worker that parsed its parts (components), so that a worker
    validates what it already holds."""
    split: list[Batch] = []
    for batch in batches:
        parts = batch.parts
        owned = [owners.of(places.of(first)[0]) for first in parts.first_homes()]
        if len(set(owned)) < 2:  # one worker parsed it all (most batches): kept as it is
            split.append(batch)
            continue
        groups: dict[int | None, list[Part]] = {}
        for part, owner in zip(parts, owned, strict=True):
            groups.setdefault(owner, []).append(part)
        split.extend(Batch.of_parts(group) for group in groups.values())
    return split
