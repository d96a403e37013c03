"""What the plan evaluates, on a v1beta2 class (inputs/v1beta2): naming templates, variables,
defaults, overrides, builtin values, enabledIf, external patches; and what it refuses."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from generator.errors import Location, TopologyError, ValidationFailed
from generator.topology import naming
from tests.topology.topology_testing import plan

INPUTS = Path(__file__).parent / "inputs" / "v1beta2"
CLASS = (INPUTS / "class.yaml").read_text(encoding="utf-8")
CLUSTER = (INPUTS / "cluster.yaml").read_text(encoding="utf-8")


def planned(cache: Path, klass: str = CLASS, cluster: str = CLUSTER) -> dict[tuple[str, str], Any]:
    result = plan(f"{klass}\n---\n{cluster}", cache)
    return {(o["kind"], o["metadata"]["name"]): o for o in result.objects}


def test_names_follow_the_class_naming_templates(session_cache: Path) -> None:
    names = list(planned(session_cache))
    assert names == [
        ("Cluster", "c1"),
        ("AzureASOManagedControlPlane", "c1-00000"),  # no naming template: CAPI's default
        ("AzureASOManagedCluster", "c1-infra"),
        ("MachinePool", "c1-sys"),
        ("AzureASOManagedMachinePool", "c1-sys-00000"),
        ("KubeadmConfig", "c1-sys-00000"),
    ]


def test_v1beta2_references(session_cache: Path) -> None:
    objects = planned(session_cache)
    cluster = objects[("Cluster", "c1")]
    assert cluster["spec"]["infrastructureRef"] == {
        "apiGroup": "infrastructure.cluster.x-k8s.io",
        "kind": "AzureASOManagedCluster",
        "name": "c1-infra",
    }
    pool = objects[("MachinePool", "c1-sys")]["spec"]["template"]["spec"]
    assert pool["bootstrap"]["configRef"]["name"] == "c1-sys-00000"
    assert pool["version"] == "v1.33.1"


def test_variables_builtins_and_overrides(session_cache: Path) -> None:
    objects = planned(session_cache)
    group = objects[("AzureASOManagedCluster", "c1-infra")]["spec"]["resources"][0]
    assert group["spec"] == {"location": "eastus"}  # the Cluster's value
    assert group["metadata"]["name"] == "c1"  # builtin.cluster.name
    agent_pool = objects[("AzureASOManagedMachinePool", "c1-sys-00000")]["spec"]["resources"][0]
    assert agent_pool["spec"]["vmSize"] == "Standard_D4s_v5"  # the pool's override
    assert agent_pool["spec"]["count"] == 2  # builtin.machinePool.replicas
    assert agent_pool["spec"]["azureName"] == "sys"  # builtin.machinePool.topologyName
    managed = objects[("AzureASOManagedControlPlane", "c1-00000")]["spec"]["resources"][0]
    assert managed["spec"]["dnsPrefix"] == "c1-00000"  # builtin.controlPlane.name


def test_default_applies_without_override(session_cache: Path) -> None:
    cluster = CLUSTER.replace("value: Standard_D4s_v5", "value: Standard_D8s_v5")
    cluster = cluster.replace(
        "        variables:\n          overrides:\n          - name: vmSize\n"
        "            value: Standard_D8s_v5\n",
        "",
    )
    objects = planned(session_cache, cluster=cluster)
    agent_pool = objects[("AzureASOManagedMachinePool", "c1-sys-00000")]["spec"]["resources"][0]
    assert agent_pool["spec"]["vmSize"] == "Standard_D2s_v3"  # the schema's default


def test_topology_wins_over_the_template(session_cache: Path) -> None:
    """The class's control plane template says v1.30.0; CAPI sets the topology's version."""
    control_plane = planned(session_cache)[("AzureASOManagedControlPlane", "c1-00000")]
    assert control_plane["spec"]["version"] == "v1.33.1"
    assert control_plane["metadata"]["labels"]["team"] == "blue"  # the class's metadata


def test_external_patch_is_reported(session_cache: Path) -> None:
    result = plan(f"{CLASS}\n---\n{CLUSTER}", session_cache)
    [external] = [f for f in result.findings if f.rule == "CC-PATCH-UNCHECKED"]
    assert "from-extension is external" in external.message
    assert external.path == ("spec", "patches", 4)
    assert external.line == 139


def test_enabled_if_true_applies_the_patch(session_cache: Path) -> None:
    """``extra`` enables a patch adding a field the schema refuses: the plan is invalid."""
    cluster = CLUSTER.replace(
        "    - name: location\n", "    - name: extra\n      value: true\n    - name: location\n"
    )
    with pytest.raises(ValidationFailed) as caught:
        planned(session_cache, cluster=cluster)
    assert any("bogus" in f.message for f in caught.value.findings)


def test_patch_that_does_not_apply_fails_the_plan(session_cache: Path) -> None:
    klass = CLASS.replace("path: /spec/template/spec/bogus", "path: /spec/template/spec/a/b")
    cluster = CLUSTER.replace(
        "    - name: location\n", "    - name: extra\n      value: true\n    - name: location\n"
    )
    with pytest.raises(ValidationFailed) as caught:
        planned(session_cache, klass=klass, cluster=cluster)
    [failed] = [f for f in caught.value.findings if f.rule == "CC-PATCH-TEMPLATE"]
    assert failed.path == ("spec", "patches", 3, "definitions", 0, "jsonPatches", 0)
    assert "does not apply" in failed.message


@pytest.mark.parametrize(
    ("cluster", "message"),
    [
        (CLUSTER.replace("name: cc", "name: other"), "ClusterClass team/other, which is not among"),
        (CLUSTER.replace("class: pool", "class: gpu"), "'gpu' is not a machinePools class"),
        (
            CLUSTER.replace("    - name: location\n      value: eastus\n", ""),
            "'location' is required",
        ),
    ],
)
def test_input_mistakes(session_cache: Path, cluster: str, message: str) -> None:
    with pytest.raises(TopologyError) as caught:
        planned(session_cache, cluster=cluster)
    assert message in caught.value.message
    assert caught.value.location is not None and caught.value.location.line is not None


def test_missing_template(session_cache: Path) -> None:
    klass = CLASS.replace("metadata:\n  name: boot\n", "metadata:\n  name: boot-renamed\n")
    with pytest.raises(TopologyError) as caught:
        planned(session_cache, klass=klass)
    assert "KubeadmConfigTemplate/boot" in caught.value.message


def test_no_topology_cluster(session_cache: Path) -> None:
    with pytest.raises(TopologyError, match=r"no Cluster with spec\.topology"):
        planned(session_cache, cluster="")


def test_long_names_are_cut_as_capi_cuts_them() -> None:
    cluster = "c" * 60
    name = naming.from_template(naming.DEFAULT_TEMPLATE, cluster, Location())
    assert name == "c" * 58 + "00000"
    assert naming.prefixed(f"{cluster}-mp-0-") == "c" * 58 + "00000"


def test_naming_template_reading_an_unknown_key_is_refused() -> None:
    with pytest.raises(TopologyError, match="missingkey"):
        naming.from_template("{{ .cluster.name }}-{{ .nope }}", "c1", Location(file="class.yaml"))
