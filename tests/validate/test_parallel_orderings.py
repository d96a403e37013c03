"""``validate -j`` under many orderings: whatever order the workers' tasks run and come back in,
the findings are those of the serial run.

The scheduled pool below holds every task sent to a worker and runs them in an order drawn from a
seed (not in the order they were sent) when the caller waits for one, each worker on a thread of
its own, so a worker's memory is its own as in a forked process. The orderings are the seed's, so a
failure is replayed by its seed; nothing depends on how fast anything runs.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from generator.validate.check import CheckReport
from generator.validate.stream import RunSettings, fork_pool, stream_paths
from generator.validate.tuning import Tuning
from generator.validate.workers import Workers
from tests.validate.test_stream import IDENTITY, OPTIONS, _cluster, _texts


class _Scheduler:
    """The tasks sent and not yet run, run in a seeded random order."""

    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)
        self.pending: list[tuple[_Scheduled, Callable[..., Any], tuple[Any, ...], Future[Any]]] = []

    def run_one(self) -> None:
        executor, function, args, future = self.pending.pop(
            self.random.randrange(len(self.pending))
        )
        try:
            future.set_result(executor.thread.submit(function, *args).result())
        except BaseException as error:  # handed to the waiting caller
            future.set_exception(error)


class _Waiting(Future[Any]):
    """A future that, waited for, runs pending tasks (in the scheduler's order) until it is done."""

    def __init__(self, scheduler: _Scheduler) -> None:
        super().__init__()
        self.scheduler = scheduler

    def result(self, timeout: float | None = None) -> Any:
        while not self.done() and self.scheduler.pending:
            self.scheduler.run_one()
        return super().result(timeout)


class _Scheduled(Executor):
    """One worker: its tasks wait in the scheduler, and run on this worker's own thread."""

    def __init__(self, scheduler: _Scheduler) -> None:
        self.scheduler = scheduler
        self.thread = ThreadPoolExecutor(max_workers=1)

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future = _Waiting(self.scheduler)
        future.set_running_or_notify_cancel()
        self.scheduler.pending.append((self, fn, args, future))
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        while any(executor is self for executor, *_ in self.scheduler.pending):
            self.scheduler.run_one()
        self.thread.shutdown(wait=wait)


def scheduled(seed: int) -> Callable[[int], Workers]:
    """A pool factory: ``jobs`` workers whose tasks complete in the order ``seed`` draws."""

    def pool(jobs: int) -> Workers:
        scheduler = _Scheduler(seed)
        return Workers([_Scheduled(scheduler) for _ in range(jobs)])

    return pool


def _folder(tmp_path: Path, files: int, broken_at: int | None) -> Path:
    """``files`` one-cluster files (some missing their identity), one of them broken YAML."""
    folder = tmp_path / "in"
    folder.mkdir()
    for i in range(files):
        identity = "nope" if i % 5 == 3 else "shared-identity"
        (folder / f"c{i:02d}.yaml").write_text(_cluster(f"c{i}", "fleet", identity=identity))
    if broken_at is not None:
        text = _cluster(f"c{broken_at}", "fleet") + "---\nkind: [unclosed\n"
        (folder / f"c{broken_at:02d}.yaml").write_text(text if broken_at % 2 else "kind: [\n")
    (folder / "zz-identity.yaml").write_text(IDENTITY)
    return folder


def _tuning(tasks_per_job: int, piece_chunks: int) -> Tuning:
    return Tuning(
        parallel_from=0,
        piece_chunks=piece_chunks,
        tasks_per_job=tasks_per_job,
        max_waiting_files=1 + tasks_per_job,
        batch_size=2,
    )


def _same_as_serial(folder: Path, store: Any, settings: RunSettings) -> CheckReport:
    serial = stream_paths([str(folder)], store, OPTIONS, replace(settings, jobs=1))
    report = stream_paths([str(folder)], store, OPTIONS, settings)
    assert _texts(report) == _texts(serial)
    assert report.document_count == serial.document_count
    return report


FILES = 12


@pytest.mark.parametrize("broken_at", [None, *range(FILES)])
@pytest.mark.parametrize(("tasks_per_job", "piece_chunks"), [(0, 9), (4, 4), (2, 1)])
def test_every_ordering_of_the_tasks_gives_the_serial_findings(
    tmp_path: Path, store: Any, broken_at: int | None, tasks_per_job: int, piece_chunks: int
) -> None:
    """Small files travelling together (and a broken one at every position), tasks completing
    in ten seeded orders on two and three workers: the findings of the serial run."""
    folder = _folder(tmp_path, FILES, broken_at)
    tuning = _tuning(tasks_per_job, piece_chunks)
    for seed in range(10):
        jobs = 2 + seed % 2
        settings = RunSettings(jobs=jobs, tuning=tuning, pool=scheduled(seed))
        report = _same_as_serial(folder, store, settings)
        broken = [f for f in report.findings if f.rule == "yaml"]
        assert len(broken) == (broken_at is not None)


@pytest.mark.parametrize("broken_at", [0, 5, FILES - 1])
def test_forked_workers_give_the_serial_findings(
    tmp_path: Path, store: Any, broken_at: int
) -> None:
    """The same with real forked workers (whatever order they answer in)."""
    folder = _folder(tmp_path, FILES, broken_at)
    for tasks_per_job, piece_chunks in [(0, 9), (4, 4), (2, 1)]:
        settings = RunSettings(jobs=2, tuning=_tuning(tasks_per_job, piece_chunks), pool=fork_pool)
        _same_as_serial(folder, store, settings)
