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

import generator.validate.cached
import generator.validate.passes
import generator.yamlio.chunks as chunks
from benchmarks.inputs import cluster_text
from generator.checks import ValidationOptions
from generator.errors import InputOutputError
from generator.validate.cache.keys import DigestMemo, content_lines, options_fingerprint
from generator.validate.cache.records import CacheLimits, FileIndex, IndexedChunk
from generator.validate.cache.secret import mac
from generator.validate.cache.store import FILE_NAME, FLUSH_PARTS, ResultCache
from generator.validate.partition import HUB_REFERRERS, DocumentKeys
from generator.validate.passes import RunInputs
from generator.validate.stream import RunSettings, stream_paths
from generator.validate.tuning import DEFAULT_TUNING, Tuning
from tests.validate.test_stream import ALL_EXAMPLES, _texts, in_threads

OPTIONS = ValidationOptions()
CACHE_SECRET = b"s" * 32  # what this machine's result cache entries are made with
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
    secret: bytes | None = CACHE_SECRET,
) -> list[str]:
    on = RunSettings(results_dir=cache, cache_secret=secret, tuning=replace(tuning, batch_size=3))
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
        monkeypatch.setattr(generator.validate.cached, "code_fingerprint", another)
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
            jobs=2,
            results_dir=cache,
            cache_secret=CACHE_SECRET,
            tuning=Tuning(parallel_from=0, batch_size=3),
            pool=in_threads,
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
        cache = ResultCache.open(tmp_path, CACHE_SECRET, limits)
        assert cache is not None
        cache.remember_parts([bytes([run, n]) for n in range(2)])
        cache.close(save=True)
    with sqlite3.connect(tmp_path / FILE_NAME) as db:
        kept = {row[0] for row in db.execute("SELECT key FROM parts")}
    assert len(kept) == 3
    newest = {mac(CACHE_SECRET, b"part\0" + bytes([2, n])) for n in range(2)}
    assert newest <= kept  # the newest run's are kept (as their HMACs)


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


@pytest.mark.parametrize("save", [True, False])
def test_file_indexes_are_written_as_the_run_goes(tmp_path: Path, save: bool) -> None:
    """Written to the file as the run goes (not held in memory), kept only if the run ends
    well: a run that fails (a file changed while it was read) leaves nothing behind."""
    cache = ResultCache.open(tmp_path, CACHE_SECRET, CacheLimits(flush_index_bytes=1))
    assert cache is not None
    cache.remember_file(b"k" * 16, FileIndex([]))
    cache.remember_parts(n.to_bytes(16, "big") for n in range(FLUSH_PARTS))
    new_files, _, parts, _ = cache.pending()
    assert (new_files, parts) == ({}, set())
    cache.close(save=save)
    with sqlite3.connect(tmp_path / FILE_NAME) as db:
        files = db.execute("SELECT data FROM files").fetchall()
        stored = db.execute("SELECT COUNT(*) FROM parts").fetchone()
    assert [data[-2:] for (data,) in files] == (["[]"] if save else [])
    assert stored == ((FLUSH_PARTS,) if save else (0,))


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
    cache = ResultCache.open(tmp_path, CACHE_SECRET)
    assert cache is not None
    index = FileIndex([IndexedChunk(0, 100, 0, 1, ((DocumentKeys([], [], None, None), True),))])
    cache.remember_file(b"k" * 16, index)
    cache.close(save=True)
    within = ResultCache.open(tmp_path, CACHE_SECRET, CacheLimits(max_index_bytes=200))
    assert within is not None
    assert within.file_index(b"k" * 16) is not None
    within.close(save=False)
    again = ResultCache.open(tmp_path, CACHE_SECRET, CacheLimits(max_index_bytes=20))
    assert again is not None
    assert again.file_index(b"k" * 16) is None
    again.close(save=False)


# --- what is remembered is what was validated; entries are authenticated ------------------------


def _broken(name: str) -> str:
    """A cluster with an error (a Kubernetes version that is no version)."""
    return _cluster(name).replace("v1.31.1", "v1.31.x")


@pytest.mark.parametrize(
    ("jobs", "keep_below", "read_again"),
    [(1, 8 << 20, False), (2, 8 << 20, False), (2, 0, True)],
    ids=["serial", "workers, text sent", "workers, large input read again"],
)
def test_a_file_swapped_while_it_is_read_is_never_remembered_clean(
    tmp_path: Path,
    store: Any,
    monkeypatch: pytest.MonkeyPatch,
    jobs: int,
    keep_below: int,
    read_again: bool,
) -> None:
    """The run's key used to be made from the texts read before the run, the remembered result
    from the texts read after: a broken file swapped for a clean one while pass 1 reads it (and
    back) made every later run report it clean. Now the key remembered is that of the texts
    validated, so the broken file fails again, as without the cache. (A small input's pieces
    carry the text pass 1 read to the workers; a large input's workers read the file again and
    find it is not what pass 1 hashed.)"""
    fleet = _fleet(tmp_path / "fleet", clusters=2)
    target = fleet / "c1.yaml"
    target.write_text(_broken("c1"))
    real = RunInputs.first_read

    def swapped(run: RunInputs, source: int) -> str:  # pass 1's read, serial or not
        if Path(run.paths[source]) != target:
            return real(run, source)
        target.write_text(_cluster("c1"))
        try:
            return real(run, source)
        finally:
            target.write_text(_broken("c1"))

    cache = tmp_path / "cache"
    tuning = Tuning(parallel_from=0, keep_parsed_below=keep_below)
    on = RunSettings(
        jobs=jobs, results_dir=cache, cache_secret=CACHE_SECRET, tuning=tuning, pool=in_threads
    )
    with monkeypatch.context() as patched:
        patched.setattr(RunInputs, "first_read", swapped)
        if read_again:
            with pytest.raises(InputOutputError, match="changed while capzgen was validating"):
                stream_paths([str(fleet)], store, OPTIONS, on)
        else:
            stream_paths([str(fleet)], store, OPTIONS, on)
    fresh = _run([fleet], store, None)
    assert any("CAPZ-VERSION-FORMAT" in line and "c1.yaml" in line for line in fresh)
    assert _run([fleet], store, cache) == fresh
    assert _run([fleet], store, cache) == fresh


def _run_key_without_the_secret(store: Any, fleet: Path) -> bytes:
    """The key capzgen's own key functions give the whole input: what a planted entry uses."""
    from generator.validate.cache.keys import code_fingerprint, store_fingerprint
    from generator.validate.inputs import collect_inputs
    from generator.validate.reuse import run_key, texts_now

    inputs = collect_inputs([str(fleet)])
    stores = store_fingerprint(store)
    assert stores is not None
    config = code_fingerprint() + stores + options_fingerprint(OPTIONS)
    key = run_key(config, inputs.names, texts_now(inputs))
    assert key is not None
    return key


def test_an_entry_planted_without_the_secret_is_not_found(tmp_path: Path, store: Any) -> None:
    """Whoever can write the cache folder (a CI cache restored from a shared store) plants a
    clean run for a broken input, made with capzgen's own key function, raw or under another
    secret: the broken file still fails."""
    fleet = _fleet(tmp_path / "fleet", clusters=2)
    (fleet / "c1.yaml").write_text(_broken("c1"))
    cache = tmp_path / "cache"
    fresh = _run([fleet], store, None)
    assert _run([fleet], store, cache) == fresh  # creates the store, remembers nothing
    key = _run_key_without_the_secret(store, fleet)
    other = ResultCache.open(cache, b"another machine".ljust(32))
    assert other is not None
    other.remember_run(key, 14)
    other.close(save=True)
    with sqlite3.connect(cache / FILE_NAME) as db:
        db.execute("INSERT OR REPLACE INTO runs (key, used, documents) VALUES (?, 1, 14)", (key,))
        for forged in (key, mac(b"", b"run\0" + key), mac(b"\0" * 32, b"run\0" + key)):
            db.execute(
                "INSERT OR REPLACE INTO runs (key, used, documents) VALUES (?, 1, 14)", (forged,)
            )
    assert _run([fleet], store, cache) == fresh
    assert any("CAPZ-VERSION-FORMAT" in line for line in fresh)


def test_a_stored_file_index_edited_in_place_is_not_used(
    tmp_path: Path, store: Any, counter: Counter
) -> None:
    """A file index stored under a genuine key but with other content (a file's documents
    hidden) is not used: the content is authenticated too."""
    fleet = _fleet(tmp_path / "fleet", clusters=2)
    cache = tmp_path / "cache"
    _run([fleet], store, cache)
    (fleet / "c1.yaml").write_text(_broken("c1"))
    with sqlite3.connect(cache / FILE_NAME) as db:
        db.execute("UPDATE files SET data = substr(data, 1, 64) || '[]'")
    counter.reset()
    assert _run([fleet], store, cache) == _run([fleet], store, None)
    assert counter.parsed >= 2  # neither stored index was used


def test_a_cache_copied_from_another_machine_reuses_nothing(
    tmp_path: Path, store: Any, counter: Counter
) -> None:
    fleet = _fleet(tmp_path / "fleet", clusters=2)
    cache = tmp_path / "cache"
    _run([fleet], store, cache, secret=b"another machine".ljust(32))
    counter.reset()
    assert _run([fleet], store, cache) == _run([fleet], store, None)
    assert counter.validated == 2 * 2 * DOCUMENTS  # with this machine's secret, then without
    counter.reset()
    _run([fleet], store, cache)
    assert (counter.validated, counter.parsed) == (0, 0)  # its own entries are found


def test_without_a_secret_nothing_is_cached(tmp_path: Path, store: Any, counter: Counter) -> None:
    fleet = _fleet(tmp_path / "fleet", clusters=1)
    cache = tmp_path / "cache"
    _run([fleet], store, cache, secret=None)
    counter.reset()
    _run([fleet], store, cache, secret=None)
    assert counter.validated == DOCUMENTS
    assert not cache.exists()


def test_the_cli_keys_the_cache_with_a_private_key_file_outside_it(
    run_cli: Any, tmp_path: Path, cli_env: dict[str, str], counter: Counter
) -> None:
    fleet = _fleet(tmp_path / "fleet", clusters=1)
    env = {"CAPZGEN_CACHE_DIR": str(tmp_path / "cache")}
    key_file = Path(cli_env["XDG_CONFIG_HOME"]) / "capzgen" / "result-cache.key"
    assert run_cli(["validate", str(fleet)], env=env).exit_code == 0
    assert key_file.is_file()
    assert key_file.stat().st_mode & 0o777 == 0o600
    assert not key_file.resolve().is_relative_to((tmp_path / "cache").resolve())
    counter.reset()
    assert run_cli(["validate", str(fleet)], env=env).exit_code == 0
    assert counter.validated == 0
    key_file.write_text("0" * 64 + "\n")  # another key: nothing of the old one is found
    counter.reset()
    assert run_cli(["validate", str(fleet)], env=env).exit_code == 0
    assert counter.validated == DOCUMENTS


@pytest.mark.parametrize("damage", ["not a key", "readable by others", "a folder", "a symlink"])
def test_a_key_file_that_cannot_be_used_turns_the_cache_off(
    run_cli: Any, tmp_path: Path, cli_env: dict[str, str], counter: Counter, damage: str
) -> None:
    fleet = _fleet(tmp_path / "fleet", clusters=1)
    env = {"CAPZGEN_CACHE_DIR": str(tmp_path / "cache")}
    key_file = Path(cli_env["XDG_CONFIG_HOME"]) / "capzgen" / "result-cache.key"
    key_file.parent.mkdir(parents=True)
    good = "ab" * 32 + "\n"
    if damage == "not a key":
        key_file.write_text("not a key\n")
        key_file.chmod(0o600)
    elif damage == "readable by others":
        key_file.write_text(good)
        key_file.chmod(0o644)
    elif damage == "a folder":
        key_file.mkdir()
    else:
        target = tmp_path / "elsewhere.key"
        target.write_text(good)
        target.chmod(0o600)
        key_file.symlink_to(target)
    for _ in range(2):
        counter.reset()
        result = run_cli(["validate", str(fleet)], env=env)
        assert (result.exit_code, counter.validated) == (0, DOCUMENTS)
    assert not (tmp_path / "cache" / "results" / FILE_NAME).exists()


def test_capzgen_cache_key_keys_the_cache_without_a_key_file(
    run_cli: Any, tmp_path: Path, cli_env: dict[str, str], counter: Counter
) -> None:
    fleet = _fleet(tmp_path / "fleet", clusters=1)
    env = {"CAPZGEN_CACHE_DIR": str(tmp_path / "cache"), "CAPZGEN_CACHE_KEY": "ci secret"}
    assert run_cli(["validate", str(fleet)], env=env).exit_code == 0
    counter.reset()
    assert run_cli(["validate", str(fleet)], env=env).exit_code == 0
    assert counter.validated == 0
    assert not (Path(cli_env["XDG_CONFIG_HOME"]) / "capzgen").exists()
    counter.reset()
    other = {**env, "CAPZGEN_CACHE_KEY": "another secret"}
    assert run_cli(["validate", str(fleet)], env=other).exit_code == 0
    assert counter.validated == DOCUMENTS


def test_no_home_means_no_key_and_no_cache_and_nothing_created(tmp_path: Path) -> None:
    """A key file below a home that does not exist: nothing is created, the cache is off."""
    from generator.validate.cache.secret import cache_secret

    home = tmp_path / "no-home"
    assert cache_secret(None, home / ".config" / "capzgen" / "result-cache.key") is None
    assert not home.exists()
    home.mkdir()
    key = cache_secret(None, home / ".config" / "capzgen" / "result-cache.key")
    assert key is not None
    assert cache_secret(None, home / ".config" / "capzgen" / "result-cache.key") == key
    assert cache_secret("ci", None) == cache_secret("ci", home / "elsewhere") != key


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
