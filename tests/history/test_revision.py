"""read_revision: the files under a path at a git revision, bounded, links refused."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from generator.errors import ExitCode, InputOutputError, UsageError
from generator.history.revision import HistoryLimits, _batch_header, _Entry, read_revision
from tests.gitrepo import GitRepo

ENV = {"PATH": os.environ.get("PATH", os.defpath)}


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    repo = GitRepo(tmp_path / "repo")
    repo.write("clusters/a.yaml", "kind: A\n")
    repo.write("clusters/b.yml", "kind: B\n")
    repo.write("clusters/notes.txt", "not yaml\n")
    repo.write("clusters/.hidden/c.yaml", "kind: C\n")
    repo.write("other/d.yaml", "kind: D\n")
    repo.commit("first")
    repo.write("clusters/a.yaml", "kind: A2\n")
    repo.write("clusters/new.yaml", "kind: N\n")
    repo.commit("second")
    return repo


def test_a_folder_at_the_previous_revision(repo: GitRepo) -> None:
    files = read_revision(repo.root / "clusters", "HEAD~1", environ=ENV).files
    assert [(f.name, f.display, f.data) for f in files] == [
        ("clusters/a.yaml", "HEAD~1:clusters/a.yaml", b"kind: A\n"),
        ("clusters/b.yml", "HEAD~1:clusters/b.yml", b"kind: B\n"),
    ]


def test_a_single_file_and_a_file_that_did_not_exist_then(repo: GitRepo) -> None:
    (only,) = read_revision(repo.root / "clusters" / "a.yaml", "HEAD", environ=ENV).files
    assert only.data == b"kind: A2\n"
    missing = read_revision(repo.root / "clusters" / "new.yaml", "HEAD~1", environ=ENV)
    assert missing.files == () and not missing.existed


def test_the_whole_repository_from_its_top(repo: GitRepo) -> None:
    names = [f.name for f in read_revision(repo.root, "HEAD~1", environ=ENV).files]
    assert names == ["clusters/a.yaml", "clusters/b.yml", "other/d.yaml"]


def test_the_work_tree_is_not_read(repo: GitRepo) -> None:
    """Uncommitted changes are invisible: the revision is what git stored."""
    repo.write("clusters/a.yaml", "kind: Uncommitted\n")
    (only,) = read_revision(repo.root / "clusters" / "a.yaml", "HEAD", environ=ENV).files
    assert only.data == b"kind: A2\n"


def test_an_unknown_revision_is_a_usage_error(repo: GitRepo) -> None:
    with pytest.raises(UsageError, match="unknown revision 'nope'") as caught:
        read_revision(repo.root, "nope", environ=ENV)
    assert caught.value.exit_code is ExitCode.USAGE


@pytest.mark.parametrize("rev", ["--output=/tmp/x", "", "a\nb"])
def test_option_like_revisions_are_refused_before_git_sees_them(repo: GitRepo, rev: str) -> None:
    with pytest.raises(UsageError, match="not a revision"):
        read_revision(repo.root, rev, environ=ENV)


def test_a_path_outside_any_repository(tmp_path: Path) -> None:
    outside = tmp_path / "plain"
    outside.mkdir()
    with pytest.raises(InputOutputError, match="not inside a git repository") as caught:
        read_revision(outside, "HEAD", environ=ENV)
    assert caught.value.exit_code is ExitCode.USAGE


def test_a_link_blob_is_set_aside_not_followed(tmp_path: Path) -> None:
    """A link names a path the user did not name: it is listed, never read, and the other
    files are still read."""
    repo = GitRepo(tmp_path / "repo")
    secret = tmp_path / "secret.yaml"
    secret.write_text("kind: Secret\n")
    repo.write("clusters/a.yaml", "kind: A\n")
    (repo.root / "clusters" / "link.yaml").symlink_to(secret)
    repo.commit()
    revision = read_revision(repo.root / "clusters", "HEAD", environ=ENV)
    assert [f.name for f in revision.files] == ["clusters/a.yaml"]
    assert revision.links == ("HEAD:clusters/link.yaml",)
    assert revision.existed


def test_a_named_hidden_folder_is_read(tmp_path: Path) -> None:
    """Hidden parts are skipped only below the named path: ``.config/d`` itself is read."""
    repo = GitRepo(tmp_path / "repo")
    repo.write(".config/d/a.yaml", "kind: A\n")
    repo.write(".config/d/.skip/b.yaml", "kind: B\n")
    repo.write(".config/d/.c.yaml", "kind: C\n")
    repo.commit()
    files = read_revision(repo.root / ".config" / "d", "HEAD", environ=ENV).files
    assert [f.name for f in files] == [".config/d/a.yaml"]
    (only,) = read_revision(repo.root / ".config" / "d" / ".c.yaml", "HEAD", environ=ENV).files
    assert only.data == b"kind: C\n"
    assert read_revision(repo.root, "HEAD", environ=ENV).files == ()


def test_sizes_are_bounded_before_reading(repo: GitRepo) -> None:
    with pytest.raises(InputOutputError, match="larger than") as caught:
        read_revision(repo.root / "clusters", "HEAD", HistoryLimits(max_file_bytes=4), environ=ENV)
    assert "HEAD:clusters/a.yaml" in str(caught.value)
    with pytest.raises(InputOutputError, match="more than 1 files"):
        read_revision(repo.root / "clusters", "HEAD", HistoryLimits(max_files=1), environ=ENV)
    with pytest.raises(InputOutputError, match="hold more than"):
        read_revision(
            repo.root / "clusters", "HEAD", HistoryLimits(max_total_bytes=10), environ=ENV
        )


def test_git_config_cannot_run_a_program(tmp_path: Path, repo: GitRepo) -> None:
    """A repository's fsmonitor setting names a program; reading a revision does not run it."""
    marker = tmp_path / "ran"
    script = tmp_path / "monitor.sh"
    script.write_text(f"#!/bin/sh\ntouch {marker}\n")
    script.chmod(0o755)
    repo.git("config", "core.fsmonitor", str(script))
    assert len(read_revision(repo.root / "clusters", "HEAD", environ=ENV).files) == 3
    assert not marker.exists()


def test_missing_git_is_an_io_error(repo: GitRepo, tmp_path: Path) -> None:
    with pytest.raises(InputOutputError, match="git is not installed"):
        read_revision(repo.root, "HEAD", environ={"PATH": str(tmp_path / "empty")})


def test_pathspec_magic_is_literal(tmp_path: Path) -> None:
    """A folder named like a pathspec (``:(glob)*``) is that folder, not a pattern."""
    repo = GitRepo(tmp_path / "repo")
    repo.write(":(glob)x/a.yaml", "kind: A\n")
    repo.write("other.yaml", "kind: O\n")
    repo.commit()
    files = read_revision(repo.root / ":(glob)x", "HEAD", environ=ENV).files
    assert [f.name for f in files] == [":(glob)x/a.yaml"]


@pytest.mark.parametrize(
    ("out", "said"),
    [
        (b"", "no answer"),
        (b"0123 missing\n", "missing"),
        (b"0123 blob 99\nshort", "ended early"),
        (b"0123 tree 4\nabcd\n", "tree"),
    ],
)
def test_a_bad_batch_answer_names_the_file(out: bytes, said: str) -> None:
    """cat-file --batch output that is not ``<oid> blob <size>`` and the bytes is an input
    error naming REV:path (a damaged repository, a partial clone), never an IndexError."""
    entry = _Entry("100644", "blob", "0123", 99, "clusters/a.yaml")
    with pytest.raises(InputOutputError, match=said) as caught:
        _batch_header(out, 0, entry, "HEAD")
    assert caught.value.exit_code is ExitCode.USAGE
    assert "HEAD:clusters/a.yaml" in str(caught.value)
