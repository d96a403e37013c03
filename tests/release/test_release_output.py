"""`capzgen release` writes its folder all at once (generator.output.staging): a full disk changes
nothing, unchanged files are not rewritten, leftovers of killed runs are removed."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from generator.errors import InputOutputError
from generator.generate.release import Release, write_release
from generator.output import staging
from tests.gitops.conftest import fail_at, leftovers, stat_dir


def points(release: Release, seed: int) -> list[int]:
    # Calls of the write function: the owner record, every file, the journal.
    return sorted(random.Random(seed).sample(range(len(release.files) + 2), 4))


def test_full_disk_while_writing_a_new_version_leaves_the_folder_as_it_was(
    release: Release, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "repo"
    (out / "infrastructure-aks" / "v0.2.0").mkdir(parents=True)
    (out / "infrastructure-aks" / "v0.2.0" / "metadata.yaml").write_text("earlier\n")
    before = stat_dir(out)
    for call in points(release, 1):
        monkeypatch.setattr(staging, "write_new_file", fail_at(call)(staging.write_new_file))
        with pytest.raises(InputOutputError, match="No space left on device"):
            write_release(release, out)
        assert stat_dir(out) == before
        assert sorted(p.name for p in (out / "infrastructure-aks").iterdir()) == ["v0.2.0"]
        monkeypatch.undo()
    write_release(release, out)
    assert leftovers(out) == []
    folder = out / release.directory
    assert {p.name: p.read_text() for p in folder.iterdir()} == {
        f.name: f.text for f in release.files
    }


def test_full_disk_while_updating_a_version_changes_no_file(
    release: Release, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "repo"
    write_release(release, out)
    folder = out / release.directory
    for path in sorted(folder.iterdir())[::2]:  # every other file has to be written again
        path.write_text("stale\n")
    before = stat_dir(out)
    for call in points(release, 2)[:2]:
        monkeypatch.setattr(staging, "write_new_file", fail_at(call)(staging.write_new_file))
        with pytest.raises(InputOutputError, match="No space left on device"):
            write_release(release, out)
        assert stat_dir(out) == before
        monkeypatch.undo()
    write_release(release, out)
    after = stat_dir(out)
    rewritten = sorted(name for name in after if after[name] != before[name])
    assert rewritten == sorted(name for name in before if before[name][1] == b"stale\n")
    assert leftovers(out) == []


def test_leftovers_of_the_earlier_release_writer_are_removed(
    release: Release, tmp_path: Path
) -> None:
    out = tmp_path / "repo"
    stray = out / "infrastructure-aks" / f".{release.version}.ab_cd123"  # tempfile.mkdtemp's
    stray.mkdir(parents=True)
    (stray / "metadata.yaml").write_text("half\n")
    other = out / "infrastructure-aks" / ".notes"
    other.mkdir()
    write_release(release, out)
    assert not stray.exists()
    assert other.is_dir()
