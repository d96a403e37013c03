"""The result cache of ``capzgen validate`` (``generator.validate.cache.store``): a rerun reports exactly
what a fresh run reports, skips only what provably did not change, and never fails because of
the cache itself."""

from __future__ import annotations

import os
import shutil
import sqlite3
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import generator.validate.passes
import generator.validate.results
import generator.yamlio.chunks as chunks
from benchmarks.inputs import cluster_text
from generator.checks import ValidationOptions
from generator.validate.cache.keys import DigestMemo, content_lines
from generator.validate.cache.store import (
    FILE_NAME,
    CacheLimits,
    FileIndex,
    IndexedChunk,
    ResultCache,
)
from generator.validate.partition import HUB_REFERRERS, DocumentKeys
from generator.validate.stream import RunSettings, stream_paths
from generator.validate.tuning import DEFAULT_TUNING, Tuning
from tests.validate.test_stream import ALL_EXAMPLES, _texts, in_threads

OPTIONS = ValidationOptions()
TEMPLATE = (
    Path(__file__).resolve().parents[1]
    / "data/upstream/corpus/capz-templates/cluster-template-aks-aso.yaml"
).read_text()
DOCUMENTS = 7  # per cluster of CAPZ's aks-aso template
SECRET = """\
apiVersion: v1
kind: Secret
metadata: {name: aso-credentials, namespace: default}
stringData:
  AZURE_SUBSCRIPTION_ID: 00000000-0000-0000-0000-000000000000
  AZURE_TENANT_ID: 00000000-0000-0000-0000-000000000001
  AZURE_CLIENT_ID: 00000000-0000-0000-0000-000000000002
"""


def _cluster(name: str) -> str:
    """A clean cluster: CAPZ's released aks-aso template, substituted (as ``make bench`` does)."""
    return cluster_text(TEMPLATE, name)


class Counter:
    """Counts the documents validated and the chunks parsed, by wrapping the stream's calls."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.validated = 0
        self.parsed = 0
        passes = generator.validate.passes
        validate = getattr(passes, "validate_documents")  # noqa: B009 - not exported
        parse = getattr(chunks, "load_documents")  # noqa: B009 - not exported

        def counting_validate(documents: Any, *args: Any, **kwargs: Any) -> Any:
            self.validated += len(documents)
            return validate(documents, *args, **kwargs)

        def counting_parse(*args: Any, **kwargs: Any) -> Any:
            self.parsed += 1
            return parse(*args, **kwargs)

        monkeypatch.setattr(passes, "validate_documents", counting_validate)
        monkeypatch.setattr(chunks, "load_documents", counting_parse)

    def reset(self) -> None:
        self.validated = self.parsed = 0


@pytest.fixture
def counter(monkeypatch: pytest.MonkeyPatch) -> Counter:
    return Counter(monkeypatch)


def _run(
    paths: list[Path],
    store: Any,
    cache: Path | None,
    options: ValidationOptions = OPTIONS,
    tuning: Tuning = DEFAULT_TUNING,
) -> list[str]:
    on = RunSettings(results_dir=cache, tuning=replace(tuning, batch_size=3))
    report = stream_paths([str(p) for p in paths], store, options, on)
    return [*_texts(report), f"documents: {report.document_count}"]


def _fleet(folder: Path, clusters: int = 4, *, secret: bool = False) -> Path:
    """Clean clusters, a file each; with ``secret``, the credential Secret they all name."""
    folder.mkdir(exist_ok=True)
    for i in range(clusters):
        (folder / f"c{i}.yaml").write_text(_cluster(f"c{i}"))
    if secret:
        (folder / "secret.yaml").write_text(SECRET)
    return folder


def test_an_unchanged_clean_input_is_not_parsed_again(
    tmp_path: Path, store: Any, counter: Counter
) -> None:
    fleet = _fleet(tmp_path / "fleet")
    fresh = _run([fleet], store, None)
    assert _run([fleet], store, tmp_path / "cache") == fresh
    assert counter.validated > 0
    counter.reset()
    assert _run([fleet], store, tmp_path / "cache") == fresh
    assert (counter.validated, counter.parsed) == (0, 0)


def test_one_changed_cluster_is_the_only_one_validated_again(
    tmp_path: Path, store: Any, counter: Counter
) -> None:
    fleet = _fleet(tmp_path / "fleet")
    cache = tmp_path / "cache"
    _run([fleet], store, cache)
    broken = (fleet / "c2.yaml").read_text().replace("v1.31.1", "v1.31.x")
    (fleet / "c2.yaml").write_text(broken)
    counter.reset()
    cached = _run([fleet], store, cache)
    assert counter.validated == DOCUMENTS  # c2 alone
    assert counter.parsed == 1  # c2.yaml; the other files' places and keys come from the cache
    assert cached == _run([fleet], store, None)
    assert any("c2.yaml" in line for line in cached[:-1])


def test_findings_are_never_cached(tmp_path: Path, store: Any, counter: Counter) -> None:
    fleet = _fleet(tmp_path / "fleet", clusters=2)
    (fleet / "odd.yaml").write_text(_cluster("odd").replace("westeurope", "mars"))
    cache = tmp_path / "cache"
    first = _run([fleet], store, cache)
    assert any("warning: 'mars'" in line for line in first)
    counter.reset()
    assert _run([fleet], store, cache) == first
    assert counter.validated == DOCUMENTS  # a warning too: the clean clusters were skipped


def test_a_changed_hub_revalidates_every_cluster_that_uses_it(
    tmp_path: Path, store: Any, counter: Counter
) -> None:
    fleet = _fleet(tmp_path / "fleet", clusters=HUB_REFERRERS + 3, secret=True)
    cache = tmp_path / "cache"
    _run([fleet], store, cache)
    (fleet / "secret.yaml").write_text(SECRET + "  AZURE_CLIENT_SECRET: changed\n")
    (fleet / "c0.yaml").write_text(_cluster("c0").replace("westeurope", "mars"))
    counter.reset()
    cached = _run([fleet], store, cache)
    assert counter.validated >= (HUB_REFERRERS + 3) * DOCUMENTS
    assert cached == _run([fleet], store, None)


@pytest.mark.parametrize(
    "change",
    ["options", "schemas", "code"],
)
def test_what_results_depend_on_invalidates_them(
    tmp_path: Path,
    store: Any,
    counter: Counter,
    change: str,
    monkeypatch: pytest.MonkeyPatch,
    shared_schema_dirs: list[Path],
) -> None:
    fleet = _fleet(tmp_path / "fleet", clusters=2)
    cache = tmp_path / "cache"
    options = OPTIONS
    _run([fleet], store, cache)
    if change == "options":
        options = ValidationOptions(disabled_rules=frozenset({"CAPZ-AZURE-REGION"}))
    elif change == "schemas":
        from generator.schemastore.store import SchemaStore

        copied = tmp_path / "crds"
        shutil.copytree(shared_schema_dirs[0], copied)
        store = SchemaStore.from_search_path([copied, *shared_schema_dirs[1:]])
        _run([fleet], store, cache)
        first = next(copied.glob("*.yaml"))
        first.write_text(first.read_text() + "\n")  # size and time change
    else:
        another = lambda: b"another capzgen" * 2  # noqa: E731 - one expression
        monkeypatch.setattr(generator.validate.results, "code_fingerprint", another)
    counter.reset()
    _run([fleet], store, cache, options)
    assert counter.validated == 2 * DOCUMENTS


def test_no_cache_folder_means_nothing_is_written(tmp_path: Path, store: Any) -> None:
    fleet = _fleet(tmp_path / "fleet", clusters=1)
    _run([fleet], store, None)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fleet"]


@pytest.mark.parametrize("damage", ["garbage", "entries", "locked", "unwritable"])
def test_a_damaged_cache_is_ignored(
    tmp_path: Path, store: Any, counter: Counter, damage: str
) -> None:
    fleet = _fleet(tmp_path / "fleet", clusters=2)
    fresh = _run([fleet], store, None)
    cache = tmp_path / "cache"
    _run([fleet], store, cache)
    database = cache / FILE_NAME
    for cleanup in _damage(database, cache, damage):
        counter.reset()
        assert _run([fleet], store, cache) == fresh
        assert counter.validated == (0 if damage == "unwritable" else 2 * DOCUMENTS)
        cleanup()


def _damage(database: Path, cache: Path, how: str) -> Iterator[Any]:
    if how == "garbage":
        database.write_bytes(b"this is not a database" * 100)
        yield lambda: None
    elif how == "entries":
        with sqlite3.connect(database) as db:
            db.execute("UPDATE files SET data = '[[1, \"x\"]]'")
            db.execute("UPDATE parts SET key = randomblob(16)")
            db.execute("DELETE FROM runs")
        yield lambda: None
    elif how == "locked":
        db = sqlite3.connect(database)
        db.execute("BEGIN EXCLUSIVE")
        yield db.close
    else:
        cache.chmod(0o500)
        database.chmod(0o400)
        yield lambda: cache.chmod(0o700)


def test_a_cache_that_cannot_be_created_is_no_error(tmp_path: Path, store: Any) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    fleet = _fleet(tmp_path / "fleet", clusters=1)
    assert _run([fleet], store, blocker / "cache") == _run([fleet], store, None)


def test_every_example_twice_with_the_cache(tmp_path: Path, store: Any) -> None:
    """All examples, the second time largely from the cache: the same findings and lines."""
    folder = tmp_path / "examples"
    folder.mkdir()
    for number, path in enumerate(ALL_EXAMPLES):
        shutil.copy(path, folder / f"{number:03d}-{path.name}")
    fresh = _run([folder], store, None)
    assert _run([folder], store, tmp_path / "cache") == fresh
    assert _run([folder], store, tmp_path / "cache") == fresh


def test_workers_use_the_cache_too(tmp_path: Path, store: Any, counter: Counter) -> None:
    fleet = _fleet(tmp_path / "fleet")
    fresh = _run([fleet], store, None)
    cache = tmp_path / "cache"

    def run() -> list[str]:
        on = RunSettings(
            jobs=2, results_dir=cache, tuning=Tuning(parallel_from=0, batch_size=3), pool=in_threads
        )
        report = stream_paths([str(fleet)], store, OPTIONS, on)
        return [*_texts(report), f"documents: {report.document_count}"]

    assert run() == fresh
    (fleet / "c1.yaml").write_text(_cluster("c1").replace("westeurope", "mars"))
    counter.reset()
    again = run()
    assert counter.validated == DOCUMENTS
    assert again == _run([fleet], store, None)


def test_a_file_index_round_trips_and_refuses_what_it_cannot_store() -> None:
    keys = DocumentKeys([("obj", "ns", "Cluster", "a")], [("label", "ns", "a")], "Cluster", True)
    index = FileIndex([IndexedChunk(0, 10, 0, 1, ((keys, True), (DocumentKeys(), False)))])
    stored = index.to_json()
    assert stored is not None
    assert FileIndex.from_json(stored) == index
    nul = DocumentKeys([("obj", "ns", "Cluster", "a\0b")], [], "Cluster", True)
    assert FileIndex([IndexedChunk(0, 1, 0, 1, ((nul, True),))]).to_json() is None


@pytest.mark.parametrize(
    "stored",
    [
        "",
        "{}",
        "[[0, 1, 0, 1]]",
        "[[0, 1, 0, 1, []]]",
        "[[2, 1, 0, 1, [[[], [], null, null, true]]]]",
        "[[-1, 1, 0, 1, [[[], [], null, null, true]]]]",
        "[[0, 1, 0, 1, [[[1], [], null, null, true]]]]",
        "[[0, 1, 0, 1, [[[], [], 5, null, true]]]]",
        '[[0, 1, 0, 1, [[[], [], null, "yes", true]]]]',
        "[[0, 1, 0, 1, [[[], [], null, null, 1]]]]",
        "[" * 100_000 + "]" * 100_000,
    ],
)
def test_a_stored_index_that_is_not_ours_is_missing(stored: str) -> None:
    assert FileIndex.from_json(stored) is None


def test_the_cache_is_pruned_to_its_bounds(tmp_path: Path) -> None:
    limits = CacheLimits(max_parts=3, prune_every=1)
    for run in range(3):
        cache = ResultCache.open(tmp_path, limits)
        assert cache is not None
        cache.remember_parts([bytes([run, n]) for n in range(2)])
        cache.close(save=True)
    with sqlite3.connect(tmp_path / FILE_NAME) as db:
        kept = {row[0] for row in db.execute("SELECT key FROM parts")}
    assert len(kept) == 3
    assert {bytes([2, 0]), bytes([2, 1])} <= kept  # the newest run's are kept


def test_the_cli_remembers_in_the_cache_folder_unless_told_not_to(
    run_cli: Any, tmp_path: Path, counter: Counter
) -> None:
    fleet = _fleet(tmp_path / "fleet", clusters=2)
    env = {"CAPZGEN_CACHE_DIR": str(tmp_path / "cache")}
    fresh = run_cli(["validate", "--no-cache", str(fleet)], env=env)
    assert not (tmp_path / "cache" / "results").exists()
    first = run_cli(["validate", str(fleet)], env=env)
    assert (tmp_path / "cache" / "results" / FILE_NAME).is_file()
    counter.reset()
    second = run_cli(["validate", str(fleet)], env=env)
    assert counter.validated == 0
    assert fresh.exit_code == first.exit_code == second.exit_code == 0
    assert (
        fresh.stdout
        == first.stdout
        == second.stdout
        == (f"{2 * DOCUMENTS} documents checked: 0 errors, 0 warnings\n")
    )
    counter.reset()
    assert run_cli(["validate", "--no-cache", str(fleet)], env=env).stdout == fresh.stdout
    assert counter.validated == 2 * DOCUMENTS


def test_large_files_are_parsed_every_time(tmp_path: Path, store: Any, counter: Counter) -> None:
    small = Tuning(index_files_below=100)
    fleet = _fleet(tmp_path / "fleet", clusters=3)
    cache = tmp_path / "cache"
    _run([fleet], store, cache, tuning=small)
    (fleet / "c1.yaml").write_text(_cluster("c1").replace("westeurope", "mars"))
    counter.reset()
    _run([fleet], store, cache, tuning=small)
    assert (counter.parsed, counter.validated) == (3, DOCUMENTS)  # no index, one part checked


def test_file_indexes_are_written_as_the_run_goes(tmp_path: Path) -> None:
    cache = ResultCache.open(tmp_path, CacheLimits(flush_index_bytes=1))
    assert cache is not None
    cache.remember_file(b"k" * 16, FileIndex([]))
    with sqlite3.connect(tmp_path / FILE_NAME) as db:
        assert db.execute("SELECT data FROM files").fetchall() == [("[]",)]
    cache.close(save=False)


def test_every_option_but_the_cache_folder_is_in_the_key() -> None:
    from dataclasses import fields, replace

    from generator.validate.cache.keys import options_fingerprint

    base = options_fingerprint(OPTIONS)
    assert options_fingerprint(replace(OPTIONS, cache_root=Path("/elsewhere"))) == base
    changed: dict[str, Any] = {
        "disabled_rules": frozenset({"CAPZ-VM-SIZE"}),
        "ignore_missing_schemas": True,
        "schemas": False,
        "cel": False,
        "present_kinds": frozenset({"Cluster"}),
    }
    assert {f.name for f in fields(OPTIONS)} == {*changed, "cache_root"}
    for name, value in changed.items():
        assert options_fingerprint(replace(OPTIONS, **{name: value})) != base, name


def test_an_oversized_stored_index_is_not_read(tmp_path: Path) -> None:
    cache = ResultCache.open(tmp_path)
    assert cache is not None
    cache.remember_file(b"k" * 16, FileIndex([]))
    cache.close(save=True)
    with sqlite3.connect(tmp_path / FILE_NAME) as db:
        db.execute("UPDATE files SET data = ?", ("[" + " " * 100 + "]",))
    within = ResultCache.open(tmp_path, CacheLimits(max_index_bytes=200))
    assert within is not None
    assert within.file_index(b"k" * 16) is not None
    within.close(save=False)
    again = ResultCache.open(tmp_path, CacheLimits(max_index_bytes=50))
    assert again is not None
    assert again.file_index(b"k" * 16) is None
    again.close(save=False)


# --- schema sources are keyed by their contents (issue 24) ------------------------------------

WIDGET_CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: string}
"""
WIDGET = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {size: large}\n"


def _edit_keeping_size_and_mtime(path: Path, old: str, new: str) -> None:
    """Rewrite ``path`` in place with ``old`` replaced by ``new`` (same length), then put its
    access and modification times back, as ``touch -r`` or a careless tool would."""
    assert len(old) == len(new)
    before = path.stat()
    path.write_text(path.read_text().replace(old, new))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)


@pytest.mark.parametrize("where", ["schema-dir", "imported"])
def test_a_schema_edited_keeping_size_and_mtime_is_noticed(
    run_cli: Any, tmp_path: Path, counter: Counter, where: str
) -> None:
    """A wrong "valid" is never replayed: the user's schema sources (a --schema-dir, the user's
    schema cache) are keyed by what they hold, not by their size and modification time."""
    cache = tmp_path / "cache"
    env = {"CAPZGEN_CACHE_DIR": str(cache)}
    crd = tmp_path / "crds" / "widget.yaml"
    crd.parent.mkdir()
    crd.write_text(WIDGET_CRD)
    manifest = tmp_path / "w.yaml"
    manifest.write_text(WIDGET)
    argv = ["validate", str(manifest)]
    if where == "schema-dir":
        argv[1:1] = ["--schema-dir", str(crd.parent)]
    else:
        assert run_cli(["schemas", "import", str(crd)], env=env).exit_code == 0
        crd = next((cache / "schemas" / "example.com").glob("widget_v1.json"))
    first = run_cli(argv, env=env)
    assert first.exit_code == 0, first.stdout + first.stderr
    counter.reset()
    assert run_cli(argv, env=env).exit_code == 0
    assert counter.validated == 0  # the clean result is reused while nothing changed
    old, new = ("{type: string}", "{type: number}")
    if where == "imported":
        old, new = ('"type":"string"', '"type":"number"')
    _edit_keeping_size_and_mtime(crd, old, new)
    counter.reset()
    second = run_cli(argv, env=env)
    assert counter.validated == 1
    assert second.exit_code == 1, second.stdout + second.stderr
    assert 'spec.size: expected number, got string "large"' in second.stdout
    assert second.stdout == run_cli([*argv[:1], "--no-cache", *argv[1:]], env=env).stdout


def test_settled_digests_are_remembered_and_an_edit_is_still_read(tmp_path: Path) -> None:
    """The digest memo skips reading a file whose identity (size, mtime, inode, ctime) is
    unchanged; putting size and mtime back still changes the ctime, so the edit is read."""
    folder = tmp_path / "crds"
    folder.mkdir()
    crd = folder / "widget.yaml"
    crd.write_text(WIDGET_CRD)
    (folder / "notes.txt").write_text("not a schema")
    digests = tmp_path / "digests"

    def lines(later_ns: int = 10**10) -> list[bytes]:
        memo = DigestMemo.open(digests, folder)
        memo.now += later_ns  # the run counts as this much later: the files have settled
        found = list(content_lines(folder, memo))
        memo.save()
        return found

    first = lines()
    assert [line.split(b":")[0] for line in first] == [b"notes.txt", b"widget.yaml"]
    assert len(list(digests.iterdir())) == 1  # the memo was written
    assert lines() == first
    ctime = crd.stat().st_ctime_ns
    _edit_keeping_size_and_mtime(crd, "{type: string}", "{type: number}")
    while crd.stat().st_ctime_ns == ctime:  # a coarse clock: let the change time move on
        os.utime(crd, ns=(crd.stat().st_atime_ns, crd.stat().st_mtime_ns))
    edited = lines()
    assert edited != first
    crd.write_text(WIDGET_CRD)
    assert lines() == first  # the contents decide, whatever the stat says


def test_a_recent_file_is_not_remembered(tmp_path: Path) -> None:
    """A file changed less than two seconds ago may change again within one tick of the change
    time: its digest is not kept, so the next run reads it again."""
    folder = tmp_path / "crds"
    folder.mkdir()
    (folder / "widget.yaml").write_text(WIDGET_CRD)
    memo = DigestMemo.open(tmp_path / "digests", folder)
    list(content_lines(folder, memo))
    memo.save()
    assert not (tmp_path / "digests").exists()


def test_a_fifo_or_device_among_the_schemas_is_keyed_without_being_read(tmp_path: Path) -> None:
    folder = tmp_path / "crds"
    folder.mkdir()
    os.mkfifo(folder / "pipe.yaml")
    (folder / "zero.yaml").symlink_to("/dev/zero")
    memo = DigestMemo.open(None, folder)
    found = list(content_lines(folder, memo))  # would block on the FIFO or never end on zero
    assert [line.split(b":")[0] for line in found] == [b"pipe.yaml", b"zero.yaml"]
