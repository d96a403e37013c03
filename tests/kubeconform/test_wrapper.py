"""run_kubeconform against a fake kubeconform on PATH: every branch, and the mapping of its
findings back to documents, embedded resources and paths."""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from generator.documents import Document
from generator.findings import Severity
from generator.kubeconform.process import (
    INSTALL_HINT,
    NOT_FOUND,
    KubeconformOptions,
    layout_paths,
    run_kubeconform,
    schema_for_kubeconform,
    write_schemas,
)
from generator.kubeconform.report import (
    KubeconformResult,
    merge_entry,
    parse_report,
    pointer_to_path,
    schema_key,
)
from generator.schemastore.store import SchemaStore
from generator.schemastore.types import GroupVersionKind
from tests.kubeconform.conftest import CONTROL_PLANE, RESOURCE_GROUP, SECRET, FakeKubeconform

Fake = Callable[[str], FakeKubeconform]


def documents(*objects: Any, source: str = "cluster.yaml") -> list[Document]:
    return [Document(source, index, copy.deepcopy(obj)) for index, obj in enumerate(objects)]


def test_valid_objects_give_no_finding_and_no_note(
    fake_kubeconform: Fake, store: SchemaStore, cli_env: dict[str, str]
) -> None:
    fake = fake_kubeconform("check")
    result = run_kubeconform(
        documents(RESOURCE_GROUP, CONTROL_PLANE, SECRET), store, KubeconformOptions(environ=cli_env)
    )
    assert result.ran
    assert result.findings == []
    assert result.notes == []
    (argv,) = fake.calls()
    assert argv[:5] == ["-strict", "-summary", "-output", "json", "-schema-location"]
    assert argv.count("-schema-location") == 1, "only capzgen's layout: never the network"
    assert "default" not in argv
    assert argv[5].endswith("{{ .Group }}/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json")


def test_invalid_object_is_an_error_finding_with_kubeconform_origin(
    fake_kubeconform: Fake, store: SchemaStore, cli_env: dict[str, str]
) -> None:
    fake_kubeconform("check")
    bad = copy.deepcopy(RESOURCE_GROUP)
    bad["spec"]["location"] = 5
    result = run_kubeconform(documents(SECRET, bad), store, KubeconformOptions(environ=cli_env))
    (finding,) = result.findings
    assert finding.origin == "kubeconform"
    assert finding.rule == "schema"
    assert finding.severity is Severity.ERROR
    assert finding.subject.document == 1
    assert finding.subject.kind == "ResourceGroup"
    assert finding.subject.embedded_path is None
    assert finding.path == ("spec", "location")
    assert "string" in finding.message
    assert "[kubeconform]" in finding.to_text()


def test_objects_sent_under_the_same_name_keep_their_own_findings(
    fake_kubeconform: Fake, store: SchemaStore, cli_env: dict[str, str]
) -> None:
    """kubeconform names results by kind, apiVersion and name: the third ResourceGroup "rg"
    (the invalid one) is sent under a unique name and its finding lands on document 2."""
    fake = fake_kubeconform("check")
    bad = copy.deepcopy(RESOURCE_GROUP)
    bad["spec"]["location"] = 5
    result = run_kubeconform(
        documents(RESOURCE_GROUP, RESOURCE_GROUP, bad), store, KubeconformOptions(environ=cli_env)
    )
    (finding,) = result.findings
    assert finding.subject.document == 2
    assert finding.path == ("spec", "location")
    (argv,) = fake.calls()
    assert argv[-1].endswith("objects.yaml"), "one stream file, not a folder of files"


def test_a_result_for_an_object_not_sent_is_a_note() -> None:
    result = KubeconformResult()
    entry = {"kind": "Secret", "name": "ghost", "version": "v1", "status": "statusInvalid"}
    merge_entry(entry, None, set(), result)
    assert result.notes == [
        "kubeconform reported an object capzgen did not give it: Secret/ghost (v1)"
    ]
    assert result.findings == []


def test_embedded_resource_finding_lands_on_its_subject_and_absolute_path(
    fake_kubeconform: Fake, store: SchemaStore, cli_env: dict[str, str]
) -> None:
    fake_kubeconform("check")
    control_plane = copy.deepcopy(CONTROL_PLANE)
    control_plane["spec"]["resources"][0]["spec"]["location"] = ["not", "a", "string"]
    result = run_kubeconform(
        documents(RESOURCE_GROUP, control_plane), store, KubeconformOptions(environ=cli_env)
    )
    (finding,) = result.findings
    assert finding.subject.document == 1
    assert finding.subject.kind == "AzureASOManagedControlPlane"
    assert finding.subject.embedded_path == ("spec", "resources", 0)
    assert finding.subject.embedded_kind == "ManagedCluster"
    assert finding.path == ("spec", "resources", 0, "spec", "location")
    assert finding.display_path == "spec.location"


def test_every_embedded_resource_is_sent_as_a_document_of_its_own(
    fake_kubeconform: Fake,
    store: SchemaStore,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    cli_env: dict[str, str],
) -> None:
    fake_kubeconform("check")
    seen: list[list[dict[str, Any]]] = []
    import generator.kubeconform.process as module

    real = module.start_process

    def spy(binary: str, root: Path, targets: list[str], *rest: Any) -> Any:
        for target in targets:
            seen.append(list(yaml.safe_load_all(Path(target).read_text())))
        return real(binary, root, targets, *rest)

    monkeypatch.setattr(module, "start_process", spy)
    run_kubeconform(documents(CONTROL_PLANE), store, KubeconformOptions(environ=cli_env))
    kinds = [doc["kind"] for doc in seen[0]]
    assert kinds == ["AzureASOManagedControlPlane", "ManagedCluster"]


def test_list_indexes_in_pointers_become_ints(
    fake_kubeconform: Fake, store: SchemaStore, cli_env: dict[str, str]
) -> None:
    fake_kubeconform("check")
    control_plane = copy.deepcopy(CONTROL_PLANE)
    control_plane["spec"]["resources"][0]["spec"]["agentPoolProfiles"] = [
        {"name": "pool0", "count": "three"}
    ]
    result = run_kubeconform(documents(control_plane), store, KubeconformOptions(environ=cli_env))
    paths = {f.path for f in result.findings}
    assert ("spec", "resources", 0, "spec", "agentPoolProfiles", 0, "count") in paths


def test_old_kubeconform_message_is_parsed_for_its_pointer(
    fake_kubeconform: Fake, store: SchemaStore, cli_env: dict[str, str]
) -> None:
    fake_kubeconform("oldformat")
    bad = copy.deepcopy(RESOURCE_GROUP)
    bad["spec"]["location"] = 5
    (finding,) = run_kubeconform(
        documents(bad), store, KubeconformOptions(environ=cli_env)
    ).findings
    assert finding.path == ("spec", "location")
    assert "file://" not in finding.message


def test_kind_without_schema_is_left_to_capzgen(
    fake_kubeconform: Fake, store: SchemaStore, cli_env: dict[str, str]
) -> None:
    fake_kubeconform("check")
    unknown = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}
    result = run_kubeconform(
        documents(unknown, RESOURCE_GROUP), store, KubeconformOptions(environ=cli_env)
    )
    assert result.findings == []
    assert result.notes == []


def test_schema_kubeconform_cannot_use_is_a_warning(
    fake_kubeconform: Fake,
    store: SchemaStore,
    monkeypatch: pytest.MonkeyPatch,
    cli_env: dict[str, str],
) -> None:
    fake_kubeconform("check")
    import generator.kubeconform.process as module

    real = module.write_schema
    monkeypatch.setattr(
        module,
        "write_schema",
        lambda root, gvk, schema: real(root, gvk, {**schema, "x-fake-unusable": True}),
    )
    (finding,) = run_kubeconform(
        documents(RESOURCE_GROUP), store, KubeconformOptions(environ=cli_env)
    ).findings
    assert finding.severity is Severity.WARNING
    assert finding.rule == "kubeconform"
    assert "could not use the schema capzgen gave it" in finding.message


def test_crash_is_one_note_and_no_finding(
    fake_kubeconform: Fake, store: SchemaStore, cli_env: dict[str, str]
) -> None:
    fake_kubeconform("crash")
    result = run_kubeconform(documents(RESOURCE_GROUP), store, KubeconformOptions(environ=cli_env))
    assert not result.ran
    assert result.findings == []
    assert result.notes == [
        "kubeconform failed (exit status 2): panic: runtime error: invalid memory address"
    ]


def test_timeout_kills_the_process_group_and_says_so(
    fake_kubeconform: Fake, store: SchemaStore, cli_env: dict[str, str]
) -> None:
    fake_kubeconform("sleep")
    started = time.monotonic()
    result = run_kubeconform(
        documents(RESOURCE_GROUP), store, KubeconformOptions(timeout=0.5, environ=cli_env)
    )
    elapsed = time.monotonic() - started
    assert elapsed < 20, "the sleeping child kept the pipes open: the group was not killed"
    assert result.findings == []
    (note,) = result.notes
    assert note.startswith("kubeconform did not finish within 0.5s and was stopped")


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("garbage", "kubeconform's output could not be read"),
        ("badjson", "kubeconform's output could not be read"),
    ],
)
def test_garbage_output_is_one_note(
    fake_kubeconform: Fake, store: SchemaStore, mode: str, expected: str, cli_env: dict[str, str]
) -> None:
    fake_kubeconform(mode)
    result = run_kubeconform(documents(RESOURCE_GROUP), store, KubeconformOptions(environ=cli_env))
    assert result.findings == []
    (note,) = result.notes
    assert note.startswith(expected)


def test_missing_binary_is_one_note_with_install_hint(
    no_kubeconform: None, store: SchemaStore, cli_env: dict[str, str]
) -> None:
    result = run_kubeconform(documents(RESOURCE_GROUP), store, KubeconformOptions(environ=cli_env))
    assert result.notes == [NOT_FOUND]
    assert "github.com/yannh/kubeconform/releases" in NOT_FOUND
    assert "go install github.com/yannh/kubeconform/cmd/kubeconform@latest" in NOT_FOUND
    assert result.findings == []


def test_binary_that_cannot_start_is_one_note(
    fake_kubeconform: Fake, store: SchemaStore, cli_env: dict[str, str]
) -> None:
    fake = fake_kubeconform("check")
    fake.path.write_text("#!/nonexistent/interpreter\n")
    result = run_kubeconform(documents(RESOURCE_GROUP), store, KubeconformOptions(environ=cli_env))
    (note,) = result.notes
    assert "could not be started" in note
    assert INSTALL_HINT in note


def test_nothing_to_check_does_not_run_kubeconform(
    fake_kubeconform: Fake, store: SchemaStore, cli_env: dict[str, str]
) -> None:
    fake = fake_kubeconform("check")
    result = run_kubeconform(
        documents(None, ["not", "an", "object"]), store, KubeconformOptions(environ=cli_env)
    )
    assert result.findings == [] and result.notes == []
    assert fake.calls() == []


# --- pure helpers ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("gvk", "paths"),
    [
        (
            GroupVersionKind("containerservice.azure.com", "v1api20240901", "ManagedCluster"),
            ["containerservice.azure.com/managedcluster_v1api20240901.json"],
        ),
        (GroupVersionKind("", "v1", "Secret"), ["v1/secret_v1.json", "secret_v1.json"]),
    ],
)
def test_layout_follows_kubeconforms_template_variables(
    gvk: GroupVersionKind, paths: list[str]
) -> None:
    assert layout_paths(gvk) == paths


def test_unsupported_patterns_go_back_to_pattern_for_kubeconform() -> None:
    schema = {
        "properties": {
            "a": {"type": "string", "x-capzgen-re2-pattern": "^[\\w-.]+$"},
            "b": {"x-kubernetes-validations": [{"rule": "self.size() > 0"}]},
        }
    }
    converted = schema_for_kubeconform(schema)
    assert converted["properties"]["a"] == {"type": "string", "pattern": "^[\\w-.]+$"}
    assert converted["properties"]["b"] == schema["properties"]["b"], "x- keys are kept"
    original = schema["properties"]["a"]
    assert isinstance(original, dict) and "pattern" not in original, "the store is not modified"


@pytest.mark.parametrize(
    ("pointer", "expected"),
    [
        ("", ()),
        ("/spec/items/1/name", ("spec", "items", 1, "name")),
        ("/metadata/annotations/a~1b", ("metadata", "annotations", "a/b")),
        ("/spec/labels/0", ("spec", "labels", "0")),  # a map key that looks like an index
        ("/spec/missing/3", ("spec", "missing", "3")),
        (  # unescaped "/" in a key, as some kubeconform releases print it
            "/metadata/annotations/serviceoperator.azure.com/credential-from",
            ("metadata", "annotations", "serviceoperator.azure.com/credential-from"),
        ),
    ],
)
def test_pointer_to_path(pointer: str, expected: tuple[Any, ...]) -> None:
    obj = {
        "metadata": {"annotations": {"serviceoperator.azure.com/credential-from": "s"}},
        "spec": {"items": [{}, {"name": "x"}], "labels": {"0": "zero"}},
    }
    assert pointer_to_path(pointer, obj) == expected


@pytest.mark.parametrize(
    "stdout",
    [
        "",
        "null",
        "[]",
        '{"resources": {}}',
        '{"resources": [{"filename": "a.yaml", "status": "INVALID"}]}',
        '{"resources": [{"status": "statusValid"}]}',
        '{"resources": [1]}',
    ],
)
def test_parse_report_rejects_what_is_not_kubeconforms_report(stdout: str) -> None:
    assert parse_report(stdout) is None


def test_parse_report_accepts_the_documented_shape() -> None:
    text = (
        '{"resources": [{"filename": "0000000.yaml", "kind": "Secret", "name": "x", '
        '"version": "v1", "status": "statusInvalid", "msg": "m", '
        '"validationErrors": [{"path": "/data", "msg": "bad"}]}], '
        '"summary": {"valid": 0, "invalid": 1, "errors": 0, "skipped": 0}}'
    )
    (entry,) = parse_report(text) or []
    assert entry["status"] == "statusInvalid"


# --- the real binary ---------------------------------------------------------------------------


@pytest.mark.usefixtures("real_kubeconform")
def test_real_kubeconform_agrees_on_valid_and_invalid_objects(
    store: SchemaStore, monkeypatch: pytest.MonkeyPatch, cli_env: dict[str, str]
) -> None:
    assert (
        run_kubeconform(
            documents(RESOURCE_GROUP, CONTROL_PLANE, SECRET),
            store,
            KubeconformOptions(environ=cli_env),
        ).findings
        == []
    )
    control_plane = copy.deepcopy(CONTROL_PLANE)
    control_plane["spec"]["resources"][0]["spec"]["location"] = 5
    result = run_kubeconform(documents(control_plane), store, KubeconformOptions(environ=cli_env))
    assert result.ran, result.notes
    assert any(
        f.path == ("spec", "resources", 0, "spec", "location")
        and f.subject.embedded_kind == "ManagedCluster"
        for f in result.findings
    ), result.findings


def test_schemas_are_written_for_kubeconform_without_compiling_them(
    tmp_path: Path, store: SchemaStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing in the process that writes them validates with them (the workers compile their
    own): kubeconform, the run's longest process, starts without waiting for validators."""
    import generator.schemastore.store as store_module

    def refuse(*_args: Any, **_kwargs: Any) -> Any:
        msg = "compiled for kubeconform"
        raise AssertionError(msg)

    monkeypatch.setattr(store_module, "compile_schema", refuse)
    gvk = GroupVersionKind("resources.azure.com", "v1api20200601", "ResourceGroup")
    written = write_schemas(tmp_path / "schemas", [gvk], store)
    assert written == {schema_key(gvk)}
    (path,) = (tmp_path / "schemas").rglob("*.json")
    assert path.name == "resourcegroup_v1api20200601.json"
