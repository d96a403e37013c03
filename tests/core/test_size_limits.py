"""Small modules with one job: no module over 500 lines, no function over 60 lines unless the
exception is listed here with its reason (and explained in the function's docstring)."""

from __future__ import annotations

import ast
from pathlib import Path

import generator

PACKAGE = Path(generator.__file__).parent
MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 60
LONG_ON_PURPOSE = {
    # Runs once per YAML event of every precisely parsed document; a call per event to split it
    # would cost time on the hot path (its docstring says so).
    "generator/yamlio/precise.py:run",
}


def test_no_module_is_over_the_limit() -> None:
    long = {
        str(path.relative_to(PACKAGE.parent)): lines
        for path in PACKAGE.rglob("*.py")
        if (lines := path.read_text(encoding="utf-8").count("\n")) > MAX_MODULE_LINES
    }
    assert long == {}


def test_no_function_is_over_the_limit_without_a_reason() -> None:
    long = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                assert node.end_lineno is not None
                if node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES:
                    long.add(f"{path.relative_to(PACKAGE.parent).as_posix()}:{node.name}")
    assert long == LONG_ON_PURPOSE
