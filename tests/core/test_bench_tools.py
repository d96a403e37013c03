"""The measuring tools ``make bench`` runs besides its timings: ``benchmarks/floor.py`` (the YAML
parse and JSON Schemas alone) must check what it claims to check, and ``benchmarks/stages.py``
must run every stage it names (the timings themselves live in the bench, never here)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from benchmarks import floor, run, stages
from benchmarks.inputs import TEMPLATE, cluster_text
from benchmarks.interleaved import Command, contest
from generator.kubeconform.process import store_layout
from tests.processes import run_reaped

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("broken", "status"), [(None, 0), ("top", 1), ("embedded", 1)])
def test_the_floor_validates_every_object_and_embedded_resource(
    tmp_path: Path, store: Any, broken: str | None, status: int
) -> None:
    """Three clusters on every core: a valid fleet passes; a bad top-level field or a bad field
    of an embedded ManagedCluster, in the last cluster (another process's share), fails."""
    template = TEMPLATE.read_text(encoding="utf-8")
    clusters = [cluster_text(template, f"floor-{i}") for i in range(3)]
    if broken == "top":
        clusters[-1] = clusters[-1].replace("  controlPlaneRef:", "  controlPlaneRf:", 1)
    elif broken == "embedded":
        clusters[-1] = clusters[-1].replace("dnsPrefix:", "dnsPrefx:", 1)
    fleet = tmp_path / "fleet.yaml"
    fleet.write_text("---\n".join(clusters), encoding="utf-8")
    assert broken is None or clusters[-1] != cluster_text(template, "floor-2")
    with store_layout(store) as layout:
        assert floor.main([str(layout), str(fleet)]) == status


def test_the_stage_breakdown_runs_every_stage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    template = TEMPLATE.read_text(encoding="utf-8")
    fleet = tmp_path / "fleet.yaml"
    fleet.write_text("---\n".join(cluster_text(template, f"s-{i}") for i in range(2)))
    assert stages.main([str(fleet)]) == 0
    printed = capsys.readouterr().out
    for stage in ("start-up", "YAML: parse (", "partition keys", "union-find", "CEL", "total"):
        assert stage in printed
    assert len(printed.splitlines()) == 10


def test_make_bench_runs_the_stage_breakdown_in_a_process_of_its_own(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``make bench`` runs ``python -m`` from the checkout, whose ``generator`` would come first
    on the path: the breakdown runs in a process of its own, from the fleet's folder, so that it
    measures the build ``PYTHONPATH`` names (the compiled one), as the timed commands do."""
    template = TEMPLATE.read_text(encoding="utf-8")
    fleet = tmp_path / "fleets" / "fleet.yaml"
    fleet.parent.mkdir()
    fleet.write_text(cluster_text(template, "s-0"))
    seen = tmp_path / "cwd"
    original = stages.main

    def main(argv: list[str]) -> int:
        seen.write_text(str(Path.cwd()))
        return original(argv)

    monkeypatch.setattr(stages, "main", main)  # this process's copy only: not the script's
    run.stages_of(fleet, dict(os.environ))
    printed = capfd.readouterr().out
    assert "union-find" in printed and "total" in printed
    assert not seen.exists(), "the breakdown ran in a process of its own"
    # a relative PYTHONPATH entry (build/compiled/site) names the build from here, not from the
    # fleet's folder: here it is a stand-in that says so
    shadow = tmp_path / "shadow" / "generator"
    shadow.mkdir(parents=True)
    imported = tmp_path / "imported"
    (shadow / "__init__.py").write_text(
        f"open({str(imported)!r}, 'w').close()\nraise SystemExit(3)\n"
    )
    monkeypatch.chdir(tmp_path)
    with pytest.raises(subprocess.CalledProcessError):
        run.stages_of(fleet, {**os.environ, "PYTHONPATH": "shadow"})
    assert imported.exists()


def test_a_contest_runs_every_command_once_a_round_and_compares_them_round_by_round() -> None:
    """Ratios come from runs of the same round; a validator's exit status 1 (findings) is an
    answer when allowed, and any other failure stops the benchmark with the command named."""
    spin = "import time\nend = time.process_time() + 0.02\nwhile time.process_time() < end: pass"
    commands = {
        "idle": Command([sys.executable, "-c", "pass"]),
        "busy": Command([sys.executable, "-c", spin]),
        "findings": Command([sys.executable, "-c", "raise SystemExit(1)"], (0, 1)),
    }
    result = contest(commands, {}, rounds=3)
    assert {name: len(runs) for name, runs in result.samples.items()} == dict.fromkeys(commands, 3)
    assert result.ratio("busy", "idle").cpu > 1.0  # CPU of the child process, from wait4
    assert result.median("busy").cpu >= 0.02
    with pytest.raises(SystemExit, match="raise SystemExit"):
        contest({"broken": Command([sys.executable, "-c", "raise SystemExit(1)"])}, {}, rounds=1)


def test_each_fleet_run_writes_into_a_folder_nothing_was_deleted_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``make bench``'s generate fleet rows: every run into an empty folder gets a new one, the
    rerun goes into the first, and all are removed only after the last run (a run right after
    10,000 deletions timed ext4's inode allocator, not capzgen)."""
    from benchmarks import inputs, run

    monkeypatch.setattr(inputs, "WORK", tmp_path)
    monkeypatch.setattr(run, "WORK", tmp_path)
    seen: list[tuple[str, bool]] = []

    def fake(argv: list[str], env: dict[str, str]) -> run.Run:
        out = Path(argv[argv.index("--output-dir") + 1])
        seen.append((out.name, out.exists()))
        out.mkdir(parents=True, exist_ok=True)
        (out / "cluster.yaml").write_text("kind: Cluster\n")
        return run.Run(1.0, 10.0)

    monkeypatch.setattr(run, "run_once", fake)
    rows = run.fleet_rows({})
    fresh = seen[:9]
    assert [name for name, _ in fresh] == [f"run-{n}" for n in range(9)]
    assert not any(existed for _, existed in fresh)
    assert seen[9:] == [("run-0", True)] * 3
    assert not (tmp_path / "fleet-out").exists()
    assert [row.met for row in rows] == [True, False, True]  # equal fake times: -j 2 not faster


ORPHAN = """
import json, os, sys, time
from benchmarks.tree import run_tree
burn = (
    "import os, time\\n"
    "if os.fork() == 0:\\n"  # the child outlives the command, burning CPU, then ends
    "    end = time.process_time() + 0.3\\n"
    "    while time.process_time() < end: pass\\n"
    "    os._exit(0)\\n"
    "os._exit(0)\\n"
)
done = run_tree([sys.executable, "-c", burn], dict(os.environ))
try:
    os.waitpid(-1, os.WNOHANG)
    left = True
except ChildProcessError:
    left = False
print(json.dumps([done.returncode, done.cpu, left]))
"""


def test_a_run_counts_the_cpu_of_what_its_command_left_behind(tmp_path: Path) -> None:
    """``capzgen validate -j N`` exits without waiting for its workers to give their memory
    back: the benchmark's CPU figure must still hold theirs (benchmarks/tree.py), and nothing
    the command left is left running."""
    finished = run_reaped(
        [sys.executable, "-c", ORPHAN],
        cwd=tmp_path,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
    )
    assert finished.returncode == 0, finished.stderr
    code, cpu, left = json.loads(finished.stdout)
    assert code == 0
    assert cpu >= 0.3  # the orphan's CPU, counted once it ended
    assert not left
