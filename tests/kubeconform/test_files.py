"""``validate --kubeconform`` on files (generator.kubeconform.files): kubeconform reads the user's
files itself plus one stream of embedded resources, and its report is mapped back to documents."""

from __future__ import annotations

import copy
import gc
import math
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import hypothesis
import pytest
import yaml
from hypothesis import strategies as st

from generator.documents import Document
from generator.kubeconform import process
from generator.kubeconform.files import (
    EMBEDDED_NICENESS,
    MAX_GUESSED_PAIRS,
    InputFile,
    NamedKinds,
    may_embed,
    start_on_files,
)
from generator.kubeconform.process import KubeconformOptions
from generator.kubeconform.report import KubeconformResult
from generator.kubeconform.sent import embedded_in, sent_objects
from generator.kubeconform.stream import block_yaml
from generator.schemastore.store import SchemaStore
from generator.validate.cache.verdicts import Verdicts
from tests.kubeconform.conftest import CONTROL_PLANE, RESOURCE_GROUP, SECRET, FakeKubeconform
from tests.yamlio.yamlio_support import same

Fake = Callable[[str], FakeKubeconform]

CACHE_SECRET = b"k" * 32  # the result cache's secret (its entries are made with it)


def run_files(
    paths: list[str],
    store: SchemaStore,
    env: dict[str, str],
    stdin: str = "",
    verdicts: Verdicts | None = None,
) -> tuple[KubeconformResult, dict[str, str]]:
    files = [InputFile("<stdin>" if path == "-" else path, path) for path in paths]

    def read(path: str) -> str:
        return stdin if path == "-" else Path(path).read_text(encoding="utf-8")

    with start_on_files(files, store, KubeconformOptions(environ=env), read, verdicts) as run:
        return run.finish(), run.texts


@dataclass
class Given:
    """One file kubeconform was given, as it was when kubeconform started."""

    tag: str  # "files" or "embedded"
    link: str | None  # the user's file it links to, or None for a copy or a stream
    documents: list[Any]


@pytest.fixture
def given(monkeypatch: pytest.MonkeyPatch) -> list[Given]:
    """What every kubeconform started by kubeconform_files read (its folder is gone after)."""
    import generator.kubeconform.files as module
    import generator.kubeconform.process as runner

    seen: list[Given] = []
    real = runner.start_process

    def spy(binary: str, root: Path, targets: list[str], tag: str, *rest: Any, **named: Any) -> Any:
        for target in map(Path, targets):
            for path in sorted(target.iterdir()) if target.is_dir() else [target]:
                link = str(path.resolve()) if path.is_symlink() else None
                documents = list(yaml.safe_load_all(path.read_text()))
                seen.append(Given(tag, link, documents))
        return real(binary, root, targets, tag, *rest, **named)

    monkeypatch.setattr(module, "start_process", spy)  # the name kubeconform_files imported
    return seen


def dump(path: Path, *objects: Any) -> str:
    path.write_text(yaml.safe_dump_all([copy.deepcopy(o) for o in objects], sort_keys=False))
    return str(path)


def bad_group(name: str = "demo-rg", namespace: str = "default") -> dict[str, Any]:
    group = copy.deepcopy(RESOURCE_GROUP)
    group["metadata"] = {"name": name, "namespace": namespace}
    group["spec"]["location"] = 5
    return group


BAD_LOCATION = ("spec", "resources", 0, "spec", "location")  # in bad_control_plane()


def places(result: KubeconformResult) -> list[tuple[int | None, tuple[Any, ...]]]:
    """Document and path of every finding."""
    return [(f.subject.document, f.path) for f in result.findings]


def bad_control_plane() -> dict[str, Any]:
    """A control plane whose embedded ManagedCluster has a number for its location."""
    control_plane = copy.deepcopy(CONTROL_PLANE)
    control_plane["spec"]["resources"][0]["spec"]["location"] = 5
    return control_plane


def test_kubeconform_reads_the_users_file_and_a_stream_of_embedded_resources(
    fake_kubeconform: Fake,
    store: SchemaStore,
    cli_env: dict[str, str],
    tmp_path: Path,
    given: list[Given],
) -> None:
    fake_kubeconform("check")
    file = dump(tmp_path / "ok.yaml", RESOURCE_GROUP, CONTROL_PLANE, SECRET)
    result, _ = run_files([file], store, cli_env)
    assert result.ran
    assert (result.findings, result.notes) == ([], [])
    files, embedded = given
    assert (files.tag, files.link) == ("files", str(Path(file).resolve())), "a link, no copy"
    assert embedded.tag == "embedded"
    assert embedded.documents == [CONTROL_PLANE["spec"]["resources"][0]]


def test_a_finding_on_a_top_level_object_names_its_document(
    fake_kubeconform: Fake, store: SchemaStore, cli_env: dict[str, str], tmp_path: Path
) -> None:
    fake_kubeconform("check")
    file = dump(tmp_path / "bad.yaml", SECRET, bad_group())
    result, texts = run_files([file], store, cli_env)
    (finding,) = result.findings
    assert (finding.subject.file, finding.subject.document) == (file, 1)
    assert finding.path == ("spec", "location")
    assert finding.origin == "kubeconform"
    assert file in texts, "the file was read again to place the finding"


def test_a_finding_on_an_embedded_resource_names_its_document_and_path(
    fake_kubeconform: Fake, store: SchemaStore, cli_env: dict[str, str], tmp_path: Path
) -> None:
    fake_kubeconform("check")
    file = dump(tmp_path / "bad.yaml", RESOURCE_GROUP, SECRET, bad_control_plane())
    result, _ = run_files([file], store, cli_env)
    assert places(result) == [(2, BAD_LOCATION)]


def test_files_of_a_folder_keep_their_names(
    fake_kubeconform: Fake, store: SchemaStore, cli_env: dict[str, str], tmp_path: Path
) -> None:
    """kubeconform reads every file through one folder of links; its findings name the files
    as the user gave them."""
    fake_kubeconform("check")
    (tmp_path / "fleet").mkdir()
    paths = [
        dump(tmp_path / "fleet" / f"c{n:03}.yaml", bad_group() if n == 7 else RESOURCE_GROUP)
        for n in range(12)
    ]
    result, _ = run_files(paths, store, cli_env)
    assert [f.subject.file for f in result.findings] == [paths[7]]


def test_documents_kubeconform_cannot_tell_apart_are_checked_again_by_name(
    fake_kubeconform: Fake, store: SchemaStore, cli_env: dict[str, str], tmp_path: Path
) -> None:
    """Same kind, apiVersion and name in two namespaces: kubeconform's report names neither
    document, so both are sent again under unique names and only the bad one gets the finding."""
    fake = fake_kubeconform("check")
    good = copy.deepcopy(RESOURCE_GROUP)
    good["metadata"]["namespace"] = "team-a"
    file = dump(tmp_path / "two.yaml", good, bad_group(namespace="team-b"))
    result, _ = run_files([file], store, cli_env)
    (finding,) = result.findings
    assert finding.subject.document == 1
    assert len(fake.calls()) == 2, "the files run, then the two documents again"


def test_a_schema_the_scan_missed_is_written_and_the_object_checked_again(
    fake_kubeconform: Fake, store: SchemaStore, cli_env: dict[str, str], tmp_path: Path
) -> None:
    """The kind is spelled with an escape the quick scan does not read: kubeconform cannot find
    the schema, capzgen has it, so the object is sent again with the schema written."""
    fake_kubeconform("check")
    text = yaml.safe_dump(bad_group(), sort_keys=False).replace("kind:", '"kin\\x64":')
    file = tmp_path / "escaped.yaml"
    file.write_text(text)
    result, _ = run_files([str(file)], store, cli_env)
    assert [f.path for f in result.findings] == [("spec", "location")]
    assert result.notes == []


def test_generate_name_is_how_kubeconform_names_an_object(
    fake_kubeconform: Fake, store: SchemaStore, cli_env: dict[str, str], tmp_path: Path
) -> None:
    fake_kubeconform("check")
    group = bad_group()
    group["metadata"] = {"generateName": "rg-", "namespace": "default"}
    file = dump(tmp_path / "gen.yaml", SECRET, group)
    result, _ = run_files([file], store, cli_env)
    assert [(f.subject.document, f.path) for f in result.findings] == [(1, ("spec", "location"))]
    assert result.notes == []


def test_what_capzgen_reports_itself_is_not_repeated(
    fake_kubeconform: Fake, store: SchemaStore, cli_env: dict[str, str], tmp_path: Path
) -> None:
    """A document without a kind, and a file capzgen cannot parse: kubeconform's errors on them
    are dropped (capzgen's structure check and YAML finding say it)."""
    fake_kubeconform("check")
    no_kind = dump(tmp_path / "nokind.yaml", {"apiVersion": "v1", "metadata": {"name": "x"}})
    broken = tmp_path / "broken.yaml"
    broken.write_text("apiVersion: v1\nkind: Secret\nmetadata: {name: [unclosed\n")
    result, _ = run_files([no_kind, str(broken)], store, cli_env)
    assert (result.findings, result.notes) == ([], [])


def test_standard_input_and_other_names_are_copied_for_kubeconform(
    fake_kubeconform: Fake,
    store: SchemaStore,
    cli_env: dict[str, str],
    tmp_path: Path,
    given: list[Given],
) -> None:
    """kubeconform skips names without .yaml/.yml/.json and cannot read capzgen's stdin."""
    fake_kubeconform("check")
    other = dump(tmp_path / "manifest.txt", bad_group())
    stdin = yaml.safe_dump(bad_group(), sort_keys=False)
    result, texts = run_files([other, "-"], store, cli_env, stdin=stdin)
    assert sorted(f.subject.file for f in result.findings) == sorted(["<stdin>", other])
    assert [(g.tag, g.link) for g in given] == [("files", None), ("files", None)]
    assert texts["<stdin>"] == stdin


def ended_text() -> str:
    """A Secret ended by ``...``, a document of comments only, then a control plane whose
    embedded ManagedCluster is invalid (document 2)."""
    control_plane = bad_control_plane()
    return (
        yaml.safe_dump(SECRET, sort_keys=False)
        + "...\n---\n# resources: none here\n---\n"
        + yaml.safe_dump(control_plane, sort_keys=False)
    )


@pytest.mark.parametrize("one_call", [True, False], ids=["one-call", "span-by-span"])
def test_documents_after_end_markers_and_comments_are_placed_right(
    one_call: bool,
    fake_kubeconform: Fake,
    store: SchemaStore,
    cli_env: dict[str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Both ways of parsing the spans (one call for all, or span by span when one call cannot
    place its documents) number the documents as capzgen does."""
    import generator.kubeconform.spans as module

    if not one_call:
        monkeypatch.setattr(module, "one_per_chunk", lambda *_: False)
    fake_kubeconform("check")
    file = tmp_path / "ended.yaml"
    file.write_text(ended_text())
    result, _ = run_files([str(file)], store, cli_env)
    assert places(result) == [(2, BAD_LOCATION)]


def test_missing_kubeconform_is_one_note(
    no_kubeconform: None, store: SchemaStore, cli_env: dict[str, str], tmp_path: Path
) -> None:
    result, _ = run_files([dump(tmp_path / "a.yaml", RESOURCE_GROUP)], store, cli_env)
    assert not result.ran
    assert len(result.notes) == 1 and "not found" in result.notes[0]


def test_guessed_schemas_pair_every_named_api_version_with_every_kind(store: SchemaStore) -> None:
    named = NamedKinds()
    named.scan(yaml.safe_dump(RESOURCE_GROUP))
    named.scan(yaml.safe_dump(CONTROL_PLANE))
    found = {(g.api_version, g.kind) for g in named.gvks(store)}
    assert ("resources.azure.com/v1api20200601", "ResourceGroup") in found
    assert ("containerservice.azure.com/v1api20240901", "ManagedCluster") in found


def test_a_text_naming_thousands_of_kinds_is_answered_from_the_stores_index(
    store: SchemaStore,
) -> None:
    kinds = "".join(f"kind: Kind{n}\n" for n in range(MAX_GUESSED_PAIRS))
    text = kinds + "apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\n"
    text += "apiVersion: v1\n"
    named = NamedKinds()
    named.scan(text)
    found = named.gvks(store)
    assert [(g.api_version, g.kind) for g in found] == [
        ("resources.azure.com/v1api20200601", "ResourceGroup")
    ]


def test_may_embed_sees_the_key_or_an_escape() -> None:
    assert may_embed("spec:\n  resources: []\n")
    assert may_embed('"resour\\x63es": []')
    assert not may_embed("kind: Secret\n")


@pytest.mark.parametrize(
    "value",
    [
        {"a": "yes", "b": "null", "c": "1.0", "d": "", "e": "x: y", "f": "- z", "g": "#"},
        {"nested": {"list": [1, 2.5, True, None, {"k": []}, [], {}], "empty": {}}},
        {"unicode": "Grüße ✓", "newline": "a\nb", "tab": "\t", "quote": '"'},
        {"big": 10**20, "small": -0.0, "exp": 1e-30},
    ],
)
def test_block_yaml_reads_back_as_the_same_object(value: dict[str, Any]) -> None:
    assert yaml.safe_load(block_yaml(value)) == value


_SCALARS = st.none() | st.booleans() | st.integers() | st.text() | st.floats(allow_nan=False)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@hypothesis.settings(max_examples=200, deadline=None)
@hypothesis.given(st.dictionaries(st.text(), _VALUES, min_size=1, max_size=6))
def test_block_yaml_reads_back_as_the_same_object_with_the_same_types(
    value: dict[str, Any],
) -> None:
    """Any JSON value, control characters and every integer size included (kubeconform's YAML
    reading is go-yaml's; PyYAML reads double-quoted scalars and plain numbers the same way)."""
    assert same(yaml.safe_load(block_yaml(value)), value)


def test_block_yaml_writes_what_json_cannot() -> None:
    loaded = yaml.safe_load(block_yaml({"nan": math.nan, "inf": math.inf, "neg": -math.inf}))
    assert math.isnan(loaded["nan"]) and loaded["inf"] == math.inf and loaded["neg"] == -math.inf


@pytest.mark.usefixtures("real_kubeconform")
def test_real_kubeconform_on_files_names_the_right_documents(
    store: SchemaStore, cli_env: dict[str, str], tmp_path: Path
) -> None:
    """The real binary's report (kubeconform's own names, filenames and pointers) maps back:
    a top-level object that shares its signature with another, and an embedded resource."""
    good = copy.deepcopy(RESOURCE_GROUP)
    good["metadata"]["namespace"] = "team-a"
    control_plane = bad_control_plane()
    file = dump(tmp_path / "fleet.yaml", good, bad_group(namespace="team-b"), control_plane)
    result, _ = run_files([file], store, cli_env)
    assert result.ran, result.notes
    places = sorted((f.subject.document, f.path) for f in result.findings)
    assert places == [
        (1, ("spec", "location")),
        (2, ("spec", "resources", 0, "spec", "location")),
    ], result.findings
    assert result.notes == []


@pytest.mark.usefixtures("real_kubeconform")
def test_real_kubeconform_reads_an_embedded_emoji_and_a_long_non_ascii_key(
    store: SchemaStore, cli_env: dict[str, str], tmp_path: Path
) -> None:
    """The embedded stream is ASCII: a character beyond the BMP is written as YAML's \\U escape
    (go-yaml refused JSON's surrogate pair, failing the whole stream) and a key longer than an
    implicit YAML key may be, once escaped, is written as an explicit "? key"."""
    control_plane = copy.deepcopy(CONTROL_PLANE)
    managed = control_plane["spec"]["resources"][0]
    managed["spec"]["tags"] = {"owner": "team \U0001f600", "\u00e9" * 300: "long key"}
    file = dump(tmp_path / "cluster.yaml", control_plane)
    result, _ = run_files([file], store, cli_env)
    assert result.ran, result.notes
    assert (result.findings, result.notes) == ([], [])


# --- remembered verdicts ----------------------------------------------------------------------


def test_a_file_kubeconform_found_clean_is_not_sent_again(
    fake_kubeconform: Fake,
    store: SchemaStore,
    cli_env: dict[str, str],
    tmp_path: Path,
    given: list[Given],
) -> None:
    fake_kubeconform("check")
    verdicts = Verdicts(tmp_path / "results", b"config", CACHE_SECRET)
    clean = dump(tmp_path / "clean.yaml", RESOURCE_GROUP, CONTROL_PLANE)
    bad = dump(tmp_path / "bad.yaml", bad_group())
    first, _ = run_files([clean, bad], store, cli_env, verdicts=verdicts)
    assert len(first.findings) == 1
    assert sorted(str(g.link) for g in given if g.tag == "files") == sorted(
        str(Path(p).resolve()) for p in (clean, bad)
    )
    given.clear()
    second, _ = run_files([clean, bad], store, cli_env, verdicts=verdicts)
    assert [f.subject.file for f in second.findings] == [bad], "findings are never remembered"
    assert [(g.tag, g.link) for g in given] == [("files", str(Path(bad).resolve()))]


def test_only_the_documents_that_changed_are_sent_again(
    fake_kubeconform: Fake,
    store: SchemaStore,
    cli_env: dict[str, str],
    tmp_path: Path,
    given: list[Given],
) -> None:
    """One cluster edited in a big file: kubeconform gets a copy holding that document alone
    (and its embedded resources), and a finding on it still names its place in the file."""
    fake_kubeconform("check")
    verdicts = Verdicts(tmp_path / "results", b"config", CACHE_SECRET)
    path = tmp_path / "fleet.yaml"
    dump(path, SECRET, RESOURCE_GROUP, CONTROL_PLANE)
    run_files([str(path)], store, cli_env, verdicts=verdicts)
    given.clear()
    dump(path, SECRET, RESOURCE_GROUP, bad_control_plane())
    result, _ = run_files([str(path)], store, cli_env, verdicts=verdicts)
    assert [(g.tag, g.link) for g in given] == [("files", None), ("embedded", None)]
    assert given[0].documents == [bad_control_plane()]
    assert places(result) == [(2, BAD_LOCATION)]


def test_nothing_left_to_send_is_a_run_that_passed(
    fake_kubeconform: Fake, store: SchemaStore, cli_env: dict[str, str], tmp_path: Path
) -> None:
    fake = fake_kubeconform("check")
    verdicts = Verdicts(tmp_path / "results", b"config", CACHE_SECRET)
    clean = dump(tmp_path / "clean.yaml", RESOURCE_GROUP, CONTROL_PLANE)
    run_files([clean], store, cli_env, verdicts=verdicts)
    calls = len(fake.calls())
    result, _ = run_files([clean], store, cli_env, verdicts=verdicts)
    assert result.ran and (result.findings, result.notes) == ([], [])
    assert len(fake.calls()) == calls


@pytest.mark.parametrize("change", ["text", "binary", "config"])
def test_a_verdict_is_kept_only_for_the_same_text_binary_and_schemas(
    change: str,
    fake_kubeconform: Fake,
    store: SchemaStore,
    cli_env: dict[str, str],
    tmp_path: Path,
) -> None:
    fake = fake_kubeconform("check")
    clean = Path(dump(tmp_path / "clean.yaml", RESOURCE_GROUP))
    run_files(
        [str(clean)], store, cli_env, verdicts=Verdicts(tmp_path / "results", b"one", CACHE_SECRET)
    )
    calls = len(fake.calls())
    config = b"one"
    if change == "text":
        clean.write_text(clean.read_text() + "# edited\n")
    elif change == "binary":
        stat = fake.path.stat()
        os.utime(fake.path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    else:
        config = b"two"  # another capzgen or another schema source
    run_files(
        [str(clean)], store, cli_env, verdicts=Verdicts(tmp_path / "results", config, CACHE_SECRET)
    )
    assert len(fake.calls()) == calls + 1


def test_a_run_with_trouble_remembers_nothing(
    fake_kubeconform: Fake, store: SchemaStore, cli_env: dict[str, str], tmp_path: Path
) -> None:
    verdicts = Verdicts(tmp_path / "results", b"config", CACHE_SECRET)
    clean = dump(tmp_path / "clean.yaml", RESOURCE_GROUP)
    fake_kubeconform("crash")
    crashed, _ = run_files([clean], store, cli_env, verdicts=verdicts)
    assert crashed.notes
    fake = fake_kubeconform("check")
    calls = len(fake.calls())
    run_files([clean], store, cli_env, verdicts=verdicts)
    assert len(fake.calls()) == calls + 1


def test_validate_no_cache_sends_every_file_every_time(
    run_cli: Callable[..., Any],
    fake_kubeconform: Fake,
    shared_schema_dirs: list[Path],
    isolated_cache: Path,
    tmp_path: Path,
) -> None:
    fake = fake_kubeconform("check")
    env = {"CAPZGEN_SCHEMA_PATH": os.pathsep.join(str(d) for d in shared_schema_dirs)}
    file = dump(tmp_path / "ok.yaml", RESOURCE_GROUP)
    for _ in range(2):
        assert run_cli(["validate", "--kubeconform", "--no-cache", file], env=env).exit_code == 0
    assert len(fake.calls()) == 2
    for _ in range(2):
        assert run_cli(["validate", "--kubeconform", file], env=env).exit_code == 0
    assert len(fake.calls()) == 3, "with the cache on, the second run trusts the first"


@pytest.mark.parametrize(
    ("settings", "seen"),
    [({}, "1 400"), ({"GOMAXPROCS": "3"}, "3 400"), ({"GOGC": "100"}, "1 100")],
)
def test_kubeconform_runs_on_one_thread_beside_the_validation_unless_told(
    fake_kubeconform: Fake,
    store: SchemaStore,
    cli_env: dict[str, str],
    tmp_path: Path,
    settings: dict[str, str],
    seen: str,
) -> None:
    """capzgen's workers use every core already: both kubeconform processes (files, embedded
    resources) get GOMAXPROCS=1, and their collector runs less often (GOGC=400); what the
    environment given sets wins."""
    fake_kubeconform("check")
    threads = tmp_path / "gomaxprocs.log"
    cli_env["FAKE_KUBECONFORM_GOMAXPROCS_LOG"] = str(threads)
    cli_env.update(settings)
    file = dump(tmp_path / "ok.yaml", RESOURCE_GROUP, CONTROL_PLANE, SECRET)
    result, _ = run_files([file], store, cli_env)
    assert result.ran
    assert threads.read_text().splitlines() == [seen, seen]


def test_the_embedded_stream_sends_what_every_object_would_send_of_the_embedded_resources() -> None:
    """The embedded stream's own path (no top-level objects; ``embedded_in``, which makes no
    subject) sends each embedded resource as the path that sends every object does: the same
    place, object and kind, for the template kinds too, and nothing for
    documents that embed nothing, are not objects, or embed items without a usable apiVersion
    and kind."""
    template = copy.deepcopy(CONTROL_PLANE)
    template["kind"] = "AzureASOManagedControlPlaneTemplate"
    template["spec"] = {"template": {"spec": copy.deepcopy(CONTROL_PLANE["spec"])}}
    bare = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}
    odd = copy.deepcopy(CONTROL_PLANE)
    odd["spec"]["resources"] = [
        "text",
        {"kind": "ResourceGroup"},
        {"apiVersion": "a/b/c", "kind": "X"},
        {"apiVersion": "v1", "kind": ""},
        *CONTROL_PLANE["spec"]["resources"],
    ]
    objects = [CONTROL_PLANE, template, bare, None, RESOURCE_GROUP, odd, {"kind": 5}]
    documents = [Document("f.yaml", index, obj, 1) for index, obj in enumerate(objects)]
    every = [sent for sent in sent_objects(documents) if sent.prefix]
    assert {sent.in_template for sent in every} == {False, True}
    lean = [found for document in documents for found in embedded_in(document)]
    assert lean == [(sent.prefix, sent.obj, sent.gvk.api_version, sent.gvk.kind) for sent in every]
    assert [prefix[-1] for prefix, *_ in lean[-len(CONTROL_PLANE["spec"]["resources"]) :]] == [
        4 + n for n in range(len(CONTROL_PLANE["spec"]["resources"]))
    ], "items left out keep the others' places"


def test_the_embedded_stream_is_written_with_the_collector_paused(
    fake_kubeconform: Fake,
    store: SchemaStore,
    cli_env: dict[str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What the embedded stream is made of has no cycles: no collection runs while it is
    written, and the collector is on again afterwards."""

    fake_kubeconform("check")
    seen: list[bool] = []
    written = block_yaml

    def watched(obj: dict[str, Any]) -> str:
        seen.append(gc.isenabled())
        return written(obj)

    monkeypatch.setattr("generator.kubeconform.files.block_yaml", watched)
    file = dump(tmp_path / "ok.yaml", RESOURCE_GROUP, CONTROL_PLANE, SECRET)
    result, _ = run_files([file], store, cli_env)
    assert result.ran
    assert seen
    assert not any(seen)
    assert gc.isenabled()


def test_only_the_embedded_resources_run_yields_the_cpu(
    fake_kubeconform: Fake,
    store: SchemaStore,
    cli_env: dict[str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The embedded resources' kubeconform (the shorter run) is started at niceness 5; the
    files' run keeps the priority the user's command has."""
    lowered: list[tuple[int, int]] = []
    monkeypatch.setattr(process, "lower_priority", lambda pid, nice: lowered.append((pid, nice)))
    started: list[tuple[str, int]] = []
    real_popen = subprocess.Popen

    def popen(argv: list[str], **kwargs: Any) -> Any:
        child = real_popen(argv, **kwargs)
        started.append((Path(argv[-1]).name, child.pid))
        return child

    monkeypatch.setattr(subprocess, "Popen", popen)
    fake_kubeconform("check")
    file = dump(tmp_path / "ok.yaml", RESOURCE_GROUP, CONTROL_PLANE, SECRET)
    result, _ = run_files([file], store, cli_env)
    assert result.ran
    pids = dict(started)
    assert lowered == [(pids["embedded.yaml"], EMBEDDED_NICENESS)]
    assert EMBEDDED_NICENESS == 5


@pytest.mark.skipif(
    not Path("/proc/self/autogroup").exists(), reason="no scheduling groups by session here"
)
def test_a_lowered_process_has_its_session_group_niceness_raised() -> None:
    """On Linux with scheduling groups by session, the group of a process started in a session
    of its own (as kubeconform is) gets the niceness; a process already ended is no error."""
    child = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(30)"], start_new_session=True
    )
    try:
        process.lower_priority(child.pid, 5)
        group = Path(f"/proc/{child.pid}/autogroup").read_text(encoding="ascii")
        assert group.split()[-2:] == ["nice", "5"]
        assert Path("/proc/self/autogroup").read_text(encoding="ascii") != group
    finally:
        os.killpg(child.pid, signal.SIGKILL)
        child.wait()
    process.lower_priority(child.pid, 5)  # reaped: nothing left to lower, and no error
