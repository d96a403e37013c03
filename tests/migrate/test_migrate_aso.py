"""capzgen migrate --aso-version: ASO resources moved between API versions of their kind, on ASO's
samples and CAPZ's templates; fields the target lacks, values it refuses, folders in place (all or
nothing), symbolic links, bad versions."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from generator.checks.rules.versions import migrate_command
from generator.envsubst import substitute
from generator.errors import UsageError
from generator.migrate.aso_move import move_versions
from generator.migrate.aso_target import LATEST, SERVED, AsoTarget, parse_target, target_version
from generator.migrate.schema_move import REMOVED, RENAMED, move_fields
from generator.output import staging
from generator.schemastore.store import SchemaStore
from tests.migrate.test_migrate import CORPUS_VALUES

CS = "containerservice.azure.com"


@pytest.fixture(scope="module")
def store() -> SchemaStore:
    return SchemaStore.from_search_path()


@pytest.fixture(scope="module")
def samples(shared_dir: Path) -> Path:
    return shared_dir / "aso-samples" / "containerservice"


def docs(text: str) -> list[Any]:
    return [d for d in yaml.safe_load_all(text) if d is not None]


def aso_sample(samples: Path, version: str, kind: str) -> str:
    """ASO's own sample of ``kind`` (lower-case file name) at ``version``."""
    return (samples / version / f"{version}_{kind}.yaml").read_text(encoding="utf-8")


def with_version(text: str, old: str, new: str) -> str:
    return text.replace(f"{CS}/{old}", f"{CS}/{new}")


def capz_template(corpus_dir: Path, name: str) -> str:
    text = (corpus_dir / name).read_text(encoding="utf-8")
    values = {**CORPUS_VALUES, "ASO_CREDENTIAL_SECRET_NAME": "aso-credentials"}
    return substitute(text, values.get, lambda variable: variable in values)


# --- the pairs that matter ----------------------------------------------------------------------


def test_v1api20231001_to_v1api20240901_gives_back_capzs_template(
    corpus_dir: Path, tmp_path: Path, run_cli: Any
) -> None:
    # CAPZ's own AKS-on-ASO template, written back to the version its older releases used: moving
    # it to v1api20240901 must give CAPZ's template again, field for field.
    template = capz_template(corpus_dir, "cluster-template-aks-aso.yaml")
    old = tmp_path / "old.yaml"
    old.write_text(with_version(template, "v1api20240901", "v1api20231001"), encoding="utf-8")
    result = run_cli(["migrate", "--aso-version", "v1api20240901", str(old)])
    assert result.exit_code == 0, result.stderr
    assert docs(result.stdout) == docs(template)
    assert "ManagedCluster -> v1api20240901" in result.stderr
    assert "0 fields renamed, 0 removed" in result.stderr


@pytest.mark.parametrize(
    ("source", "target"),
    [
        ("v1api20240901", "v1api20250801"),
        ("v1api20250801", "v20251002preview"),
        ("v20251002preview", "v1api20250801"),
    ],
)
def test_asos_samples_move_and_validate(
    source: str, target: str, samples: Path, tmp_path: Path, run_cli: Any
) -> None:
    folder = tmp_path / "samples"
    folder.mkdir()
    for sample in sorted((samples / source).glob("*.yaml")):
        (folder / sample.name).write_bytes(sample.read_bytes())
    result = run_cli(["migrate", "--aso-version", target, str(folder)])
    assert result.exit_code == 0, result.stderr
    moved = docs(result.stdout)
    assert moved
    assert {d["apiVersion"] for d in moved} == {f"{CS}/{target}"}
    assert "error" not in result.stderr


def test_v1api20250801_to_preview_and_back_is_the_same(samples: Path, store: SchemaStore) -> None:
    sources = [
        (p.name, p.read_text(encoding="utf-8"))
        for p in sorted((samples / "v1api20250801").glob("*.yaml"))
    ]
    there = move_versions(sources, parse_target(["v20251002preview"]), store)
    back = move_versions(
        [(f.name, f.output()) for f in there.files], parse_target(["v1api20250801"]), store
    )
    assert [docs(f.output()) for f in back.files] == [docs(text) for _, text in sources]


def test_capz_template_moves_to_v1api20250801(
    corpus_dir: Path, tmp_path: Path, run_cli: Any
) -> None:
    path = tmp_path / "aks-aso.yaml"
    path.write_text(capz_template(corpus_dir, "cluster-template-aks-aso.yaml"), encoding="utf-8")
    result = run_cli(["migrate", "--aso-version", "v1api20250801", str(path)])
    assert result.exit_code == 0, result.stderr
    embedded = [r for d in docs(result.stdout) for r in (d.get("spec") or {}).get("resources", [])]
    kinds = {r["kind"]: r["apiVersion"] for r in embedded}
    assert kinds["ManagedCluster"] == f"{CS}/v1api20250801"
    assert kinds["ManagedClustersAgentPool"] == f"{CS}/v1api20250801"
    assert kinds["ResourceGroup"] == "resources.azure.com/v1api20200601"  # no such version: kept


def test_fleets_member_preview_to_v1api20250301(
    samples: Path, tmp_path: Path, run_cli: Any
) -> None:
    sample = aso_sample(samples, "v1api20250301", "fleetsmember")
    old = tmp_path / "member.yaml"
    old.write_text(with_version(sample, "v1api20250301", "v1api20230315preview"), encoding="utf-8")
    result = run_cli(["migrate", "--aso-version", "FleetsMember=v1api20250301", str(old)])
    assert result.exit_code == 0, result.stderr
    assert docs(result.stdout) == docs(sample)


def test_served_moves_only_removed_versions(tmp_path: Path, run_cli: Any) -> None:
    source = Path(__file__).parent / "inputs" / "aso-v1alpha1.yaml"
    result = run_cli(["migrate", "--aso-version", "served", str(source)])
    assert result.exit_code == 0, result.stderr
    versions = {
        r["kind"]: r["apiVersion"]
        for d in docs(result.stdout)
        for r in (d.get("spec") or {}).get("resources", [])
    }
    assert versions["ManagedCluster"] == f"{CS}/v1api20240901"
    assert versions["FleetsMember"] == f"{CS}/v1api20250301"
    assert versions["MaintenanceConfiguration"] == f"{CS}/v1api20240901"  # served: unchanged


# --- what does not fit --------------------------------------------------------------------------


def test_a_templated_api_version_is_left_as_written(tmp_path: Path, run_cli: Any) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(
        "apiVersion: containerservice.azure.com/${ASO_VER}\nkind: ManagedCluster\n"
        "metadata: {name: mc}\nspec: {location: westeurope, owner: {name: rg}}\n",
        encoding="utf-8",
    )
    skip = "--ignore-missing-schemas"  # no schema has the version ${ASO_VER}
    result = run_cli(["migrate", "--aso-version", "v1api20250801", str(path), skip])
    assert result.exit_code == 0, result.stderr
    assert "${ASO_VER}" in result.stdout
    assert "is a ${VAR} template: left as written" in result.stderr


def test_a_field_the_target_lacks_is_removed_and_listed(
    samples: Path, tmp_path: Path, run_cli: Any
) -> None:
    sample = yaml.safe_load(aso_sample(samples, "v20251002preview", "managedcluster"))
    sample["spec"]["schedulerProfile"] = {"schedulerInstanceProfiles": {}}
    sample["status"] = {"provisioningState": "Succeeded"}  # `kubectl get -o yaml` of the old one
    path = tmp_path / "mc.yaml"
    path.write_text(yaml.safe_dump(sample), encoding="utf-8")
    # A field the user set and the target lacks refuses the move unless --drop-removed says so.
    refused = run_cli(["migrate", "--aso-version", "v1api20250801", str(path)])
    assert refused.exit_code == 1
    assert refused.stdout == ""
    assert "1 field set in the input has no place in the target version" in refused.stderr
    assert "--drop-removed" in refused.stderr
    drop = ["--drop-removed"]
    result = run_cli(["migrate", "--aso-version", "v1api20250801", str(path), *drop])
    assert result.exit_code == 0, result.stderr
    assert re.search(
        r"removed: .*mc\.yaml: ManagedCluster/\S+: spec\.schedulerProfile: not in the v1api20250801",
        result.stderr,
    )
    assert "schedulerProfile" not in docs(result.stdout)[0]["spec"]
    as_json = run_cli(
        ["migrate", "--aso-version", "v1api20250801", str(path), "--output", "json", *drop]
    )
    data = json.loads(as_json.stdout)
    assert "schedulerProfile" not in docs(data["manifests"])[0]["spec"]
    assert [n["path"] for n in data["notes"] if n["category"] == "removed"] == [
        "status",
        "spec.schedulerProfile",
    ]


def test_id_reference_renames_come_from_the_schemas(store: SchemaStore) -> None:
    pool: dict[str, Any] = {
        "apiVersion": f"{CS}/v1api20210501",
        "kind": "ManagedClustersAgentPool",
        "metadata": {"name": "pool0"},
        "spec": {
            "owner": {"name": "c"},
            "vnetSubnetIDReference": {"armId": "/subscriptions/s/resourceGroups/r/providers/p/a/b"},
            "proximityPlacementGroupID": "/subscriptions/s/x",  # a string becomes a reference: no rename
        },
    }
    source = store.lookup(f"{CS}/v1api20210501", "ManagedClustersAgentPool")
    target = store.lookup(f"{CS}/v1api20240901", "ManagedClustersAgentPool")
    assert source is not None
    assert target is not None
    result = move_fields(pool, source.schema, target.schema)
    assert [(m.action, m.path, m.new_name) for m in result.moves] == [
        (RENAMED, ("spec", "vnetSubnetIDReference"), "vnetSubnetReference"),
        (REMOVED, ("spec", "proximityPlacementGroupID"), ""),
    ]
    assert pool["spec"]["vnetSubnetReference"]["armId"].startswith("/subscriptions/")


def test_renames_by_description_are_one_to_one() -> None:
    def field(text: str) -> dict[str, Any]:
        return {"type": "string", "description": text}

    source = {
        "type": "object",
        "properties": {"a": field("Size in GB."), "b": field("Same."), "c": field("Same.")},
    }
    target = {
        "type": "object",
        "properties": {"x": field("Size  in GB."), "y": field("Same."), "z": field("Same.")},
    }
    obj: dict[str, Any] = {"a": 1, "b": 2}
    result = move_fields(obj, source, target)
    assert obj == {"x": 1}  # b matches two new fields: ambiguous, so removed
    assert [(m.action, m.path) for m in result.moves] == [(RENAMED, ("a",)), (REMOVED, ("b",))]


def test_a_value_the_target_refuses_is_reported_and_nothing_written(
    samples: Path, tmp_path: Path, run_cli: Any
) -> None:
    text = aso_sample(samples, "v1api20250801", "managedclustersagentpool")
    path = tmp_path / "pool.yaml"
    path.write_text(re.sub(r"mode: \w+", "mode: Gateway", text), encoding="utf-8")
    before = path.read_bytes()
    result = run_cli(["migrate", "--aso-version", "v1api20240901", str(path), "--in-place"])
    assert result.exit_code == 1
    assert 'spec.mode: must be one of: "System", "User" (got "Gateway")' in result.stderr
    assert "nothing was written" in result.stderr
    assert path.read_bytes() == before


# --- folders in place ---------------------------------------------------------------------------


def _folder(tmp_path: Path, samples: Path) -> Path:
    folder = tmp_path / "repo"
    (folder / "cluster").mkdir(parents=True)
    for sample in sorted((samples / "v1api20240901").glob("*.yaml")):
        (folder / "cluster" / sample.name).write_bytes(sample.read_bytes())
    (folder / "notes.yaml").write_text(
        "# kept as it is\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: notes}\n"
    )
    # A GitOps folder: its kustomization.yaml says which files are manifests (as for validate).
    listed = sorted(str(p.relative_to(folder)) for p in folder.rglob("*.yaml"))
    (folder / "kustomization.yaml").write_text(yaml.safe_dump({"resources": listed}))
    return folder


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def test_folder_in_place(samples: Path, tmp_path: Path, run_cli: Any) -> None:
    folder = _folder(tmp_path, samples)
    untouched = folder / "notes.yaml"
    stamp = untouched.stat().st_mtime_ns
    result = run_cli(["migrate", "--aso-version", "v1api20250801", str(folder), "--in-place"])
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ""
    assert "3 files written in place" in result.stderr
    after = _snapshot(folder)
    assert after["notes.yaml"].startswith(b"# kept as it is")
    assert after["kustomization.yaml"].startswith(b"resources:")
    assert untouched.stat().st_mtime_ns == stamp
    for name, data in after.items():
        if name.startswith("cluster/"):
            assert b"containerservice.azure.com/v1api20250801" in data
    assert not [p for p in folder.iterdir() if p.name.startswith(".capzgen-staging")]


def test_folder_in_place_is_all_or_nothing(
    samples: Path, tmp_path: Path, run_cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _folder(tmp_path, samples)
    before = _snapshot(folder)
    calls = 0
    real_rename = staging.rename

    def fail_second(source: Path, target: Path) -> None:
        nonlocal calls
        calls += 1
        if calls == 3:  # the second file's switch: the first has already moved in
            raise OSError(28, "No space left on device")
        real_rename(source, target)

    monkeypatch.setattr(staging, "rename", fail_second)
    result = run_cli(["migrate", "--aso-version", "v1api20250801", str(folder), "--in-place"])
    assert result.exit_code == 2, result.stderr
    assert _snapshot(folder) == before


def test_a_file_edited_after_it_was_read_is_not_overwritten(
    samples: Path, tmp_path: Path, run_cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between the read and the switch someone edits a file: nothing is written, exit 2."""
    from generator.cli import migrate_aso

    folder = _folder(tmp_path, samples)
    victim = sorted((folder / "cluster").glob("*.yaml"))[0]
    real_check = migrate_aso._unchanged_since_read

    def edit_first(files: list[Any]) -> None:
        victim.write_text(victim.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
        real_check(files)

    monkeypatch.setattr(migrate_aso, "_unchanged_since_read", edit_first)
    before = _snapshot(folder)
    result = run_cli(["migrate", "--aso-version", "v1api20250801", str(folder), "--in-place"])
    assert result.exit_code == 2, result.stderr
    assert "changed since it was read; nothing was written" in result.stderr
    after = _snapshot(folder)
    assert after[victim.relative_to(folder).as_posix()].endswith(b"# edited\n")
    assert {k: v for k, v in after.items() if k != victim.relative_to(folder).as_posix()} == {
        k: v for k, v in before.items() if k != victim.relative_to(folder).as_posix()
    }


def test_an_invalid_file_in_a_folder_leaves_every_file(
    samples: Path, tmp_path: Path, run_cli: Any
) -> None:
    folder = _folder(tmp_path, samples)
    pool = folder / "cluster" / "v1api20240901_managedclustersagentpool.yaml"
    pool.write_text(pool.read_text().replace("osType: Linux", "osType: Plan9"))
    before = _snapshot(folder)
    result = run_cli(["migrate", "--aso-version", "v1api20250801", str(folder), "--in-place"])
    assert result.exit_code == 1
    assert "Plan9" in result.stderr
    assert _snapshot(folder) == before


def test_symbolic_links_are_not_followed(samples: Path, tmp_path: Path, run_cli: Any) -> None:
    outside = tmp_path / "outside.yaml"
    outside.write_bytes(
        (samples / "v1api20240901" / "v1api20240901_managedcluster.yaml").read_bytes()
    )
    folder = _folder(tmp_path, samples)
    (folder / "kustomization.yaml").unlink()  # a plain folder: every YAML file is read
    (folder / "linked.yaml").symlink_to(outside)
    (folder / "linked-dir").symlink_to(tmp_path, target_is_directory=True)
    hidden = folder / ".store" / "mc.yaml"  # inside the folder, but not walked (hidden)
    hidden.parent.mkdir()
    hidden.write_bytes(outside.read_bytes())
    (folder / "inside.yaml").symlink_to(hidden)
    before = outside.read_bytes()
    result = run_cli(["migrate", "--aso-version", "v1api20250801", str(folder), "--in-place"])
    assert result.exit_code == 0, result.stderr
    # A link leading outside is refused as `validate` refuses it; one inside is not followed.
    assert (
        f"skipped: {folder / 'linked.yaml'}: {folder / 'linked.yaml'} is a symbolic link"
        in result.stderr
    )
    assert f"skipped: {folder / 'inside.yaml'}: a symbolic link (not followed)" in result.stderr
    assert "linked-dir" not in result.stdout + result.stderr
    assert os.path.islink(folder / "inside.yaml")
    assert hidden.read_bytes() == before
    assert outside.read_bytes() == before
    assert os.path.islink(folder / "linked.yaml")
    file_link = tmp_path / "file-link.yaml"
    file_link.symlink_to(outside)
    refused = run_cli(["migrate", "--aso-version", "v1api20250801", str(file_link), "--in-place"])
    assert refused.exit_code == 2
    assert "symbolic link" in refused.stderr
    assert outside.read_bytes() == before


def test_a_file_with_nothing_to_move_keeps_its_text(
    tmp_path: Path, run_cli: Any, samples: Path
) -> None:
    path = tmp_path / "mc.yaml"
    text = "# a comment\n" + aso_sample(samples, "v1api20250801", "managedcluster")
    path.write_text(text)
    result = run_cli(["migrate", "--aso-version", "v1api20250801", str(path), "--in-place"])
    assert result.exit_code == 0, result.stderr
    assert "0 files written in place" in result.stderr
    assert path.read_text() == text


# --- bad versions and flags ---------------------------------------------------------------------


def test_bad_kind_version_lists_the_versions_of_that_kind(samples: Path, run_cli: Any) -> None:
    sample = samples / "v1api20250301" / "v1api20250301_fleetsmember.yaml"
    result = run_cli(["migrate", "--aso-version", "FleetsMember=v1api20240901", str(sample)])
    assert result.exit_code == 2
    assert "no FleetsMember v1api20240901" in result.stderr
    assert "versions of FleetsMember: v1api20230315preview, v1api20250301" in result.stderr


def test_bad_version_lists_the_versions_of_the_inputs_kinds(samples: Path, run_cli: Any) -> None:
    sample = samples / "v1api20250301" / "v1api20250301_fleetsmember.yaml"
    result = run_cli(["migrate", "--aso-version", "v1api20990101", str(sample)])
    assert result.exit_code == 2
    assert "FleetsMember: v1api20230315preview, v1api20250301" in result.stderr
    assert "ManagedCluster:" not in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["--aso-version", "v1 api"],
        ["--aso-version", "Kind="],
        ["--aso-version", "v1api20240901,v1api20250801"],
        ["--aso-version", "served", "-n", "ns"],
        ["--in-place"],
        ["--aso-version", "served", "--in-place", "--write-to", "x.yaml"],
    ],
)
def test_bad_flags_are_usage_errors(args: list[str], samples: Path, run_cli: Any) -> None:
    result = run_cli(["migrate", *args, str(samples / "v1api20250801")])
    assert result.exit_code == 2, result.stderr


def test_stdin_is_read_but_not_in_place(samples: Path, run_cli: Any) -> None:
    text = aso_sample(samples, "v1api20250301", "fleetsmember")
    old = with_version(text, "v1api20250301", "v1api20230315preview")
    result = run_cli(["migrate", "--aso-version", "served", "-"], stdin=old)
    assert result.exit_code == 0, result.stderr
    assert docs(result.stdout) == docs(text)
    refused = run_cli(["migrate", "--aso-version", "served", "--in-place", "-"], stdin=old)
    assert refused.exit_code == 2


def test_parse_and_choose_targets() -> None:
    target = parse_target(["v1api20250801", "FleetsMember=v1api20250301"])
    assert target == AsoTarget("v1api20250801", (("FleetsMember", "v1api20250301"),))
    catalog = {
        (CS, "ManagedCluster"): frozenset({"v1api20240901", "v1api20250801", "v20251002preview"}),
        (CS, "FleetsMember"): frozenset({"v1api20230315preview", "v1api20250301"}),
    }
    assert target_version(target, CS, "ManagedCluster", "v1api20240901", catalog) == "v1api20250801"
    assert target_version(target, CS, "ManagedCluster", "v1api20250801", catalog) is None
    assert (
        target_version(target, CS, "FleetsMember", "v1api20230315preview", catalog)
        == "v1api20250301"
    )
    latest = AsoTarget(LATEST)
    assert target_version(latest, CS, "ManagedCluster", "v1api20240901", catalog) == "v1api20250801"
    served = AsoTarget(SERVED)
    assert target_version(served, CS, "ManagedCluster", "v1api20231001", catalog) == "v1api20240901"
    assert target_version(served, CS, "ManagedCluster", "v1api20240901", catalog) is None
    with pytest.raises(UsageError, match="given two versions"):
        parse_target(["A=v1", "A=v2"])
    with pytest.raises(UsageError, match="no version given"):
        parse_target([" , "])


def test_validate_hints_the_command(run_cli: Any) -> None:
    source = Path(__file__).parent / "inputs" / "aso-v1alpha1.yaml"
    result = run_cli(["validate", str(source)])
    assert result.exit_code == 1
    assert (
        f"hint: run `{migrate_command('v1api20240901', str(source))}`"
        in result.stdout + result.stderr
    )
    assert (
        migrate_command("v1api20240901", "<stdin>")
        == "capzgen migrate --aso-version v1api20240901 PATH"
    )


def test_json_report_in_place_and_latest(samples: Path, tmp_path: Path, run_cli: Any) -> None:
    folder = _folder(tmp_path, samples)
    result = run_cli(
        ["migrate", "--aso-version", "latest", str(folder), "--in-place", "--output", "json"]
    )
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["written_in_place"] == 3
    assert data["moved"] == 3
    assert {n["category"] for n in data["notes"]} == {"moved", "rewritten"}
    assert (
        b"v1api20250801" in (folder / "cluster" / "v1api20240901_managedcluster.yaml").read_bytes()
    )


def test_folders_that_cannot_be_migrated(tmp_path: Path, run_cli: Any) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    assert run_cli(["migrate", "--aso-version", "served", str(empty)]).exit_code == 2
    link = tmp_path / "link"
    link.symlink_to(empty, target_is_directory=True)
    result = run_cli(["migrate", "--aso-version", "served", str(link)])
    assert result.exit_code == 2
    assert "symbolic link to a folder" in result.stderr


def test_clusterclass_patches_are_named_not_rewritten(corpus_dir: Path, store: SchemaStore) -> None:
    name = "cluster-template-aks-aso-clusterclass.yaml"
    text = (corpus_dir / name).read_text(encoding="utf-8")
    result = move_versions([(name, text)], parse_target(["v1api20250801"]), store)
    (note,) = [n for n in result.notes if n.category == "unchanged"]
    assert note.kind == "ClusterClass"
    assert note.path == "spec.patches"
    assert "containerservice.azure.com/v1api20240901" in note.detail
    assert not move_versions([(name, text)], parse_target(["served"]), store).notes


def test_maps_and_free_form_fields_are_carried() -> None:
    leaf = {"type": "object", "properties": {"keep": {"type": "string"}}}
    target = {
        "type": "object",
        "properties": {
            "tags": {"type": "object", "additionalProperties": leaf},  # a map: each value walked
            "raw": {"type": "object"},  # says nothing of its keys
            "free": {"x-kubernetes-preserve-unknown-fields": True},
            "open": {
                "type": "object",
                "x-kubernetes-preserve-unknown-fields": True,
                "properties": {"known": {"type": "string"}},
            },
        },
    }
    obj: dict[str, Any] = {
        "tags": {"a": {"keep": "1", "drop": "2"}},
        "raw": {"anything": [1]},
        "free": {"x": {"y": 1}},
        "open": {"known": "k", "other": "o"},
    }
    result = move_fields(obj, None, target)
    assert obj["tags"] == {"a": {"keep": "1"}}
    assert obj["raw"] == {"anything": [1]}
    assert obj["open"] == {"known": "k", "other": "o"}
    assert [(m.action, m.path) for m in result.moves] == [(REMOVED, ("tags", "a", "drop"))]
    assert result.carried == 5
