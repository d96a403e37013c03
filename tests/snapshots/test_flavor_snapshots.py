"""Golden outputs of every flavor through the whole pipeline (validation included).

`make snapshots` rewrites them after an intended change; any other change fails `make test`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from generator.pipeline import ClusterRequest, Inputs, generate_cluster

GOLDEN = Path(__file__).parent / "golden"
BASE = {"AZURE_LOCATION": "westeurope"}

THREE_POOLS = [
    {"name": "system", "mode": "System", "replicas": 3, "availabilityZones": ["1", "2", "3"]},
    {"name": "user", "mode": "User", "vmSize": "Standard_D4s_v5", "labels": {"tier": "app"}},
    {"name": "batch", "mode": "User", "taints": ["dedicated=batch:NoSchedule"], "replicas": 0},
]
AUTOSCALING = [
    {"name": "pool0", "mode": "System"},
    {"name": "pool1", "mode": "User", "replicas": 2, "autoscaling": {"minCount": 1, "maxCount": 5}},
]

CASES: dict[str, dict[str, Any]] = {
    "aks": {"flavor": "aks"},
    "aks-maintenance": {"flavor": "aks-maintenance"},
    "aks-clusterclass": {"flavor": "aks-clusterclass", "vars": {"CLUSTER_CLASS_NAME": "aks-class"}},
    "aks-topology": {"flavor": "aks-topology", "vars": {"CLUSTER_CLASS_NAME": "aks-class"}},
    "aks-three-pools": {"flavor": "aks", "values": {"NODE_POOLS": THREE_POOLS}},
    "aks-autoscaling": {"flavor": "aks", "values": {"NODE_POOLS": AUTOSCALING}},
    "aks-namespace": {"flavor": "aks", "namespace": "team-a"},
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_flavor_output_matches_golden(
    case: str, snapshot: Any, shared_schema_dirs: list[Path]
) -> None:
    spec = CASES[case]
    request = ClusterRequest(
        name="golden",
        flavor=spec["flavor"],
        kubernetes_version="v1.31.1",
        target_namespace=spec.get("namespace"),
        variables={**BASE, **spec.get("vars", {})},
        schema_dirs=shared_schema_dirs,
    )
    result = generate_cluster(request, Inputs(environ={}, values_file=spec.get("values", {})))
    assert not [f for f in result.findings if f.is_error]
    snapshot.snapshot_dir = GOLDEN
    snapshot.assert_match(result.text, f"{case}.yaml")


def test_output_is_deterministic(shared_schema_dirs: list[Path]) -> None:
    request = ClusterRequest(
        name="demo", variables=BASE, kubernetes_version="v1.31.1", schema_dirs=shared_schema_dirs
    )
    first = generate_cluster(request, Inputs(environ={})).text
    assert generate_cluster(request, Inputs(environ={})).text == first
