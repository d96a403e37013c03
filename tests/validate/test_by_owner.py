"""Batches go to the worker that parsed their documents: split only where two workers did."""

from __future__ import annotations

from array import array

from generator.validate.batches import Batch, Part, Parts
from generator.validate.owners import Owners, by_owner
from generator.validate.passes import Places


def _places() -> Places:
    """Six one-document chunks of source 0, at offsets 0, 10, ..., 50."""
    places = Places()
    places.add_chunks(0, [(10 * n, 10 * n + 10, n + 1) for n in range(6)], [1] * 6, 0)
    return places


def _part(*home: int, guests: tuple[int, ...] = ()) -> Part:
    return Part(array("i", home), array("i", guests))


def test_first_homes_are_each_parts_first_document() -> None:
    parts = Parts([_part(4, 5), _part(0), _part(2, 3, guests=(1,))])
    assert parts.first_homes() == [4, 0, 2]
    assert Parts().first_homes() == []


def test_a_batch_one_worker_parsed_is_kept_and_one_two_parsed_is_split() -> None:
    owners = Owners()
    owners.record(0, 0, worker=0)  # chunks from offset 0: worker 0
    owners.record(0, 30, worker=1)  # from offset 30 (documents 3 to 5): worker 1
    alone = Batch.of_parts([_part(0, 1), _part(2)])
    shared = Batch.of_parts([_part(1, guests=(0,)), _part(3, 4, guests=(0,)), _part(2)])
    split = by_owner(_places(), [alone, shared], owners)
    assert split[0] is alone
    assert [(list(b.home), list(b.guests)) for b in split[1:]] == [
        ([1, 2], [0]),  # worker 0's parts, in input order
        ([3, 4], [0]),  # worker 1's
    ]
    assert [len(b.parts) for b in split[1:]] == [2, 1]


def test_documents_no_worker_parsed_keep_their_batch() -> None:
    batch = Batch.of_parts([_part(0), _part(5)])
    assert by_owner(_places(), [batch], Owners()) == [batch]
