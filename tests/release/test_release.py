"""capzgen release: layout, metadata, snapshots of every exported file, variables, round trips."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from generator.checks import ValidationOptions
from generator.checks.context import CheckOptions
from generator.clusterctl.substitution import Inputs, generate_yaml
from generator.envsubst import inspect_variables
from generator.envsubst.listing import format_yaml_variable_list
from generator.errors import FlavorError, UsageError
from generator.generate.pipeline import generate_cluster
from generator.generate.release import (
    Release,
    ReleaseRequest,
    build_release,
    split_documents,
    stale_files,
    write_release,
)
from generator.generate.request import ClusterRequest
from generator.schemastore.store import SchemaStore
from generator.validate.check import SourceText, check_sources
from generator.yamlio.load import load_documents
from tests.release.conftest import (
    GOLDEN,
    VERSION,
    as_text,
    catalog,
    flavor_names,
    placeholder_variables,
    sample_value,
)

FLAVORS = flavor_names()


# --- layout and metadata ----------------------------------------------------------------------------


def test_every_flavor_is_exported(release: Release) -> None:
    names = {f.name for f in release.files}
    assert {f"cluster-template-{name}.yaml" for name in FLAVORS} <= names
    assert "metadata.yaml" in names
    assert release.directory == Path("infrastructure-aks") / VERSION
    # No components file: `clusterctl generate cluster` never reads it (reference §12.4).
    assert "infrastructure-components.yaml" not in names


def test_class_flavor_gets_a_class_file_named_for_clusterctl(release: Release) -> None:
    assert release.classes == {"aks-clusterclass": ("aks-clusterclass", "CLUSTER_CLASS_NAME")}
    text = release.file("clusterclass-aks-clusterclass.yaml").text
    objects = [yaml.safe_load(doc) for doc in split_documents(text)]
    classes = [o for o in objects if o["kind"] == "ClusterClass"]
    assert [c["metadata"]["name"] for c in classes] == ["aks-clusterclass"]
    # Independent of the Cluster being generated: no CLUSTER_NAME or class variable is left.
    assert {"CLUSTER_NAME", "CLUSTER_CLASS_NAME"}.isdisjoint(inspect_variables(text))
    # Every template the class references is in the file, and nothing else.
    refs = {(ref["kind"], ref["name"]) for ref in _refs(classes[0])}
    assert {
        (o["kind"], o["metadata"]["name"]) for o in objects if o["kind"] != "ClusterClass"
    } == refs


def _refs(node: Any) -> list[dict[str, Any]]:
    found = []
    if isinstance(node, dict):
        if "kind" in node and "name" in node and "apiVersion" in node:
            found.append(node)
        for value in node.values():
            found += _refs(value)
    elif isinstance(node, list):
        for item in node:
            found += _refs(item)
    return found


def test_metadata_is_clusterctl_metadata(release: Release) -> None:
    metadata = yaml.safe_load(release.file("metadata.yaml").text)
    assert metadata == {
        "apiVersion": "clusterctl.cluster.x-k8s.io/v1alpha3",
        "kind": "Metadata",
        "releaseSeries": [{"contract": "v1beta1", "major": 0, "minor": 3}],
    }


def test_contract_can_be_chosen() -> None:
    text = (
        build_release(ReleaseRequest("v2.1.0-rc.1", contract="v1beta2")).file("metadata.yaml").text
    )
    assert yaml.safe_load(text)["releaseSeries"] == [
        {"contract": "v1beta2", "major": 2, "minor": 1}
    ]


@pytest.mark.parametrize("version", ["0.3.0", "v0.3", "v01.2.3", "v1.2.3.4", "latest", ""])
def test_version_must_be_v_semver(version: str) -> None:
    with pytest.raises(UsageError, match="invalid --version"):
        build_release(ReleaseRequest(version))


@pytest.mark.parametrize("name", ["AKS", "my_provider", "-aks", ""])
def test_provider_name_must_be_a_label(name: str) -> None:
    with pytest.raises(UsageError, match="provider-name"):
        build_release(ReleaseRequest(VERSION, provider_name=name))


def test_release_bytes_are_deterministic(release: Release, tmp_path: Path) -> None:
    again = build_release(ReleaseRequest(VERSION))
    assert [(f.name, f.text) for f in again.files] == [(f.name, f.text) for f in release.files]
    first = {p.name: p.read_bytes() for p in write_release(release, tmp_path / "a")}
    second = {p.name: p.read_bytes() for p in write_release(again, tmp_path / "b")}
    assert first == second


# --- snapshots ---------------------------------------------------------------------------------------


def test_exported_files_match_golden(release: Release, snapshot: Any) -> None:
    snapshot.snapshot_dir = GOLDEN
    snapshot.assert_match_dir({f.name: f.text for f in release.files}, VERSION)


# --- variables ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("flavor_name", FLAVORS)
def test_exported_template_lists_the_flavor_placeholders(
    flavor_name: str, release: Release, run_cli: Any, tmp_path: Path
) -> None:
    flavor = catalog().get(flavor_name)
    text = release.file(f"cluster-template-{flavor_name}.yaml").text
    listed = inspect_variables(text)
    placeholders = placeholder_variables(flavor)
    assert listed, "an exported template keeps at least one ${VAR}"
    assert set(listed) <= set(placeholders), (
        "only scalar (export: placeholder) variables are listed"
    )
    for name, default in listed.items():
        spec = placeholders[name]
        expected = "" if spec.default in (None, "") else as_text(spec.default)
        assert default == expected, (
            f"{name}: template default {default!r}, flavor default {expected!r}"
        )
    # Placeholder variables missing from the list are unused with the structural defaults; the
    # round trip below sets them all and would see any effect they had.
    path = tmp_path / "template.yaml"
    path.write_text(text, encoding="utf-8")
    result = run_cli(["generate", "yaml", "--from", str(path), "--list-variables"])
    assert result.exit_code == 0, result.stderr
    assert result.stdout == format_yaml_variable_list(listed)


# --- round trips -------------------------------------------------------------------------------------


def _variable_sets(flavor_name: str) -> dict[str, dict[str, str]]:
    flavor = catalog().get(flavor_name)
    placeholders = placeholder_variables(flavor)
    every = {name: as_text(sample_value(flavor, name)) for name in placeholders}
    required = {n: v for n, v in every.items() if flavor.variables[n].required}
    return {"every-placeholder": every, "required-only": required}


def _cluster_objects(flavor_name: str, values: dict[str, str]) -> list[Any]:
    variables = dict(values)
    name = variables.pop("CLUSTER_NAME")
    request = ClusterRequest(
        name=name, flavor=flavor_name, variables=variables, checks=CheckOptions(validate=False)
    )
    return generate_cluster(request, Inputs(environ={})).objects


def _yaml_objects(text: str, values: dict[str, str]) -> list[Any]:
    output = generate_yaml(text, source="<export>", inputs=Inputs(environ=values))
    return [d.obj for d in load_documents(output, source="<output>") if d.obj is not None]


def _as_capi_reads_it(node: Any) -> Any:
    """ClusterClass patch ``valueFrom.template`` text replaced by the YAML CAPI parses from it.

    A flavor writes ``location: "westus2"`` into that text (its `yaml` filter quotes), the export
    ``location: ${AZURE_LOCATION}`` which substitutes to ``location: westus2``: different text,
    the same value once CAPI reads the template's output as YAML (reference §6.2).
    """
    if isinstance(node, dict):
        out = {key: _as_capi_reads_it(value) for key, value in node.items()}
        template = out.get("template")
        if isinstance(template, str) and set(node) == {"template"}:
            out["template"] = yaml.safe_load(template)
        return out
    if isinstance(node, list):
        return [_as_capi_reads_it(item) for item in node]
    return node


@pytest.mark.parametrize("variables", ["every-placeholder", "required-only"])
@pytest.mark.parametrize("flavor_name", FLAVORS)
def test_round_trip_matches_generate_cluster(
    flavor_name: str, variables: str, release: Release
) -> None:
    values = _variable_sets(flavor_name)[variables]
    text = release.file(f"cluster-template-{flavor_name}.yaml").text
    exported = _as_capi_reads_it(_yaml_objects(text, values))
    assert exported == _as_capi_reads_it(_cluster_objects(flavor_name, values))


@pytest.mark.parametrize("variables", ["every-placeholder", "required-only"])
def test_class_file_round_trip(variables: str, release: Release) -> None:
    name, variable = release.classes["aks-clusterclass"]
    values = _variable_sets("aks-clusterclass")[variables]
    fixed = {"CLUSTER_NAME": name, variable or "": name}
    exported = _as_capi_reads_it(
        _yaml_objects(
            release.file(f"clusterclass-{name}.yaml").text,
            {k: v for k, v in values.items() if k not in fixed},
        )
    )
    generated = _as_capi_reads_it(_cluster_objects("aks-clusterclass", {**values, **fixed}))
    keys = {(o["kind"], o["metadata"]["name"]) for o in exported}
    assert exported == [o for o in generated if (o["kind"], o["metadata"]["name"]) in keys]
    assert any(o["kind"] == "ClusterClass" for o in exported)


def test_topology_template_finds_the_class_file(release: Release) -> None:
    """What clusterctl does (reference §10): the substituted topology class names the class file."""
    name, variable = release.classes["aks-clusterclass"]
    assert variable is not None
    values = {**_variable_sets("aks-topology")["every-placeholder"], variable: name}
    (cluster,) = _yaml_objects(release.file("cluster-template-aks-topology.yaml").text, values)
    assert f"clusterclass-{cluster['spec']['topology']['class']}.yaml" in {
        f.name for f in release.files
    }


# --- the exported templates validate -----------------------------------------------------------------


@pytest.fixture(scope="module")
def schema_store(shared_schema_dirs: list[Path]) -> SchemaStore:
    return SchemaStore.from_search_path(shared_schema_dirs)


@pytest.mark.parametrize("file_name", [f"cluster-template-{n}.yaml" for n in FLAVORS] + ["class"])
def test_substituted_export_validates(
    file_name: str, release: Release, schema_store: SchemaStore
) -> None:
    if file_name == "class":
        name, _ = release.classes["aks-clusterclass"]
        file_name, flavor_name = f"clusterclass-{name}.yaml", "aks-clusterclass"
    else:
        flavor_name = file_name.removeprefix("cluster-template-").removesuffix(".yaml")
    values = _variable_sets(flavor_name)["every-placeholder"]
    output = generate_yaml(
        release.file(file_name).text, source=file_name, inputs=Inputs(environ=values)
    )
    report = check_sources([SourceText(file_name, output)], schema_store, ValidationOptions())
    assert [f.to_text() for f in report.findings if f.is_error] == []


# --- failures, writing, CLI --------------------------------------------------------------------------


def _user_flavor(root: Path, name: str, template: str, variables: str = "{}") -> None:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "flavor.yaml").write_text(
        f"name: {name}\ndescription: test flavor\ntemplates: [t.yaml.j2]\nvariables: {variables}\n",
        encoding="utf-8",
    )
    (folder / "t.yaml.j2").write_text(template, encoding="utf-8")


def test_a_failing_flavor_writes_nothing(tmp_path: Path, run_cli: Any) -> None:
    flavors = tmp_path / "flavors"
    _user_flavor(flavors, "broken", "{{ undefined_value }}\n")
    _user_flavor(flavors, "stray", "kind: ConfigMap\nname: ${NOT_DECLARED}\n")
    with pytest.raises(FlavorError) as raised:
        build_release(ReleaseRequest(VERSION, flavors_dirs=[flavors]))
    assert [d.split(":")[0] for d in raised.value.details] == ["broken", "stray"]
    assert "NOT_DECLARED" in raised.value.details[1]
    out = tmp_path / "out"
    result = run_cli(
        ["release", "--version", VERSION, "--output-dir", str(out), "--flavors-dir", str(flavors)]
    )
    assert result.exit_code == 1
    assert "nothing was written" in result.stderr
    assert not out.exists()


def test_user_flavor_with_declared_placeholder_is_exported(tmp_path: Path) -> None:
    flavors = tmp_path / "flavors"
    _user_flavor(
        flavors,
        "mine",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ NAME | yaml }}\n",
        "{NAME: {type: string, description: name, default: x}}",
    )
    release = build_release(ReleaseRequest(VERSION, flavors_dirs=[flavors]))
    assert release.file("cluster-template-mine.yaml").text == (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${NAME:=x}\n"
    )


def test_cli_writes_the_layout_and_overwrites_atomically(tmp_path: Path, run_cli: Any) -> None:
    out = tmp_path / "repo"
    args = ["release", "--version", VERSION, "--output-dir", str(out)]
    first = run_cli(args)
    assert first.exit_code == 0, first.stderr
    folder = out / "infrastructure-aks" / VERSION
    assert sorted(first.stdout.split()) == sorted(str(p) for p in folder.iterdir())
    assert "CLUSTER_CLASS_NAME=aks-clusterclass" in first.stderr
    (folder / "cluster-template-gone.yaml").write_text("stale\n", encoding="utf-8")
    before = (folder / "metadata.yaml").read_bytes()
    second = run_cli(args)
    assert second.exit_code == 0, second.stderr
    assert (folder / "metadata.yaml").read_bytes() == before
    assert "cluster-template-gone.yaml is not part of this release" in second.stderr
    assert not [p for p in folder.iterdir() if p.name.startswith(".")], "no temporary files left"


def test_stale_files_only_names_templates(release: Release, tmp_path: Path) -> None:
    write_release(release, tmp_path)
    folder = tmp_path / release.directory
    (folder / "README.md").write_text("mine\n", encoding="utf-8")
    (folder / "clusterclass-old.yaml").write_text("old\n", encoding="utf-8")
    assert [p.name for p in stale_files(release, tmp_path)] == ["clusterclass-old.yaml"]


def test_cli_rejects_a_bad_version(tmp_path: Path, run_cli: Any) -> None:
    result = run_cli(["release", "--version", "1.0.0", "--output-dir", str(tmp_path)])
    assert result.exit_code == 2
    assert "invalid --version '1.0.0'" in result.stderr
    assert os.listdir(tmp_path) == []
