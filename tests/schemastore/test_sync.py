"""The pinned sources list and the sync building blocks."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from generator.errors import SchemaStoreError
from generator.resources import builtin_schemas_dir
from generator.schemastore.catalog import catalog_gvk
from generator.schemastore.sync import PinnedFile, load_pins, source_location, sync

SOURCES = builtin_schemas_dir() / "sources.yaml"


def test_sources_list_pins_every_shared_file(shared_dir: Path) -> None:
    pins = load_pins(SOURCES)
    assert len({p.name for p in pins}) == len(pins)
    shared_files = {
        str(path.relative_to(shared_dir))
        for pattern in (
            "crds/*/*.yaml",
            "schemas/*/*.json",
            "schemas-next/containerservice.azure.com/*.json",
            "schemas-next/*/containerservice.azure.com/*.json",
        )
        for path in shared_dir.glob(pattern)
    }
    # ASO v2.16 added five properties to ManagedCluster v1api20240901: the generated copy
    # replaces the catalog's.
    replaced = {"schemas/containerservice.azure.com/managedcluster_v1api20240901.json"}
    assert {p.path for p in pins} == shared_files - replaced
    for pin in pins:
        data = (shared_dir / pin.path).read_bytes()
        assert hashlib.sha256(data).hexdigest() == pin.sha256, pin.path


def test_sources_list_urls_are_pinned_upstream() -> None:
    for pin in load_pins(SOURCES):
        if not pin.generated:
            assert pin.url.startswith("https://raw.githubusercontent.com/"), pin.url
            assert pin.url.endswith("/" + Path(pin.path).name), pin.url
        if pin.path.startswith("crds/capz-v1.26.0/"):
            assert "/cluster-api-provider-azure/v1.26.0/config/crd/bases/" in pin.url
        elif pin.path.startswith("crds/capi-v1.13.3/"):
            assert "/kubernetes-sigs/cluster-api/v1.13.3/" in pin.url
            if "kubeadm" in pin.path:
                assert "/bootstrap/kubeadm/config/crd/bases/" in pin.url
        elif pin.path.startswith("crds/flux-"):
            controller, _, release = pin.path.split("/")[1].removeprefix("flux-").rpartition("-")
            assert f"/fluxcd/{controller}/{release}/config/crd/bases/" in pin.url
            assert pin.version == release and pin.format == "crd-yaml"
        elif pin.generated:
            # Not published: the URL names the API types the file was generated from.
            assert pin.project == "Azure/azure-service-operator"
            assert pin.path.startswith("schemas-next/") and pin.path.endswith(f"/{pin.target}")
            version = catalog_gvk(Path(pin.target or "")).version  # type: ignore[union-attr]
            assert pin.url == (
                "https://github.com/Azure/azure-service-operator/tree/"
                f"e88a45d1f78cb4946b8c96b1c629d35963ac81dd/v2/api/containerservice/{version}"
            )
        else:
            assert pin.format == "json-schema"
            assert pin.target is not None and catalog_gvk(Path(pin.target)) is not None
            assert pin.path == f"schemas/{pin.target}"
            assert "/datreeio/CRDs-catalog/" in pin.url


def test_sources_list_is_commented() -> None:
    assert SOURCES.read_text(encoding="utf-8").startswith("# ")


PIN = PinnedFile(
    name="x",
    version="v1",
    url="https://example.com/up/x.yaml",
    path="crds/a b.yaml",
    sha256="0" * 64,
    format="crd-yaml",
)


@pytest.mark.parametrize(
    ("mirror", "expected"),
    [
        (None, "https://example.com/up/x.yaml"),
        ("/srv/mirror", "/srv/mirror/crds/a b.yaml"),
        ("file:///srv/mirror", "/srv/mirror/crds/a b.yaml"),
        ("https://mirror.example/base/", "https://mirror.example/base/crds/a%20b.yaml"),
    ],
)
def test_source_location(mirror: str | None, expected: str) -> None:
    assert source_location(PIN, mirror) == expected


def test_a_generated_file_comes_only_from_a_mirror(tmp_path: Path) -> None:
    generated = PinnedFile(
        **{**{f: getattr(PIN, f) for f in PIN.__slots__}, "generated": "by hand"}
    )
    assert source_location(generated, "/srv/mirror") == "/srv/mirror/crds/a b.yaml"
    with pytest.raises(SchemaStoreError, match="not published upstream") as caught:
        source_location(generated, None)
    assert "--from" in (caught.value.hint or "")
    # Without a mirror sync leaves it to the bundle and says so; from a mirror it is fetched.
    mirror = tmp_path / "mirror"
    (mirror / "crds").mkdir(parents=True)
    (mirror / "crds" / "a b.yaml").write_text("kind: [\n")
    with pytest.raises(SchemaStoreError, match="sha256 mismatch"):
        sync([generated], mirror=str(mirror), cache_dir=tmp_path / "cache")
    result = sync([generated], mirror=None, cache_dir=tmp_path / "cache")
    assert (result.files, result.not_fetched) == (0, ("x",))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("sources: []\n", "non-empty `sources:` list"),
        ("sources: [1]\n", r"sources\[0\]: expected a mapping"),
        (
            "sources:\n- {name: a, version: v, url: u, path: p, sha256: x, format: crd-yaml}\n",
            "sha256 must be 64 hex digits",
        ),
        (
            f"sources:\n- {{name: a, version: v, url: u, path: p, sha256: {'a' * 64}, format: zip}}\n",
            "format must be one of",
        ),
        (
            f"sources:\n- {{name: a, version: v, url: u, path: p, sha256: {'a' * 64}, "
            "format: json-schema}\n",
            "need target",
        ),
        (
            f"sources:\n- {{name: a, version: v, url: u, path: p, sha256: {'a' * 64}, "
            "format: json-schema, target: x.com/widget_v1.json, kind: Gadget}\n",
            "kind 'Gadget' is not the kind its target names",
        ),
        (
            f"sources:\n- {{name: a, version: v, url: u, path: p, sha256: {'a' * 64}, "
            "format: crd-yaml, generated: ''}\n",
            "generated must say how the file was produced",
        ),
        ("sources: [\n", "not valid YAML"),
    ],
)
def test_bad_sources_lists(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "sources.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SchemaStoreError, match=message) as caught:
        load_pins(path)
    assert caught.value.location is not None and caught.value.location.file == str(path)


def test_broken_upstream_file_with_right_digest_is_an_unusable_source(tmp_path: Path) -> None:
    data = b"kind: [\n"
    (tmp_path / "crds").mkdir()
    (tmp_path / "crds" / "x.yaml").write_bytes(data)
    pin = PinnedFile(
        "x",
        "v1",
        "https://example.com/x",
        "crds/x.yaml",
        hashlib.sha256(data).hexdigest(),
        "crd-yaml",
    )
    with pytest.raises(SchemaStoreError, match="unusable crd-yaml file") as caught:
        sync([pin], mirror=str(tmp_path), cache_dir=tmp_path / "cache")
    assert caught.value.exit_code == 2
    assert not (tmp_path / "cache").exists()
