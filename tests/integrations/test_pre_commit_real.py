"""The repository's hooks run by the real pre-commit (``pre-commit try-repo``), offline.

pre-commit clones this repository, makes a virtual environment for the hooks (``language:
python``), ``pip install``s the clone into it and runs each hook's entry at the root of the
repository under test. Tests may not reach a package index, so pip is told to install the clone
alone, with no index, no dependencies and no build isolation (``PIP_*``), and finds the
dependencies and the build backend on ``PYTHONPATH``: the test interpreter's own site-packages.
Everything else is pre-commit's own doing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.conftest import DEMO_FLEET
from tests.processes import run_reaped

REPO = Path(__file__).resolve().parents[2]
CPU_SECONDS = 600  # pip installing the clone, and the hook itself
BAD = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: Bad_Name}\n"
GOOD = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: good}\n"


def _pre_commit() -> str:
    found = shutil.which("pre-commit", path=str(Path(sys.executable).parent))
    assert found is not None, "pre-commit is in the test extra"
    return found


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A git repository to run the hooks in, and pre-commit's environment."""
    if not (REPO / ".git").exists():
        pytest.skip(f"{REPO} is not a git work tree: pre-commit try-repo clones one")
    root = tmp_path / "project"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(tmp_path / "home"),
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit"),
        "PIP_CONFIG_FILE": os.devnull,
        "PIP_NO_INDEX": "1",
        "PIP_NO_DEPS": "1",
        "PIP_NO_BUILD_ISOLATION": "0",  # pip's spelling of --no-build-isolation
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "PYTHONPATH": sysconfig.get_paths()["purelib"],
        "GIT_CONFIG_NOSYSTEM": "1",
        "LANG": "C.UTF-8",
    }
    return root, env


def _try(root: Path, env: dict[str, str], hook: str, *files: str) -> tuple[int, str]:
    argv = [_pre_commit(), "try-repo", str(REPO), hook]
    argv += ["--files", *files] if files else ["--all-files"]
    done = run_reaped(argv, cwd=root, env=env, cpu_seconds=CPU_SECONDS)
    assert not done.hung, done.stdout + done.stderr
    return done.returncode, done.stdout + done.stderr


def test_the_validate_hook_passes_good_files_and_fails_bad_ones(
    project: tuple[Path, dict[str, str]],
) -> None:
    root, env = project
    (root / "good.yaml").write_text(GOOD)
    (root / "bad.yaml").write_text(BAD)
    subprocess.run(["git", "-C", str(root), "add", "."], check=True)
    code, said = _try(root, env, "capzgen-validate", "good.yaml")
    assert code == 0, said
    assert "capzgen validate" in said and "Passed" in said
    code, said = _try(root, env, "capzgen-validate", "good.yaml", "bad.yaml")
    assert code == 1, said
    assert "Failed" in said and "bad.yaml:3: ConfigMap/Bad_Name" in said


def test_the_drift_hook_fails_on_a_hand_edit(project: tuple[Path, dict[str, str]]) -> None:
    root, env = project
    (root / "fleet.yaml").write_text(DEMO_FLEET)
    generate = [sys.executable, "-m", "generator", "generate", "fleet", "fleet.yaml"]
    written = run_reaped(
        [*generate, "--output-dir", "clusters"], cwd=root, env=env, cpu_seconds=CPU_SECONDS
    )
    assert written.returncode == 0, written.stderr
    subprocess.run(["git", "-C", str(root), "add", "."], check=True)
    code, said = _try(root, env, "capzgen-fleet-drift")
    assert code == 0, said
    edited = root / "clusters" / "east" / "cluster-east.yaml"
    edited.write_text(edited.read_text() + "# edited\n")
    code, said = _try(root, env, "capzgen-fleet-drift")
    assert code == 1, said
    assert "-# edited" in said
