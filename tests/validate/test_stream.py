"""Validating in batches (``generator.validate.passes``) finds exactly what validating everything at
once (``generator.validate.check.check_paths``) finds: same findings, same lines, same document count.

Batches are made as small as possible here (one component each) so that every cross-object rule
is exercised across batch boundaries: references, duplicates, hubs shared by many clusters.
"""

from __future__ import annotations

import pickle
import shutil
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from generator.checks import ValidationOptions
from generator.errors import InputOutputError
from generator.validate import workers
from generator.validate.check import CheckReport, check_paths
from generator.validate.partition import HUB_REFERRERS, Partitioner, document_keys
from generator.validate.stream import PoolFactory, RunSettings, fork_pool, stream_paths
from generator.validate.tuning import Tuning
from generator.validate.workers import Workers, index_pieces
from generator.yamlio.load import load_documents

EXAMPLES = Path(__file__).resolve().parent / "examples"
ALL_EXAMPLES = sorted(EXAMPLES.glob("**/*.yaml"))
OPTIONS = ValidationOptions()


def _texts(report: CheckReport) -> list[str]:
    return [f"{f.to_text()} @{f.line}" for f in report.findings]


def _same(paths: list[str], store: Any) -> CheckReport:
    whole = check_paths(paths, store, OPTIONS)
    batched = stream_paths(paths, store, OPTIONS, RunSettings(tuning=Tuning(batch_size=1)))
    assert _texts(batched) == _texts(whole)
    assert batched.document_count == whole.document_count
    return batched


@pytest.mark.parametrize("path", ALL_EXAMPLES, ids=lambda p: str(p.relative_to(EXAMPLES)))
def test_each_example_alone(path: Path, store: Any) -> None:
    _same([str(path)], store)


def test_every_example_together(tmp_path: Path, store: Any) -> None:
    """All examples as one folder: clusters of different files meet (duplicates, references)."""
    for number, path in enumerate(ALL_EXAMPLES):
        shutil.copy(path, tmp_path / f"{number:03d}-{path.name}")
    report = _same([str(tmp_path)], store)
    assert report.has_errors


def _cluster(name: str, namespace: str, *, identity: str = "shared-identity") -> str:
    return f"""\
apiVersion: cluster.x-k8s.io/v1beta1
kind: Cluster
metadata: {{name: {name}, namespace: {namespace}}}
spec:
  controlPlaneRef: {{apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedControlPlane, name: {name}}}
  infrastructureRef: {{apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedCluster, name: {name}}}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedCluster
metadata: {{name: {name}, namespace: {namespace}}}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedControlPlane
metadata: {{name: {name}, namespace: {namespace}}}
spec:
  location: westeurope
  resourceGroupName: rg-{name}
  subscriptionID: 00000000-0000-0000-0000-000000000000
  version: v1.31.1
  identityRef: {{kind: AzureClusterIdentity, name: {identity}, namespace: {namespace}}}
"""


IDENTITY = """\
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureClusterIdentity
metadata: {name: shared-identity, namespace: fleet}
spec:
  type: ServicePrincipal
  clientID: 00000000-0000-0000-0000-000000000001
  tenantID: 00000000-0000-0000-0000-000000000002
  clientSecret: {name: identity-secret, namespace: elsewhere}
  allowedNamespaces: {list: [fleet]}
"""


def test_a_hub_shared_by_many_clusters(tmp_path: Path, store: Any) -> None:
    """An AzureClusterIdentity used by more clusters than HUB_REFERRERS is copied into each
    batch; its own findings are reported once, the clusters' findings each once."""
    clusters = HUB_REFERRERS + 4
    parts = [_cluster(f"c{i}", "fleet") for i in range(clusters)]
    parts.append(_cluster("missing-identity", "fleet", identity="nope"))
    parts.append(_cluster("c3", "fleet"))  # a duplicate far from the first definition
    (tmp_path / "clusters.yaml").write_text("---\n".join(parts))
    (tmp_path / "zz-identity.yaml").write_text(IDENTITY)
    report = _same([str(tmp_path)], store)
    assert report.has_errors


def test_a_file_that_breaks_late_is_one_finding(tmp_path: Path, store: Any) -> None:
    good = _cluster("ok", "fleet")
    (tmp_path / "broken.yaml").write_text(good + "---\nkind: [unclosed\n")
    (tmp_path / "fine.yaml").write_text(good.replace("ok", "fine"))
    report = _same([str(tmp_path)], store)
    assert [f.rule for f in report.findings].count("yaml") == 1


# Worker processes for any input, and sources cut into pieces of three chunks.
WORKERS_ALWAYS = Tuning(parallel_from=0, piece_chunks=3)


def on(
    jobs: int, *, batch: int, tuning: Tuning = WORKERS_ALWAYS, pool: PoolFactory = fork_pool
) -> RunSettings:
    """A run on ``jobs`` processes (workers even for tiny inputs) in batches of ``batch``."""
    return RunSettings(jobs=jobs, tuning=replace(tuning, batch_size=batch), pool=pool)


def test_parallel_workers_report_the_same(tmp_path: Path, store: Any) -> None:
    parts = [_cluster(f"p{i}", f"ns{i % 3}") for i in range(30)]
    parts.insert(7, _cluster("missing-identity", "ns1", identity="nope"))
    (tmp_path / "many.yaml").write_text("---\n".join(parts))
    whole = check_paths([str(tmp_path)], store, OPTIONS)
    parallel = stream_paths([str(tmp_path)], store, OPTIONS, on(2, batch=3))
    assert _texts(parallel) == _texts(whole)
    assert parallel.document_count == whole.document_count
    assert parallel.has_errors


def test_parallel_workers_on_every_example(tmp_path: Path, store: Any) -> None:
    for number, path in enumerate(ALL_EXAMPLES):
        shutil.copy(path, tmp_path / f"{number:03d}-{path.name}")
    whole = check_paths([str(tmp_path)], store, OPTIONS)
    parallel = stream_paths([str(tmp_path)], store, OPTIONS, on(2, batch=1))
    assert _texts(parallel) == _texts(whole)


def test_parallel_workers_place_a_late_yaml_error(tmp_path: Path, store: Any) -> None:
    """The error is in a later piece: its document index counts the pieces before."""
    parts = [_cluster(f"e{i}", "fleet") for i in range(4)]
    (tmp_path / "broken.yaml").write_text("---\n".join(parts) + "---\nkind: [unclosed\n")
    whole = check_paths([str(tmp_path)], store, OPTIONS)
    parallel = stream_paths([str(tmp_path)], store, OPTIONS, on(2, batch=1))
    assert _texts(parallel) == _texts(whole)
    (finding,) = parallel.findings
    assert finding.rule == "yaml"
    assert finding.subject.document == 12


def test_mixed_namespaces_make_one_batch() -> None:
    """Objects without a namespace may refer into any namespace: keys cannot tell, so such an
    input is validated whole."""
    partitioner = Partitioner()
    partitioner.add(document_keys({"kind": "Secret", "metadata": {"name": "a", "namespace": "x"}}))
    partitioner.add(document_keys({"kind": "Secret", "metadata": {"name": "b"}}))
    (batch,) = partitioner.batches(1)
    assert list(batch.home) == [0, 1]


def test_references_are_keys_wherever_they_sit() -> None:
    """References in lists at the root, lists of lists and nested mappings all become keys, in
    document order; a list's items stand where the list stands (its key names them)."""
    keys = document_keys(
        {
            "kind": "List",
            "metadata": {"name": "l", "namespace": "ns"},
            "items": [{"kind": "Cluster", "name": "a"}, [{"kind": "Cluster", "name": "b"}]],
            "spec": {
                "clusterName": "c",
                "bootstrapSecrets": [[{"name": "s"}]],
                "owner": {"name": "o", "armId": "/SUBSCRIPTIONS/X"},
            },
        }
    )
    assert keys.declares == [("obj", "ns", "List", "l"), ("arm", "/subscriptions/x")]
    assert keys.refers == [
        ("obj", "", "Namespace", "ns"),
        ("obj", "ns", "Cluster", "a"),
        ("obj", "ns", "Cluster", "b"),
        ("obj", "ns", "Cluster", "c"),
        ("obj", "ns", "Secret", "s"),
        ("owner", "o"),
    ]


def test_undeclared_references_do_not_join() -> None:
    """Many clusters naming a Secret that is not in the input stay apart."""
    partitioner = Partitioner()
    for i in range(20):
        annotations = {"serviceoperator.azure.com/credential-from": "absent"}
        obj = {"kind": "ResourceGroup", "apiVersion": "resources.azure.com/v1api20200601"}
        partitioner.add(
            document_keys({**obj, "metadata": {"name": f"rg{i}", "annotations": annotations}})
        )
    assert len(partitioner.batches(1)) == 20


def test_a_file_changed_between_the_passes_is_an_error_not_a_crash(
    tmp_path: Path, store: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Large inputs are read twice; a file edited in between is reported, never misread."""
    import generator.validate.stream
    from generator.validate.passes import index_sources

    path = tmp_path / "fleet.yaml"
    path.write_text(_cluster("a", "fleet"))
    real = index_sources

    def edit_after_indexing(*args: Any) -> None:
        real(*args)
        path.write_text(_cluster("b", "fleet") + "---\n" + _cluster("c", "fleet"))

    monkeypatch.setattr(generator.validate.stream, "index_sources", edit_after_indexing)
    with pytest.raises(InputOutputError, match="changed while capzgen was validating it"):
        stream_paths([str(path)], store, OPTIONS, on(1, batch=1, tuning=Tuning()))


def in_threads(jobs: int) -> Workers:
    """``jobs`` workers on one thread of this process (tasks run one at a time, in order)."""
    one = ThreadPoolExecutor(max_workers=1)
    return Workers([one] * jobs)


def in_process(
    paths: list[str], store: Any, tuning: Tuning = WORKERS_ALWAYS, *, jobs: int, batch: int
) -> Any:
    """``stream_paths`` with the worker path on a thread instead of forked processes, so that
    coverage sees the workers' code run (the forked runs above check the same results across
    processes)."""
    return stream_paths(
        paths, store, OPTIONS, on(jobs, batch=batch, tuning=tuning, pool=in_threads)
    )


def test_worker_code_in_process_on_every_example(tmp_path: Path, store: Any) -> None:
    for number, path in enumerate(ALL_EXAMPLES):
        shutil.copy(path, tmp_path / f"{number:03d}-{path.name}")
    parts = [_cluster(f"w{i}", "fleet") for i in range(6)]
    (tmp_path / "zz-broken.yaml").write_text("---\n".join(parts) + "---\nkind: [unclosed\n")
    (tmp_path / "zz-many.yaml").write_text("# header\n" + "---\n".join(parts).replace("w", "v"))
    whole = check_paths([str(tmp_path)], store, OPTIONS)
    threaded = in_process([str(tmp_path)], store, jobs=2, batch=2)
    assert _texts(threaded) == _texts(whole)
    assert threaded.document_count == whole.document_count


def test_worker_code_reports_an_unreadable_file(tmp_path: Path, store: Any) -> None:
    (tmp_path / "a.yaml").write_text(_cluster("a", "fleet"))
    (tmp_path / "bin.yaml").write_bytes(b"\x00\x01binary")
    whole = check_paths([str(tmp_path)], store, OPTIONS)
    report = in_process([str(tmp_path)], store, jobs=2, batch=1)
    assert _texts(report) == _texts(whole)
    assert any(f.rule == "yaml" and f.subject.file.endswith("bin.yaml") for f in report.findings)


@pytest.mark.parametrize("tasks_per_job", [0, 4])
@pytest.mark.parametrize("broken_at", [2, 17, 29])
def test_a_large_file_added_piece_by_piece_breaks_late(
    tmp_path: Path, store: Any, tasks_per_job: int, broken_at: int
) -> None:
    """A file of ten clusters in pieces of four chunks, its keys added as each piece comes back:
    a document that does not parse in any piece (first, middle, last) drops the pieces added
    before it, counts none of the file's documents, and reports one finding with the
    document's index in the whole file, as the serial pass does; the next file is unaffected."""
    tuning = Tuning(parallel_from=0, piece_chunks=4, tasks_per_job=tasks_per_job)
    documents = "---\n".join(_cluster(f"b{i}", "fleet") for i in range(10)).split("---\n")
    documents[broken_at] = "kind: [unclosed\n"
    (tmp_path / "a-broken.yaml").write_text("---\n".join(documents))
    (tmp_path / "b-fine.yaml").write_text(_cluster("fine", "fleet"))
    whole = check_paths([str(tmp_path)], store, OPTIONS)
    serial = in_process([str(tmp_path)], store, tuning, jobs=1, batch=2)
    report = in_process([str(tmp_path)], store, tuning, jobs=2, batch=2)
    assert _texts(report) == _texts(whole) == _texts(serial)
    assert report.document_count == whole.document_count == serial.document_count
    (broken,) = [f for f in report.findings if f.rule == "yaml"]
    assert broken.subject.document == broken_at
    assert broken.subject.file.endswith("a-broken.yaml")


@pytest.mark.parametrize("tasks_per_job", [0, 4])
def test_small_files_travel_together_in_input_order(
    tmp_path: Path, store: Any, tasks_per_job: int
) -> None:
    """Twenty one-cluster files (three chunks each) with tasks of up to 9 chunks: 7 tasks,
    whatever is in flight, and the findings of validating everything at once."""
    tuning = Tuning(
        parallel_from=0,
        piece_chunks=9,
        tasks_per_job=tasks_per_job,
        max_waiting_files=2 + tasks_per_job,
    )
    tasks: list[int] = []

    class Counting(Workers):
        """Notes the size of every task of pass 1 on its way to a worker."""

        def submit(self, worker: int, function: Any, argument: Any) -> Any:
            if function is index_pieces:
                tasks.append(len(argument))
            return super().submit(worker, function, argument)

    def counting(jobs: int) -> Workers:
        return Counting(in_threads(jobs).executors)

    for i in range(20):
        identity = "nope" if i % 7 == 3 else "shared-identity"
        (tmp_path / f"c{i:02d}.yaml").write_text(_cluster(f"c{i}", "fleet", identity=identity))
    (tmp_path / "c05.yaml").write_text("kind: [unclosed\n")
    (tmp_path / "zz-identity.yaml").write_text(IDENTITY)
    whole = check_paths([str(tmp_path)], store, OPTIONS)
    report = stream_paths(
        [str(tmp_path)], store, OPTIONS, on(2, batch=2, tuning=tuning, pool=counting)
    )
    assert _texts(report) == _texts(whole)
    assert report.document_count == whole.document_count
    assert sum(tasks) == 21  # every file once (the broken one too: it fails in the worker)
    assert len(tasks) == 7


def test_what_the_forked_workers_freeze_stays_in_the_workers(tmp_path: Path, store: Any) -> None:
    """Each worker freezes its heap after pass 1 (``workers.warm_up``); a library caller's
    own garbage collector is left as it was."""
    import gc

    (tmp_path / "many.yaml").write_text("---\n".join(_cluster(f"g{i}", "fleet") for i in range(4)))
    before = gc.get_freeze_count()
    report = stream_paths([str(tmp_path)], store, OPTIONS, on(2, batch=3))
    assert report.document_count > 0
    assert gc.get_freeze_count() == before


def _batches(partitioner: Partitioner) -> list[tuple[list[int], list[int]]]:
    return [(list(b.home), list(b.guests)) for b in partitioner.batches(5)]


def test_keys_packed_by_a_worker_partition_as_the_keys_do() -> None:
    """What a worker sends back (the keys' hashes, packed per piece, sliced per chunk) joins
    the documents exactly as adding their keys one by one does: hubs, duplicates, references
    in other namespaces and a document declaring nothing included; and it pickles."""
    parts = [_cluster(f"c{i}", "fleet") for i in range(HUB_REFERRERS + 3)]
    parts += [_cluster("c3", "fleet"), _cluster("lone", "other", identity="nope"), IDENTITY]
    documents = load_documents("---\n".join(parts) + "---\n# empty\n", source="f.yaml")
    keys = [document_keys(d.obj) for d in documents]
    one_by_one = Partitioner()
    for each in keys:
        one_by_one.add(each)
    builder = workers._PieceKeysBuilder(with_keys=True)
    for at in range(0, len(documents), 3):  # chunks of three documents
        builder.add_chunk(documents[at : at + 3])
    piece = pickle.loads(pickle.dumps(builder.built()))
    packed = Partitioner()
    numbers = [n for chunk in piece.chunks() for n in packed.add_packed(*chunk[:3])]
    assert numbers == list(range(len(documents)))
    assert _batches(packed) == _batches(one_by_one)
    assert packed.kinds == one_by_one.kinds
    assert [k for chunk in piece.chunks() for k in chunk.keys or ()] == keys
    assert bytes(o for chunk in piece.chunks() for o in chunk.objects) == bytes(
        d.obj is not None for d in documents
    )


def test_a_piece_placed_at_once_is_placed_as_chunk_by_chunk() -> None:
    """``Places.add_chunks`` (how a chunk, or a worker's whole piece, is recorded) places every
    document in its chunk: a chunk without documents is skipped, one with several numbers them
    from its offset."""
    from generator.validate.passes import Places
    from generator.yamlio.chunks import Chunk

    spans = [(0, 10, 1), (10, 12, 3), (12, 40, 4), (40, 55, 9), (55, 60, 12)]
    counts = [1, 0, 3, 1, 2]
    places = Places()
    assert places.add_chunks(7, spans, counts, 5) == sum(counts)  # from the source's sixth
    first, third, fourth, fifth = (
        Chunk(7, 0, 10, 5, 1),
        Chunk(7, 12, 40, 6, 4),
        Chunk(7, 40, 55, 9, 9),
        Chunk(7, 55, 60, 10, 12),
    )
    expected = [(first, 0), (third, 0), (third, 1), (third, 2), (fourth, 0), (fifth, 0), (fifth, 1)]
    docs = range(sum(counts))
    assert [places.of(doc) for doc in docs] == expected
    assert places.flat(docs).tolist() == [
        n
        for chunk, offset in expected
        for n in (chunk.source, chunk.start, chunk.end, chunk.index, chunk.line, offset)
    ]


@pytest.mark.parametrize(
    ("module", "name", "thread"),
    [
        ("generator.validate.parallel", "prepare", None),
        ("generator.validate.engine_load", "load_engine", "capzgen-engine-load"),
    ],
    ids=["the first task fails", "the import on the worker's thread fails"],
)
def test_a_worker_that_cannot_load_the_engine_fails_the_run(
    tmp_path: Path,
    store: Any,
    monkeypatch: pytest.MonkeyPatch,
    module: str,
    name: str,
    thread: str | None,
) -> None:
    """The workers' first task starts loading the engine on a thread and returns at once (pass 1
    parses meanwhile); a failure, of the task or of the import on its thread, is raised by the
    run (the thread's by the first task that validates), not lost with a future or the thread."""
    import importlib

    calls: list[str] = []

    def broken(*_: object) -> None:
        calls.append(threading.current_thread().name)
        msg = "the engine did not load"
        raise ImportError(msg)

    monkeypatch.setattr(importlib.import_module(module), name, broken)
    (tmp_path / "one.yaml").write_text(_cluster("a", "fleet"))
    with pytest.raises(ImportError, match="the engine did not load"):
        in_process([str(tmp_path)], store, jobs=2, batch=3)
    assert calls
    if thread is not None:  # the import ran on the worker's own thread for it
        assert all(name == thread for name in calls)
