"""Every hostile input of issue 13 through the real CLI, under a memory limit and a CPU limit.

Each case runs ``python -m generator`` in its own session with an address-space limit of 2 GiB
and a CPU-time limit of 60 CPU-seconds (its own, when a case sets one); its whole process group is
killed when it ends (:mod:`tests.processes`). These bound work, not speed: a loaded machine makes
a case slower, never failing. A case passes when the process finished on its own, with an
expected exit code, a message naming the file or the bound, no traceback, and nothing written
(its folder holds exactly the inputs it was given, and the schema cache stays empty). Cases run
two at a time, the heaviest first.
"""

from __future__ import annotations

import os
import re
import signal
import stat
import sys
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from tests.hostile.cases import CASES, Case
from tests.processes import run_reaped

MEMORY_LIMIT = 2 * 1024**3
WORKERS = 2

# The child sets its own limit before importing anything, then runs the CLI as `-m generator`
# does (no preexec_fn: the runner uses threads).
LAUNCHER = (
    "import resource, runpy, sys\n"
    f"resource.setrlimit(resource.RLIMIT_AS, ({MEMORY_LIMIT}, {MEMORY_LIMIT}))\n"
    "sys.argv[0] = 'capzgen'\n"
    "runpy.run_module('generator', run_name='__main__', alter_sys=True)\n"
)


@dataclass(frozen=True)
class Outcome:
    """What one case did: exit code (None when killed at the time limit), output, files after."""

    code: int | None
    output: str
    before: dict[str, int]
    after: dict[str, int]
    imported: list[str]  # what `schemas import` put in the cache (converted copies are a memo)


def _listing(root: Path) -> dict[str, int]:
    """Every entry under ``root`` with its size (symlinks and FIFOs as they are, not followed)."""
    entries = {}
    for path in root.rglob("*"):
        info = path.lstat()
        size = info.st_size if stat.S_ISREG(info.st_mode) else -1
        entries[str(path.relative_to(root))] = size
    return entries


def _imported(root: Path) -> list[str]:
    return sorted(str(path) for path in (root / "cache" / "schemas").rglob("*"))


def run_case(case: Case, root: Path) -> Outcome:
    """Build the case's inputs in ``root/work`` and run the CLI there."""
    work = root / "work"
    work.mkdir()
    call = case.build(work)
    before = _listing(work)
    env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(root / "home"),
        "XDG_CONFIG_HOME": str(root / "xdg"),
        "CAPZGEN_CACHE_DIR": str(root / "cache"),
        "LANG": "C.UTF-8",
        "PYTHONPATH": str(REPO_ROOT),
        **call.env,
    }
    with open(call.stdin or os.devnull, "rb") as stdin:
        done = run_reaped(
            [sys.executable, "-c", LAUNCHER, *call.argv],
            cwd=work,
            env=env,
            stdin=stdin,
            cpu_seconds=case.cpu_limit,
        )
    code = None if done.hung or done.returncode == -signal.SIGXCPU else done.returncode
    return Outcome(code, done.stdout + done.stderr, before, _listing(work), _imported(root))


@pytest.fixture(scope="module")
def outcomes(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Future[Outcome]]]:
    """Start every selected case on a small pool at once; each test waits for its own."""
    selected = set()
    for item in request.session.items:
        callspec = getattr(item, "callspec", None)
        if isinstance(item, pytest.Function) and item.module is request.module and callspec:
            selected.add(callspec.params["case"])
    chosen = sorted((c for c in CASES if c.name in selected), key=lambda c: not c.heavy)
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        yield {
            case.name: pool.submit(run_case, case, tmp_path_factory.mktemp(case.name))
            for case in chosen
        }


def _param(case: Case) -> object:
    marks = [pytest.mark.xfail(reason=case.xfail, strict=True)] if case.xfail else []
    return pytest.param(case.name, id=case.name, marks=marks)


BY_NAME = {case.name: case for case in CASES}


@pytest.mark.parametrize("case", [_param(case) for case in CASES])
def test_hostile_input_ends_cleanly(case: str, outcomes: dict[str, Future[Outcome]]) -> None:
    spec = BY_NAME[case]
    outcome = outcomes[case].result()
    assert outcome.code is not None, (
        f"stopped: over {spec.cpu_limit:g} CPU-seconds, or hung:\n{outcome.output[-2000:]}"
    )
    assert outcome.code in spec.codes, outcome.output[-2000:]
    assert "Traceback" not in outcome.output, outcome.output[-2000:]
    assert "internal error" not in outcome.output, outcome.output[-2000:]
    assert re.search(spec.expect, outcome.output), outcome.output[-2000:]
    assert outcome.after == outcome.before, "the run wrote or removed files"
    assert outcome.imported == [], "the run imported schemas"


def test_every_case_name_is_unique() -> None:
    assert len(BY_NAME) == len(CASES)
