"""``validate --against REV``: paths new or hidden at REV, unreadable old files, links, damaged
repositories and the ClusterClass namespace, each on a temporary git repository."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from generator.errors import InputOutputError
from generator.history.revision import read_revision
from tests.gitrepo import GitRepo
from tests.validate.test_against import CLASS, LEGACY, USER

ENV = {"PATH": os.environ.get("PATH", os.defpath)}


def _repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str]) -> GitRepo:
    """A repository whose HEAD~1 holds ``files`` and HEAD the same plus nothing; cwd is its top."""
    repo = GitRepo(tmp_path / "repo")
    for name, text in files.items():
        repo.write(name, text)
    repo.commit("first")
    repo.commit("second")
    monkeypatch.chdir(repo.root)
    return repo


def test_a_named_hidden_folder_is_compared(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_cli: Any
) -> None:
    repo = _repo(tmp_path, monkeypatch, {".config/d/demo.yaml": LEGACY})
    repo.write(".config/d/demo.yaml", LEGACY.replace("location: westeurope", "location: x"))
    result = run_cli(["validate", ".config/d", "--against", "HEAD"])
    assert result.exit_code == 1, result.stdout + result.stderr
    assert "CAPZ-UPDATE-MCP-IMMUTABLE" in result.stdout


def test_a_path_new_since_rev_is_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_cli: Any
) -> None:
    repo = _repo(tmp_path, monkeypatch, {"clusters/demo.yaml": LEGACY})
    repo.write("moved/demo.yaml", LEGACY)
    result = run_cli(["validate", "moved", "--against", "HEAD"])
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "moved did not exist at HEAD; every object is checked as new" in result.stdout
    strict = run_cli(["validate", "moved", "--against", "HEAD", "--fail-on", "warning"])
    assert strict.exit_code == 1


def test_a_link_at_rev_is_set_aside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_cli: Any
) -> None:
    repo = _repo(tmp_path, monkeypatch, {})
    outside = tmp_path / "outside.yaml"
    outside.write_text("kind: Secret\n")
    repo.write("clusters/demo.yaml", LEGACY)
    (repo.root / "clusters" / "link.yaml").symlink_to(outside)
    repo.commit("with a link")
    (repo.root / "clusters" / "link.yaml").unlink()
    result = run_cli(["validate", "clusters", "--against", "HEAD"])
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "not read: symbolic link at HEAD:clusters/link.yaml" in result.stdout
    assert "[delete]" not in result.stdout  # the old demo.yaml was read and kept


@pytest.mark.parametrize(
    ("old", "said"),
    [
        (b"kind: A\nx: [\n", "HEAD:clusters/demo.yaml:"),
        (b"kind: A\n\xff\xfe\x00bin", "HEAD:clusters/demo.yaml"),
    ],
)
def test_an_unreadable_old_file_is_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_cli: Any, old: bytes, said: str
) -> None:
    repo = _repo(tmp_path, monkeypatch, {})
    (repo.root / "clusters").mkdir()
    (repo.root / "clusters" / "demo.yaml").write_bytes(old)
    repo.commit("broken")
    repo.write("clusters/demo.yaml", LEGACY)
    result = run_cli(["validate", "clusters", "--against", "HEAD"])
    assert result.exit_code == 2, result.stdout + result.stderr
    assert said in result.stderr and "--against HEAD:" in result.stderr
    assert result.stdout == ""


def test_an_unreadable_old_path_is_exit_2(tmp_path: Path, run_cli: Any) -> None:
    old, new = tmp_path / "old.yaml", tmp_path / "new.yaml"
    old.write_text("kind: A\nx: [\n")
    new.write_text(LEGACY)
    result = run_cli(["validate", str(new), "--against", str(old)])
    assert result.exit_code == 2, result.stdout + result.stderr
    assert f"{old}:" in result.stderr and f"--against {old}:" in result.stderr


def test_a_missing_object_is_an_input_error(tmp_path: Path) -> None:
    """A blob git lists but cannot read (a damaged repository, a partial clone) names REV:path."""
    repo = GitRepo(tmp_path / "repo")
    repo.write("clusters/a.yaml", "kind: A\n")
    repo.commit()
    oid = repo.git("rev-parse", "HEAD:clusters/a.yaml").strip()
    (repo.root / ".git" / "objects" / oid[:2] / oid[2:]).unlink()
    with pytest.raises(InputOutputError, match="cannot read this file") as caught:
        read_revision(repo.root / "clusters", "HEAD", environ=ENV)
    assert "HEAD:clusters/a.yaml" in str(caught.value)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to chown")
def test_a_refused_repository_says_why(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.write("a.yaml", "kind: A\n")
    repo.commit()
    for folder, _dirs, files in os.walk(repo.root):
        for name in [folder, *(os.path.join(folder, f) for f in files)]:
            os.lchown(name, 12345, 12345)
    with pytest.raises(InputOutputError, match="dubious ownership"):
        read_revision(repo.root, "HEAD", environ=ENV)


def test_an_option_like_revision_names_against(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.commit()
    with pytest.raises(Exception, match="--against '--output=x': not a revision"):
        read_revision(repo.root, "--output=x", environ=ENV)


OTHER_CLASS = "---\n" + CLASS.replace("namespace: default", "namespace: other")
V1BETA1 = "    class: aks\n    classNamespace: other\n"


@pytest.mark.parametrize(
    ("user", "in_use"),
    [
        (USER, False),  # c1 in default uses default/aks, not other/aks
        (USER.replace("classRef: {name: aks}", "classRef: {name: aks, namespace: other}"), True),
        (USER.replace("    classRef: {name: aks}\n", V1BETA1), True),
    ],
)
def test_a_clusterclass_is_matched_by_namespace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_cli: Any, user: str, in_use: bool
) -> None:
    """Deleting other/aks while c1 uses default/aks is allowed; naming other/aks is not."""
    repo = _repo(tmp_path, monkeypatch, {"clusters/demo.yaml": CLASS + OTHER_CLASS + user})
    repo.write("clusters/demo.yaml", CLASS + user)
    out = run_cli(["validate", "clusters", "--against", "HEAD"]).stdout
    assert ("CAPZ-DELETE-CLUSTERCLASS" in out) is in_use, out
