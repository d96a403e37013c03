"""Option-7 patches (CAPZ-ASO-PATCH-*): exact messages and paths, which patch a violation is
reported on, what is not the patches' doing, and the runs without a schema store."""

from __future__ import annotations

import textwrap
from typing import Any

import pytest

from generator.capzbuild.patches import PatchProblem, parse_patch, patched_paths
from generator.checks import ValidationOptions, validate_documents
from generator.checks.engine import rule_findings
from generator.checks.rules import RULES
from generator.documents import Document
from generator.findings import Finding, format_path
from generator.model.manifests import ManifestSet
from generator.yamlio.limits import MAX_DEPTH
from tests.validate.conftest import parse_documents

PATCH_RULES = ("CAPZ-ASO-PATCH-JSON", "CAPZ-ASO-PATCH-OWNED", "CAPZ-ASO-PATCH-SCHEMA")


def control_plane(*patches: str, extra: str = "", name: str = "demo") -> str:
    lines = "".join(f"    - {p!r}\n" for p in patches)
    return (
        textwrap.dedent(f"""\
        apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
        kind: AzureManagedControlPlane
        metadata:
          name: {name}
        spec:
          location: westeurope
          resourceGroupName: {name}
          version: v1.31.1
        """)
        + textwrap.indent(textwrap.dedent(extra), "  ")
        + "  asoManagedClusterPatches:\n"
        + lines
    )


def patch_findings(text: str, store: Any) -> list[tuple[str, str, str]]:
    documents = parse_documents(text)
    findings = validate_documents(documents, store, ValidationOptions(schemas=store is not None))
    return [_row(f) for f in findings if f.rule.startswith("CAPZ-ASO-PATCH-")]


def _row(finding: Finding) -> tuple[str, str, str]:
    return (finding.rule, format_path(finding.path), finding.message)


MC = "[containerservice.azure.com/v1api20240901 ManagedCluster]"


def test_a_misspelt_field_is_named_on_its_patch(store: Any) -> None:
    text = control_plane('{"spec": {"disableLocalAcounts": true}}')
    assert patch_findings(text, store) == [
        (
            "CAPZ-ASO-PATCH-SCHEMA",
            "spec.asoManagedClusterPatches[0]",
            'spec.disableLocalAcounts: unknown field "disableLocalAcounts" (in no shipped '
            f"version) {MC}",
        )
    ]


def test_bad_json_names_the_position_in_the_patch(store: Any) -> None:
    text = control_plane('{"spec": {"disableLocalAccounts": true}}', '{"spec": {"tags": {"a": 1}')
    assert patch_findings(text, store) == [
        (
            "CAPZ-ASO-PATCH-JSON",
            "spec.asoManagedClusterPatches[1]",
            "not valid JSON: Expecting ',' delimiter (line 1, column 27 of the patch)",
        )
    ]


def test_violations_go_to_the_last_patch_that_wrote_there(store: Any) -> None:
    text = control_plane(
        '{"spec": {"enableRBAC": "no"}}',
        '{"spec": {"tags": {"team": "a"}}}',
        '{"spec": {"enableRBAC": "yes"}}',
    )
    assert patch_findings(text, store) == [
        (
            "CAPZ-ASO-PATCH-SCHEMA",
            "spec.asoManagedClusterPatches[2]",
            f'spec.enableRBAC: expected boolean, got string "yes" {MC}',
        )
    ]


def test_a_later_patch_can_repair_an_earlier_one(store: Any) -> None:
    """CAPZ applies all patches before it sends the object: only the result counts."""
    text = control_plane(
        '{"spec": {"disableLocalAcounts": true}}', '{"spec": {"disableLocalAcounts": null}}'
    )
    assert patch_findings(text, store) == []


def test_what_the_legacy_spec_builds_wrong_is_not_the_patches_doing(store: Any) -> None:
    """A bad legacy value (networkPolicy) is the CRD schema's to report; only the patch's typo is
    reported here."""
    text = control_plane('{"spec": {"fqdnSubdomian": "x"}}', extra="networkPolicy: calicoo\n")
    rows = patch_findings(text, store)
    assert [(rule, path) for rule, path, _ in rows] == [
        ("CAPZ-ASO-PATCH-SCHEMA", "spec.asoManagedClusterPatches[0]")
    ]
    assert rows[0][2].startswith("spec.fqdnSubdomian: unknown field")


def test_a_spec_that_cannot_be_built_is_left_to_the_crd_schema(store: Any) -> None:
    # An add-on profile whose name is not text (an empty ``{}`` no longer does: CAPZ's webhook
    # gives it ``name: ""``, see generator.checks.admission.mutating).
    text = control_plane(
        '{"spec": {"disableLocalAcounts": true}}', extra="addonProfiles: [{name: 5}]\n"
    )
    assert patch_findings(text, store) == []


def test_the_cluster_network_feeds_the_build(store: Any) -> None:
    """With its Cluster the control plane builds the DNS service IP legacy CAPZ derived; the
    patches are judged on that object."""
    cluster = textwrap.dedent("""\
        apiVersion: cluster.x-k8s.io/v1beta1
        kind: Cluster
        metadata:
          name: demo-cluster
        spec:
          clusterNetwork:
            services:
              cidrBlocks: [10.0.0.0/16]
          controlPlaneRef:
            apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
            kind: AzureManagedControlPlane
            name: demo
        ---
        """)
    text = cluster + control_plane('{"spec": {"networkProfile": {"dnsServiceIP": 10}}}')
    assert patch_findings(text, store) == [
        (
            "CAPZ-ASO-PATCH-SCHEMA",
            "spec.asoManagedClusterPatches[0]",
            f"spec.networkProfile.dnsServiceIP: expected string, got integer 10 {MC}",
        )
    ]


def test_placeholders_are_not_judged(store: Any) -> None:
    text = control_plane("${ASO_PATCH}", '{"spec": {"dnsPrefix": "${CLUSTER_NAME}"}}')
    assert patch_findings(text, store) == []


def test_without_a_store_only_reading_and_ownership_are_checked() -> None:
    text = control_plane('{"spec": {"disableLocalAcounts": true, "location": "eastus"}}', "[1, 2]")
    assert patch_findings(text, None) == [
        (
            "CAPZ-ASO-PATCH-OWNED",
            "spec.asoManagedClusterPatches[0]",
            "spec.location: CAPZ sets this field of the ManagedCluster from spec.location; a patch "
            "overrides CAPZ's value and conflicts with its reconciliation",
        ),
        (
            "CAPZ-ASO-PATCH-JSON",
            "spec.asoManagedClusterPatches[1]",
            'must be a JSON object ({"spec": {...}}), not a list',
        ),
    ]
    # The render-time checks of a flavor run the rules without a store too.
    rules_only = rule_findings(parse_documents(text))
    assert {f.rule for f in rules_only if f.rule in PATCH_RULES} == {
        "CAPZ-ASO-PATCH-JSON",
        "CAPZ-ASO-PATCH-OWNED",
    }


def test_schema_rules_check_nothing_without_their_store(store: Any) -> None:
    documents: list[Document] = parse_documents(control_plane('{"spec": {"x": 1}}'))
    ms = ManifestSet(documents)
    rule = RULES["CAPZ-ASO-PATCH-SCHEMA"]
    assert list(rule.check(ms)) == []
    assert [f.message.split(":")[0] for f in rule.run(ms, store)] == ["spec.x"]
    assert list(RULES["CAPZ-ASO-PATCH-VERSION"].check(ms)) == []


def test_a_field_of_another_shipped_version_is_a_warning(store: Any) -> None:
    text = control_plane(
        '{"spec": {"enableNamespaceResources": true}}', extra="enablePreviewFeatures: true\n"
    )
    ((rule, path, message),) = patch_findings(text, store)
    assert (rule, path) == ("CAPZ-ASO-PATCH-VERSION", "spec.asoManagedClusterPatches[0]")
    assert message == (
        "spec.enableNamespaceResources: not a field of containerservice.azure.com/v1api20240901 "
        "ManagedCluster, only of v1api20240402preview, v1api20231102preview: CAPZ v1.26.0 sends "
        "v1api20250801 (v20251002preview with enablePreviewFeatures), which capzgen has no schema "
        "for; not checked"
    )


def test_agent_pool_patches_of_a_template(store: Any) -> None:
    text = textwrap.dedent("""\
        apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
        kind: AzureManagedMachinePoolTemplate
        metadata:
          name: pool
        spec:
          template:
            spec:
              mode: User
              asoManagedClustersAgentPoolPatches:
                - '{"spec": {"maxPod": 30, "count": 3}}'
        """)
    assert patch_findings(text, store) == [
        (
            "CAPZ-ASO-PATCH-OWNED",
            "spec.template.spec.asoManagedClustersAgentPoolPatches[0]",
            "spec.count: CAPZ sets this field of the ManagedClustersAgentPool from the "
            "MachinePool's spec.replicas; a patch overrides CAPZ's value and conflicts with its "
            "reconciliation",
        ),
        (
            "CAPZ-ASO-PATCH-SCHEMA",
            "spec.template.spec.asoManagedClustersAgentPoolPatches[0]",
            'spec.maxPod: unknown field "maxPod" (in no shipped version) '
            "[containerservice.azure.com/v1api20240901 ManagedClustersAgentPool]",
        ),
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("spec: {tags: {a: b}}", {"spec": {"tags": {"a": "b"}}}),
        ("{'spec': {}}", {"spec": {}}),
        ("", PatchProblem('is empty: it must be a JSON object ({"spec": {...}})')),
        ('"text"', PatchProblem('must be a JSON object ({"spec": {...}}), not a string')),
        ("7", PatchProblem('must be a JSON object ({"spec": {...}}), not a number')),
    ],
)
def test_parse_patch(text: str, expected: Any) -> None:
    assert parse_patch(text, "p") == expected


def test_parse_patch_keeps_the_yaml_error_of_valid_json() -> None:
    """JSON that YAML refuses (a duplicate key) is refused as CAPZ refuses it."""
    problem = parse_patch('{"a": 1, "a": 2}', "p")
    assert isinstance(problem, PatchProblem)
    assert problem.message.startswith('not valid YAML: duplicate key "a"')
    assert PatchProblem("m").describe() == "m"
    assert PatchProblem("m", 2).describe() == "m (line 2 of the patch)"


def test_patched_paths() -> None:
    patch = {"spec": {"a": {"b": 1}, "c": None, "d": {}}, "metadata": {"name": "x"}}
    assert sorted(patched_paths(patch)) == [
        ("metadata", "name"),
        ("spec", "a", "b"),
        ("spec", "c"),
        ("spec", "d"),
    ]


def test_a_hostile_patch_is_refused_by_the_bounded_readers() -> None:
    deep = '{"a": ' * 300 + "1" + "}" * 300
    problem = parse_patch(deep, "p")
    assert isinstance(problem, PatchProblem)
    assert problem.message == f"not valid JSON: nested deeper than {MAX_DEPTH} levels"


class _OnlyV1api20240901:
    """The vendored schemas without the other ManagedCluster versions."""

    def __init__(self, store: Any) -> None:
        self.store = store

    def lookup(self, api_version: str, kind: str) -> Any:
        if api_version.startswith("containerservice.azure.com/") and not api_version.endswith(
            "/v1api20240901"
        ):
            return None
        return self.store.lookup(api_version, kind)

    def searched(self) -> list[str]:
        return list(self.store.searched())


def test_a_field_no_available_version_has_is_an_error(store: Any) -> None:
    """Whether a field is "in no shipped version" is decided by the versions the store has."""
    text = control_plane('{"spec": {"enableNamespaceResources": true}}')
    assert patch_findings(text, _OnlyV1api20240901(store)) == [
        (
            "CAPZ-ASO-PATCH-SCHEMA",
            "spec.asoManagedClusterPatches[0]",
            'spec.enableNamespaceResources: unknown field "enableNamespaceResources" (in no '
            f"shipped version) {MC}",
        )
    ]


def test_a_violation_no_patch_wrote_near_goes_to_the_last_patch() -> None:
    from generator.checks.rules.aso_patch_targets import Patch
    from generator.checks.rules.aso_patches import _author

    first = Patch(0, ("spec", "p", 0), {"metadata": {"labels": {"a": "b"}}})
    last = Patch(1, ("spec", "p", 1), {"metadata": {"annotations": {"a": "b"}}})
    assert _author(("spec", "x"), [first, last]) is last
    assert _author(("metadata", "labels", "a"), [first, last]) is first
