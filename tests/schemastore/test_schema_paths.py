"""A CRD's group, kind and version become ``<group>/<kind>_<version>.json``: they are checked
before, and every written file is confined to its folder after (issue 24)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
import yaml

from generator.errors import SchemaStoreError
from generator.jsontypes import JsonObject
from generator.kubeconform.process import write_store_layout
from generator.schemastore.cache import ConversionMemo, MemoEntry, install_files
from generator.schemastore.crd import CrdError, convert_crd
from generator.schemastore.paths import confined, crd_names_problem, gvk_path_problem
from generator.schemastore.sync import load_pins
from generator.schemastore.types import GroupVersionKind, SchemaCatalog
from tests.schemastore.helpers import make_crd

# (group, kind, version, the field the error must name)
BAD_NAMES = [
    ("../../..", "Widget", "v1", "spec.group"),
    ("/tmp/abs", "Widget", "v1", "spec.group"),
    ("a.io/../../b", "Widget", "v1", "spec.group"),
    ("Example.COM", "Widget", "v1", "spec.group"),
    ("a\\..\\..\\b", "Widget", "v1", "spec.group"),
    ("x" * 254, "Widget", "v1", "spec.group"),
    ("example.com", "../Evil", "v1", "spec.names.kind"),
    ("example.com", "Ev/il", "v1", "spec.names.kind"),
    ("example.com", "widget", "v1", "spec.names.kind"),
    ("example.com", "W" * 64, "v1", "spec.names.kind"),
    ("example.com", "Widget", "v1/../../x", "spec.versions[0].name"),
    ("example.com", "Widget", "../v1", "spec.versions[0].name"),
    ("example.com", "Widget", "1v", "spec.versions[0].name"),
    ("example.com", "Widget", "v" * 64, "spec.versions[0].name"),
]


@pytest.mark.parametrize(("group", "kind", "version", "field"), BAD_NAMES)
def test_a_crd_name_that_is_no_kubernetes_name_is_refused_naming_the_field(
    group: str, kind: str, version: str, field: str
) -> None:
    crd = make_crd(group=group, kind=kind, versions=[(version, True)])
    pattern = rf"^CustomResourceDefinition .*: {re.escape(field)} "
    with pytest.raises(CrdError, match=pattern):
        convert_crd(crd)


@pytest.mark.parametrize(
    ("group", "kind", "version"),
    [
        ("example.com", "Widget", "v1"),
        ("infrastructure.cluster.x-k8s.io", "AzureManagedControlPlane", "v1beta1"),
        ("a" * 63 + "." + "b" * 63, "W" + "x" * 62, "v" + "1" * 62),
        ("cluster", "K8sThing2", "v2alpha1"),
    ],
)
def test_kubernetes_names_are_accepted(group: str, kind: str, version: str) -> None:
    converted = convert_crd(make_crd(group=group, kind=kind, versions=[(version, True)]))
    assert [c.gvk for c in converted] == [GroupVersionKind(group, version, kind)]
    assert crd_names_problem(converted[0].gvk) is None
    assert gvk_path_problem(converted[0].gvk) is None


def test_an_unserved_version_never_becomes_a_path_so_it_is_not_checked() -> None:
    crd = make_crd(versions=[("v1", True), ("../old", False)])
    assert [c.gvk.version for c in convert_crd(crd)] == ["v1"]


def test_a_v1beta1_crd_names_its_version_field() -> None:
    crd = make_crd()
    del crd["spec"]["versions"]
    crd["spec"]["version"] = "v1/../x"
    crd["apiVersion"] = "apiextensions.k8s.io/v1beta1"
    with pytest.raises(CrdError, match=r": spec\.version 'v1/\.\./x' is not a DNS-1035 label"):
        convert_crd(crd)


def test_a_huge_bad_name_is_cut_short_in_the_message() -> None:
    crd = make_crd(group="../" * 10_000)
    with pytest.raises(CrdError) as caught:
        convert_crd(crd)
    assert len(str(caught.value)) < 600


@pytest.mark.parametrize("relative", ["../x.json", "/abs/x.json", "a/../../x.json", ".", "a/.."])
def test_confined_refuses_what_resolves_outside(tmp_path: Path, relative: str) -> None:
    with pytest.raises(SchemaStoreError, match="resolves outside"):
        confined(tmp_path / "root", relative)


def test_confined_follows_symbolic_links(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "elsewhere").mkdir()
    (root / "out").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(SchemaStoreError, match="resolves outside"):
        confined(root, "out/x.json")
    assert confined(root, "example.com/widget_v1.json") == root / "example.com/widget_v1.json"


def test_install_files_writes_nothing_when_one_name_climbs_out(tmp_path: Path) -> None:
    root = tmp_path / "cache" / "schemas"
    files = {"example.com/widget_v1.json": b"{}", "../../escaped.json": b"{}"}
    with pytest.raises(SchemaStoreError, match=r"escaped\.json"):
        install_files(root, files)
    assert not (tmp_path / "cache").exists()
    assert not (tmp_path / "escaped.json").exists()


def test_a_tampered_memo_index_cannot_read_outside_its_entry(tmp_path: Path) -> None:
    (tmp_path / "secret.json").write_text("{}")
    entry = MemoEntry(folder=tmp_path / "memo" / "abc", schemas=())
    with pytest.raises(SchemaStoreError, match="resolves outside"):
        entry.load("../../secret.json")


def test_a_conversion_memo_is_written_only_for_checked_names(tmp_path: Path) -> None:
    memo = ConversionMemo(tmp_path / "cache")
    converted = convert_crd(make_crd())
    entry = memo.put("0" * 64, converted, "crds.yaml")
    assert entry is not None
    assert entry.schemas == (
        (GroupVersionKind("example.com", "v1", "Widget"), "example.com/widget_v1.json"),
    )


class _Catalog:
    """Only what write_store_layout asks of a catalog."""

    def __init__(self, gvk: GroupVersionKind) -> None:
        self.gvk = gvk

    def effective_schemas(self) -> Iterator[tuple[GroupVersionKind, str, JsonObject]]:
        yield GroupVersionKind("example.com", "v1", "Widget"), "good.yaml", {"type": "object"}
        yield self.gvk, "tampered-index.json", {"type": "object"}


@pytest.mark.parametrize(
    "gvk",
    [
        GroupVersionKind("../../..", "v1", "Widget"),
        GroupVersionKind("example.com", "v1/../../..", "Widget"),
        GroupVersionKind("example.com", "v1", "../../Widget"),
        GroupVersionKind("", "../v1", "Pod"),
    ],
)
def test_the_kubeconform_layout_refuses_a_gvk_that_climbs_out(
    tmp_path: Path, gvk: GroupVersionKind
) -> None:
    root = tmp_path / "layout" / "schemas"
    with pytest.raises(SchemaStoreError, match="cannot be laid out for kubeconform") as caught:
        write_store_layout(cast(SchemaCatalog, _Catalog(gvk)), root)
    assert caught.value.location is not None
    assert caught.value.location.file == "tampered-index.json"
    outside = [p for p in tmp_path.rglob("*") if not p.is_relative_to(root) and p.is_file()]
    assert outside == []


@pytest.mark.parametrize(
    "target",
    [
        "../../x.io/widget_v1.json",
        "/x.io/widget_v1.json",
        "../widget-x.io-v1.json",
        "a/b/x.io/w_v1.json",
    ],
)
def test_a_sync_pin_cannot_target_outside_the_cache(tmp_path: Path, target: str) -> None:
    path = tmp_path / "sources.yaml"
    entry: dict[str, Any] = {
        "name": "a",
        "version": "v",
        "url": "u",
        "path": "p",
        "sha256": "a" * 64,
        "format": "json-schema",
        "target": target,
    }
    path.write_text(yaml.safe_dump({"sources": [entry]}), encoding="utf-8")
    with pytest.raises(SchemaStoreError, match="need target"):
        load_pins(path)


def test_schemas_import_of_a_crd_naming_a_path_writes_nothing(
    run_cli: Any, isolated_cache: Path, tmp_path: Path
) -> None:
    mark = f"escaped-{tmp_path.name}"  # cache/schemas/../../../<mark> is beside tmp_path
    crd = tmp_path / "crd.yaml"
    crd.write_text(yaml.safe_dump(make_crd(group=f"../../../{mark}")))
    result = run_cli(["schemas", "import", str(crd)])
    assert result.exit_code == 1, result.stderr
    assert result.stderr.startswith(f"Error: {crd}: CustomResourceDefinition "), result.stderr
    assert f"spec.group '../../../{mark}' is not a DNS-1123 subdomain" in result.stderr
    assert not isolated_cache.exists()
    assert not (tmp_path.parent / mark).exists()


def test_a_schema_dir_crd_naming_a_path_is_an_error_naming_it(
    run_cli: Any, isolated_cache: Path, tmp_path: Path
) -> None:
    mark = f"Escaped{tmp_path.name.replace('_', '')}"
    crd = tmp_path / "crd.yaml"
    crd.write_text(yaml.safe_dump(make_crd(kind=f"../../{mark}")))
    result = run_cli(["schemas", "list", "--schema-dir", str(crd)])
    assert result.exit_code == 2, result.stderr
    assert f"{crd}: CustomResourceDefinition " in result.stderr
    assert f"spec.names.kind '../../{mark}' is not a Kubernetes kind" in result.stderr
    written = [*tmp_path.rglob(f"*{mark.lower()}*"), *tmp_path.parent.glob(f"*{mark.lower()}*")]
    assert written == []


@pytest.mark.parametrize("where", ["argument", "folder"])
def test_schemas_import_of_a_device_is_an_error_naming_it(
    run_cli: Any, isolated_cache: Path, tmp_path: Path, where: str
) -> None:
    if where == "argument":
        named = Path(os.devnull).with_name("zero")
        target = named
    else:
        target = tmp_path / "crds"
        target.mkdir()
        named = target / "zero.yaml"
        named.symlink_to("/dev/zero")
    for argv in (
        ["schemas", "import", str(target)],
        ["schemas", "list", "--schema-dir", str(target)],
    ):
        result = run_cli(argv)
        assert result.exit_code == 2, result.stderr
        assert result.stderr.startswith(f"Error: {named}: not a regular file"), result.stderr
    assert not isolated_cache.exists() or not (isolated_cache / "schemas").exists()
