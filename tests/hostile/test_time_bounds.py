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
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.hostile.cases import CASES, Run
from tests.processes import cli_env, run_reaped
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
    env = cli_env(root / "home", root / "cache", XDG_CONFIG_HOME=str(root / "xdg"), **call.env)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(call.stdin or os.devnull, "rb") as stdin:
        done = run_reaped(
            [sys.executable, "-c", LAUNCHER, str(cpu_seconds), *call.argv],
            cwd=work,
            env=env,
            stdin=stdin,
            safety_net=SAFETY_NET_SECONDS,
            merged=True,
        )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Ended(done.returncode, done.stdout, cpu)


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


# --- CEL: expressions over cel-go's limits, and rules too slow to evaluate --------------------


def _cel(rule: str, spec_schema_: dict[str, Any], spec: dict[str, Any]) -> Callable[[Path], Run]:
    def build(root: Path) -> Run:
        schema = {**spec_schema_, "x-kubernetes-validations": [{"rule": rule}]}
        crd = make_crd(spec_schema(schema), group="example.com")
        (root / "crd.yaml").write_text(yaml.safe_dump(crd))
        widget = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}
        widget["spec"] = spec
        (root / "w.yaml").write_text(yaml.safe_dump(widget))
        return Run(["validate", "--schema-dir", "crd.yaml", "w.yaml"])

    return build


X: dict[str, Any] = {"type": "object", "properties": {"x": {"type": "integer"}}}
# Each item's rule is within the API server's cost limits (about 720,000 per evaluation, 12
# items), but takes cel-python seconds per item: capzgen's time bound stops the object, and the
# rules it did not evaluate make it fail. Evaluated in full (a much faster machine), the rule is
# false: either way the file never passes.
SLOW_ITEM = {
    "type": "object",
    "properties": {"l": {"type": "array", "maxItems": 300, "items": {"type": "integer"}}},
    "x-kubernetes-validations": [
        {"rule": "self.l.all(a, self.l.all(b, a + b >= 0)) && self.l.size() < 0"}
    ],
}
SLOW: dict[str, Any] = {
    "type": "object",
    "properties": {"o": {"type": "array", "maxItems": 12, "items": SLOW_ITEM}},
}

CEL_CASES = [
    Bounded(
        "cel-and-2000",
        _cel(" && ".join(["self.x >= 0"] * 2000), X, {"x": -1}),
        "w.yaml.*failed rule",
        10,
    ),
    Bounded(
        "cel-1mb-rule",
        _cel("self.x >= 0 && " + " || ".join(["self.x == 1"] * 80_000), X, {"x": 1}),
        "w.yaml.*CEL rule not evaluated: the expression is 1,200,011 characters long",
        10,
        max_output=4000,
    ),
    Bounded(
        "cel-20000-parentheses",
        _cel("(" * 20_000 + "self.x" + ")" * 20_000 + " > 0", X, {"x": 1}),
        "w.yaml.*CEL rule not evaluated: the expression nests deeper than 250 levels",
        10,
        max_output=4000,
    ),
    Bounded(
        "cel-slow-rule",
        lambda root: _cel("true", SLOW, {"o": [{"l": list(range(i, i + 300))} for i in range(12)]})(
            root
        ),
        "w.yaml.*(CEL rules not evaluated: evaluation stopped after 10 s|failed rule)",
        40,
    ),
]


# --- findings: a file with very many bad values prints a bounded report -----------------------


def _many_bad_values(count: int, output: str) -> Callable[[Path], Run]:
    def build(root: Path) -> Run:
        schema = {
            "type": "object",
            "properties": {"l": {"type": "array", "items": {"type": "integer"}}},
        }
        (root / "crd.yaml").write_text(yaml.safe_dump(make_crd(spec_schema(schema))))
        head = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  l: ["
        (root / "w.yaml").write_text(head + ", ".join(["a"] * count) + "]\n")
        return Run(["validate", "--output", output, "--schema-dir", "crd.yaml", "w.yaml"])

    return build


REPORT_CASES = [
    Bounded(
        "findings-20000-text",
        _many_bad_values(20_000, "text"),
        "w.yaml.*and 19,000 more findings in this file not shown(.|\n)*20000 errors",
        30,
        max_output=300_000,
    ),
    Bounded(
        "findings-20000-json",
        _many_bad_values(20_000, "json"),
        '"rule": "more-findings"',
        30,
        max_output=1_000_000,
    ),
]

BOUNDED = [*YAML_CASES, *CEL_CASES, *REPORT_CASES]


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
