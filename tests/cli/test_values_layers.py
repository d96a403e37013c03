"""``--values`` is repeatable and ``--set`` sets one value, with helm's rules: later files
override earlier ones, maps merge at every depth, lists are replaced whole, ``--set`` wins over
every file, and a message names the file (and line) a wrong value came from."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from generator.clusterctl.substitution import ValuesOrigin
from generator.clusterctl.typed_values import contains, merge_values, parse_set, set_value
from generator.errors import UsageError


def test_maps_merge_deeply_and_everything_else_is_replaced() -> None:
    base = {"A": {"x": 1, "deep": {"keep": True, "change": 1}}, "L": [1, 2], "S": "base"}
    over = {"A": {"deep": {"change": 2}, "y": 3}, "L": [9], "S": None}
    assert merge_values(base, over) == {
        "A": {"x": 1, "deep": {"keep": True, "change": 2}, "y": 3},
        "L": [9],
        "S": None,
    }
    assert base["A"] == {"x": 1, "deep": {"keep": True, "change": 1}}  # never changed in place


@pytest.mark.parametrize(
    ("item", "path", "value"),
    [
        ("A=3", ["A"], 3),
        ("A=true", ["A"], True),
        ("A=null", ["A"], None),
        ('A="3"', ["A"], "3"),
        ("A=", ["A"], ""),
        ("A=a=b", ["A"], "a=b"),
        ("A=# not a comment", ["A"], "# not a comment"),
        ("A={a,2}", ["A"], ["a", 2]),
        ("A={}", ["A"], []),
        (
            "NODE_POOLS[1].taints[0]=k=v:NoSchedule",
            ["NODE_POOLS", 1, "taints", 0],
            "k=v:NoSchedule",
        ),
        (r"A.b\.c=1", ["A", "b.c"], 1),
    ],
)
def test_set_reads_a_path_and_a_yaml_scalar(item: str, path: list[Any], value: Any) -> None:
    assert parse_set(item) == (path, value)


@pytest.mark.parametrize("item", ["A", "=1", "A[x]=1", "A..b=1", "A[1]b=1", "A[99999]=1"])
def test_a_malformed_set_is_a_usage_error(item: str) -> None:
    with pytest.raises(UsageError, match="invalid --set"):
        parse_set(item)


def test_set_makes_what_its_path_needs_and_copies_the_rest() -> None:
    values = {"P": [{"name": "a"}]}
    assert set_value(values, ["P", 2, "replicas"], 3) == {
        "P": [{"name": "a"}, None, {"replicas": 3}]
    }
    assert set_value(values, ["P", 0, "mode"], "System") == {"P": [{"name": "a", "mode": "System"}]}
    assert values == {"P": [{"name": "a"}]}
    assert contains({"P": [{"name": "a"}]}, ["P", 0, "name"])
    assert not contains({"P": [{"name": "a"}]}, ["P", 1])
    assert not contains({"P": "x"}, ["P", "name"])


def test_a_value_is_traced_to_the_file_that_gave_it() -> None:
    first = ValuesOrigin("a.yaml", text="A: 1\nB: 2\n", values={"A": 1, "B": 2})
    second = ValuesOrigin("b.yaml", text="B: 3\n", values={"B": 3}, under=first)
    top = ValuesOrigin("--set C=1", values={"C": 1}, under=second)
    assert top.where(("B",)) == "b.yaml:1"
    assert top.where(("A",)) == "a.yaml:1"
    assert top.where(("C",)) == "--set C=1"


def _objects(text: str) -> list[Any]:
    return [d for d in yaml.safe_load_all(text) if d]


def test_generate_merges_values_files_and_sets(run_cli: Callable[..., Any], tmp_path: Path) -> None:
    base = tmp_path / "base.yaml"
    base.write_text("AZURE_LOCATION: westeurope\nNODE_POOLS:\n  - {name: pool0, mode: System}\n")
    prod = tmp_path / "prod.yaml"
    prod.write_text(
        "NODE_POOLS:\n  - {name: sys, mode: System, replicas: 3}\n"
        "  - {name: user, mode: User, replicas: 2}\n"
    )
    argv = ["generate", "cluster", "c1", "--kubernetes-version", "v1.31.1"]
    result = run_cli(
        [*argv, "--values", str(base), "--values", str(prod), "--set", "NODE_POOLS[1].replicas=5"]
    )
    assert result.exit_code == 0, result.stderr
    pools = [o for o in _objects(result.stdout) if o["kind"] == "MachinePool"]
    assert [(p["metadata"]["name"], p["spec"]["replicas"]) for p in pools] == [
        ("c1-sys", 3),
        ("c1-user", 5),
    ]
    wrong = run_cli([*argv, "--values", str(prod), "--values", str(base), "--set", "X_Y=1"])
    assert wrong.exit_code != 0
    assert "X_Y" in wrong.stderr and "--set X_Y=1" in wrong.stderr
    negative = run_cli([*argv, "--values", str(base), "--set", "NODE_POOLS[0].replicas=-4"])
    assert negative.exit_code != 0
    assert "(--set NODE_POOLS[0].replicas=-4)" in negative.stderr
