"""Findings on fields a patch changed name the patch file and document (or the fleet override)
before the line of the rendered output, instead of only `<generated>:N`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from generator.findings import Finding, PatchRef, Severity, Subject
from generator.generate.patches import apply_patches, parse_patch_text
from generator.generate.provenance import PatchChange, attribute_findings, changed_paths
from tests.conftest import GENERATE_DEMO

LABELS_THEN_TYPO = """\
target: {kind: Cluster, name: demo}
patch: {metadata: {labels: {team: platform}}}
---
target: {kind: AzureASOManagedControlPlane, embedded: {kind: ManagedCluster}}
patch: {spec: {sku: {tierr: Standard}}}
"""


def test_a_finding_on_a_patched_field_names_the_patch_document(
    run_cli: Any, schema_args: list[str], tmp_path: Path
) -> None:
    patch = tmp_path / "sku.yaml"
    patch.write_text(LABELS_THEN_TYPO)
    result = run_cli([*GENERATE_DEMO, *schema_args, "--patch", str(patch)])
    assert result.exit_code == 1
    assert result.stderr == (
        f"{patch} (document 2) -> <generated>:45: AzureASOManagedControlPlane/demo > "
        'ManagedCluster/demo: spec.sku.tierr: unknown field "tierr" (schema) [admission]\n'
        "Error: generated manifests are invalid (7 documents checked: 1 error, 0 warnings)\n"
    )


def test_the_line_is_the_line_of_the_rendered_output(
    run_cli: Any, schema_args: list[str], tmp_path: Path
) -> None:
    patch = tmp_path / "sku.yaml"
    patch.write_text(LABELS_THEN_TYPO)
    result = run_cli([*GENERATE_DEMO, *schema_args, "--patch", str(patch), "--no-validate"])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[44] == "        tierr: Standard"


def test_findings_elsewhere_keep_the_plain_location(run_cli: Any, tmp_path: Path) -> None:
    # The patch adds data to the ConfigMap; the finding is on a field of the template itself.
    template = tmp_path / "cm.yaml"
    template.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, labelz: {}}\n")
    patch = tmp_path / "data.yaml"
    patch.write_text("target: {kind: ConfigMap}\npatch: {data: {k: v}}\n")
    result = run_cli(["generate", "cluster", "c1", "--from", str(template), "--patch", str(patch)])
    assert result.exit_code == 1
    assert result.stderr == (
        '<generated>:6: ConfigMap/x: metadata.labelz: unknown field "labelz" (schema) [admission]\n'
        "Error: generated manifests are invalid (1 document checked: 1 error, 0 warnings)\n"
    )


def test_fleet_overrides_are_named_by_their_place_in_the_fleet_file(
    run_cli: Any, schema_args: list[str], tmp_path: Path
) -> None:
    fleet = tmp_path / "fleet.yaml"
    fleet.write_text(
        "defaults:\n  kubernetesVersion: v1.31.1\n  values: {AZURE_LOCATION: westeurope}\n"
        "clusters:\n"
        "  - name: east\n"
        "    overrides:\n"
        "      - target: {kind: AzureASOManagedControlPlane, embedded: {kind: ManagedCluster}}\n"
        "        patch: {spec: {sku: {tierr: Standard}}}\n"
    )
    out = tmp_path / "out"
    result = run_cli(["generate", "fleet", str(fleet), "--output-dir", str(out), *schema_args])
    assert result.exit_code == 1
    assert (
        f"{fleet} clusters[0].overrides[0] -> <cluster east>:43: "
        "AzureASOManagedControlPlane/east > ManagedCluster/east: spec.sku.tierr: "
        'unknown field "tierr" (schema) [admission]\n'
    ) in result.stderr
    assert not out.exists()


# --- the pieces ------------------------------------------------------------------------------


def test_changed_paths_are_the_deepest_differences() -> None:
    before = {"a": {"b": 1, "c": [1, 2]}, "d": [1], "e": "x", "gone": 1}
    after = {"a": {"b": 2, "c": [1, 3]}, "d": [1, 2], "e": "x", "new": {"k": 1}}
    assert list(changed_paths(before, after)) == [
        ("a", "b"),
        ("a", "c", 1),
        ("d",),
        ("gone",),
        ("new",),
    ]
    assert list(changed_paths({"x": 1}, {"x": True})) == [("x",)]
    assert list(changed_paths({"x": 1}, {"x": 1})) == []


def test_apply_patches_records_every_change_with_its_document() -> None:
    objects = [
        {"kind": "Cluster", "metadata": {"name": "demo"}},
        {
            "kind": "AzureASOManagedControlPlane",
            "metadata": {"name": "demo"},
            "spec": {"resources": [{"kind": "ManagedCluster", "spec": {"sku": {"tier": "Free"}}}]},
        },
    ]
    patches = parse_patch_text(LABELS_THEN_TYPO, source="p.yaml")
    changes: list[PatchChange] = []
    apply_patches(objects, patches, cluster="demo", changes=changes)
    assert changes == [
        PatchChange(0, ("metadata", "labels"), PatchRef("p.yaml", 0)),
        PatchChange(1, ("spec", "resources", 0, "spec", "sku", "tierr"), PatchRef("p.yaml", 1)),
    ]


def _finding(document: int, *path: str | int) -> Finding:
    return Finding(
        Severity.ERROR, "schema", "bad", Subject(file="<generated>", document=document), path
    )


def test_attribution_takes_the_last_patch_on_related_paths() -> None:
    first, second = PatchRef("a.yaml", 0), PatchRef("b.yaml", 2)
    changes = [
        PatchChange(0, ("spec", "x"), first),
        PatchChange(0, ("spec", "x", "y"), second),
        PatchChange(1, ("metadata", "labels", "team"), first),
    ]
    found = attribute_findings(
        [
            _finding(0, "spec", "x", "y", "z"),  # inside both changes: the later patch
            _finding(0, "spec"),  # above the changes (a required field removed): the later one
            _finding(0, "status"),  # unrelated
            _finding(1),  # the whole object: a deep label change does not explain it
            _finding(2, "spec"),  # another document
        ],
        changes,
    )
    assert [f.patch for f in found] == [second, second, None, None, None]
    assert attribute_findings([_finding(0)], [PatchChange(0, ("spec",), first)])[0].patch == first
    assert found[0].to_text() == (
        "b.yaml (document 3) -> <generated>: ?/?: spec.x.y.z: bad (schema) [admission]"
    )
    assert found[0].to_json()["patch"] == {"file": "b.yaml", "document": 2, "where": None}
    assert "patch" not in found[2].to_json()
    assert PatchRef("f.yaml").label() == "f.yaml"
