"""`--patch FILE` on `generate cluster`: patched output, error reporting, validation after patching."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from generator.errors import PatchError
from generator.generate.patches import apply_patches, parse_patch_text
from tests.gitops.conftest import BASE_ARGS

GOLDEN = Path(__file__).parent / "golden"

MERGE_TOP_LEVEL = """\
# Labels on the Cluster and a different pool size: a merge patch on top-level objects.
target: {kind: Cluster, name: demo}
patch:
  metadata:
    labels:
      team: platform
  spec:
    clusterNetwork:
      services: {cidrBlocks: [10.96.0.0/12]}
---
target: {kind: MachinePool, name: "{cluster}-pool1", apiVersion: cluster.x-k8s.io/v1beta1}
patch: {spec: {replicas: 5}}
"""

MERGE_EMBEDDED = """\
# Fields the aks flavor does not model, on the ManagedCluster inside the control plane.
target:
  kind: AzureASOManagedControlPlane
  name: demo
  embedded: {kind: ManagedCluster, name: demo}
patch:
  spec:
    sku: {tier: Standard}
    nodeResourceGroup: demo-nodes
    tags: {cost-center: "1234"}
    networkProfile: null
"""

JSON_EMBEDDED = """\
target:
  kind: AzureASOManagedControlPlane
  embedded: {kind: ManagedCluster}
jsonPatch:
  - {op: test, path: /spec/sku/tier, value: Free}
  - {op: replace, path: /spec/sku/tier, value: Premium}
  - {op: add, path: /spec/supportPlan, value: AKSLongTermSupport}
  - {op: add, path: /metadata/annotations/serviceoperator.azure.com~1reconcile-policy, value: skip}
  - {op: remove, path: /spec/servicePrincipalProfile}
---
target: {kind: AzureASOManagedMachinePool, name: demo-pool1, embedded: {kind: ManagedClustersAgentPool}}
jsonPatch:
  - {op: add, path: /spec/nodeTaints, value: ["dedicated=gpu:NoSchedule"]}
  - {op: add, path: /spec/nodeTaints/-, value: "spot=true:NoSchedule"}
  - {op: copy, from: /spec/vmSize, path: /metadata/annotations/vm-size}
"""

JSON_TOP_LEVEL = """\
target: {kind: Cluster, name: demo}
jsonPatch:
  - {op: add, path: /metadata/labels, value: {env: prod}}
  - {op: move, from: /metadata/labels/env, path: /metadata/labels/environment}
  - {op: add, path: /spec/paused, value: true}
"""


@pytest.fixture
def generate(run_cli: Any, schema_args: list[str], tmp_path: Path):  # type: ignore[no-untyped-def]
    def run(*patches: str, extra: tuple[str, ...] = ()) -> Any:
        args = []
        for number, text in enumerate(patches):
            path = tmp_path / f"patch{number}.yaml"
            path.write_text(text)
            args += ["--patch", str(path)]
        return run_cli(["generate", "cluster", "demo", *BASE_ARGS, *schema_args, *args, *extra])

    return run


@pytest.mark.parametrize(
    ("case", "patches"),
    [
        ("merge-top-level", [MERGE_TOP_LEVEL]),
        ("merge-embedded", [MERGE_EMBEDDED]),
        ("json-embedded", [JSON_EMBEDDED]),
        ("json-top-level-and-merge-embedded", [JSON_TOP_LEVEL, MERGE_EMBEDDED]),
    ],
)
def test_patched_output_matches_golden(
    generate: Any, snapshot: Any, case: str, patches: list[str]
) -> None:
    result = generate(*patches)
    assert result.exit_code == 0, result.stderr
    snapshot.snapshot_dir = GOLDEN
    snapshot.assert_match(result.stdout, f"{case}.yaml")


def test_merge_patch_changes_only_what_it_names(generate: Any) -> None:
    plain = [d for d in yaml.safe_load_all(generate().stdout) if d]
    patched = [d for d in yaml.safe_load_all(generate(MERGE_EMBEDDED).stdout) if d]
    assert [d for d in plain if d["kind"] != "AzureASOManagedControlPlane"] == [
        d for d in patched if d["kind"] != "AzureASOManagedControlPlane"
    ]
    cluster = next(d for d in patched if d["kind"] == "AzureASOManagedControlPlane")
    spec = cluster["spec"]["resources"][0]["spec"]
    assert spec["sku"] == {"name": "Base", "tier": "Standard"}
    assert "networkProfile" not in spec
    assert spec["tags"] == {"cost-center": "1234"}


def test_patches_apply_after_target_namespace(generate: Any) -> None:
    text = 'target: {kind: Cluster, name: demo, namespace: team-a}\npatch: {metadata: {labels: {a: "1"}}}\n'
    result = generate(text, extra=("-n", "team-a"))
    assert result.exit_code == 0, result.stderr
    assert 'labels:\n    a: "1"\n  name: demo\n  namespace: team-a\n' in result.stdout


def test_target_matching_nothing_is_an_error(generate: Any, tmp_path: Path) -> None:
    result = generate(
        MERGE_TOP_LEVEL,
        "target: {kind: MachinePool, name: demo-gpu}\npatch: {spec: {replicas: 1}}\n",
    )
    assert result.exit_code == 1
    assert result.stdout == ""
    patch_file = tmp_path / "patch1.yaml"
    assert (
        f"Error: {patch_file}: document 1 (MachinePool/demo-gpu): "
        "patch target MachinePool/demo-gpu matches no object" in result.stderr
    )
    assert "candidates: MachinePool/demo-pool0, MachinePool/demo-pool1" in result.stderr


def test_embedded_target_matching_nothing_is_an_error(generate: Any) -> None:
    result = generate(
        "---\n# first\n---\ntarget: {kind: AzureASOManagedCluster, embedded: {kind: ManagedCluster}}\n"
        "patch: {spec: {}}\n"
    )
    assert result.exit_code == 1
    assert "document 2 (AzureASOManagedCluster/*)" in result.stderr
    assert "AzureASOManagedCluster/* > ManagedCluster/* matches no object" in result.stderr
    assert "candidates: AzureASOManagedCluster/demo > ResourceGroup/demo" in result.stderr


def test_failed_test_operation_names_file_document_and_target(
    generate: Any, tmp_path: Path
) -> None:
    result = generate(
        "target: {kind: Cluster, name: demo}\npatch: {}\n---\n"
        "target: {kind: AzureASOManagedControlPlane, name: demo, embedded: {kind: ManagedCluster}}\n"
        "jsonPatch:\n"
        "- {op: test, path: /spec/location, value: westeurope}\n"
        "- {op: test, path: /spec/sku/tier, value: Standard}\n"
    )
    assert result.exit_code == 1
    assert result.stdout == ""
    assert (
        f"{tmp_path / 'patch0.yaml'}: document 2 (AzureASOManagedControlPlane/demo): "
        "jsonPatch[1] (test '/spec/sku/tier') on AzureASOManagedControlPlane/demo > "
        'ManagedCluster/*: test failed: \'/spec/sku/tier\' is "Free", expected "Standard"'
    ) in result.stderr


def test_bad_pointer_is_an_error(generate: Any) -> None:
    result = generate(
        "target: {kind: Cluster}\njsonPatch: [{op: add, path: /spec/nope/deeper, value: 1}]\n"
    )
    assert result.exit_code == 1
    assert "jsonPatch[0] (add '/spec/nope/deeper') on Cluster/*" in result.stderr
    assert "'/spec/nope' does not exist" in result.stderr


def test_patch_that_breaks_validation_fails_and_writes_nothing(
    generate: Any, tmp_path: Path
) -> None:
    typo = (
        "target: {kind: AzureASOManagedControlPlane, embedded: {kind: ManagedCluster}}\n"
        "patch: {spec: {sku: {tierr: Standard}}}\n"
    )
    target = tmp_path / "out.yaml"
    result = generate(typo, extra=("--write-to", str(target)))
    assert result.exit_code == 1
    assert (
        "AzureASOManagedControlPlane/demo > ManagedCluster/demo: spec.sku.tierr: "
        'unknown field "tierr" (schema)'
    ) in result.stderr
    assert not target.exists()
    out = tmp_path / "out"
    assert generate(typo, extra=("--output-dir", str(out))).exit_code == 1
    assert not out.exists()


def test_invalid_patch_file_lists_every_problem(generate: Any, tmp_path: Path) -> None:
    result = generate(
        "target: {name: demo}\npatch: {}\njsonPatch: []\n---\n"
        "target: {kind: Cluster, embedded: {name: x}}\nmerge: {}\n---\n"
        "target: {kind: Cluster}\njsonPatch: [{op: add, path: spec}, {op: move, path: /a}]\n"
    )
    assert result.exit_code == 1
    assert f"Error: {tmp_path / 'patch0.yaml'}: invalid patch file" in result.stderr
    for expected in (
        'document 1: target: "kind" is a required property',
        "document 1: jsonPatch: [] has less than 1 item",
        "document 1: (top level): needs exactly one of `patch` (merge patch) or `jsonPatch`",
        'document 2: target.embedded: "kind" is a required property',
        "document 2: (top level): Additional properties are not allowed ('merge' was unexpected)",
        'document 3: jsonPatch[0]: "value" is a required property',
        'document 3: jsonPatch[0].path: "spec" does not match',
        'document 3: jsonPatch[1]: "from" is a required property',
    ):
        assert expected in result.stderr, expected


def test_empty_patch_file_is_an_error(generate: Any) -> None:
    result = generate("# nothing\n")
    assert result.exit_code == 1
    assert "patch file holds no patch documents" in result.stderr


def test_missing_patch_file_is_an_io_error(run_cli: Any, schema_args: list[str]) -> None:
    result = run_cli(
        ["generate", "cluster", "demo", *BASE_ARGS, *schema_args, "--patch", "/nonexistent.yaml"]
    )
    assert result.exit_code == 2
    assert "/nonexistent.yaml: cannot read: No such file or directory" in result.stderr


def test_patch_may_not_turn_an_object_into_a_scalar() -> None:
    (patch,) = parse_patch_text(
        "target: {kind: A}\njsonPatch: [{op: replace, path: '', value: 3}]\n", source="p.yaml"
    )
    with pytest.raises(PatchError, match="turns A/\\* into a number"):
        apply_patches([{"kind": "A", "metadata": {"name": "a"}}], [patch], cluster="c")


def test_cluster_selector_skips_other_clusters_and_inputs_are_not_modified() -> None:
    (patch,) = parse_patch_text(
        "target: {kind: A, name: '{cluster}-x'}\nclusters: [one]\npatch: {b: 1}\n", source="p.yaml"
    )
    objects = [{"kind": "A", "metadata": {"name": "one-x"}}]
    assert apply_patches(objects, [patch], cluster="two") == objects
    assert apply_patches(objects, [patch], cluster="one") == [
        {"kind": "A", "metadata": {"name": "one-x"}, "b": 1}
    ]
    assert objects == [{"kind": "A", "metadata": {"name": "one-x"}}]


def test_copy_bomb_patch_is_one_clear_error(generate: Any) -> None:
    """Each copy puts /spec inside itself, doubling it: stopped at the bound, nothing printed."""
    ops = "".join(f"  - {{op: copy, from: /spec, path: /spec/x{i}}}\n" for i in range(40))
    bomb = "target: {kind: Cluster, name: demo}\njsonPatch:\n" + ops
    result = generate(bomb)
    assert result.exit_code == 1
    assert "would make the object larger than 32 MiB" in result.stderr
    assert result.stdout == ""
