"""The partition's C joiner (``generator/validate/_joiner.c``) against its Python one: the same
documents, keys and slices give the same numbers, sets, kinds, flags and batches, whatever the
mix of references, duplicates, hubs and namespaces. The C joiner is the compiled wheel's under
``make test-compiled``, else built here from its source."""

from __future__ import annotations

import itertools
import os
from array import array
from collections.abc import Callable
from pathlib import Path
from typing import Any

import hypothesis
import pytest
from hypothesis import strategies as st

from benchmarks.inputs import TEMPLATE, cluster_text
from generator.validate import partition
from generator.validate.partition import (
    HUB_REFERRERS,
    Joiner,
    PackedKeys,
    Partitioner,
    document_keys,
    pack_keys,
)
from generator.yamlio.load import load_documents
from tests.native import built_extension

SOURCE = Path(__file__).resolve().parents[2] / "generator" / "validate" / "_joiner.c"

Factory = Callable[..., Joiner]


@pytest.fixture(scope="module")
def native(tmp_path_factory: pytest.TempPathFactory) -> Factory:
    """The C joiner: the installed one under ``make test-compiled`` (and then every Partitioner's
    own), else built here."""
    if os.environ.get("CAPZGEN_EXPECT_COMPILED") == "1":
        assert partition.NATIVE_JOINER is not None
        return partition.NATIVE_JOINER
    assert partition.NATIVE_JOINER is None, "a run on sources partitions in Python"
    factory: Factory = built_extension(SOURCE, tmp_path_factory.mktemp("joiner")).Joiner
    return factory


def shape(partitioner: Partitioner, size: int) -> list[Any]:
    """Everything the partitioner tells: documents, roots, kinds, flags, then its batches."""
    told: list[Any] = [
        partitioner.count,
        [partitioner._joiner.find(doc) for doc in range(partitioner.count)],
        sorted(partitioner.kinds),
        list(partitioner._namespaced),
    ]
    for batch in partitioner.batches(size):
        parts = [(list(part.home), list(part.guests)) for part in batch.parts]
        told.append((list(batch.home), list(batch.guests), parts))
    return told


def both(native: Factory, packed: PackedKeys, cuts: list[int], size: int) -> None:
    """Add ``packed`` to a C and a Python partitioner in the slices ``cuts`` makes of its codes
    (at document boundaries), and compare what they tell."""
    joined = [Partitioner(joiner=native), Partitioner(joiner=None)]
    numbers: list[list[int]] = [[], []]
    for which, partitioner in enumerate(joined):
        for start, end in itertools.pairwise(cuts):
            numbers[which] += partitioner.add_packed(packed, start, end)
    assert numbers[0] == numbers[1]
    assert shape(joined[0], size) == shape(joined[1], size)


def boundaries(packed: PackedKeys) -> list[int]:
    """Where each document's codes start, and the end."""
    codes, at, starts = packed.codes.tolist(), 0, []
    while at < len(codes):
        starts.append(at)
        at += 3 + 3 * codes[at + 2]
        at += 1 + 3 * codes[at]
    return [*starts, len(codes)]


NAMES = ("a", "b", "c")
KINDS = ("Cluster", "MachinePool", "Secret", "ResourceGroup", "AzureClusterIdentity", "Namespace")


@st.composite
def objects(draw: st.DrawFn) -> Any:
    """A small object naming a few others: every kind of key the partition reads, often the
    same names, so that joins, duplicates, hubs and references elsewhere all happen."""
    if draw(st.integers(0, 15)) == 0:
        return draw(st.sampled_from([None, ["a list"], "text"]))
    metadata: dict[str, Any] = {"name": draw(st.sampled_from(NAMES))}
    namespace = draw(st.sampled_from(["x", "y", "x", None]))
    if namespace is not None:
        metadata["namespace"] = namespace
    if draw(st.booleans()):
        metadata["annotations"] = {
            "serviceoperator.azure.com/credential-from": draw(st.sampled_from(NAMES))
        }
    spec: dict[str, Any] = {}
    if draw(st.booleans()):
        spec["clusterName"] = draw(st.sampled_from(NAMES))
    if draw(st.booleans()):
        spec["controlPlaneRef"] = {"kind": draw(st.sampled_from(KINDS)), "name": "b"}
    if draw(st.booleans()):
        spec["identityRef"] = {"kind": "AzureClusterIdentity", "name": draw(st.sampled_from(NAMES))}
    if draw(st.booleans()):
        spec["owner"] = {"name": draw(st.sampled_from(NAMES))}
    return {"kind": draw(st.sampled_from(KINDS)), "metadata": metadata, "spec": spec}


@hypothesis.settings(max_examples=150, deadline=None)
@hypothesis.given(
    documents=st.lists(objects(), max_size=40),
    size=st.integers(1, 8),
    slices=st.lists(st.integers(0, 40), max_size=6),
)
def test_the_c_joiner_partitions_as_the_python_one(
    native: Factory, documents: list[Any], size: int, slices: list[int]
) -> None:
    packed = pack_keys(document_keys(obj) for obj in documents)
    starts = boundaries(packed)
    cuts = sorted({0, starts[-1], *(starts[min(n, len(starts) - 1)] for n in slices)})
    both(native, packed, cuts, size)


def test_a_fleet_with_a_hub_and_duplicates_partitions_alike(native: Factory) -> None:
    """Clusters of the benchmark's template sharing one credential Secret (a hub past
    ``HUB_REFERRERS`` referrers), a cluster repeated, added in pieces as workers send them."""
    template = TEMPLATE.read_text(encoding="utf-8")
    clusters = [cluster_text(template, f"j-{i}") for i in range(HUB_REFERRERS + 4)]
    text = "---\n".join([*clusters, clusters[2]])
    packed = pack_keys(document_keys(d.obj) for d in load_documents(text, source="fleet.yaml"))
    starts = boundaries(packed)
    both(native, packed, [*starts[::5], starts[-1]], 20)


def test_the_c_joiner_refuses_what_the_packer_never_writes(native: Factory) -> None:
    """Codes that end inside a document, or name a kind or flag that is not there, are errors,
    never reads past the array; so are codes of another type and unknown documents."""
    partitioner = Partitioner(joiner=native)
    good = pack_keys([document_keys({"kind": "Secret", "metadata": {"name": "s"}})])
    joiner = partitioner._joiner
    assert joiner is not None
    with pytest.raises(ValueError, match="end inside a document"):
        joiner.add_packed(good.codes, 0, len(good.codes) - 1, good.kinds)
    with pytest.raises(IndexError, match="codes out of range"):
        joiner.add_packed(good.codes, 0, len(good.codes) + 1, good.kinds)
    with pytest.raises(IndexError, match="kind index"):
        joiner.add_packed(array("q", [5, -1, 0, 0]), 0, 4, ())
    with pytest.raises(IndexError, match="namespace flag"):
        joiner.add_packed(array("q", [-1, 7, 0, 0]), 0, 4, ())
    with pytest.raises(TypeError, match="array of 'q'"):
        joiner.add_packed(array("i", [0, 0, 0, 0]), 0, 4, good.kinds)
    assert partitioner.add_packed(good) == [3]  # the documents the errors began are counted
    assert len(joiner) == 4
    with pytest.raises(IndexError, match="no such document"):
        joiner.find(4)
    with pytest.raises(IndexError, match="no such document"):
        joiner.union(0, -1)
    with pytest.raises(RuntimeError, match="set up once"):
        joiner.__init__(  # type: ignore[misc]
            pending_first={},
            pending_more={},
            hub_first={},
            hub_more={},
            unresolved={},
            kinds=set(),
            namespaced=[False, False],
        )
