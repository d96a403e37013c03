"""Rule behaviour the example folders do not show well: resolution across document shapes, API
generations and namespaces, and the helpers the rules rely on."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from generator.checks import ValidationOptions, validate_documents
from generator.checks.rules.aso import arm_resource_type
from generator.documents import Document
from generator.findings import format_path
from generator.model import kinds
from generator.model.manifests import ManifestSet
from generator.model.values import parse_version

Parse = Callable[..., list[Document]]
Load = Callable[[str], list[Document]]
RULES_ONLY = ValidationOptions(schemas=False)


def _rules(findings: list[Any]) -> list[tuple[str, str]]:
    return [(f.rule, format_path(f.path)) for f in findings]


def _edit(
    docs: list[Document], kind: str, edit: Callable[[dict[str, Any]], None], nth: int = 0
) -> list[Document]:
    matches = [doc for doc in docs if doc.kind == kind]
    edit(matches[nth].obj)
    return docs


def test_top_level_resource_group_satisfies_the_owner(template_docs: Load, parse: Parse) -> None:
    docs = template_docs("aks-aso")
    _edit(docs, "AzureASOManagedCluster", lambda obj: obj["spec"].update(resources=[]))
    assert ("CAPZ-ASO-OWNER", "spec.resources[0].spec.owner.name") in _rules(
        validate_documents(docs, None, RULES_ONLY)
    )
    group = parse(
        "apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\n"
        "metadata: {name: demo, namespace: default}\nspec: {location: westeurope}\n"
    )
    assert validate_documents([*docs, *group], None, RULES_ONLY) == []


def test_explicit_owner_kind_is_resolved(template_docs: Load) -> None:
    extension: dict[str, Any] = {
        "apiVersion": "kubernetesconfiguration.azure.com/v1api20230501",
        "kind": "Extension",
        "metadata": {
            "name": "flux",
            "annotations": {"serviceoperator.azure.com/credential-from": "aso-credentials"},
        },
        "spec": {
            "owner": {
                "group": "containerservice.azure.com",
                "kind": "ManagedCluster",
                "name": "demo",
            }
        },
    }
    docs = _edit(
        template_docs("aks-aso"),
        "AzureASOManagedControlPlane",
        lambda o: o["spec"]["resources"].append(extension),
    )
    assert validate_documents(docs, None, RULES_ONLY) == []
    extension["spec"]["owner"]["name"] = "other"
    findings = validate_documents(docs, None, RULES_ONLY)
    assert _rules(findings) == [("CAPZ-ASO-OWNER", "spec.resources[1].spec.owner.name")]
    assert "owner ManagedCluster 'other' (containerservice.azure.com)" in findings[0].message


def test_v1beta2_refs_with_api_group(template_docs: Load) -> None:
    def to_v1beta2(cluster: dict[str, Any]) -> None:
        for field in ("controlPlaneRef", "infrastructureRef"):
            ref = cluster["spec"][field]
            ref["apiGroup"] = ref.pop("apiVersion").split("/")[0]

    docs = _edit(template_docs("aks-aso"), "Cluster", to_v1beta2)
    assert validate_documents(docs, None, RULES_ONLY) == []
    _edit(
        docs,
        "Cluster",
        lambda o: o["spec"]["controlPlaneRef"].update(apiGroup="controlplane.cluster.x-k8s.io"),
    )
    assert _rules(validate_documents(docs, None, RULES_ONLY)) == [
        ("CAPZ-REF-CONTROLPLANE", "spec.controlPlaneRef.apiGroup")
    ]


def test_templated_values_are_unknown_not_wrong(template_docs: Load) -> None:
    docs = template_docs("aks-aso")
    templated = "{{ .builtin.cluster.name }}"
    _edit(
        docs,
        "AzureASOManagedMachinePool",
        lambda o: o["spec"]["resources"][0]["spec"].update(mode=templated, azureName=templated),
    )
    _edit(
        docs,
        "AzureASOManagedMachinePool",
        lambda o: o["spec"]["resources"][0]["spec"].update(owner={"name": templated}),
        nth=1,
    )
    _edit(
        docs,
        "AzureASOManagedControlPlane",
        lambda o: o["spec"]["resources"][0]["spec"].update(
            dnsPrefix=templated, kubernetesVersion=templated
        ),
    )
    assert validate_documents(docs, None, RULES_ONLY) == []


def test_pool_without_system_mode_in_topology_cluster_is_not_reported(template_docs: Load) -> None:
    assert validate_documents(template_docs("aks-aso-topology"), None, RULES_ONLY) == []


def test_missing_namespace_resolves_against_any(template_docs: Load) -> None:
    docs = template_docs("aks-aso")
    for doc in docs:
        del doc.obj["metadata"]["namespace"]
    assert validate_documents(docs, None, RULES_ONLY) == []
    manifests = ManifestSet(docs)
    assert len(manifests.clusters) == 1 and len(manifests.clusters[0].pools) == 2


def test_exact_namespace_wins_over_unset(parse: Parse) -> None:
    docs = parse(
        "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n---\n"
        "apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: a}\n"
    )
    manifests = ManifestSet(docs)
    found = manifests.find("Secret", "s", "a")
    assert found is not None and found.namespace == "a"
    unset = manifests.find("Secret", "s", None)
    assert unset is not None and unset.namespace is None
    assert manifests.find("Secret", "s", "b") is not None  # the unset one may land in b


def test_clusters_are_checked_independently(template_docs: Load) -> None:
    good = template_docs("aks-aso")
    bad = [Document("bad.yaml", doc.index, doc.obj) for doc in template_docs("aks-aso")]
    for doc in bad:
        doc.obj["metadata"]["namespace"] = "other"
    _edit(
        bad,
        "AzureASOManagedMachinePool",
        lambda o: o["spec"]["resources"][0]["spec"].update(mode="User"),
    )
    findings = validate_documents([*good, *bad], None, RULES_ONLY)
    assert [(f.rule, f.subject.name, f.subject.document) for f in findings] == [
        ("CAPZ-POOL-SYSTEM", "demo", 0)
    ]
    assert findings[0].subject is not None


def _copy(docs: list[Document], source: str) -> list[Document]:
    return [Document(source, doc.index, copy.deepcopy(doc.obj)) for doc in docs]


@pytest.mark.parametrize("flavor", ["aks-aso", "aks-aso-maintenance", "aks-aso-clusterclass"])
def test_one_cluster_in_two_files_is_one_duplicate_finding_per_object(
    template_docs: Load, flavor: str
) -> None:
    first = template_docs(flavor)
    findings = validate_documents([*first, *_copy(first, "copy.yaml")], None, RULES_ONLY)
    # No "no System pool" for the copied Cluster, no unreferenced copies, no finding per embedded
    # resource of a copied object: one finding per copied document, naming the first file.
    assert [(f.rule, f.subject.file, f.subject.document) for f in findings] == [
        ("CAPZ-RES-DUPLICATE", "copy.yaml", doc.index) for doc in first
    ]
    for finding in findings:
        assert format_path(finding.path) == "metadata.name"
        assert f"/{finding.subject.name} in cluster-template-{flavor}.yaml)" in finding.message


def test_a_subnet_defined_in_two_files_does_not_overlap_itself(parse: Parse) -> None:
    path = Path(__file__).parent / "examples" / "valid" / "full-featured.yaml"
    first = parse(path.read_text(), "a.yaml")
    second = parse(path.read_text(), "b.yaml")
    second = [doc for doc in second if doc.kind == "AzureASOManagedCluster"]
    subnet = second[0].obj["spec"]["resources"][2]
    assert subnet["kind"] == "VirtualNetworksSubnet"
    subnet["spec"]["addressPrefix"] = "10.10.8.0/24"  # a changed copy still is the same subnet
    findings = validate_documents([*first, *second], None, RULES_ONLY)
    assert [(f.rule, f.subject.file, format_path(f.path)) for f in findings] == [
        ("CAPZ-RES-DUPLICATE", "b.yaml", "metadata.name")
    ]
    assert "AzureASOManagedCluster/prod-infra in a.yaml" in findings[0].message


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("v1.31.1", (1, 31, 1)),
        ("1.31", (1, 31, None)),
        ("v1.30.0-rc.1", (1, 30, 0)),
        ("1.31.x", None),
        ("latest", None),
        ("{{ .builtin.cluster.topology.version }}", None),
        (1.31, None),
    ],
)
def test_parse_version(text: Any, parsed: Any) -> None:
    assert parse_version(text) == parsed


@pytest.mark.parametrize(
    ("arm_id", "arm_type"),
    [
        ("/subscriptions/0", "Microsoft.Resources/subscriptions"),
        ("/subscriptions/0/resourcegroups/rg", "Microsoft.Resources/resourceGroups"),
        (
            "/subscriptions/0/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/s",
            "Microsoft.Network/virtualNetworks/subnets",
        ),
        (  # an extension resource: the type after the last provider
            "/subscriptions/0/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters"
            "/aks/providers/Microsoft.KubernetesConfiguration/extensions/flux",
            "Microsoft.KubernetesConfiguration/extensions",
        ),
        ("/subscriptions/${SUB}/resourceGroups/${RG}", "Microsoft.Resources/resourceGroups"),
        ("/subscriptions/0/resourceGroups/rg/providers/${PROVIDER}/things/x", None),
        ("/subscriptions/0/resourceGroups/rg/providers/Microsoft.Network", None),
        ("subscriptions/0/resourceGroups/rg", None),
    ],
)
def test_arm_resource_type(arm_id: str, arm_type: str | None) -> None:
    assert arm_resource_type(arm_id) == arm_type


def test_every_owner_kind_has_an_arm_type() -> None:
    assert set(kinds.OWNER_KINDS.values()) <= set(kinds.ARM_TYPES)
    assert not set(kinds.OWNER_KINDS) & kinds.ARBITRARY_OWNER_KINDS


def test_references_and_config_pairs_at_any_depth(parse: Parse) -> None:
    """ASO-REFERENCE reads one walk over the spec: references wherever they sit (nothing inside a
    reference is another reference), ``*FromConfig`` pairs at any depth, inside references too;
    the owner is ASO-OWNER's."""
    docs = parse(
        """
apiVersion: network.azure.com/v1api20240301
kind: PrivateEndpoint
metadata: {name: pe, namespace: default}
spec:
  owner: {armId: /subscriptions/0/resourceGroups/rg, name: rg}
  subnet:
    reference: {armId: /x, name: y, innerReference: {}, keyFromConfig: {name: c}, key: k}
  privateLinkServiceConnections:
  - privateLinkServiceReference: {}
    settings: {idFromConfig: {name: c}, id: i}
  applicationSecurityGroups:
  - reference: {name: asg}
  listReferences: [{armId: /a, name: b}, text]
"""
    )
    findings = validate_documents(docs, None, RULES_ONLY)
    assert [path for rule, path in _rules(findings) if rule == "ASO-REFERENCE"] == [
        "spec.applicationSecurityGroups[0].reference",
        "spec.listReferences[0].armId",
        "spec.privateLinkServiceConnections[0].privateLinkServiceReference",
        "spec.privateLinkServiceConnections[0].settings.idFromConfig",
        "spec.subnet.reference.armId",
        "spec.subnet.reference.keyFromConfig",
    ]
