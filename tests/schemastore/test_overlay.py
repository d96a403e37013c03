"""Schema overlays: what ASO v2.18 accepts and the pinned catalog files predate (issue 12 item 8)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from generator.errors import SchemaStoreError
from generator.resources import builtin_schemas_dir
from generator.schemastore.bundle import SchemaBundle
from generator.schemastore.overlay import Addition, apply_additions, load_overlays
from generator.schemastore.sync import load_pins, load_source_overlays, sync

SCHEMAS = builtin_schemas_dir()
OVERLAY = SCHEMAS / "overlays" / "aso-v2.18.yaml"

ROLE_ASSIGNMENT = """\
apiVersion: authorization.azure.com/v1api20220401
kind: RoleAssignment
metadata:
  name: demo-reader
  namespace: default
spec:
  owner:
    name: demo-rg
    group: resources.azure.com
    kind: ResourceGroup
  principalIdFromConfig:
    name: demo-identity
    key: principalId
  roleDefinitionReference:
    wellKnownName: Reader
"""

IDENTITY = """\
apiVersion: managedidentity.azure.com/v1api20230131
kind: UserAssignedIdentity
metadata:
  name: demo-identity
  namespace: default
spec:
  location: westeurope
  owner:
    name: demo-rg
  operatorSpec:
    secrets:
      clientId: {name: demo-identity, key: AZURE_CLIENT_ID}
      tenantId: {name: demo-identity, key: AZURE_TENANT_ID}
      subscriptionId: {name: demo-identity, key: AZURE_SUBSCRIPTION_ID}
"""


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_identity_exporting_its_subscription_id_is_valid(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    result = run_cli(["validate", write(tmp_path, "uai.yaml", IDENTITY)])
    assert result.exit_code == 0, result.stdout
    assert "0 errors, 0 warnings" in result.stdout


def test_role_assignment_by_well_known_name_is_valid(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    """The schema accepts ``wellKnownName`` and ASO-REFERENCE takes it as a whole reference."""
    path = write(tmp_path, "ra.yaml", ROLE_ASSIGNMENT)
    result = run_cli(["validate", path, "--output", "json"])
    assert result.exit_code == 0, result.stdout
    assert json.loads(result.stdout)["findings"] == []
    # Both served versions have the field.
    preview = ROLE_ASSIGNMENT.replace("v1api20220401", "v1api20200801preview")
    path = write(tmp_path, "ra-preview.yaml", preview)
    assert run_cli(["validate", path]).exit_code == 0


@pytest.mark.parametrize(
    ("text", "typo"),
    [
        (ROLE_ASSIGNMENT.replace("wellKnownName", "wellknownName"), "wellknownName"),
        (IDENTITY.replace("subscriptionId:", "subscriptionID:"), "subscriptionID"),
    ],
)
def test_a_typo_next_to_the_added_fields_still_fails(
    run_cli: Callable[..., Any], tmp_path: Path, text: str, typo: str
) -> None:
    result = run_cli(["validate", write(tmp_path, "typo.yaml", text), "--output", "json"])
    assert result.exit_code == 1
    messages = [
        f["message"] for f in json.loads(result.stdout)["findings"] if f["rule"] == "schema"
    ]
    assert messages == [f'unknown field "{typo}"']


def test_older_identity_version_gets_no_secrets() -> None:
    """v1api20181130 has no operatorSpec.secrets upstream, so the overlay leaves it alone."""
    overlay = load_overlays(SCHEMAS / "sources.yaml", ["overlays/aso-v2.18.yaml"])[0]
    assert {a.target for a in overlay.additions} == {
        "authorization.azure.com/roleassignment_v1api20220401.json",
        "authorization.azure.com/roleassignment_v1api20200801preview.json",
        "managedidentity.azure.com/userassignedidentity_v1api20230131.json",
    }
    assert all(a.upstream.startswith("https://github.com/Azure/") for a in overlay.additions)


def test_bundle_manifest_records_the_overlay_and_its_digest() -> None:
    manifest = SchemaBundle(SCHEMAS / "bundle").manifest
    assert manifest.overlays == (
        {
            "name": "aso-v2.18",
            "path": "overlays/aso-v2.18.yaml",
            "sha256": hashlib.sha256(OVERLAY.read_bytes()).hexdigest(),
        },
    )


def test_schemas_sync_applies_the_same_overlay(tmp_path: Path, shared_dir: Path) -> None:
    sources = SCHEMAS / "sources.yaml"
    pins = [p for p in load_pins(sources) if p.name.startswith("aso-managedidentity-user")]
    assert pins
    result = sync(
        pins,
        mirror=str(shared_dir),
        cache_dir=tmp_path / "cache",
        overlays=load_source_overlays(sources, load_pins(sources)),
    )
    written = {p.relative_to(tmp_path / "cache").as_posix(): p for p in result.written}
    schema = json.loads(
        written["managedidentity.azure.com/userassignedidentity_v1api20230131.json"].read_bytes()
    )
    secrets = schema["properties"]["spec"]["properties"]["operatorSpec"]["properties"]["secrets"]
    assert secrets["properties"]["subscriptionId"]["required"] == ["key", "name"]


def addition(pointer: str) -> Addition:
    return Addition("g/k_v1.json", pointer, {"type": "string"}, "v1", "https://example.com")


def test_additions_only_add() -> None:
    schema: dict[str, Any] = {"properties": {"spec": {"properties": {"a/b": {"properties": {}}}}}}
    apply_additions(schema, [addition("/properties/spec/properties/a~1b/properties/x")], "f")
    assert schema["properties"]["spec"]["properties"]["a/b"]["properties"] == {
        "x": {"type": "string"}
    }
    with pytest.raises(SchemaStoreError, match="already defines it") as error:
        apply_additions(schema, [addition("/properties/spec/properties/a~1b/properties/x")], "f")
    assert error.value.hint is not None and "upstream caught up" in error.value.hint
    with pytest.raises(SchemaStoreError, match="parent is not an object"):
        apply_additions(schema, [addition("/properties/status/properties/x")], "f")


def sources_with_overlay(tmp_path: Path, overlay: str, listed: str = "[ov.yaml]") -> Path:
    (tmp_path / "ov.yaml").write_text(overlay, encoding="utf-8")
    text = (SCHEMAS / "sources.yaml").read_text(encoding="utf-8")
    text = text.replace("overlays:\n  - overlays/aso-v2.18.yaml\n", f"overlays: {listed}\n")
    sources = tmp_path / "sources.yaml"
    sources.write_text(text, encoding="utf-8")
    return sources


GOOD_ENTRY = """\
  - target: resources.azure.com/resourcegroup_v1api20200601.json
    pointer: /properties/spec/properties/extra
    since: v9
    upstream: https://example.com
    schema: {type: string}
"""


@pytest.mark.parametrize(
    ("overlay", "listed", "message"),
    [
        (
            "name: x\nadditions:\n" + GOOD_ENTRY.replace("resources.azure", "nope.azure"),
            None,
            "no json-schema pin has: nope.azure.com",
        ),
        ("name: x\nadditions: []\n", None, "non-empty `additions:`"),
        ("- not a mapping\n", None, "a schema overlay is a mapping"),
        ("name: x\nadditions: [3]\n", None, r"additions\[0\]: expected a mapping"),
        (
            "name: x\nadditions:\n" + GOOD_ENTRY.replace("schema: {type: string}", "schema: 3"),
            None,
            "missing or invalid schema",
        ),
        (
            "name: x\nadditions:\n" + GOOD_ENTRY.replace("    since: v9\n", ""),
            None,
            "missing or invalid since",
        ),
        (
            "name: x\nadditions:\n" + GOOD_ENTRY.replace("pointer: /", "pointer: "),
            None,
            "must start with '/'",
        ),
        ("name: x\nadditions:\n" + GOOD_ENTRY, "[ov.yaml, ov.yaml]", "used twice: x"),
        ("name: x\nadditions:\n" + GOOD_ENTRY, "ov.yaml", "must be a list of file paths"),
        ("name: x\nadditions:\n" + GOOD_ENTRY, "[missing.yaml]", "cannot read the schema overlay"),
    ],
)
def test_bad_overlays_are_refused_naming_the_problem(
    tmp_path: Path, overlay: str, listed: str | None, message: str
) -> None:
    sources = sources_with_overlay(tmp_path, overlay, listed or "[ov.yaml]")
    with pytest.raises(SchemaStoreError, match=message):
        load_source_overlays(sources, load_pins(sources))


def test_a_good_overlay_loads_with_its_digest(tmp_path: Path) -> None:
    sources = sources_with_overlay(tmp_path, "name: x\nadditions:\n" + GOOD_ENTRY)
    [overlay] = load_source_overlays(sources, load_pins(sources))
    data = (tmp_path / "ov.yaml").read_bytes()
    assert overlay.sha256 == hashlib.sha256(data).hexdigest()
    assert overlay.to_json() == {"name": "x", "path": "ov.yaml", "sha256": overlay.sha256}
