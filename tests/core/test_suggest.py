"""generator/suggest.py (the one "did you mean" helper) and generator/azure_data.py (its data)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import generator
from generator.azure_data import (
    VM_SIZE,
    VersionRange,
    kubernetes_versions,
    nearest_regions,
    regions,
    regions_compiled,
)
from generator.suggest import closest, did_you_mean, distance, fold
from generator.yamlio.load import load_manifest_value, load_value

DATA_DIR = Path(generator.__file__).parent / "data"

VARIABLES = ["AZURE_LOCATION", "AZURE_NODE_MACHINE_TYPE", "NODE_POOLS", "KUBERNETES_VERSION"]


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        ("", "", 0),
        ("abc", "abc", 0),
        ("", "abc", 3),
        ("abc", "", 3),
        ("kitten", "sitting", 3),
        ("ask", "aks", 1),  # a swap of neighbours is one edit
        ("ca", "abc", 3),  # optimal string alignment: no edit of a swapped pair
        ("machne", "machine", 1),
    ],
)
def test_distance_counts_insertions_deletions_substitutions_and_swaps(
    first: str, second: str, expected: int
) -> None:
    assert distance(first, second) == expected
    assert distance(second, first) == expected


def test_fold_ignores_case_separators_and_spaces() -> None:
    assert fold("West Europe") == "westeurope"
    assert fold("AZURE_NODE-MACHINE.TYPE") == "azurenodemachinetype"


@pytest.mark.parametrize(
    ("word", "candidates", "expected"),
    [
        ("AZURE_NODE_MACHNE_TYPE", VARIABLES, ["AZURE_NODE_MACHINE_TYPE"]),
        ("NODE_POOL", VARIABLES, ["NODE_POOLS"]),  # a truncation however short the rest
        ("azure_location", VARIABLES, ["AZURE_LOCATION"]),  # case is not a typo's distance
        ("ask", ["aks", "aks-legacy", "aks-topology"], ["aks"]),
        ("vmsize", ["name", "mode", "vmSize"], ["vmSize"]),
        ("Sytem", ["System", "User"], ["System"]),
        ("xyz", ["System", "User"], []),  # nothing near: no suggestion at all
        ("REPLICAS", VARIABLES, []),
    ],
)
def test_closest_finds_the_near_names_only(
    word: str, candidates: list[str], expected: list[str]
) -> None:
    assert closest(word, candidates) == expected


def test_closest_orders_by_distance_then_name_and_honours_the_limit() -> None:
    candidates = ["westus", "westus2", "westus3", "westeurope", "eastus"]
    assert closest("westeu", candidates, limit=2) == ["westeurope", "westus"]
    assert closest("westus4", candidates) == ["westus", "westus2", "westus3"]
    assert closest("westus", candidates, limit=1) == ["westus2"]  # itself is no suggestion


def test_did_you_mean_is_empty_or_one_sentence_tail() -> None:
    assert did_you_mean("NODE_POOL", VARIABLES) == "; did you mean NODE_POOLS?"
    assert did_you_mean("aks-aso-x", ["aks-aso", "aks-aso-y"], limit=2) == (
        "; did you mean aks-aso or aks-aso-y?"  # equally near: by name
    )
    assert did_you_mean("qqq", VARIABLES) == ""


def test_region_list_is_programmatic_names_with_a_date() -> None:
    names = regions()
    assert {"westeurope", "eastus", "northeurope", "swedencentral"} <= names
    assert all(re.fullmatch(r"[a-z][a-z0-9]*", name) for name in names)
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", regions_compiled())


def test_display_names_map_to_their_region_and_typos_to_the_nearest() -> None:
    assert nearest_regions("West Europe") == ["westeurope"]
    assert nearest_regions("WestEurope") == ["westeurope"]
    assert nearest_regions("westeu") == ["westeurope", "westus"]
    assert nearest_regions("zzzzzzzzzzzzzzzzz") == []


def test_kubernetes_range_is_read_from_its_data_file() -> None:
    supported = kubernetes_versions()
    assert supported.describe() == "v1.30 to v1.36"
    assert "Cluster API v1.13" in supported.source
    assert supported.contains(1, 31) and supported.contains(1, 30) and supported.contains(1, 36)
    assert not supported.contains(1, 29) and not supported.contains(1, 99)
    assert not supported.contains(2, 31)
    assert VersionRange((1, 2), (1, 3), "s", "d").describe() == "v1.2 to v1.3"


@pytest.mark.parametrize(
    ("size", "valid"),
    [
        ("Standard_D4s_v5", True),
        ("Standard_D2s_v3", True),
        ("Standard_B2ms", True),
        ("Standard_DS2_v2", True),
        ("Standard_NC24ads_A100_v4", True),
        ("Standard_M416-208s_v2", True),
        ("Basic_A0", True),
        ("Standard_Foo", False),
        ("D4s_v5", False),
        ("standard_d4s_v5", True),
        ("standard_D4s_v5", True),
        ("Standard_D4s v5", False),
    ],
)
def test_vm_size_shape(size: str, valid: bool) -> None:
    assert bool(VM_SIZE.match(size)) is valid


@pytest.mark.parametrize("path", sorted(DATA_DIR.glob("*.yaml")), ids=lambda path: path.name)
def test_data_files_read_alike_with_both_yaml_readings(path: Path) -> None:
    """azure_data reads its files with the manifest loader (no PyYAML needed while validating):
    for these files it must make no difference which of capzgen's two readings is used."""
    text = path.read_text(encoding="utf-8")
    assert load_manifest_value(text, source=path.name) == load_value(text, source=path.name)
