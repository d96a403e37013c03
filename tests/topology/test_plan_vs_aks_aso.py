"""A planned topology equals CAPZ's own non-class template for the same values.

CAPZ ships the same AKS cluster twice: ``aks-aso`` (plain objects) and ``aks-aso-clusterclass`` +
``aks-aso-topology`` (a class and a Cluster of it). Planning the second must give the first,
field by field, apart from what CAPI's topology controller does differently by design. Those
differences are the only ones allowed (docs/topology.md lists them too):

1. names: CAPI names the objects it creates ``<cluster>-00000`` (control plane, infrastructure
   cluster) and ``<cluster>-<topology pool name>-00000`` (a pool's objects), where ``aks-aso``
   writes ``<cluster>`` and ``<cluster>-poolN``; references follow the names;
2. metadata CAPI adds: the ``cluster.x-k8s.io/cluster-name``, ``topology.cluster.x-k8s.io/owned``
   and ``topology.cluster.x-k8s.io/pool-name`` labels (on a MachinePool also in
   ``spec.template.metadata``), the ``cluster.x-k8s.io/cloned-from-name`` and
   ``cloned-from-groupkind`` annotations, the Cluster's ``upgrade-step`` annotation;
3. the Cluster keeps its ``spec.topology``;
4. bootstrap: a class must give every machine pool class a bootstrap template, so each planned
   pool has a KubeadmConfig (empty; AKS ignores it) and a ``configRef`` to it, where ``aks-aso``
   writes ``bootstrap.dataSecretName: ""`` and no bootstrap object.

Everything else (every spec, every embedded ASO resource, versions, replicas, namespaces, the
object order) must be equal. Both class sources are checked: CAPZ's released templates and
capzgen's aks-clusterclass + aks-topology flavors.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from tests.topology.topology_testing import aks_aso_objects, capz_inputs, flavor_inputs, plan

CAPI_LABELS = (
    "cluster.x-k8s.io/cluster-name",
    "topology.cluster.x-k8s.io/owned",
    "topology.cluster.x-k8s.io/pool-name",
)
CAPI_ANNOTATIONS = (
    "cluster.x-k8s.io/cloned-from-name",
    "cluster.x-k8s.io/cloned-from-groupkind",
    "topology.internal.cluster.x-k8s.io/upgrade-step",
)


def renames(
    planned: list[dict[str, Any]], capz: list[dict[str, Any]]
) -> dict[tuple[str, str], str]:
    """(kind, planned name) -> CAPZ's name: objects of a kind pair up in order."""
    found: dict[tuple[str, str], str] = {}
    for kind in {obj["kind"] for obj in capz}:
        ours = [obj["metadata"]["name"] for obj in planned if obj["kind"] == kind]
        theirs = [obj["metadata"]["name"] for obj in capz if obj["kind"] == kind]
        assert len(ours) == len(theirs), f"{kind}: planned {ours}, CAPZ has {theirs}"
        found.update(((kind, a), b) for a, b in zip(ours, theirs, strict=True))
    return found


def _strip_metadata(meta: dict[str, Any]) -> None:
    for key, names in (("labels", CAPI_LABELS), ("annotations", CAPI_ANNOTATIONS)):
        values = meta.get(key, {})
        for name in names:
            values.pop(name, None)
        if not values:
            meta.pop(key, None)


def _rename_ref(ref: dict[str, Any], names: dict[tuple[str, str], str]) -> None:
    ref["name"] = names[(ref["kind"], ref["name"])]


def normalised(obj: dict[str, Any], names: dict[tuple[str, str], str]) -> dict[str, Any]:
    """``obj`` with differences 1-4 of the module docstring undone."""
    obj = copy.deepcopy(obj)
    obj["metadata"]["name"] = names[(obj["kind"], obj["metadata"]["name"])]
    _strip_metadata(obj["metadata"])
    spec = obj["spec"]
    if obj["kind"] == "Cluster":
        assert spec.pop("topology")["version"] == "v1.33.1"
        _rename_ref(spec["controlPlaneRef"], names)
        _rename_ref(spec["infrastructureRef"], names)
    if obj["kind"] == "MachinePool":
        template = spec["template"]
        _strip_metadata(template["metadata"])
        _rename_ref(template["spec"]["infrastructureRef"], names)
        config = template["spec"]["bootstrap"].pop("configRef")
        assert config["kind"] == "KubeadmConfig"
        template["spec"]["bootstrap"]["dataSecretName"] = ""
    return obj


@pytest.mark.parametrize("source", ["capz", "flavors"])
def test_plan_equals_capz_aks_aso(source: str, corpus_dir: Path, session_cache: Path) -> None:
    text = capz_inputs(corpus_dir) if source == "capz" else flavor_inputs()
    result = plan(text, session_cache)
    assert not result.findings
    planned = [dict(obj) for obj in result.objects]
    bootstrap = [obj for obj in planned if obj["kind"] == "KubeadmConfig"]
    assert [obj["spec"] for obj in bootstrap] == [{}, {}]
    planned = [obj for obj in planned if obj["kind"] != "KubeadmConfig"]
    capz = aks_aso_objects(corpus_dir)
    names = renames(planned, capz)
    ours = [normalised(obj, names) for obj in planned]
    assert [(o["kind"], o["metadata"]["name"]) for o in ours] == [
        (o["kind"], o["metadata"]["name"]) for o in capz
    ]
    for mine, theirs in zip(ours, capz, strict=True):
        assert mine == theirs, mine["kind"]


def test_capi_metadata_is_there(corpus_dir: Path, session_cache: Path) -> None:
    """What the comparison strips is really what CAPI writes."""
    objects = plan(capz_inputs(corpus_dir), session_cache).objects
    by_name = {(o["kind"], o["metadata"]["name"]): o for o in objects}
    pool = by_name[("AzureASOManagedMachinePool", "my-cluster-mp-1-00000")]
    assert pool["metadata"]["labels"] == {
        "cluster.x-k8s.io/cluster-name": "my-cluster",
        "topology.cluster.x-k8s.io/owned": "",
        "topology.cluster.x-k8s.io/pool-name": "mp-1",
    }
    assert pool["metadata"]["annotations"] == {
        "cluster.x-k8s.io/cloned-from-name": "class-templates-pool1",
        "cluster.x-k8s.io/cloned-from-groupkind": "AzureASOManagedMachinePoolTemplate."
        "infrastructure.cluster.x-k8s.io",
    }
    control_plane = by_name[("AzureASOManagedControlPlane", "my-cluster-00000")]
    assert control_plane["spec"]["version"] == "v1.33.1"
    cluster = by_name[("Cluster", "my-cluster")]
    assert cluster["spec"]["controlPlaneRef"]["name"] == "my-cluster-00000"
