"""ClusterClass patches applied to the templates they select, and the patched templates validated:
CAPZ's released classes and the aks-clusterclass flavor stay valid, a patch that breaks a
template is named with its place, and the literal *Template shapes are checked exactly like the
non-template kinds."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from generator.checks import ValidationOptions, validate_documents
from generator.checks.checkers import DEFAULT_CHECKERS, check_class_patches
from generator.checks.clusterclass import patches, rule_ids
from generator.checks.clusterclass.patches import check_class_patches as class_findings
from generator.documents import Document
from generator.findings import Finding, Severity, format_path
from generator.model.manifests import ManifestSet
from generator.schemastore.store import SchemaStore
from tests.conftest import CliResult
from tests.flavors.flavor_testing import render_text, substitute
from tests.schemastore.helpers import make_crd
from tests.validate.conftest import EXAMPLES, parse_documents

CLASS_VALUES = {
    "CLUSTER_CLASS_NAME": "demo-class",
    "CLUSTER_NAME": "demo",
    "ASO_CREDENTIAL_SECRET_NAME": "aso-credentials",
    "AZURE_LOCATION": "westeurope",
    "KUBERNETES_VERSION": "v1.31.1",
    "AZURE_NODE_MACHINE_TYPE": "Standard_D2s_v3",
    "AZURE_SUBSCRIPTION_ID": "00000000-0000-0000-0000-000000000000",
    "AZURE_TENANT_ID": "00000000-0000-0000-0000-000000000000",
    "AZURE_CLIENT_ID_USER_ASSIGNED_IDENTITY": "00000000-0000-0000-0000-000000000000",
    "CLUSTER_IDENTITY_NAME": "cluster-identity",
}
RunCli = Callable[..., CliResult]
WITHOUT_PATCHES = tuple(c for c in DEFAULT_CHECKERS if c is not check_class_patches)


def released(corpus_dir: Path, flavor: str) -> str:
    return substitute((corpus_dir / f"cluster-template-{flavor}.yaml").read_text(), CLASS_VALUES)


def test_released_aso_clusterclass_validates_clean(
    corpus_dir: Path, tmp_path: Path, run_cli: RunCli
) -> None:
    manifest = tmp_path / "class.yaml"
    manifest.write_text(released(corpus_dir, "aks-aso-clusterclass"))
    result = run_cli(["validate", str(manifest)])
    assert (result.exit_code, result.stdout) == (0, "7 documents checked: 0 errors, 0 warnings\n")


def test_flavor_clusterclass_validates_clean(tmp_path: Path, run_cli: RunCli) -> None:
    manifest = tmp_path / "flavor.yaml"
    manifest.write_text(render_text("aks-clusterclass", CLASS_VALUES))
    result = run_cli(["validate", str(manifest)])
    assert (result.exit_code, result.stdout) == (0, "7 documents checked: 0 errors, 0 warnings\n")


@pytest.mark.parametrize("flavor", ["aks-aso-clusterclass", "aks-clusterclass"])
def test_released_classes_get_nothing_from_their_patches(
    corpus_dir: Path, shared_store: Any, flavor: str
) -> None:
    # aks-clusterclass (the legacy API) has no patches and a finding of its own (its
    # AzureManagedControlPlaneTemplate lacks the resourceGroupName the CRD requires): the patch
    # check adds nothing to either class.
    documents = parse_documents(released(corpus_dir, flavor), f"{flavor}.yaml")
    every = validate_documents(documents, shared_store)
    before = validate_documents(documents, shared_store, checkers=WITHOUT_PATCHES)
    assert every == before


def test_broken_patch_is_named_on_its_line(
    corpus_dir: Path, tmp_path: Path, run_cli: RunCli
) -> None:
    text = released(corpus_dir, "aks-aso-clusterclass").replace(
        'dnsPrefix: "{{ .builtin.cluster.name }}"', 'dnsPrefx: "{{ .builtin.cluster.name }}"'
    )
    manifest = tmp_path / "class.yaml"
    manifest.write_text(text)
    result = run_cli(["validate", str(manifest)])
    line = next(
        n for n, row in enumerate(text.splitlines(), 1) if "- op: replace" in row and n > 40
    )
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0] == (
        f"{manifest}:{line}: ClusterClass/demo-class: spec.patches[1].definitions[0].jsonPatches[0]: "
        'patch "azureasomanagedcontrolplane-spec" on AzureASOManagedControlPlaneTemplate/'
        "demo-control-plane: spec.template.spec.resources[0].spec.dnsPrefx: unknown field "
        '"dnsPrefx" (schema) [provisioning: CAPI\'s topology controller builds the patched '
        "template, then the API server refuses it]"
    )
    assert run_cli(["validate", str(manifest), "--disable-rule", "schema"]).exit_code == 0


def test_patch_rules_can_be_disabled_and_are_listed(tmp_path: Path, run_cli: RunCli) -> None:
    example = EXAMPLES / "invalid" / "CC-PATCH-UNCHECKED" / "unchecked.yaml"
    manifest = tmp_path / "unchecked.yaml"
    manifest.write_text(example.read_text())
    shown = run_cli(["validate", str(manifest), "--output", "json"])
    rules = {f["rule"] for f in json.loads(shown.stdout)["findings"]}
    assert rule_ids.UNCHECKED in rules
    hidden = run_cli(
        ["validate", str(manifest), "--output", "json", "--disable-rule", rule_ids.UNCHECKED]
    )
    assert rule_ids.UNCHECKED not in {f["rule"] for f in json.loads(hidden.stdout)["findings"]}
    listing = run_cli(["validate", "--list-rules"]).stdout
    assert "CC-PATCH-TEMPLATE " in listing and "CC-PATCH-UNCHECKED " in listing


# --- the *Template shapes are the non-template kinds' shapes -------------------------------------

_PER_RESOURCE_FOLDERS = (
    "schema",
    "ASO-OWNER",
    "ASO-REFERENCE",
    "ASO-SECRET-DESTINATION",
    "ASO-IDENTITY-USERASSIGNED",
    "ASO-FIC-ISSUER",
    "CAPZ-POOL-NAME",
    "CAPZ-POOL-MAXPODS",
    "CAPZ-MC-DNSPREFIX",
)
_EMBEDDING = ("AzureASOManagedCluster", "AzureASOManagedControlPlane", "AzureASOManagedMachinePool")


def _as_template(obj: dict[str, Any]) -> dict[str, Any]:
    spec = copy.deepcopy(obj.get("spec"))
    return {
        "apiVersion": obj["apiVersion"],
        "kind": obj["kind"] + "Template",
        "metadata": copy.deepcopy(obj["metadata"]),
        "spec": {"template": {"spec": spec}},
    }


def _inside(findings: list[Finding], prefix: tuple[str, ...]) -> list[tuple[str, str, str]]:
    """(rule, path below the resources list, message) of the findings about embedded resources."""
    return sorted(
        (f.rule, format_path(f.path[len(prefix) :]), f.message)
        for f in findings
        if f.path[: len(prefix)] == prefix
    )


def _embedding_objects() -> list[tuple[str, dict[str, Any]]]:
    found = []
    for folder in _PER_RESOURCE_FOLDERS:
        for path in sorted((EXAMPLES / "invalid" / folder).glob("*.yaml")):
            for obj in yaml.safe_load_all(path.read_text()):
                # Go-template text is the one intended difference: only templates may hold it.
                if "{{" in json.dumps(obj):
                    continue
                embeds = isinstance(obj, dict) and obj.get("kind") in _EMBEDDING
                if embeds and isinstance((obj.get("spec") or {}).get("resources"), list):
                    found.append((f"{folder}/{path.name}:{obj['metadata']['name']}", obj))
    return found


@pytest.mark.parametrize(
    ("label", "obj"), _embedding_objects(), ids=lambda v: v if isinstance(v, str) else ""
)
def test_template_kinds_check_embedded_resources_alike(
    label: str, obj: dict[str, Any], fake_store: Any
) -> None:
    plain = validate_documents([Document("p.yaml", 0, obj)], fake_store)
    template = validate_documents([Document("t.yaml", 0, _as_template(obj))], fake_store)
    expected = _inside(plain, ("spec", "resources"))
    good = label.rpartition(":")[2].startswith("good")
    assert expected or good, f"{label}: a bad object of the example finds nothing"
    assert _inside(template, ("spec", "template", "spec", "resources")) == expected


# --- the engine on its own ----------------------------------------------------------------------


def _class(patch_list: list[Any], **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "cluster.x-k8s.io/v1beta1",
        "kind": "ClusterClass",
        "metadata": {"name": "cc", "namespace": "ns"},
        "spec": {
            "infrastructure": {
                "ref": {
                    "apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1",
                    "kind": "AzureASOManagedClusterTemplate",
                    "name": "infra",
                }
            },
            "patches": patch_list,
            **spec,
        },
    }


_INFRA_SELECTOR = {
    "apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1",
    "kind": "AzureASOManagedClusterTemplate",
    "matchResources": {"infrastructureCluster": True},
}


def _run(
    objs: list[Any],
    check: Callable[[Document], list[Finding]] | None = None,
    max_operations: int = patches.MAX_OPERATIONS,
) -> list[Finding]:
    documents = [Document("c.yaml", i, obj) for i, obj in enumerate(objs)]
    return class_findings(ManifestSet(documents), check or (lambda _: []), max_operations)


def test_operations_are_bounded() -> None:
    ops = [{"op": "add", "path": f"/spec/template/spec/k{i}", "value": i} for i in range(4)]
    found = _run(
        [
            _class(
                [
                    {
                        "name": "many",
                        "definitions": [{"selector": _INFRA_SELECTOR, "jsonPatches": ops}],
                    }
                ]
            )
        ],
        max_operations=2,
    )
    assert [(f.rule, format_path(f.path), f.message) for f in found] == [
        (
            rule_ids.UNCHECKED,
            "spec.patches[0].definitions[0].jsonPatches[2]",
            "more than 2 patch applications: the rest is not checked",
        )
    ]


def test_each_template_is_patched_in_order_and_judged_once() -> None:
    seen: list[Any] = []

    def check(document: Document) -> list[Finding]:
        seen.append(copy.deepcopy(document.obj["spec"]))
        value = document.obj["spec"]["template"]["spec"].get("k")
        return (
            []
            if value in (None, "ok")
            else [
                Finding(
                    Severity.ERROR,
                    "schema",
                    f"bad {value}",
                    document.subject(),
                    ("spec", "template", "spec", "k"),
                )
            ]
        )

    ops = [
        {"op": "add", "path": "/spec/template/spec/k", "value": "first"},
        {"op": "replace", "path": "/spec/template/spec/k", "value": "ok"},
        {"op": "replace", "path": "/spec/template/spec/k", "value": "last"},
    ]
    found = _run(
        [
            _class(
                [{"name": "p", "definitions": [{"selector": _INFRA_SELECTOR, "jsonPatches": ops}]}]
            )
        ],
        check,
    )
    # the skeleton (the template is not in the set), then one state per operation
    assert [s["template"]["spec"].get("k") for s in seen] == [None, "first", "ok", "last"]
    assert [(format_path(f.path), f.message) for f in found] == [
        (
            "spec.patches[0].definitions[0].jsonPatches[2]",
            'patch "p" on AzureASOManagedClusterTemplate/infra: spec.template.spec.k: bad last',
        )
    ]


@pytest.mark.parametrize(
    "patch_list",
    [
        "not a list",
        [None, 3, {"definitions": "x"}, {"definitions": [None, {"jsonPatches": [None, "x"]}]}],
        [
            {
                "definitions": [
                    {"selector": _INFRA_SELECTOR, "jsonPatches": [{"op": "move", "path": "/a"}]}
                ]
            }
        ],
        [
            {
                "definitions": [
                    {
                        "selector": _INFRA_SELECTOR,
                        "jsonPatches": [{"op": "add", "path": "/x", "valueFrom": {"template": 3}}],
                    }
                ]
            }
        ],
        [
            {
                "definitions": [
                    {
                        "selector": _INFRA_SELECTOR,
                        "jsonPatches": [{"op": "add", "path": "/x", "valueFrom": {}}],
                    }
                ]
            }
        ],
        [
            {
                "definitions": [
                    {
                        "selector": _INFRA_SELECTOR,
                        "jsonPatches": [
                            {"op": "add", "path": "/x", "valueFrom": {"variable": "a[0]"}}
                        ],
                    }
                ]
            }
        ],
    ],
)
def test_malformed_patches_never_raise(patch_list: Any) -> None:
    for finding in _run([_class(patch_list, variables="nope")]):
        assert finding.message


def test_copies_of_a_class_are_checked_once() -> None:
    bad = [
        {
            "name": "p",
            "definitions": [
                {
                    "selector": _INFRA_SELECTOR,
                    "jsonPatches": [{"op": "add", "path": "/x/y", "value": 1}],
                }
            ],
        }
    ]
    template = {
        "apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1",
        "kind": "AzureASOManagedClusterTemplate",
        "metadata": {"name": "infra", "namespace": "ns"},
        "spec": {"template": {"spec": {}}},
    }
    found = _run([_class(bad), _class(bad), template])
    assert [(f.rule, f.subject.document) for f in found] == [(rule_ids.TEMPLATE, 0)]
    assert "does not apply" in found[0].message


def test_template_of_another_api_version_is_not_the_referenced_one() -> None:
    ops = [{"op": "replace", "path": "/spec/template/spec/a", "value": 1}]
    template = {
        "apiVersion": "infrastructure.cluster.x-k8s.io/v1alpha1",
        "kind": "AzureASOManagedClusterTemplate",
        "metadata": {"name": "infra", "namespace": "ns"},
        "spec": {"template": {"spec": {"a": 0}}},
    }
    found = _run(
        [
            _class(
                [{"name": "p", "definitions": [{"selector": _INFRA_SELECTOR, "jsonPatches": ops}]}]
            ),
            template,
        ]
    )
    assert [f.rule for f in found] == [rule_ids.UNCHECKED]
    assert "not in the set" in found[0].message


def test_after_an_operation_fails_later_ones_are_only_rendered() -> None:
    checked: list[Any] = []

    def check(document: Document) -> list[Finding]:
        checked.append(document.obj["spec"])
        return []

    ops = [
        {"op": "add", "path": "/spec/template/spec/a", "valueFrom": {"variable": "nope"}},
        {"op": "add", "path": "/spec/template/spec/b", "value": 1},
        {"op": "add", "path": "/spec/template/spec/c", "valueFrom": {"template": "{{ .nope }}"}},
    ]
    found = _run(
        [
            _class(
                [{"name": "p", "definitions": [{"selector": _INFRA_SELECTOR, "jsonPatches": ops}]}]
            )
        ],
        check,
    )
    assert len(checked) == 1  # the unpatched skeleton only
    assert [format_path(f.path) for f in found] == [
        "spec.patches[0].definitions[0].jsonPatches[0].valueFrom.variable",
        "spec.patches[0].definitions[0].jsonPatches[2].valueFrom.template",
    ]


def test_template_kinds_get_the_cel_rules_of_embedded_resources(
    tmp_path: Path, cached_settings: Any
) -> None:
    rule = {"rule": "self.dnsPrefix.size() <= 8", "message": "dnsPrefix is too long"}
    spec = {
        "type": "object",
        "x-kubernetes-validations": [rule],
        "properties": {"dnsPrefix": {"type": "string"}},
    }
    root = {"type": "object", "properties": {"spec": spec}}
    group, version = "containerservice.azure.com", "v1api20240901"
    definition = make_crd(root, group=group, kind="ManagedCluster", versions=((version, True),))
    (tmp_path / "crd.yaml").write_text(yaml.safe_dump(definition))
    store = SchemaStore.from_search_path([tmp_path], cached_settings)

    def cluster(dns_prefix: str) -> dict[str, Any]:
        resource = {
            "apiVersion": "containerservice.azure.com/v1api20240901",
            "kind": "ManagedCluster",
            "metadata": {"name": "mc"},
            "spec": {"dnsPrefix": dns_prefix},
        }
        return {
            "apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1",
            "kind": "AzureASOManagedControlPlane",
            "metadata": {"name": "cp"},
            "spec": {"resources": [resource]},
        }

    def cel(obj: dict[str, Any], prefix: tuple[str, ...]) -> list[tuple[str, str, str]]:
        options = ValidationOptions(ignore_missing_schemas=True)
        found = validate_documents([Document("x.yaml", 0, obj)], store, options)
        return _inside([f for f in found if f.rule == "cel"], prefix)

    plain = cel(cluster("much-too-long"), ("spec", "resources"))
    assert [(path, message.split(" (rule")[0]) for _, path, message in plain] == [
        ("[0].spec", "dnsPrefix is too long")
    ]
    template_prefix = ("spec", "template", "spec", "resources")
    assert cel(_as_template(cluster("much-too-long")), template_prefix) == plain
    # Go-template text is known only per Cluster: not given to the rule inside a template
    assert cel(_as_template(cluster("{{ .builtin.cluster.name }}")), template_prefix) == []
