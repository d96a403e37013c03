"""Time is bounded like memory (issue 24): hostile inputs whose cost is CPU time, each refused
within a CPU-time budget through the real CLI.

Every case is generated here into its own folder and runs ``python -m generator`` in a child
process of its own session, which sets RLIMIT_AS (2 GiB) and RLIMIT_CPU (the case's CPU-seconds)
on itself before importing anything; its workers inherit both. The verdict never depends on the
machine's speed or load: a run over its CPU budget is killed by the kernel (SIGXCPU), and the CPU
time of the whole process tree (``RUSAGE_CHILDREN``, once reaped) is asserted too. The wall-clock
timeout is only a safety net, and the child's whole process group is killed in any case.
"""

from __future__ import annotations

import os
import re
import resource
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO_ROOT
from tests.hostile.cases import CASES, Run
from tests.schemastore.helpers import make_crd, spec_schema

MEMORY_LIMIT = 2 * 1024**3
SAFETY_NET_SECONDS = 300.0  # never the verdict: CPU limits are

LAUNCHER = (
    "import resource, runpy, sys\n"
    f"resource.setrlimit(resource.RLIMIT_AS, ({MEMORY_LIMIT}, {MEMORY_LIMIT}))\n"
    "cpu = int(sys.argv.pop(1))\n"
    "resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))\n"
    "sys.argv[0] = 'capzgen'\n"
    "runpy.run_module('generator', run_name='__main__', alter_sys=True)\n"
)


@dataclass(frozen=True)
class Bounded:
    """A generated input, the call to make, the CPU budget, the exit codes and output expected."""

    name: str
    build: Callable[[Path], Run]
    expect: str
    cpu_seconds: int
    codes: frozenset[int] = frozenset({1})
    max_output: int | None = None  # characters of output at most


@dataclass(frozen=True)
class Ended:
    code: int
    output: str
    cpu: float


def run_bounded(call: Run, root: Path, cpu_seconds: int) -> Ended:
    """Run the CLI on ``call`` in ``root/work`` under the limits; reap its whole process group."""
    work = root / "work"
    env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(root / "home"),
        "XDG_CONFIG_HOME": str(root / "xdg"),
        "CAPZGEN_CACHE_DIR": str(root / "cache"),
        "LANG": "C.UTF-8",
        "PYTHONPATH": str(REPO_ROOT),
        **call.env,
    }
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(call.stdin or os.devnull, "rb") as stdin:
        process = subprocess.Popen(  # noqa: S603 - our own interpreter and arguments
            [sys.executable, "-c", LAUNCHER, str(cpu_seconds), *call.argv],
            cwd=work,
            env=env,
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            out, _ = process.communicate(timeout=SAFETY_NET_SECONDS)
        finally:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            process.wait()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Ended(process.returncode, out.decode(errors="replace"), cpu)


# --- YAML: dense inputs refused before they are parsed ------------------------------------------


def _write(path: Path, head: bytes, unit: bytes, count: int, tail: bytes) -> None:
    with path.open("wb") as stream:
        stream.write(head)
        stream.write(unit * count)
        stream.write(tail)


def _yaml_file(head: bytes, unit: bytes, count: int, tail: bytes) -> Callable[[Path], Run]:
    def build(root: Path) -> Run:
        _write(root / "dense.yaml", head, unit, count, tail)
        return Run(["validate", "dense.yaml"])

    return build


NODES = "dense.yaml.*more than 3,000,000 nodes"

YAML_CASES = [
    Bounded("yaml-block-sequence-8m", _yaml_file(b"k:\n", b"- 0\n", 8_000_000, b""), NODES, 2),
    Bounded("yaml-nested-flow", _yaml_file(b"[[[", b"[0,0],", 4_000_000, b"0]]]"), NODES, 2),
    Bounded("yaml-quoted-flow", _yaml_file(b"k: [", b'"a", ', 6_000_000, b"0]"), NODES, 2),
    Bounded(
        "yaml-flow-map",
        _yaml_file(b"{", b"a: 0, ", 5_000_000, b"b: 0}"),
        "dense.yaml.*(more than 3,000,000 nodes|duplicate)",
        2,
    ),
    Bounded(
        "yaml-multiline-flow", _yaml_file(b"k: [\n", b"  0,\n", 6_000_000, b"  0]\n"), NODES, 2
    ),
]

BOUNDED = [*YAML_CASES]


def _shared_case_params() -> list[object]:
    return [pytest.param(case.name, id=case.name) for case in CASES if case.cpu_seconds]


@pytest.mark.parametrize("name", _shared_case_params())
def test_shared_hostile_case_ends_within_its_cpu_bound(name: str, tmp_path: Path) -> None:
    case = next(case for case in CASES if case.name == name)
    assert case.cpu_seconds is not None
    (tmp_path / "work").mkdir()
    ended = run_bounded(case.build(tmp_path / "work"), tmp_path, case.cpu_seconds)
    _check(ended, case.codes, case.expect, case.cpu_seconds)


@pytest.mark.parametrize("case", BOUNDED, ids=lambda case: case.name)
def test_hostile_input_ends_within_its_cpu_bound(case: Bounded, tmp_path: Path) -> None:
    (tmp_path / "work").mkdir()
    ended = run_bounded(case.build(tmp_path / "work"), tmp_path, case.cpu_seconds)
    _check(ended, case.codes, case.expect, case.cpu_seconds)
    if case.max_output is not None:
        assert len(ended.output) <= case.max_output, ended.output[-2000:]


def _check(ended: Ended, codes: frozenset[int], expect: str, cpu_seconds: int) -> None:
    tail = ended.output[-2000:]
    assert ended.code != -signal.SIGXCPU, f"over {cpu_seconds} CPU-seconds:\n{tail}"
    assert ended.code in codes, tail
    assert "Traceback" not in ended.output, tail
    assert "internal error" not in ended.output, tail
    assert re.search(expect, ended.output), tail
    assert ended.cpu <= cpu_seconds, f"{ended.cpu:.2f} CPU-seconds:\n{tail}"


_ = (yaml, make_crd, spec_schema)  # used by the CEL cases below
