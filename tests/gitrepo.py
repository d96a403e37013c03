"""Temporary git repositories for tests of ``--against REV``: a history built commit by commit.

Every git command runs through :func:`tests.processes.run_reaped` with a fixed identity and no
system or global config, so the machine's own git settings never change a test's history.
"""

from __future__ import annotations

import os
from pathlib import Path

from tests.processes import run_reaped


def git_env(home: Path) -> dict[str, str]:
    """What the test's git runs with: PATH, a fixed author, no outside config."""
    return {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(home),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_AUTHOR_NAME": "test",
        "GIT_AUTHOR_EMAIL": "test@example.com",
        "GIT_COMMITTER_NAME": "test",
        "GIT_COMMITTER_EMAIL": "test@example.com",
        "LC_ALL": "C",
    }


class GitRepo:
    """A work tree at ``root``: write files, commit them, run git."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")

    def git(self, *args: str) -> str:
        """Run git in the work tree; a failure fails the test with git's message."""
        done = run_reaped(["git", *args], cwd=self.root, env=git_env(self.root.parent))
        assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
        return done.stdout

    def write(self, name: str, text: str) -> Path:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    def commit(self, message: str = "change") -> None:
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message)
