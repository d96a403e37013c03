"""``capzgen schemas list|import|sync`` through ``generator.cli.main``."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import yaml

from generator.resources import builtin_schemas_dir
from generator.schemastore.store import SchemaStore
from generator.settings import Settings
from tests.schemastore.helpers import make_crd, write_yaml

RunCli = Any  # the run_cli fixture from tests/conftest.py


def cached_files(cache: Path) -> list[Path]:
    """The schemas in the cache (not its hidden provenance record)."""
    folder = cache / "schemas"
    return (
        sorted(p for p in folder.rglob("*.json") if not p.name.startswith("."))
        if folder.exists()
        else []
    )


class TestList:
    def test_text_lists_sorted_gvks_with_their_source(
        self, run_cli: RunCli, tmp_path: Path
    ) -> None:
        crds = write_yaml(tmp_path / "crds" / "widget.yaml", make_crd(), make_crd(kind="Gadget"))
        result = run_cli(["schemas", "list", "--schema-dir", str(crds.parent)])
        assert result.exit_code == 0, result.stderr
        lines = result.stdout.splitlines()
        widget = next(line for line in lines if " Widget " in line)
        assert widget.split() == ["example.com/v1", "Widget", str(crds)]
        assert any(line.split()[:2] == ["v1", "Secret"] for line in lines)
        keys = [
            (line.split()[0].rpartition("/")[0], line.split()[0], line.split()[1].lower())
            for line in lines
        ]
        assert keys == sorted(keys)

    def test_json_and_all(self, run_cli: RunCli, tmp_path: Path) -> None:
        first = write_yaml(tmp_path / "a" / "w.yaml", make_crd())
        second = write_yaml(tmp_path / "b" / "w.yaml", make_crd())
        args = [
            "schemas",
            "--schema-dir",
            str(first.parent),
            "list",
            "--schema-dir",
            str(second.parent),
        ]
        plain = json.loads(run_cli([*args, "-o", "json"]).stdout)
        every = json.loads(run_cli([*args, "--output", "json", "--all"]).stdout)
        widgets = [row for row in every if row["kind"] == "Widget"]
        assert [(row["source"], row["shadowed"]) for row in widgets] == [
            (str(first), False),
            (str(second), True),
        ]
        assert [row["source"] for row in plain if row["kind"] == "Widget"] == [str(first)]
        assert widgets[0]["apiVersion"] == "example.com/v1"

    def test_env_schema_path_is_listed(self, run_cli: RunCli, tmp_path: Path) -> None:
        crds = write_yaml(tmp_path / "env" / "w.yaml", make_crd())
        result = run_cli(["schemas", "list"], env={"CAPZGEN_SCHEMA_PATH": str(crds.parent)})
        assert ["example.com/v1", "Widget", str(crds)] in [
            line.split() for line in result.stdout.splitlines()
        ]

    def test_broken_source_exits_2(self, run_cli: RunCli, tmp_path: Path) -> None:
        (tmp_path / "bad.yaml").write_text("a: [\n", encoding="utf-8")
        result = run_cli(["schemas", "list", "--schema-dir", str(tmp_path)])
        assert result.exit_code == 2
        assert "bad.yaml" in result.stderr


class TestImport:
    def test_file(self, run_cli: RunCli, tmp_path: Path, isolated_cache: Path) -> None:
        crd = make_crd(versions=[("v1alpha1", False), ("v1", True)])
        path = write_yaml(tmp_path / "widget.yaml", crd)
        result = run_cli(["schemas", "import", str(path)])
        assert result.exit_code == 0, result.stderr
        assert "imported example.com/v1 Widget" in result.stdout
        assert cached_files(isolated_cache) == [
            isolated_cache / "schemas/example.com/widget_v1.json"
        ]
        cached = SchemaStore.from_search_path(settings=Settings(cache_root=isolated_cache))
        handle = cached.lookup("example.com/v1", "Widget")
        assert handle is not None and handle.source.startswith(str(isolated_cache))
        listing = run_cli(["schemas", "list"]).stdout
        assert "example.com/v1 Widget" in listing  # the cased kind survives the catalog layout

    def test_stdin_kubectl_list(self, run_cli: RunCli, isolated_cache: Path) -> None:
        listing = {
            "apiVersion": "v1",
            "kind": "List",
            "items": [make_crd(), make_crd(kind="Gadget")],
        }
        result = run_cli(["schemas", "import", "-"], stdin=yaml.safe_dump(listing))
        assert result.exit_code == 0, result.stderr
        assert [p.name for p in cached_files(isolated_cache)] == [
            "gadget_v1.json",
            "widget_v1.json",
        ]

    def test_folder_with_json_crds(
        self, run_cli: RunCli, tmp_path: Path, isolated_cache: Path
    ) -> None:
        (tmp_path / "in").mkdir()
        (tmp_path / "in" / "w.json").write_text(json.dumps(make_crd()), encoding="utf-8")
        result = run_cli(["schemas", "import", str(tmp_path / "in")])
        assert result.exit_code == 0, result.stderr
        assert len(cached_files(isolated_cache)) == 1

    def test_no_crd_found(self, run_cli: RunCli, tmp_path: Path, isolated_cache: Path) -> None:
        path = write_yaml(tmp_path / "cm.yaml", {"apiVersion": "v1", "kind": "ConfigMap"})
        result = run_cli(["schemas", "import", str(path)])
        assert result.exit_code == 1
        assert "no CustomResourceDefinition or catalog JSON Schema found" in result.stderr
        assert cached_files(isolated_cache) == []

    def test_malformed_yaml_writes_nothing(
        self, run_cli: RunCli, tmp_path: Path, isolated_cache: Path
    ) -> None:
        folder = tmp_path / "in"
        write_yaml(folder / "a-good.yaml", make_crd())
        (folder / "b-bad.yaml").write_text("spec:\n  group: [x\n", encoding="utf-8")
        result = run_cli(["schemas", "import", str(folder)])
        assert result.exit_code == 1
        assert f"{folder / 'b-bad.yaml'}:3:" in result.stderr
        assert cached_files(isolated_cache) == []

    def test_malformed_stdin(self, run_cli: RunCli, isolated_cache: Path) -> None:
        result = run_cli(["schemas", "import", "-"], stdin="kind: [\n")
        assert result.exit_code == 1
        assert "<stdin>:2" in result.stderr
        assert cached_files(isolated_cache) == []

    def test_missing_file_exits_2(self, run_cli: RunCli, tmp_path: Path) -> None:
        result = run_cli(["schemas", "import", str(tmp_path / "nope.yaml")])
        assert result.exit_code == 2


def tampered_mirror(shared_dir: Path, tmp_path: Path) -> tuple[Path, Path]:
    mirror = tmp_path / "mirror"
    shutil.copytree(shared_dir / "crds", mirror / "crds")
    shutil.copytree(shared_dir / "schemas", mirror / "schemas")
    shutil.copytree(shared_dir / "schemas-next", mirror / "schemas-next")
    victim = mirror / "schemas/resources.azure.com/resourcegroup_v1api20200601.json"
    victim.write_bytes(victim.read_bytes().replace(b'"location"', b'"locaton"'))
    return mirror, victim


class TestSync:
    def test_from_shared_dir(self, run_cli: RunCli, shared_dir: Path, isolated_cache: Path) -> None:
        result = run_cli(["schemas", "sync", "--from", str(shared_dir)])
        assert result.exit_code == 0, result.stderr
        assert "144 file(s) verified" in result.stdout
        assert "resourcegroup_v1api20200601.json" in result.stderr  # the repair warning
        files = cached_files(isolated_cache)
        assert len(files) == 155
        store = SchemaStore.from_search_path(settings=Settings(cache_root=isolated_cache))
        for api_version, kind in [
            ("cluster.x-k8s.io/v1beta2", "Cluster"),
            ("infrastructure.cluster.x-k8s.io/v1beta1", "AzureASOManagedControlPlane"),
            ("containerservice.azure.com/v1api20240901", "ManagedCluster"),
            ("resources.azure.com/v1api20200601", "ResourceGroup"),
        ]:
            handle = store.lookup(api_version, kind)
            assert handle is not None and handle.source.startswith(str(isolated_cache)), kind
        rg = store.lookup("resources.azure.com/v1api20200601", "ResourceGroup")
        assert rg is not None
        bad = {
            "apiVersion": "resources.azure.com/v1api20200601",
            "kind": "ResourceGroup",
            "metadata": {"name": "rg"},
            "spec": {"location": "x", "bogus": 1},
        }
        assert [v.message for v in rg.iter_violations(bad)] == ['unknown field "bogus"']

    def test_from_file_url(self, run_cli: RunCli, shared_dir: Path, isolated_cache: Path) -> None:
        result = run_cli(["schemas", "sync", "--from", shared_dir.resolve().as_uri()])
        assert result.exit_code == 0, result.stderr
        assert len(cached_files(isolated_cache)) == 155

    def test_digest_mismatch_writes_nothing(
        self, run_cli: RunCli, shared_dir: Path, tmp_path: Path, isolated_cache: Path
    ) -> None:
        mirror, victim = tampered_mirror(shared_dir, tmp_path)
        pins = yaml.safe_load((builtin_schemas_dir() / "sources.yaml").read_text())["sources"]
        expected = next(p["sha256"] for p in pins if p["path"].endswith(victim.name))
        result = run_cli(["schemas", "sync", "--from", str(mirror)])
        assert result.exit_code == 2
        assert str(victim) in result.stderr
        assert "sha256 mismatch" in result.stderr
        assert expected in result.stderr
        assert hashlib.sha256(victim.read_bytes()).hexdigest() in result.stderr
        assert cached_files(isolated_cache) == []

    def test_unreachable_mirror(
        self, run_cli: RunCli, isolated_cache: Path, tmp_path: Path
    ) -> None:
        result = run_cli(["schemas", "sync", "--from", "http://127.0.0.1:9"])
        assert result.exit_code == 2
        assert "cannot download http://127.0.0.1:9/crds/" in result.stderr
        missing = run_cli(["schemas", "sync", "--from", str(tmp_path / "no-mirror")])
        assert missing.exit_code == 2
        assert "mirror folder does not exist" in missing.stderr
        assert cached_files(isolated_cache) == []

    def test_upstream_urls_from_a_custom_sources_file(
        self, run_cli: RunCli, shared_dir: Path, tmp_path: Path, isolated_cache: Path
    ) -> None:
        crd = (
            shared_dir
            / "crds/capz-v1.26.0/infrastructure.cluster.x-k8s.io_azureasomanagedclusters.yaml"
        )
        entry = {
            "name": "one",
            "version": "v1.26.0",
            "url": crd.resolve().as_uri(),
            "path": "crds/x.yaml",
            "sha256": hashlib.sha256(crd.read_bytes()).hexdigest(),
            "format": "crd-yaml",
        }
        sources = tmp_path / "sources.yaml"
        sources.write_text(yaml.safe_dump({"sources": [entry]}), encoding="utf-8")
        result = run_cli(["schemas", "sync", "--sources", str(sources)])
        assert result.exit_code == 0, result.stderr
        assert [p.name for p in cached_files(isolated_cache)] == [
            "azureasomanagedcluster_v1alpha1.json",
            "azureasomanagedcluster_v1beta1.json",
        ]

        entry["url"] = "http://127.0.0.1:9/upstream.yaml"
        sources.write_text(yaml.safe_dump({"sources": [entry]}), encoding="utf-8")
        failed = run_cli(["schemas", "sync", "--sources", str(sources)])
        assert failed.exit_code == 2
        assert "cannot download http://127.0.0.1:9/upstream.yaml" in failed.stderr

    def test_malformed_sources_file(self, run_cli: RunCli, tmp_path: Path) -> None:
        sources = tmp_path / "sources.yaml"
        sources.write_text("sources:\n  - name: x\n", encoding="utf-8")
        result = run_cli(["schemas", "sync", "--sources", str(sources)])
        assert result.exit_code == 2
        assert "sources[0]: missing or empty version, url, path, sha256, format" in result.stderr
