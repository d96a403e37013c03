"""Folder output is all or nothing (generator.output.staging): a full disk, a failing rename, a run killed
mid-switch, leftovers of killed runs, and runs that overlap."""

from __future__ import annotations

import errno
import json
import os
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from generator.errors import InputOutputError
from generator.fleet.file import Fleet, FleetCluster
from generator.fleet.render import ClusterOutcome, FleetResult, write_fleet
from generator.output import staging, staging_support
from generator.output.gitops import MANIFEST_NAME, write_directory
from generator.output.staging import JOURNAL_NAME, STAGING_PREFIX, open_transaction, recover
from tests.gitops.conftest import fail_at, leftovers, stat_dir
from tests.processes import run_reaped

OLD = {f"file-{i:02d}.yaml": f"old {i}\n" for i in range(20)}
# 10 files change, 10 stay, 5 are new; file-19 is no longer generated (deleted).
NEW = {
    **{f"file-{i:02d}.yaml": f"new {i}\n" for i in range(10)},
    **{f"file-{i:02d}.yaml": f"old {i}\n" for i in range(10, 19)},
    **{f"extra-{i}.yaml": f"extra {i}\n" for i in range(5)},
}
STAGED_FILES = 10 + 5 + 1  # changed, new, manifest


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    out = tmp_path / "out"
    write_directory(out, OLD, force=False)
    (out / "README.md").write_text("mine\n")  # not capzgen's: never touched
    return out


# --- a full disk ---------------------------------------------------------------------------------

ENOSPC_POINTS = sorted(random.Random(13).sample(range(STAGED_FILES + 2), 8))


@pytest.mark.parametrize("call", ENOSPC_POINTS)
def test_full_disk_while_staging_leaves_the_folder_exactly_as_it_was(
    folder: Path, monkeypatch: pytest.MonkeyPatch, call: int
) -> None:
    # Calls: the owner record, the staged files (in threads, in any order), the journal.
    before = stat_dir(folder)
    monkeypatch.setattr(staging, "write_new_file", fail_at(call)(staging.write_new_file))
    with pytest.raises(InputOutputError, match="No space left on device"):
        write_directory(folder, NEW, force=False)
    assert stat_dir(folder) == before  # same bytes and mtimes, and no staging folder
    monkeypatch.undo()
    summary = write_directory(folder, NEW, force=False)
    assert (summary.written, summary.unchanged, summary.removed) == (15, 9, 1)
    assert {n: (folder / n).read_text() for n in NEW} == NEW
    assert not (folder / "file-19.yaml").exists()
    assert leftovers(folder) == []


@pytest.mark.parametrize("call", [0, 3, STAGED_FILES + 1])
def test_full_disk_on_a_new_folder_leaves_no_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, call: int
) -> None:
    out = tmp_path / "a" / "b" / "out"
    monkeypatch.setattr(staging, "write_new_file", fail_at(call)(staging.write_new_file))
    with pytest.raises(InputOutputError, match="No space left on device"):
        write_directory(out, NEW, force=False)
    assert os.listdir(tmp_path) == []  # the folders it made are gone again


@pytest.mark.parametrize("call", sorted(random.Random(7).sample(range(3 * 9 + 2), 6)))
def test_full_disk_during_a_fleet_write_changes_no_cluster(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, call: int
) -> None:
    out = tmp_path / "fleet"
    write_fleet(fleet_result(["east", "west"], "v1"), out, force=False)
    before = stat_dir(out)
    update = fleet_result(["east", "west", "north"], "v2")  # two changed clusters, one new
    monkeypatch.setattr(staging, "write_new_file", fail_at(call)(staging.write_new_file))
    with pytest.raises(InputOutputError, match="No space left on device"):
        write_fleet(update, out, force=False)
    assert stat_dir(out) == before
    monkeypatch.undo()
    write_fleet(update, out, force=False)
    assert (out / "north" / "b.yaml").read_text() == "north b v2\n"
    assert leftovers(out) == []


def fleet_result(names: list[str], version: str) -> FleetResult:
    clusters = tuple(FleetCluster(name=name, index=i) for i, name in enumerate(names))
    outcomes = [
        ClusterOutcome(
            name=name,
            index=i,
            files={f"{f}.yaml": f"{name} {f} {version}\n" for f in "abcdefgh"},
        )
        for i, name in enumerate(names)
    ]
    return FleetResult(
        fleet=Fleet(source="fleet.yaml", clusters=clusters),
        outcomes=outcomes,
        findings=[],
        errors=[],
    )


def test_full_disk_through_the_cli_is_exit_code_2(
    run_cli: Any, schema_args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.gitops.conftest import BASE_ARGS

    out = tmp_path / "out"
    args = ["generate", "cluster", "demo", *BASE_ARGS, *schema_args, "--output-dir", str(out)]
    assert run_cli(args).exit_code == 0
    before = stat_dir(out)
    monkeypatch.setattr(staging, "write_new_file", fail_at(2)(staging.write_new_file))
    result = run_cli([*args, "--worker-machine-count", "5"])
    assert result.exit_code == 2
    assert "cannot write: No space left on device" in result.stderr
    assert stat_dir(out) == before


# --- failures during the switch ------------------------------------------------------------------

# 10 changed files (2 renames each), 5 new (1), 1 deletion (1), the manifest (2).
SWITCH_RENAMES = 10 * 2 + 5 + 1 + 2


@pytest.mark.parametrize("call", [0, 1, 7, 20, SWITCH_RENAMES - 1])
def test_failing_rename_is_undone_in_process(
    folder: Path, monkeypatch: pytest.MonkeyPatch, call: int
) -> None:
    before = stat_dir(folder)
    monkeypatch.setattr(staging, "rename", fail_at(call, errno.EIO)(staging.rename))
    with pytest.raises(InputOutputError, match="Input/output error"):
        write_directory(folder, NEW, force=False)
    assert stat_dir(folder) == before  # renamed back: same bytes, same mtimes


def test_when_undoing_fails_too_the_next_run_restores_the_folder(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = stat_dir(folder)
    real = staging.rename
    calls = [0]

    def broken_after_ten(source: Path, target: Path) -> None:
        calls[0] += 1
        if calls[0] > 10:
            raise OSError(errno.EIO, "Input/output error")
        real(source, target)

    monkeypatch.setattr(staging, "rename", broken_after_ten)
    with pytest.raises(InputOutputError, match="the next capzgen run writing this folder restores"):
        write_directory(folder, NEW, force=False)
    assert len(list(folder.glob(f"{STAGING_PREFIX}*/{JOURNAL_NAME}"))) == 1
    monkeypatch.undo()
    recover(folder)
    assert stat_dir(folder) == before
    write_directory(folder, NEW, force=False)
    assert leftovers(folder) == []


class Killed(BaseException):
    """Stands for SIGKILL: nothing after it runs, not even the rollback."""


@pytest.mark.parametrize("call", range(SWITCH_RENAMES + 1))
def test_a_switch_killed_after_any_rename_is_undone_by_the_next_run(
    folder: Path, monkeypatch: pytest.MonkeyPatch, call: int
) -> None:
    before = stat_dir(folder)
    real_rename = staging.rename
    calls = [0]

    def dying_rename(source: Path, target: Path) -> None:
        if calls[0] == call:
            raise Killed
        calls[0] += 1
        real_rename(source, target)

    def dying_roll_back(*args: Any) -> None:
        raise Killed

    def dying_remove_journal(path: Path) -> None:
        raise Killed  # the commit (removing the journal) never happens

    monkeypatch.setattr(staging, "rename", dying_rename)
    monkeypatch.setattr(staging, "roll_back", dying_roll_back)
    monkeypatch.setattr(staging, "remove_journal", dying_remove_journal)
    with pytest.raises(InputOutputError):
        write_directory(folder, NEW, force=False)
    assert len(list(folder.glob(f"{STAGING_PREFIX}*/{JOURNAL_NAME}"))) == 1
    monkeypatch.undo()
    # What every run writing the folder does first, here also killed once half-way.
    monkeypatch.setattr(staging, "rename", fail_at(call // 2, errno.EIO)(staging.rename))
    if call:
        with pytest.raises(InputOutputError, match="cannot undo an interrupted capzgen write"):
            recover(folder)
    monkeypatch.undo()
    recover(folder)
    assert stat_dir(folder) == before
    write_directory(folder, NEW, force=False)
    assert {n: (folder / n).read_text() for n in NEW} == NEW
    assert leftovers(folder) == []


# --- leftovers of killed runs --------------------------------------------------------------------


def dead_pid() -> int:
    done = run_reaped([sys.executable, "-c", "import os; print(os.getpid())"])
    assert done.returncode == 0, done.stderr
    return int(done.stdout)


def make_stray_staging(
    folder: Path, *, pid: int, journal: list[dict[str, Any]] | None = None
) -> Path:
    stray = folder / f"{STAGING_PREFIX}0123456789ab"
    (stray / "new").mkdir(parents=True)
    (stray / "old").mkdir()
    (stray / "new" / "0").write_text("half\n")
    (stray / "owner.json").write_text(
        json.dumps({"pid": pid, "host": os.uname().nodename, "created": 0})
    )
    if journal is not None:
        (stray / JOURNAL_NAME).write_text(json.dumps({"version": 1, "steps": journal}))
    return stray


def test_stray_staging_folders_and_old_temporary_files_are_removed(folder: Path) -> None:
    make_stray_staging(folder, pid=dead_pid())
    (folder / ".file-01.yaml.0123456789ab.tmp").write_text("half\n")
    (folder / ".notes.tmp").write_text("mine\n")  # not capzgen's temporary-file pattern
    write_directory(folder, NEW, force=False)
    assert leftovers(folder) == []
    assert not (folder / ".file-01.yaml.0123456789ab.tmp").exists()
    assert (folder / ".notes.tmp").read_text() == "mine\n"
    assert (folder / "README.md").read_text() == "mine\n"


def test_a_fleet_switch_interrupted_above_a_cluster_folder_is_undone_by_a_cluster_run(
    tmp_path: Path,
) -> None:
    out = tmp_path / "fleet"
    write_fleet(fleet_result(["east", "west"], "v1"), out, force=False)
    before = stat_dir(out)
    # The fleet's run died after moving east/a.yaml aside and the new one in.
    stray = make_stray_staging(
        out, pid=dead_pid(), journal=[{"path": "east/a.yaml", "new": True, "old": True}]
    )
    os.replace(out / "east" / "a.yaml", stray / "old" / "0")
    os.replace(stray / "new" / "0", out / "east" / "a.yaml")
    recover(out / "west")  # a journal not touching west: not this run's business
    assert (out / "east" / "a.yaml").read_text() == "half\n"
    write_directory(out / "east", {f"{f}.yaml": f"east {f} v1\n" for f in "abcdefgh"}, force=False)
    assert stat_dir(out) == before


def test_a_damaged_journal_is_an_io_error_with_a_way_out(folder: Path) -> None:
    stray = make_stray_staging(folder, pid=dead_pid())
    (stray / JOURNAL_NAME).write_text('{"version": 1, "steps": [{"path": "../../x"}]}')
    with pytest.raises(
        InputOutputError, match="journal of an interrupted capzgen write is damaged"
    ) as raised:
        write_directory(folder, NEW, force=False)
    assert raised.value.hint is not None and str(stray) in raised.value.hint


# --- overlapping runs ----------------------------------------------------------------------------


SHORT_WAIT = 0.2  # seconds a test's second run waits for the first


def test_a_second_run_on_the_same_folders_waits_for_the_first(tmp_path: Path) -> None:
    fleet = tmp_path / "fleet"
    with open_transaction(fleet):
        for other in (fleet, fleet / "east"):  # the same fleet, or one of its cluster folders
            with (
                pytest.raises(InputOutputError, match="another capzgen run is writing"),
                open_transaction(other, lock_wait=SHORT_WAIT),
            ):
                pass
    with open_transaction(fleet / "east"):
        pass


def test_a_live_run_keeps_its_staging_folder(folder: Path) -> None:
    with open_transaction(folder) as transaction:
        transaction.write(folder / "x.yaml", "x\n")
        transaction._make_staging()  # stopped before the switch, still running
        with pytest.raises(InputOutputError, match="another capzgen run is writing"):
            recover(folder, lock_wait=SHORT_WAIT)
        assert len(leftovers(folder)) == 1
    assert leftovers(folder) == []


def test_without_locks_only_a_gone_owner_s_staging_is_removed(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(staging_support, "fcntl", None)  # a file system without flock
    stray = make_stray_staging(folder, pid=os.getpid())  # its owner (this process) is alive
    with pytest.raises(InputOutputError, match="may be writing here") as raised:
        recover(folder)
    assert raised.value.hint is not None and f"delete {stray}" in raised.value.hint
    (stray / "owner.json").write_text(
        json.dumps({"pid": dead_pid(), "host": os.uname().nodename, "created": 0})
    )
    recover(folder)
    assert leftovers(folder) == []


# --- what is kept --------------------------------------------------------------------------------


def test_unchanged_files_and_modes_are_kept(folder: Path) -> None:
    (folder / "file-00.yaml").chmod(0o600)
    before = stat_dir(folder)
    write_directory(folder, NEW, force=False)
    after = stat_dir(folder)
    assert (folder / "file-00.yaml").stat().st_mode & 0o777 == 0o600
    unchanged = [n for n in NEW if NEW[n] == OLD.get(n)]
    assert len(unchanged) == 9
    assert all(after[n] == before[n] for n in unchanged)
    assert after["README.md"] == before["README.md"]
    assert json.loads((folder / MANIFEST_NAME).read_text())["files"].keys() == NEW.keys()


@pytest.mark.skipif(not Path("/dev/shm").is_dir(), reason="needs a second file system")
def test_a_cluster_folder_linked_to_another_file_system_is_refused_before_anything_moves(
    tmp_path: Path,
) -> None:
    import tempfile

    out = tmp_path / "fleet"
    write_fleet(fleet_result(["east"], "v1"), out, force=False)
    with tempfile.TemporaryDirectory(dir="/dev/shm") as elsewhere:
        if os.stat(elsewhere).st_dev == os.stat(tmp_path).st_dev:
            pytest.skip("/dev/shm is on the same file system")
        (out / "west").symlink_to(elsewhere)
        before = stat_dir(out)
        with pytest.raises(InputOutputError, match="west is a symbolic link"):
            write_fleet(fleet_result(["east", "west"], "v2"), out, force=False)
        assert stat_dir(out) == before
        assert os.listdir(elsewhere) == []


def test_the_current_folder_can_be_the_output_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write_directory(Path("."), OLD, force=False)
    summary = write_directory(Path("."), NEW, force=False)
    assert (summary.written, summary.unchanged, summary.removed) == (15, 9, 1)
    assert {n: Path(n).read_text() for n in NEW} == NEW
    assert leftovers(tmp_path) == []


def test_many_files_are_flushed_with_one_syncfs_or_else_one_fsync_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A large folder write flushes its file system once; where syncfs is missing or fails,
    every staged file is fsynced instead, before anything is switched in."""
    import generator.output.staging as staging_module

    files = {f"c{i}/f.yaml": f"n: {i}\n" for i in range(staging_support.SYNCFS_FROM + 4)}
    synced: list[Path] = []
    real = staging_support.sync_file_system

    def spy_sync(folder: Path) -> bool:
        synced.append(folder)
        return real(folder)

    monkeypatch.setattr(staging_module, "sync_file_system", spy_sync)
    write_directory(tmp_path / "a", files, force=False)
    assert len(synced) == 1
    assert (tmp_path / "a" / "c3" / "f.yaml").read_text() == "n: 3\n"

    fsynced: list[int] = []
    real_fsync = os.fsync

    def spy_fsync(fd: int) -> None:
        fsynced.append(fd)
        real_fsync(fd)

    monkeypatch.setattr(staging_module, "sync_file_system", lambda folder: False)
    monkeypatch.setattr(os, "fsync", spy_fsync)
    write_directory(tmp_path / "b", files, force=False)
    assert len(fsynced) >= len(files)
    assert (tmp_path / "b" / "c5" / "f.yaml").read_text() == "n: 5\n"


# --- the real folder -----------------------------------------------------------------------------


def test_a_failed_run_removes_its_staging_where_the_output_link_pointed_at_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The output folder is a link, swapped to another folder during a run that then fails: the
    run undoes its switch and removes its staging folder in the folder it started writing, and
    the folder the link points to now is not touched."""
    first, second, link = tmp_path / "first", tmp_path / "second", tmp_path / "out"
    write_directory(first, OLD, force=False)
    write_directory(second, OLD, force=False)
    link.symlink_to(first)
    before_first, before_second = stat_dir(first), stat_dir(second)
    real = staging.rename
    calls = [0]

    def swap_then_fail(source: Path, target: Path) -> None:
        calls[0] += 1
        if calls[0] == 3:  # a few files switched in: the link moves, then the disk fails
            link.unlink()
            link.symlink_to(second)
            raise OSError(errno.ENOSPC, "No space left on device")
        real(source, target)

    monkeypatch.setattr(staging, "rename", swap_then_fail)
    with pytest.raises(InputOutputError, match="No space left on device"):
        write_directory(link, NEW, force=False)
    assert stat_dir(first) == before_first
    assert stat_dir(second) == before_second
    assert leftovers(first) == [] and leftovers(second) == []


def test_staging_folders_below_a_linked_subfolder_are_not_recovered(tmp_path: Path) -> None:
    """A cluster folder that is a link to elsewhere: what is there is not capzgen's to remove."""
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    out.mkdir()
    stray = elsewhere / f"{STAGING_PREFIX}0123456789ab"
    (stray / "new").mkdir(parents=True)
    (elsewhere / ".keep.0123456789ab.tmp").write_text("not capzgen's\n")
    (out / "east").symlink_to(elsewhere)
    recover(out, subfolders=[out / "east"])
    assert stray.is_dir()
    assert (elsewhere / ".keep.0123456789ab.tmp").exists()


def test_a_switch_undone_after_rendering_stops_a_fleet_that_skipped_its_clusters(
    tmp_path: Path,
) -> None:
    """The skip decision was taken before another run's interrupted switch was undone (it was
    killed in between): the folder a skipped cluster left alone is no longer what was checked,
    so nothing is written and the run says why."""
    out = tmp_path / "fleet"
    first = fleet_result(["east", "west"], "v1")
    for outcome in first.outcomes:
        outcome.inputs = f"sha256:{outcome.name}"
    write_fleet(first, out, force=False)
    second = fleet_result(["east", "west"], "v2")
    east = second.outcomes[0]
    east.files, east.skipped, east.inputs, east.kept_files = {}, True, "sha256:east", 8
    second.outcomes[1].inputs = "sha256:west-2"
    planted = out / f"{STAGING_PREFIX}0123456789ab"
    (planted / "new").mkdir(parents=True)
    (planted / "old").mkdir()
    (planted / "old" / "0").write_text("what the killed run moved aside\n")
    step = {"path": "east/a.yaml", "new": True, "old": True}
    (planted / JOURNAL_NAME).write_text(json.dumps({"steps": [step], "version": 1}))
    with pytest.raises(InputOutputError, match="1 cluster folder changed while this run rendered"):
        write_fleet(second, out, force=False)
    assert (out / "west" / "a.yaml").read_text() == "west a v1\n"  # nothing written
    assert leftovers(out) == []
