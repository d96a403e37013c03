"""The ASO API versions newer than the catalog snapshot: ASO's own samples pass, mutations fail.

The schemas come from ASO's API types (tests/data/upstream/schemas-next); the samples are ASO's
``v2/samples/containerservice/<version>/`` at the same commit (tests/data/upstream/aso-samples).
Each case starts from a sample, changes one field, and names the finding it must produce at that
field, through the built-in bundle exactly as ``capzgen validate`` reads it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from generator.checks import ValidationOptions, validate_documents
from generator.documents import Document
from generator.findings import Finding, format_path
from generator.jsonpatch import merge_patch
from generator.schemastore.store import SchemaStore
from generator.settings import Settings

SAMPLES = Path(__file__).resolve().parent.parent / "data" / "upstream" / "aso-samples"
NEW_VERSIONS = ("v1api20250301", "v1api20250801", "v20251002preview")


@pytest.fixture(scope="module")
def bundle_store(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The built-in bundle alone: what a user who installed capzgen has."""
    cache = tmp_path_factory.mktemp("cache")
    return SchemaStore.from_search_path(settings=Settings(cache_root=cache))


def _sample(version: str, kind: str) -> dict[str, Any]:
    path = SAMPLES / "containerservice" / version / f"{version}_{kind.lower()}.yaml"
    loaded = yaml.safe_load(path.read_text())
    assert isinstance(loaded, dict)
    return loaded


def _errors(obj: dict[str, Any], store: Any) -> list[Finding]:
    findings = validate_documents([Document("case.yaml", 0, obj)], store, ValidationOptions())
    return [f for f in findings if f.is_error]


def _describe(findings: list[Finding]) -> str:
    return "\n".join(f"  {f.rule} {format_path(f.path) or '-'}: {f.message}" for f in findings)


def test_every_new_version_has_samples() -> None:
    for version in NEW_VERSIONS:
        assert list((SAMPLES / "containerservice" / version).glob("*.yaml")), version


@pytest.mark.parametrize(
    "path",
    sorted(p for v in NEW_VERSIONS for p in (SAMPLES / "containerservice" / v).glob("*.yaml")),
    ids=lambda p: p.name,
)
def test_sample_is_accepted_by_the_bundle(path: Path, bundle_store: Any) -> None:
    obj = yaml.safe_load(path.read_text())
    errors = _errors(obj, bundle_store)
    assert errors == [], _describe(errors)


@dataclass(frozen=True)
class Mutation:
    """A merge patch on one sample and the field its finding must name (None: must pass)."""

    version: str
    kind: str
    patch: dict[str, Any]
    field: str | None

    def describe(self) -> str:
        return f"{self.version}-{self.kind}-{self.field or 'valid'}-{sorted(self.patch['spec'])}"


_MC, _POOL, _MEMBER, _FLEET = (
    "ManagedCluster",
    "ManagedClustersAgentPool",
    "FleetsMember",
    "Fleet",
)
MUTATIONS = [
    *(
        case
        for version in ("v1api20250801", "v20251002preview")
        for case in (
            Mutation(version, _MC, {"spec": {"notAField": 1}}, "spec.notAField"),
            Mutation(version, _MC, {"spec": {"sku": {"name": "Automatic"}}}, None),
            Mutation(version, _MC, {"spec": {"sku": {"name": "Premium"}}}, "spec.sku.name"),
            Mutation(version, _MC, {"spec": {"nodeProvisioningProfile": {"mode": "Auto"}}}, None),
            Mutation(
                version,
                _MC,
                {"spec": {"nodeProvisioningProfile": {"mode": "Sometimes"}}},
                "spec.nodeProvisioningProfile.mode",
            ),
            Mutation(version, _MC, {"spec": {"dnsPrefix": 7}}, "spec.dnsPrefix"),
            Mutation(version, _POOL, {"spec": {"mode": "Gateway"}}, None),
            Mutation(version, _POOL, {"spec": {"mode": "Sideways"}}, "spec.mode"),
            Mutation(version, _POOL, {"spec": {"count": "three"}}, "spec.count"),
        )
    ),
    Mutation("v1api20250301", _MEMBER, {"spec": {"group": "canary"}}, None),
    Mutation("v1api20250301", _MEMBER, {"spec": {"notAField": True}}, "spec.notAField"),
    Mutation("v1api20250301", _MEMBER, {"spec": {"clusterResourceReference": None}}, "spec"),
    Mutation("v1api20250301", _FLEET, {"spec": {"location": 3}}, "spec.location"),
]


@pytest.mark.parametrize("case", MUTATIONS, ids=Mutation.describe)
def test_mutated_sample(case: Mutation, bundle_store: Any) -> None:
    obj = merge_patch(_sample(case.version, case.kind), case.patch)
    errors = _errors(obj, bundle_store)
    if case.field is None:
        assert errors == [], _describe(errors)
        return
    assert errors, f"{case.describe()} was accepted"
    assert any(format_path(f.path) == case.field for f in errors), _describe(errors)


def test_gateway_pools_need_the_newer_version(bundle_store: Any) -> None:
    """``mode: Gateway`` exists from v1api20250801: the same pool at v1api20240901 is refused."""
    pool = merge_patch(_sample("v1api20250801", _POOL), {"spec": {"mode": "Gateway"}})
    pool["apiVersion"] = "containerservice.azure.com/v1api20240901"
    errors = _errors(pool, bundle_store)
    assert any(format_path(f.path) == "spec.mode" for f in errors), _describe(errors)


def test_v1api20240901_has_the_aso_v2_16_fields(bundle_store: Any) -> None:
    """ASO v2.16 added ``clientIdFromConfig``/``objectIdFromConfig`` to v1api20240901 identity
    references; the catalog's copy lacked them, the bundle's does not."""
    cluster = yaml.safe_load(
        (
            SAMPLES / "containerservice" / "v1api20240901" / "v1api20240901_managedcluster.yaml"
        ).read_text()
    )
    from_config = {"name": "identity-settings", "key": "clientId"}
    patch = {
        "spec": {
            "identityProfile": {"kubeletidentity": {"clientIdFromConfig": from_config}},
            "operatorSpec": {"configMaps": {"principalId": {"name": "out", "key": "principal"}}},
        }
    }
    errors = _errors(merge_patch(cluster, patch), bundle_store)
    assert errors == [], _describe(errors)


def test_removed_versions_point_at_a_version_the_bundle_has(bundle_store: Any) -> None:
    from generator.checks.rules.versions import DEPRECATED_VERSIONS, REMOVED_VERSIONS

    for (group, kind, _old), target in {**REMOVED_VERSIONS, **DEPRECATED_VERSIONS}.items():
        handle = bundle_store.lookup(f"{group}/{target}", kind)
        assert handle is not None and handle.source == "built-in", (kind, target)


def test_a_removed_fleets_member_version_names_the_served_one(bundle_store: Any) -> None:
    member = _sample("v1api20250301", _MEMBER)
    member["apiVersion"] = "containerservice.azure.com/v1api20230315preview"
    removed = [f for f in _errors(member, bundle_store) if f.rule == "CAPZ-ASO-VERSION-REMOVED"]
    assert len(removed) == 1
    assert "containerservice.azure.com/v1api20250301" in removed[0].message
