"""The plan on variations of CAPZ's v1beta1 class and Cluster: metadata and network in the
builtin values, control plane replicas, pool metadata, patches that fail or cannot be
evaluated, and the class and topology shapes the plan refuses."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from generator.errors import TopologyError, ValidationFailed
from generator.topology import patching
from generator.topology.plan import plan_documents
from generator.yamlio.load import load_documents
from tests.topology.topology_testing import capz_inputs, plan

Objects = list[dict[str, Any]]


@pytest.fixture
def capz(corpus_dir: Path) -> Objects:
    return [obj for obj in yaml.safe_load_all(capz_inputs(corpus_dir)) if obj]


def of_kind(objects: Objects, kind: str) -> dict[str, Any]:
    return next(obj for obj in objects if obj["kind"] == kind)


def planned(objects: Objects, cache: Path) -> dict[str, Any]:
    result = plan(yaml.safe_dump_all(objects), cache)
    found: dict[str, Any] = {}
    for obj in result.objects:
        found.setdefault(obj["kind"], obj)
    return found


def add_patch(objects: Objects, kind: str, match: dict[str, Any], *operations: Any) -> None:
    """A patch on ``kind`` templates that ``match`` selects, with ``operations``."""
    klass = of_kind(objects, "ClusterClass")
    klass["spec"]["patches"].append(
        {
            "name": "extra",
            "definitions": [
                {
                    "selector": {
                        "apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1",
                        "kind": kind,
                        "matchResources": match,
                    },
                    "jsonPatches": list(operations),
                }
            ],
        }
    )


def test_builtin_metadata_and_network(capz: Objects, session_cache: Path) -> None:
    cluster = of_kind(capz, "Cluster")
    cluster["metadata"]["labels"] = {"env": "prod"}
    cluster["spec"]["clusterNetwork"] = {
        "serviceDomain": "cluster.local",
        "services": {"cidrBlocks": ["10.0.0.0/16"]},
    }
    value = (
        "{env: {{ .builtin.cluster.metadata.labels.env }}, "
        "domain: {{ .builtin.cluster.network.serviceDomain }}, "
        "services: '{{ len .builtin.cluster.network.services }}'}"
    )
    add_patch(
        capz,
        "AzureASOManagedClusterTemplate",
        {"infrastructureCluster": True},
        {
            "op": "add",
            "path": "/spec/template/spec/resources/0/spec/tags",
            "valueFrom": {"template": value},
        },
    )
    group = planned(capz, session_cache)["AzureASOManagedCluster"]["spec"]["resources"][0]
    assert group["spec"]["tags"] == {"env": "prod", "domain": "cluster.local", "services": "1"}


def test_control_plane_replicas_and_pool_metadata(capz: Objects) -> None:
    """Planned only (AKS's control plane has no replicas: the schema would refuse them)."""
    topology = of_kind(capz, "Cluster")["spec"]["topology"]
    topology["controlPlane"] = {"replicas": 3, "metadata": {"annotations": {"a": "b"}}}
    topology["workers"]["machinePools"][0]["metadata"] = {"annotations": {"team": "x"}}
    topology["workers"]["machinePools"][0]["failureDomains"] = ["1"]
    documents = load_documents(yaml.safe_dump_all(capz), source="inputs.yaml")
    objects: dict[str, Any] = {}
    for obj in plan_documents(documents).objects:
        objects.setdefault(obj["kind"], obj)
    control_plane = objects["AzureASOManagedControlPlane"]
    assert control_plane["spec"]["replicas"] == 3
    assert control_plane["metadata"]["annotations"]["a"] == "b"
    pool = objects["MachinePool"]
    assert pool["metadata"]["annotations"] == {"team": "x"}
    assert pool["spec"]["template"]["metadata"]["annotations"] == {"team": "x"}
    assert pool["spec"]["failureDomains"] == ["1"]


@pytest.mark.parametrize(
    ("operation", "rule", "where"),
    [
        (
            {"op": "add", "path": "/spec/template/spec/x", "valueFrom": {"variable": "nope"}},
            "CC-PATCH-TEMPLATE",
            "valueFrom.variable",
        ),
        ({"op": "replace", "path": "", "value": 1}, "CC-PATCH-TEMPLATE", "non-object"),
        (
            {
                "op": "add",
                "path": "/spec/template/spec/x",
                "valueFrom": {"template": "{{ $x := 1 }}"},
            },
            "CC-PATCH-UNCHECKED",
            "not evaluate",
        ),
    ],
)
def test_patch_problems(
    capz: Objects, session_cache: Path, operation: Any, rule: str, where: str
) -> None:
    add_patch(capz, "AzureASOManagedClusterTemplate", {"infrastructureCluster": True}, operation)
    if rule == "CC-PATCH-UNCHECKED":
        result = plan(yaml.safe_dump_all(capz), session_cache)
        findings = result.findings
    else:
        with pytest.raises(ValidationFailed) as caught:
            planned(capz, session_cache)
        findings = caught.value.findings
    found = [f for f in findings if f.rule == rule]
    assert found, findings
    assert where in found[0].message or where in ".".join(map(str, found[0].path))


@pytest.mark.parametrize(
    ("enabled_if", "rule"),
    [("{{ $x := 1 }}", "CC-PATCH-UNCHECKED"), ("{{ if }}", "CC-PATCH-TEMPLATE")],
)
def test_enabled_if_that_cannot_be_told(
    capz: Objects, session_cache: Path, enabled_if: str, rule: str
) -> None:
    add_patch(
        capz,
        "AzureASOManagedClusterTemplate",
        {"infrastructureCluster": True},
        {"op": "add", "path": "/spec/template/spec/bogus", "value": 1},
    )
    of_kind(capz, "ClusterClass")["spec"]["patches"][-1]["enabledIf"] = enabled_if
    try:
        findings = plan(yaml.safe_dump_all(capz), session_cache).findings
    except ValidationFailed as failure:
        findings = failure.findings
    [found] = [f for f in findings if f.rule == rule]
    assert found.path[-1] == "enabledIf"


Edit = Callable[[Objects], None]


def _no_ref(objects: Objects) -> None:
    del of_kind(objects, "ClusterClass")["spec"]["infrastructure"]["ref"]


def _pool_class_without_name(objects: Objects) -> None:
    del of_kind(objects, "ClusterClass")["spec"]["workers"]["machinePools"][0]["class"]


def _no_class_named(objects: Objects) -> None:
    del of_kind(objects, "Cluster")["spec"]["topology"]["class"]


def _deployments(objects: Objects) -> None:
    workers = of_kind(objects, "Cluster")["spec"]["topology"]["workers"]
    workers["machineDeployments"] = [{"class": "x", "name": "md"}]


def _machine_infrastructure(objects: Objects) -> None:
    klass = of_kind(objects, "ClusterClass")
    ref = dict(klass["spec"]["infrastructure"]["ref"])
    klass["spec"]["controlPlane"]["machineInfrastructure"] = {"ref": ref}


def _pool_without_name(objects: Objects) -> None:
    del of_kind(objects, "Cluster")["spec"]["topology"]["workers"]["machinePools"][0]["name"]


def _same_pool_name(objects: Objects) -> None:
    pools = of_kind(objects, "Cluster")["spec"]["topology"]["workers"]["machinePools"]
    pools[1]["name"] = pools[0]["name"]


def _bad_naming(objects: Objects) -> None:
    klass = of_kind(objects, "ClusterClass")
    klass["spec"]["controlPlane"]["namingStrategy"] = {"template": "{{ $x := 1 }}"}


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (_no_ref, "no template reference at spec.infrastructure"),
        (_pool_class_without_name, "a machine pool class has no name"),
        (_no_class_named, "names no ClusterClass"),
        (_deployments, "machine deployment topologies are not planned"),
        (_machine_infrastructure, "machineInfrastructure is not planned"),
        (_pool_without_name, "the machine pool topology has no name"),
        (_same_pool_name, "is used twice"),
        (_bad_naming, "cannot be rendered"),
    ],
)
def test_refused_shapes(capz: Objects, session_cache: Path, edit: Edit, message: str) -> None:
    edit(capz)
    with pytest.raises(TopologyError) as caught:
        planned(capz, session_cache)
    assert message in caught.value.message


def test_too_many_operations(
    capz: Objects, session_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(patching, "MAX_APPLICATIONS", 3)
    with pytest.raises(TopologyError, match="more than 3 JSON patch operations"):
        planned(capz, session_cache)


def test_force_needs_output_dir(run_cli: Any) -> None:
    result = run_cli(["topology", "plan", "x.yaml", "--force"])
    assert result.exit_code == 2
    assert "--force needs --output-dir" in result.stderr
