"""``schemas import --from-cluster`` with a fake kubectl on PATH, catalog folders, and the cache
beating the built-in bundle (how users pin the CRDs their management cluster runs)."""

from __future__ import annotations

import json
import os
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from generator.schemastore import cluster
from tests.conftest import CliResult
from tests.schemastore.helpers import make_crd, spec_schema

HERE = Path(__file__).resolve().parent


@dataclass
class FakeKubectl:
    crds: Path
    log: Path

    def add(self, crd: dict[str, Any]) -> None:
        (self.crds / f"{crd['metadata']['name']}.json").write_text(json.dumps(crd))

    def calls(self) -> list[list[str]]:
        return [json.loads(line) for line in self.log.read_text().splitlines()]


@pytest.fixture
def kubectl(tmp_path: Path, cli_env: dict[str, str]) -> FakeKubectl:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "kubectl"
    script.write_text(f"#!{sys.executable}\n{(HERE / 'fake_kubectl.py').read_text()}")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    crds = tmp_path / "cluster-crds"
    crds.mkdir()
    log = tmp_path / "kubectl.log"
    log.touch()
    cli_env["PATH"] = f"{bin_dir}{os.pathsep}{cli_env['PATH']}"
    cli_env["FAKE_KUBECTL_CRDS"] = str(crds)
    cli_env["FAKE_KUBECTL_LOG"] = str(log)
    return FakeKubectl(crds, log)


def widget_crd(group: str, kind: str = "Widget") -> dict[str, Any]:
    return make_crd(
        spec_schema({"type": "object", "properties": {"size": {"type": "integer"}}}),
        group=group,
        kind=kind,
    )


def test_imports_only_capi_capz_and_aso_crds(
    run_cli: Any, kubectl: FakeKubectl, isolated_cache: Path
) -> None:
    kubectl.add(widget_crd("cluster.x-k8s.io", "Gizmo"))
    kubectl.add(widget_crd("containerservice.azure.com", "Thing"))
    kubectl.add(widget_crd("cert-manager.io", "Certificate"))
    result: CliResult = run_cli(
        ["schemas", "import", "--from-cluster", "--context", "prod", "--kubeconfig", "/k/cfg"]
    )
    assert result.exit_code == 0, result.stderr
    assert "imported cluster.x-k8s.io/v1 Gizmo" in result.stdout
    assert "imported containerservice.azure.com/v1 Thing" in result.stdout
    assert "Certificate" not in result.stdout
    assert result.stdout.splitlines()[-1].startswith("2 schema(s) imported into ")
    calls = kubectl.calls()
    assert calls[0] == ["--kubeconfig", "/k/cfg", "--context", "prod", "get", "crd", "-o", "name"]
    assert calls[1][4:] == [
        "get",
        "crd",
        "gizmos.cluster.x-k8s.io",
        "things.containerservice.azure.com",
        "-o",
        "json",
    ]
    listing = run_cli(["schemas", "list"]).stdout
    assert any(
        line.startswith("cluster.x-k8s.io/v1 Gizmo")
        and "[imported from kubectl (the cluster of context prod)]" in line
        for line in listing.splitlines()
    ), listing


def test_many_crds_are_fetched_in_batches(kubectl: FakeKubectl, cli_env: dict[str, str]) -> None:
    for i in range(5):
        kubectl.add(widget_crd("network.azure.com", f"Net{i}"))
    fetched = cluster.fetch_cluster_crds(cluster.KubectlSettings(env=cli_env), batch_size=2)
    assert [len(json.loads(source.data)["items"]) for source in fetched] == [2, 2, 1]
    fetches = [call for call in kubectl.calls() if call[-2:] == ["-o", "json"]]
    assert [len(call) - 4 for call in fetches] == [2, 2, 1]


def test_the_cluster_crd_beats_the_built_in_bundle(
    run_cli: Any, kubectl: FakeKubectl, isolated_cache: Path, tmp_path: Path
) -> None:
    """A field the bundled ASO schema lacks is an error until the cluster's CRD is imported."""
    manifest = tmp_path / "rg.yaml"
    manifest.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "resources.azure.com/v1api20200601",
                "kind": "ResourceGroup",
                "metadata": {"name": "rg"},
                "spec": {"location": "westeurope", "newerField": "x"},
            }
        )
    )
    before = run_cli(["validate", str(manifest)])
    assert before.exit_code == 1
    assert 'unknown field "newerField"' in before.stdout
    crd = make_crd(
        spec_schema(
            {
                "type": "object",
                "properties": {"location": {"type": "string"}, "newerField": {"type": "string"}},
            }
        ),
        group="resources.azure.com",
        kind="ResourceGroup",
        versions=[("v1api20200601", True)],
    )
    kubectl.add(crd)
    assert run_cli(["schemas", "import", "--from-cluster"]).exit_code == 0
    after = run_cli(["validate", str(manifest)])
    assert after.exit_code == 0, after.stdout


@pytest.mark.parametrize(
    ("mode", "message", "hint"),
    [
        ("fail", 'failed with exit code 1: error: context "nope" does not exist', "--context"),
        ("garbage", "kubectl (the current cluster):2:1: document 1: did not find", None),
    ],
)
def test_kubectl_failures_are_one_clear_error(
    run_cli: Any,
    kubectl: FakeKubectl,
    isolated_cache: Path,
    cli_env: dict[str, str],
    mode: str,
    message: str,
    hint: str | None,
) -> None:
    kubectl.add(widget_crd("cluster.x-k8s.io"))
    cli_env["FAKE_KUBECTL_MODE"] = mode
    result = run_cli(["schemas", "import", "--from-cluster"])
    assert result.exit_code == 2 if mode == "fail" else result.exit_code == 1
    first = result.stderr.splitlines()[0]
    assert first.startswith("Error: ") and message in first, result.stderr
    if hint:
        assert f"Hint: check {hint}" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (isolated_cache / "schemas").exists() or not any(
        (isolated_cache / "schemas").rglob("*_v1.json")
    )


def test_kubectl_that_hangs_is_stopped(
    run_cli: Any, kubectl: FakeKubectl, isolated_cache: Path, cli_env: dict[str, str]
) -> None:
    cli_env["FAKE_KUBECTL_MODE"] = "hang"
    result = run_cli(["schemas", "import", "--from-cluster", "--timeout", "0.5"])
    assert result.exit_code == 2
    assert "Error: `kubectl get crd -o` did not finish within 0.5 s" in result.stderr
    assert "Raise --timeout" in result.stderr


def test_missing_kubectl(
    run_cli: Any, tmp_path: Path, isolated_cache: Path, cli_env: dict[str, str]
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    cli_env["PATH"] = str(empty)
    result = run_cli(["schemas", "import", "--from-cluster"])
    assert result.exit_code == 2
    assert result.stderr.splitlines()[0] == "Error: cannot run 'kubectl': not found on PATH"
    assert "kubectl get crds -o yaml | capzgen schemas import -" in result.stderr


def test_cluster_without_wanted_crds(
    run_cli: Any, kubectl: FakeKubectl, isolated_cache: Path
) -> None:
    kubectl.add(widget_crd("cert-manager.io", "Certificate"))
    result = run_cli(["schemas", "import", "--from-cluster", "--context", "kind"])
    assert result.exit_code == 2
    assert (
        "Error: the cluster of context kind has no Cluster API, CAPZ or ASO "
        "CustomResourceDefinitions" in result.stderr
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["schemas", "import"], "give either FILE|DIR|- or --from-cluster"),
        (["schemas", "import", "x.yaml", "--from-cluster"], "give either FILE|DIR|- or"),
        (["schemas", "import", "x.yaml", "--context", "a"], "--context and --kubeconfig go with"),
    ],
)
def test_argument_mistakes(run_cli: Any, argv: list[str], message: str) -> None:
    result = run_cli(argv)
    assert result.exit_code == 2
    assert message in result.stderr


def test_catalog_folder_import_records_provenance(
    run_cli: Any, shared_dir: Path, isolated_cache: Path, tmp_path: Path
) -> None:
    """A JSON Schema folder in the <group>/<kind>_<version>.json layout imports as is (repaired
    where the catalog is defective); CRD files beside it still count."""
    folder = tmp_path / "catalog"
    (folder / "resources.azure.com").mkdir(parents=True)
    source = shared_dir / "schemas/resources.azure.com/resourcegroup_v1api20200601.json"
    (folder / "resources.azure.com" / source.name).write_bytes(source.read_bytes())
    (folder / "widget.yaml").write_text(yaml.safe_dump(widget_crd("example.com")))
    result = run_cli(["schemas", "import", str(folder)])
    assert result.exit_code == 0, result.stderr
    assert "imported resources.azure.com/v1api20200601 resourcegroup" in result.stdout
    assert "imported example.com/v1 Widget" in result.stdout
    provenance = json.loads((isolated_cache / "schemas" / ".provenance.json").read_text())
    assert provenance["resources.azure.com/resourcegroup_v1api20200601.json"] == (
        f"imported from {folder / 'resources.azure.com' / source.name}"
    )
    listed = run_cli(["schemas", "list", "-o", "json"]).stdout
    rows = [r for r in json.loads(listed) if r["apiVersion"] == "resources.azure.com/v1api20200601"]
    assert [(r["source"].startswith(str(isolated_cache)), r["shadowed"]) for r in rows] == [
        (True, False)
    ]


def test_schema_with_an_external_ref_is_refused_and_nothing_imported(
    run_cli: Any, isolated_cache: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "catalog" / "example.com"
    folder.mkdir(parents=True)
    schema = {"type": "object", "properties": {"spec": {"$ref": "file:///etc/passwd"}}}
    (folder / "widget_v1.json").write_text(json.dumps(schema))
    (tmp_path / "catalog" / "ok.yaml").write_text(yaml.safe_dump(widget_crd("example.org")))
    result = run_cli(["schemas", "import", str(tmp_path / "catalog")])
    assert result.exit_code == 2
    assert result.stderr.startswith(
        f"Error: {folder / 'widget_v1.json'}: schema refers outside itself: "
        "$ref 'file:///etc/passwd' at /properties/spec/$ref"
    )
    assert not (isolated_cache / "schemas").exists() or not any(
        (isolated_cache / "schemas").rglob("*.json")
    )


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("deep.yaml", "a: " + "[" * 10_000 + "]" * 10_000 + "\n"),
        ("deep.json", "[" * 100_000 + "]" * 100_000),
        (
            "bomb.yaml",
            'a: &a ["x","x","x","x","x","x","x","x","x"]\n'
            + "".join(
                f"{c}: &{c} [*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p}]\n"
                for p, c in zip("abcdefgh", "bcdefghi", strict=True)
            ),
        ),
    ],
)
def test_hostile_schema_sources_are_refused_cleanly(
    run_cli: Any, isolated_cache: Path, tmp_path: Path, name: str, text: str
) -> None:
    """Deep nesting and alias bombs in a CRD file end in one located error (no crash)."""
    path = tmp_path / name
    path.write_text(text)
    result = run_cli(["schemas", "import", str(path)])
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: {path}")
    assert any(word in result.stderr for word in ("deeper", "nest", "alias")), result.stderr
    assert "Traceback" not in result.stderr


def test_fifo_in_a_folder_is_an_error_naming_it_not_waited_for(
    run_cli: Any, isolated_cache: Path, tmp_path: Path
) -> None:
    """A FIFO is never opened (that would block), nor silently skipped (the user named the
    folder): the error names it, exit 2, and nothing of the folder reaches the cache."""
    folder = tmp_path / "crds"
    folder.mkdir()
    pipe = folder / "a-pipe.yaml"
    os.mkfifo(pipe)
    (folder / "widget.yaml").write_text(yaml.safe_dump(widget_crd("example.com")))
    imported = run_cli(["schemas", "import", str(folder)])
    assert imported.exit_code == 2, imported.stderr
    assert imported.stderr.startswith(f"Error: {pipe}: not a regular file"), imported.stderr
    assert not (isolated_cache / "schemas").exists()
    listed = run_cli(["schemas", "list", "--schema-dir", str(folder)])
    assert listed.exit_code == 2, listed.stderr
    assert f"Error: {pipe}: not a regular file" in listed.stderr
