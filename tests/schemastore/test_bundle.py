"""The built-in schema bundle: up to date with its pins, complete, lazily read, tamper-evident."""

from __future__ import annotations

import hashlib
import json
import shutil
import zipfile
from pathlib import Path
from typing import Any

import pytest

from generator.errors import SchemaStoreError
from generator.resources import builtin_schemas_dir
from generator.schemastore import compiler
from generator.schemastore.bundle import ARCHIVE_NAME, MANIFEST_NAME, SchemaBundle
from generator.schemastore.bundle_build import build_bundle, main
from generator.schemastore.store import SchemaStore
from generator.schemastore.sync import load_pins

BUNDLE = builtin_schemas_dir() / "bundle"
SOURCES = builtin_schemas_dir() / "sources.yaml"
WHEEL_BUDGET = 1_500_000  # bytes the bundle may take inside the wheel (issue 10)


@pytest.fixture(scope="module")
def rebuilt(tmp_path_factory: pytest.TempPathFactory, shared_dir: Path) -> Path:
    out = tmp_path_factory.mktemp("bundle")
    build_bundle([shared_dir], out)
    return out


def test_committed_bundle_is_what_the_pins_build(rebuilt: Path) -> None:
    """A change to a pin, a vendored copy or the converter without `make schemas-bundle` fails
    here. The manifest holds the digest of every converted schema, so comparing it compares the
    content; the zip bytes themselves may differ between zlib versions."""
    committed = json.loads((BUNDLE / MANIFEST_NAME).read_bytes())
    assert json.loads((rebuilt / MANIFEST_NAME).read_bytes()) == committed, (
        "schemas/bundle is stale: run `make schemas-bundle SOURCES=tests/data/upstream`"
    )


def test_every_committed_member_matches_its_digest() -> None:
    bundle = SchemaBundle(BUNDLE)
    with zipfile.ZipFile(bundle.archive_path) as archive:
        assert sorted(archive.namelist()) == sorted(s.member for s in bundle.manifest.schemas)
    for schema in bundle.manifest.schemas:
        assert json.loads(bundle.read_bytes(schema))["type"] == "object", schema.member


def test_manifest_records_provenance_of_every_pinned_file() -> None:
    manifest = SchemaBundle(BUNDLE).manifest
    pins = {pin.name: pin for pin in load_pins(SOURCES)}
    assert {source.name for source in manifest.sources} == set(pins)
    for source in manifest.sources:
        pin = pins[source.name]
        assert (source.url, source.path, source.sha256, source.release) == (
            pin.url,
            pin.path,
            pin.sha256,
            pin.version,
        )
        assert (SOURCES.parent / source.licence_file).read_text().strip(), source.licence_file
    projects = {s.project: s.licence for s in manifest.sources}
    assert projects == {
        "kubernetes-sigs/cluster-api-provider-azure": "Apache-2.0",
        "kubernetes-sigs/cluster-api": "Apache-2.0",
        "datreeio/CRDs-catalog": "MIT",
        "Azure/azure-service-operator": "MIT",
        "fluxcd/kustomize-controller": "Apache-2.0",
        "fluxcd/source-controller": "Apache-2.0",
    }


def test_generated_schemas_say_how_they_were_made() -> None:
    """Files ASO does not publish carry the generator and recipe, and show as generated."""
    manifest = SchemaBundle(BUNDLE).manifest
    generated = {s.name: s for s in manifest.sources if s.generated}
    assert len(generated) == 14
    for source in generated.values():
        assert source.project == "Azure/azure-service-operator"
        assert "controller-gen v0.19.0" in source.generated
        assert source.pinned.endswith("(generated)")
        assert source.path.startswith("schemas-next/")
    # The catalog's ManagedCluster v1api20240901 predates ASO v2.16; the generated one replaces it.
    member = next(s for s in manifest.schemas if s.member == MANAGED_CLUSTER_MEMBER)
    assert member.source in generated
    published = [s for s in manifest.sources if not s.generated]
    assert all(not s.pinned.endswith("(generated)") for s in published)


@pytest.mark.parametrize(
    ("api_version", "kind"),
    [
        (f"containerservice.azure.com/{version}", kind)
        for version in ("v1api20250801", "v20251002preview")
        for kind in (
            "ManagedCluster",
            "ManagedClustersAgentPool",
            "MaintenanceConfiguration",
            "TrustedAccessRoleBinding",
        )
    ]
    + [
        ("containerservice.azure.com/v1api20250301", kind)
        for kind in (
            "Fleet",
            "FleetsMember",
            "FleetsUpdateRun",
            "FleetsAutoUpgradeProfile",
            "FleetsUpdateStrategy",
        )
    ],
)
def test_bundle_serves_the_newer_aso_versions(api_version: str, kind: str) -> None:
    handle = SchemaStore.from_search_path().lookup(api_version, kind)
    assert handle is not None and handle.source == "built-in", (api_version, kind)


def test_bundle_fits_the_wheel_budget() -> None:
    size = sum((BUNDLE / name).stat().st_size for name in (ARCHIVE_NAME, MANIFEST_NAME))
    assert size < WHEEL_BUDGET


def test_bundle_holds_capi_capz_and_the_aso_kinds(shared_dir: Path) -> None:
    store = SchemaStore.from_search_path()
    for api_version, kind in [
        ("cluster.x-k8s.io/v1beta2", "Cluster"),
        ("cluster.x-k8s.io/v1beta2", "MachinePool"),
        ("cluster.x-k8s.io/v1beta2", "ClusterClass"),
        ("bootstrap.cluster.x-k8s.io/v1beta2", "KubeadmConfigTemplate"),
        ("infrastructure.cluster.x-k8s.io/v1beta1", "AzureASOManagedControlPlane"),
        ("infrastructure.cluster.x-k8s.io/v1beta1", "AzureManagedMachinePoolTemplate"),
        ("infrastructure.cluster.x-k8s.io/v1beta1", "AzureClusterIdentity"),
        ("containerservice.azure.com/v1api20240901", "ManagedCluster"),
        ("resources.azure.com/v1api20200601", "ResourceGroup"),  # repaired at build time
        ("network.azure.com/v1api20240301", "VirtualNetworksSubnet"),
        ("kustomize.toolkit.fluxcd.io/v1", "Kustomization"),
        ("source.toolkit.fluxcd.io/v1", "GitRepository"),
        ("source.toolkit.fluxcd.io/v1", "OCIRepository"),
        ("source.toolkit.fluxcd.io/v1", "Bucket"),
    ]:
        handle = store.lookup(api_version, kind)
        assert handle is not None and handle.source == "built-in", (api_version, kind)
    # Every ASO file in the vendored copies is in the bundle.
    catalog = {
        p.relative_to(shared_dir / "schemas").as_posix()
        for p in shared_dir.glob("schemas/*/*.json")
    }
    members = {s.member for s in SchemaBundle(BUNDLE).manifest.schemas}
    assert catalog <= members


def copy_bundle(tmp_path: Path) -> Path:
    target = tmp_path / "bundle"
    shutil.copytree(BUNDLE, target)
    return target


def rewrite_member(bundle: Path, member: str, data: bytes) -> None:
    """Replace one member's bytes, keeping every other member (and the manifest) as they are."""
    archive_path = bundle / ARCHIVE_NAME
    with zipfile.ZipFile(archive_path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    members[member] = data
    with zipfile.ZipFile(archive_path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in members.items():
            archive.writestr(name, content)


CLUSTER_MEMBER = "cluster.x-k8s.io/cluster_v1beta2.json"
MANAGED_CLUSTER_MEMBER = "containerservice.azure.com/managedcluster_v1api20240901.json"


def test_tampered_member_is_reported_naming_the_file(tmp_path: Path) -> None:
    bundle = copy_bundle(tmp_path)
    rewrite_member(bundle, CLUSTER_MEMBER, b'{"type": "object"}')
    store = SchemaStore.from_search_path(bundle_dir=bundle)
    with pytest.raises(
        SchemaStoreError, match="sha256 mismatch in the built-in schema bundle"
    ) as e:
        store.lookup("cluster.x-k8s.io/v1beta2", "Cluster")
    assert e.value.location is not None
    assert e.value.location.file == f"{bundle / ARCHIVE_NAME}:{CLUSTER_MEMBER}"
    assert e.value.hint is not None and "reinstall" in e.value.hint


def test_members_are_read_one_at_a_time(tmp_path: Path) -> None:
    """A damaged member does not stop lookups of others: nothing else is inflated or checked."""
    bundle = copy_bundle(tmp_path)
    rewrite_member(bundle, CLUSTER_MEMBER, b"garbage")
    store = SchemaStore.from_search_path(bundle_dir=bundle)
    assert store.lookup("containerservice.azure.com/v1api20240901", "ManagedCluster") is not None


def test_truncated_archive_is_reported_naming_the_file(tmp_path: Path) -> None:
    bundle = copy_bundle(tmp_path)
    archive = bundle / ARCHIVE_NAME
    archive.write_bytes(archive.read_bytes()[: archive.stat().st_size // 2])
    store = SchemaStore.from_search_path(bundle_dir=bundle)
    with pytest.raises(SchemaStoreError, match="bundle is damaged") as e:
        store.lookup("containerservice.azure.com/v1api20240901", "ManagedCluster")
    assert e.value.location is not None and str(archive) in (e.value.location.file or "")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot be read"),
        (b"{not json", "not valid JSON"),
        (b'{"format": 99}', "unsupported bundle format 99"),
        (b'{"format": 1}', "manifest is malformed"),
    ],
)
def test_broken_manifest_is_reported_naming_it(
    tmp_path: Path, content: bytes | None, message: str
) -> None:
    bundle = copy_bundle(tmp_path)
    if content is None:
        (bundle / MANIFEST_NAME).unlink()
    else:
        (bundle / MANIFEST_NAME).write_bytes(content)
    store = SchemaStore.from_search_path(bundle_dir=bundle)
    with pytest.raises(SchemaStoreError, match=message) as e:
        store.lookup("containerservice.azure.com/v1api20240901", "ManagedCluster")
    assert e.value.location is not None
    assert e.value.location.file == str(bundle / MANIFEST_NAME)


def test_builder_refuses_a_copy_that_differs_from_its_pin(tmp_path: Path, shared_dir: Path) -> None:
    mirror = tmp_path / "mirror"
    shutil.copytree(shared_dir, mirror)
    changed = mirror / "schemas/resources.azure.com/resourcegroup_v1api20200601.json"
    changed.write_bytes(changed.read_bytes() + b"\n")
    out = tmp_path / "out"
    with pytest.raises(SchemaStoreError, match="sha256 mismatch") as e:
        build_bundle([mirror], out)
    assert e.value.location is not None and e.value.location.file == str(changed)
    assert not out.exists(), "nothing is written when a pin does not verify"


def test_builder_names_every_folder_searched_for_a_missing_copy(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    code = main([str(empty), "--out", str(tmp_path / "out")])
    assert code == 2
    assert not (tmp_path / "out").exists()


def test_builder_takes_the_first_folder_holding_each_file(tmp_path: Path, shared_dir: Path) -> None:
    """Source folders are searched in order, so a partial overlay folder can come first."""
    overlay = tmp_path / "overlay" / "crds" / "capi-v1.13.3"
    overlay.mkdir(parents=True)
    shutil.copy(shared_dir / "crds/capi-v1.13.3/cluster.x-k8s.io_clusters.yaml", overlay)
    out = tmp_path / "out"
    assert main([str(tmp_path / "overlay"), str(shared_dir), "--out", str(out)]) == 0
    assert json.loads((out / MANIFEST_NAME).read_bytes()) == json.loads(
        (BUNDLE / MANIFEST_NAME).read_bytes()
    )


def test_every_bundled_kind_is_spelt_as_upstream_spells_it() -> None:
    """CRD kinds come from the CRDs; catalog kinds from the pins' `kind` (its file names are
    lower-case). Lookups still ignore the case of catalog kinds, as before."""
    schemas = SchemaBundle(BUNDLE).manifest.schemas
    assert all(s.gvk.kind[0].isupper() for s in schemas), [s.member for s in schemas]
    kinds = {s.gvk.kind for s in schemas}
    assert {"ManagedCluster", "ResourceGroup", "PublicIPPrefix", "DnsZonesAAAARecord"} <= kinds
    assert "DnsForwardingRuleSetsForwardingRule" in kinds  # not "...Rulesets...": ASO's spelling
    store = SchemaStore.from_search_path()
    assert store.lookup("resources.azure.com/v1api20200601", "resourcegroup") is not None


def test_builder_refuses_a_schema_referring_outside_itself(
    tmp_path: Path, shared_dir: Path
) -> None:
    """The manifest's ``self_contained`` is a promise the store relies on: the builder keeps it."""
    mirror = tmp_path / "mirror"
    shutil.copytree(shared_dir, mirror)
    relative = "schemas/resources.azure.com/resourcegroup_v1api20200601.json"
    changed = mirror / relative
    schema = json.loads(changed.read_bytes())
    schema["properties"]["extra"] = {"$ref": "https://example.com/x.json"}
    changed.write_text(json.dumps(schema))
    sources = tmp_path / "schemas" / "sources.yaml"
    shutil.copytree(SOURCES.parent, sources.parent, ignore=shutil.ignore_patterns("bundle"))
    pin = next(p for p in load_pins(SOURCES) if p.path == relative)
    digest = hashlib.sha256(changed.read_bytes()).hexdigest()
    sources.write_text(SOURCES.read_text().replace(pin.sha256, digest))
    out = tmp_path / "out"
    with pytest.raises(SchemaStoreError, match=r"refers outside itself: \$ref 'https://") as e:
        build_bundle([mirror], out, sources_file=sources)
    assert e.value.location is not None and str(changed) in (e.value.location.file or "")
    assert not out.exists()


def test_bundled_schemas_are_not_walked_for_references_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the builder's promise the walk is skipped; a manifest without it gets the walk."""
    walked: list[str] = []

    def recording(schema: object, *, source: str) -> None:
        walked.append(source)

    monkeypatch.setattr(compiler, "ensure_self_contained", recording)
    assert SchemaBundle(BUNDLE).manifest.self_contained
    store = SchemaStore.from_search_path()
    assert store.lookup("cluster.x-k8s.io/v1beta2", "Cluster") is not None
    assert walked == []
    bundle = copy_bundle(tmp_path)
    manifest = json.loads((bundle / MANIFEST_NAME).read_bytes())
    del manifest["self_contained"]
    (bundle / MANIFEST_NAME).write_text(json.dumps(manifest))
    store = SchemaStore.from_search_path(bundle_dir=bundle)
    assert store.lookup("cluster.x-k8s.io/v1beta2", "Cluster") is not None
    assert walked == ["built-in"]


def test_the_archive_directory_is_read_once_per_bundle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[object] = []
    real = zipfile.ZipFile

    def counting(*args: Any, **kwargs: Any) -> zipfile.ZipFile:
        opened.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(zipfile, "ZipFile", counting)
    bundle = copy_bundle(tmp_path)
    store = SchemaStore.from_search_path(bundle_dir=bundle)
    for api_version, kind in [
        ("cluster.x-k8s.io/v1beta2", "Cluster"),
        ("cluster.x-k8s.io/v1beta2", "MachinePool"),
        ("containerservice.azure.com/v1api20240901", "ManagedCluster"),
    ]:
        assert store.lookup(api_version, kind) is not None
    assert len(opened) == 1
    # Read into memory: the file may go (or change) afterwards, and no descriptor is left open
    # for forked workers to share.
    (bundle / ARCHIVE_NAME).unlink()
    assert store.lookup("resources.azure.com/v1api20200601", "ResourceGroup") is not None
    assert len(opened) == 1
