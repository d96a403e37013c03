"""`generate fleet` killed with SIGKILL leaves every cluster folder old or every one new.

A real ``python -m generator`` process writes a fleet over an earlier one and is killed at moments
spread over its run (rendering, staging, switching, cleaning up). After each kill the folder, once
the interrupted switch is undone as the next run does first, equals exactly one of the two
known-good outcomes, file by file and digest by digest; a rerun then yields the new one.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from generator.output.staging import JOURNAL_NAME, STAGING_PREFIX, recover
from tests.processes import Finished, run_reaped

OLD_COUNT = 300


def fleet_text(names: list[str], workers: int, small_pools: set[str]) -> str:
    lines = [
        "defaults:",
        "  flavor: aks",
        "  kubernetesVersion: v1.31.1",
        "  namespace: fleet",
        f"  workerMachineCount: {workers}",
        "  values: {AZURE_LOCATION: westeurope}",
        "clusters:",
    ]
    for name in names:
        lines.append(f"  - name: {name}")
        if name in small_pools:
            lines.append("    values: {NODE_POOLS: [{name: system, mode: System}]}")
    return "\n".join(lines) + "\n"


def old_and_new(count: int) -> tuple[str, str, list[str]]:
    """The earlier fleet, the update and the update's cluster names. The update changes the
    MachinePools of every cluster, replaces the node pools of every third (files created and
    deleted), adds clusters and drops a few (their folders are left alone)."""
    old = [f"c{i:03d}" for i in range(count)]
    new = old[count // 30 :] + [f"c{i:03d}" for i in range(count, count + count // 15)]
    small = {name for i, name in enumerate(new) if i % 3 == 0}
    return fleet_text(old, 1, set()), fleet_text(new, 2, small), new


def snapshot(root: Path) -> dict[str, str]:
    """Every folder and file below ``root`` (staging folders left out) -> ``dir`` or its digest."""
    found: dict[str, str] = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(STAGING_PREFIX)]
        base = Path(folder)
        for name in dirs:
            found[(base / name).relative_to(root).as_posix() + "/"] = "dir"
        for name in files:
            data = (base / name).read_bytes()
            found[(base / name).relative_to(root).as_posix()] = hashlib.sha256(data).hexdigest()
    return found


def journals(root: Path) -> list[Path]:
    return sorted(root.glob(f"{STAGING_PREFIX}*/{JOURNAL_NAME}"))


def leftovers(root: Path) -> list[Path]:
    return sorted(root.rglob(f"{STAGING_PREFIX}*"))


@dataclass
class Runner:
    """Runs capzgen in a subprocess with a minimal environment."""

    env: dict[str, str]
    cwd: Path

    def argv(self, fleet: Path, out: Path) -> list[str]:
        return [
            sys.executable,
            "-m",
            "generator",
            "generate",
            "fleet",
            str(fleet),
            "--output-dir",
            str(out),
            "--no-validate",
        ]

    def start(self, argv: list[str]) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            argv,
            env=self.env,
            cwd=self.cwd,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its worker processes are killed with it
        )

    def run(self, argv: list[str]) -> Finished:
        return run_reaped(argv, env=self.env, cwd=self.cwd)


@pytest.fixture
def runner(tmp_path: Path, session_cache: Path) -> Runner:
    env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(tmp_path / "home"),
        "LANG": "C.UTF-8",
        "CAPZGEN_CACHE_DIR": str(session_cache),
    }
    return Runner(env, tmp_path)


def kill(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL the process and its workers (its own session), unless it has already ended."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    assert process.stderr is not None
    process.stderr.close()


def wait_for(process: subprocess.Popen[bytes], seen: Callable[[], bool]) -> None:
    """Poll until ``seen()`` or the process ends."""
    while process.poll() is None and not seen():
        time.sleep(0.002)


def staging_seen(out: Path) -> Callable[[], bool]:
    def seen() -> bool:
        try:
            return any(n.startswith(STAGING_PREFIX) for n in os.listdir(out))
        except OSError:
            return False

    return seen


def journal_seen(out: Path) -> Callable[[], bool]:
    return lambda: bool(journals(out))


def test_kill_9_during_a_300_cluster_fleet_leaves_old_or_new_content(
    runner: Runner, tmp_path: Path
) -> None:
    old_text, new_text, new_names = old_and_new(OLD_COUNT)
    (tmp_path / "old.yaml").write_text(old_text)
    (tmp_path / "new.yaml").write_text(new_text)
    old_fleet, new_fleet = tmp_path / "old.yaml", tmp_path / "new.yaml"

    # The two known-good outcomes; the update's phases are timed on the way.
    earlier = tmp_path / "old"
    done = runner.run(runner.argv(old_fleet, earlier))
    assert done.returncode == 0, done.stderr
    old = snapshot(earlier)
    reference = tmp_path / "new"
    shutil.copytree(earlier, reference)
    started = time.monotonic()
    process = runner.start(runner.argv(new_fleet, reference))
    wait_for(process, staging_seen(reference))
    staged_at = time.monotonic() - started
    wait_for(process, journal_seen(reference))
    switch_at = time.monotonic() - started
    assert process.wait() == 0
    assert process.stderr is not None
    process.stderr.close()
    ended_at = time.monotonic() - started
    new = snapshot(reference)
    assert set(new) - set(old) and set(old) - set(new)  # files created and files deleted
    assert sum(1 for name in old if name in new and old[name] != new[name]) > OLD_COUNT

    # (moment the delay counts from, delay): rendering, staging, switching and cleaning up.
    switching = max(ended_at - switch_at, 0.01)
    moments: list[tuple[str, float]] = [
        ("start", 0.3 * staged_at),
        ("start", 0.8 * staged_at),
        ("staging", 0.0),
        ("staging", 0.5 * max(switch_at - staged_at, 0.0)),
        ("journal", 0.0),
        ("journal", 0.1 * switching),
        ("journal", 0.4 * switching),
        ("journal", 0.8 * switching),
    ]
    outcomes = []
    for number, (event, delay) in enumerate(moments):
        out = tmp_path / f"run-{number}"
        shutil.copytree(earlier, out)
        outcomes.append(kill_and_check(runner, out, (old, new), new_names, new_fleet, event, delay))
    # Which outcome a kill finds is up to the machine's speed; each one must be whole.
    assert set(outcomes) <= {"old", "new", "old after undoing the switch"}
    print(f"\nkill -9 outcomes: {outcomes}")


def kill_and_check(
    runner: Runner,
    out: Path,
    outcomes: tuple[dict[str, str], dict[str, str]],
    names: list[str],
    new_fleet: Path,
    event: str,
    delay: float,
) -> str:
    """Run the update into ``out`` (holding the old outcome), kill it at ``event`` + ``delay``,
    check the folder and rerun; which outcome the kill left."""
    old, new = outcomes
    assert snapshot(out) == old
    process = runner.start(runner.argv(new_fleet, out))
    if event == "staging":
        wait_for(process, staging_seen(out))
    elif event == "journal":
        wait_for(process, journal_seen(out))
    time.sleep(delay)
    kill(process)

    interrupted = bool(journals(out))
    if not interrupted:  # killed before or after the switch: whole even before any recovery
        assert snapshot(out) in (old, new)
    recover(out, subfolders=[out / name for name in names])  # what the next run does first
    after = snapshot(out)
    assert after in (old, new), f"killed at {event}+{delay:.3f}s: a mix of old and new files"
    assert leftovers(out) == []
    if interrupted:
        assert after == old
    outcome = "new" if after == new else ("old after undoing the switch" if interrupted else "old")

    done = runner.run(runner.argv(new_fleet, out))
    assert done.returncode == 0, done.stderr
    assert snapshot(out) == new
    assert leftovers(out) == []
    return outcome


# Runs the CLI with every rename of generator.output.staging counted; the process SIGKILLs itself just
# before rename number argv[1] (0-based), and reports how many renames it made when it ends.
KILL_AT_RENAME = """
import atexit, os, signal, sys
import generator.output.staging as staging
limit, count, real = int(sys.argv[1]), [0], staging.rename
def rename(source, target):
    if count[0] == limit:
        os.kill(os.getpid(), signal.SIGKILL)
    count[0] += 1
    real(source, target)
staging.rename = rename
atexit.register(lambda: print(f"renames={count[0]}", file=sys.stderr))
from generator.cli import main
sys.exit(main(sys.argv[2:]))
"""


def test_kill_9_at_chosen_renames_of_the_switch_and_of_its_undoing(
    runner: Runner, tmp_path: Path
) -> None:
    old_text, new_text, names = old_and_new(30)
    (tmp_path / "old.yaml").write_text(old_text)
    (tmp_path / "new.yaml").write_text(new_text)

    def argv(limit: int, out: Path) -> list[str]:
        return [
            sys.executable,
            "-c",
            KILL_AT_RENAME,
            str(limit),
            *runner.argv(tmp_path / "new.yaml", out)[3:],
        ]

    earlier = tmp_path / "old"
    done = runner.run(runner.argv(tmp_path / "old.yaml", earlier))
    assert done.returncode == 0, done.stderr
    old = snapshot(earlier)
    shutil.copytree(earlier, tmp_path / "new")
    done = runner.run(argv(10**9, tmp_path / "new"))
    assert done.returncode == 0, done.stderr
    renames = int(done.stderr.rpartition("renames=")[2])
    new = snapshot(tmp_path / "new")
    assert renames > 100

    for limit in (0, renames // 2, renames - 1):
        out = tmp_path / f"killed-at-{limit}"
        shutil.copytree(earlier, out)
        killed = runner.run(argv(limit, out))
        assert killed.returncode == -signal.SIGKILL, killed.stderr
        assert len(journals(out)) == 1
        if limit:
            assert snapshot(out) not in (old, new)  # mid-switch: the journal is what saves it
            # The next run starts by undoing those renames, and is killed half-way too.
            again = runner.run(argv(limit // 2, out))
            assert again.returncode == -signal.SIGKILL, again.stderr
            assert len(journals(out)) == 1
        recover(out, subfolders=[out / name for name in names])
        assert snapshot(out) == old
        assert leftovers(out) == []
        done = runner.run(runner.argv(tmp_path / "new.yaml", out))
        assert done.returncode == 0, done.stderr
        assert snapshot(out) == new


def half_changed(count: int) -> tuple[str, str, int]:
    """Fleet A of ``count`` clusters and fleet B, which changes every other one (its location);
    how many clusters B leaves as A wrote them."""
    names = [f"c{i:03d}" for i in range(count)]
    head = fleet_text([], 1, set()).removesuffix("clusters:\n")
    a_lines, b_lines = [head + "clusters:"], [head + "clusters:"]
    for i, name in enumerate(names):
        a_lines.append(f"  - name: {name}")
        b_lines.append(f"  - name: {name}")
        if i % 2 == 0:
            b_lines.append("    values: {AZURE_LOCATION: northeurope}")
    return "\n".join(a_lines) + "\n", "\n".join(b_lines) + "\n", count - (count + 1) // 2


def test_a_rerun_after_kill_9_at_any_rename_never_skips_a_half_switched_cluster(
    runner: Runner, tmp_path: Path
) -> None:
    """Fleet A (40 clusters) is written; fleet B is killed (SIGKILL, by itself, just before its
    rename number N) at points spread over its whole switch; then B is run again, as a user
    would, with no recovery in between. The rerun must first undo the interrupted switch and
    only then decide which clusters are unchanged: it exits 0, the folder is exactly B's
    (no cluster folder left holding A), and it skips exactly the clusters B did not change."""
    a_text, b_text, same = half_changed(40)
    (tmp_path / "a.yaml").write_text(a_text)
    (tmp_path / "b.yaml").write_text(b_text)

    def argv(limit: int, out: Path) -> list[str]:
        return [
            sys.executable,
            "-c",
            KILL_AT_RENAME,
            str(limit),
            *runner.argv(tmp_path / "b.yaml", out)[3:],
        ]

    earlier = tmp_path / "a"
    done = runner.run(runner.argv(tmp_path / "a.yaml", earlier))
    assert done.returncode == 0, done.stderr
    fleet_a = snapshot(earlier)
    reference = tmp_path / "b"
    shutil.copytree(earlier, reference)
    done = runner.run(argv(10**9, reference))
    assert done.returncode == 0, done.stderr
    renames = int(done.stderr.rpartition("renames=")[2])
    fleet_b = snapshot(reference)
    assert f"({same} clusters unchanged, not rendered)" in done.stderr
    changed = {name.partition("/")[0] for name in fleet_b if fleet_a.get(name) != fleet_b[name]}
    assert len(changed) == 40 - same

    for limit in sorted({1, 2, renames // 8, renames // 4, renames // 2, renames - 1}):
        out = tmp_path / f"killed-at-{limit}"
        shutil.copytree(earlier, out)
        killed = runner.run(argv(limit, out))
        assert killed.returncode == -signal.SIGKILL, killed.stderr
        assert len(journals(out)) == 1
        assert snapshot(out) not in (fleet_a, fleet_b)  # mid-switch: a mixed folder on disk
        again = runner.run(runner.argv(tmp_path / "b.yaml", out))
        message = again.stderr
        assert again.returncode == 0, message
        assert snapshot(out) == fleet_b, f"killed before rename {limit}: a cluster holds A"
        assert f"({same} clusters unchanged, not rendered)" in message, message
        assert leftovers(out) == []
