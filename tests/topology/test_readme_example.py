"""The README's two-command example, run as printed in a repository whose ``origin/main`` holds
a ClusterClass and a Cluster of it, and whose work tree lowers the Cluster's version."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest

from tests.gitrepo import GitRepo, git_env
from tests.topology.topology_testing import capz_inputs

README = Path(__file__).resolve().parents[2] / "README.md"


def _example() -> list[list[str]]:
    """The commands of the README block that uses ``--against origin/main``."""
    blocks = re.findall(r"```sh\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    (block,) = [b for b in blocks if "--against origin/main" in b]
    return [shlex.split(line, comments=True) for line in block.splitlines() if line.strip()]


def test_the_readme_shows_two_commands() -> None:
    assert [argv[:3] for argv in _example()] == [
        ["capzgen", "validate", "clusters/"],
        ["capzgen", "topology", "plan"],
    ]


@pytest.fixture
def repo(tmp_path: Path, corpus_dir: Path, monkeypatch: pytest.MonkeyPatch) -> GitRepo:
    repo = GitRepo(tmp_path / "repo")
    repo.write("clusters/inputs.yaml", capz_inputs(corpus_dir))
    repo.commit("class and cluster")
    repo.git("update-ref", "refs/remotes/origin/main", "HEAD")
    text = (repo.root / "clusters" / "inputs.yaml").read_text(encoding="utf-8")
    lowered = re.sub(r"(\n    version: )v1\.(\d+)\.", lambda m: f"{m[1]}v1.{int(m[2]) - 1}.", text)
    assert lowered != text
    repo.write("clusters/inputs.yaml", lowered)
    monkeypatch.chdir(repo.root)
    return repo


@pytest.mark.parametrize("index", [0, 1])
def test_each_command_refuses_the_downgrade(run_cli: Any, repo: GitRepo, index: int) -> None:
    argv = _example()[index][1:]
    result = run_cli(argv, env={"PATH": git_env(repo.root.parent)["PATH"]})
    assert result.exit_code == 1, result.stderr
    # validate reports on stdout, a plan's findings go to stderr beside the diff on stdout
    said = result.stdout + result.stderr
    assert "version cannot be lowered" in said
    assert "(was origin/main:" in said
