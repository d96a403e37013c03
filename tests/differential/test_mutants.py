"""The mutant generator itself (no peer needed): deterministic, one field per mutant, every
CAPZ kind of the bases covered."""

from __future__ import annotations

from tests.differential.mutants import GOLDEN_BASES, all_mutants, bases


def _changed(before: object, after: object) -> int:
    """How many leaves differ between two JSON-like values (an added subtree counts as one)."""
    if isinstance(before, dict) and isinstance(after, dict):
        keys = before.keys() | after.keys()
        return sum(_changed(before.get(k), after.get(k)) for k in keys)
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        return sum(_changed(b, a) for b, a in zip(before, after, strict=True))
    return int(before != after)


def test_each_mutant_changes_one_field_of_one_document() -> None:
    by_name = {base.name: base for base in bases()}
    for mutant in all_mutants():
        base = by_name[mutant.base]
        differing = [
            index
            for index, (old, new) in enumerate(zip(base.documents, mutant.documents, strict=True))
            if old != new
        ]
        assert differing == [mutant.document], mutant.name
        assert _changed(base.documents[mutant.document], mutant.documents[mutant.document]) == 1


def test_mutants_are_the_same_every_time_and_cover_every_capz_kind() -> None:
    first, second = all_mutants(), all_mutants()
    assert [m.name for m in first] == [m.name for m in second]
    assert len({m.name for m in first}) > 0.9 * len(first)  # names say what changed
    kinds = {m.kind for m in first}
    assert {
        "AzureManagedControlPlane",
        "AzureManagedMachinePool",
        "AzureManagedControlPlaneTemplate",
        "AzureManagedMachinePoolTemplate",
        "AzureClusterIdentity",
        "AzureASOManagedControlPlane",
    } <= kinds
    assert {m.base for m in first} >= {"aks", "aks-legacy", "capz-clusterclass"}
    assert set(GOLDEN_BASES) <= {b.name for b in bases()}
