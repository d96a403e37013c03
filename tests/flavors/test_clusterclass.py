"""aks-clusterclass: Go template text in the patches reaches the output untouched."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from generator.flavors import render
from generator.flavors.catalog import FlavorCatalog
from tests.flavors.flavor_testing import GO_EXPRESSION, find, load_objects, render_text

VALUES = {
    "CLUSTER_CLASS_NAME": "aks-class",
    "CLUSTER_NAME": "class-templates",
    "AZURE_LOCATION": "eastus",
    "KUBERNETES_VERSION": "v1.33.1",
}


def patch_templates(objects: list[dict[str, Any]]) -> dict[str, str]:
    (clusterclass,) = find(objects, "ClusterClass")
    return {
        patch["name"]: patch["definitions"][0]["jsonPatches"][0]["valueFrom"]["template"]
        for patch in clusterclass["spec"]["patches"]
    }


def placeholder_text() -> str:
    catalog = FlavorCatalog()
    flavor = catalog.get("aks-clusterclass")
    return render.render_flavor(
        flavor, render.placeholder_values(flavor), catalog.template_search_path(flavor)
    )


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(render_text("aks-clusterclass", VALUES), id="values"),
        pytest.param(placeholder_text(), id="placeholders"),
    ],
)
def test_go_expressions_are_written_verbatim(text: str) -> None:
    # Names come from the `yaml` filter (JSON text); fields of specs built as maps from `to_yaml`
    # (capzgen's emitter), which single-quotes text YAML would otherwise read as a flow mapping.
    for expected in [
        'name: "{{ .builtin.cluster.name }}"',
        "dnsPrefix: '{{ .builtin.cluster.name }}'",
        'name: "{{ .builtin.cluster.name }}-pool0"',
        'name: "{{ .builtin.cluster.name }}-pool1"',
    ]:
        assert expected in text
    assert set(GO_EXPRESSION.findall(text)) == {"{{ .builtin.cluster.name }}"}


def test_go_expressions_match_capz(corpus_dir: Path) -> None:
    capz = load_objects(
        (corpus_dir / "cluster-template-aks-aso-clusterclass.yaml").read_text(encoding="utf-8")
    )
    ours = patch_templates(load_objects(render_text("aks-clusterclass", VALUES)))
    for name, template in patch_templates(capz).items():
        assert sorted(GO_EXPRESSION.findall(ours[name])) == sorted(
            GO_EXPRESSION.findall(template)
        ), name


def test_patch_templates_are_yaml_that_keeps_go_expressions_as_strings() -> None:
    templates = patch_templates(load_objects(render_text("aks-clusterclass", VALUES)))
    control_plane = yaml.safe_load(templates["azureasomanagedcontrolplane-spec"])
    assert control_plane["version"] == "v1.33.1"
    (cluster,) = control_plane["resources"]
    assert cluster["metadata"]["name"] == "{{ .builtin.cluster.name }}"
    assert cluster["spec"]["owner"] == {"name": "{{ .builtin.cluster.name }}"}
    pool = yaml.safe_load(templates["azureasomanagedmachinepool-pool1-spec"])["resources"][0]
    assert pool["spec"]["azureName"] == "pool1"
    assert not {"count", "orchestratorVersion"} & set(pool["spec"])


def test_placeholders_stay_inside_patch_text() -> None:
    """Export keeps ${VAR} inside the patch text for clusterctl to substitute, as CAPZ's file does."""
    templates = patch_templates(load_objects(placeholder_text()))
    assert "location: ${AZURE_LOCATION}" in templates["azureasomanagedcluster-spec"]
    assert "version: ${KUBERNETES_VERSION}" in templates["azureasomanagedcontrolplane-spec"]
    assert (
        "vmSize: ${AZURE_NODE_MACHINE_TYPE:=Standard_D2s_v3}"
        in templates["azureasomanagedmachinepool-pool0-spec"]
    )


def test_topology_uses_every_class_of_the_clusterclass() -> None:
    classes = find(load_objects(render_text("aks-clusterclass", VALUES)), "ClusterClass")[0]
    offered = [pool["class"] for pool in classes["spec"]["workers"]["machinePools"]]
    cluster = load_objects(
        render_text(
            "aks-topology",
            {
                "CLUSTER_NAME": "c1",
                "CLUSTER_CLASS_NAME": "aks-class",
                "KUBERNETES_VERSION": "v1.33.1",
            },
        )
    )[0]
    topology = cluster["spec"]["topology"]
    assert topology["class"] == classes["metadata"]["name"]
    assert [pool["class"] for pool in topology["workers"]["machinePools"]] == offered
