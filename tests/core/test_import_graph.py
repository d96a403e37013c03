"""The package's import graph stays visible and acyclic.

Every module under ``generator`` is imported, and the graph of imports read from the source (at
module top and inside functions, ``TYPE_CHECKING`` blocks excepted) must have no cycle, between
modules nor between the package's top-level units: a cycle hidden behind an import inside a
function is still a cycle, it only fails later. Imports inside
functions are allowed only with a ``# lazy: <reason>`` comment on the line above or on the line
itself, so that each one is a decision someone can check.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import generator

PACKAGE_DIR = Path(generator.__file__).parent


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE_DIR.rglob("*.py"))}


@dataclass(frozen=True)
class ImportSite:
    module: str
    targets: tuple[str, ...]  # modules of this package the statement imports
    line: int
    in_function: bool


def _resolve(module: str, node: ast.Import | ast.ImportFrom) -> tuple[str, ...]:
    """The package modules an import statement loads (the deepest existing module per name)."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            package = module.split(".")
            if MODULES[module].name != "__init__.py":
                package = package[:-1]
            package = package[: len(package) - node.level + 1]
            base = ".".join([*package, *([base] if base else [])])
        names = [f"{base}.{alias.name}" for alias in node.names] + [base]
    targets = []
    for name in names:
        while name and name not in MODULES:
            name = name.rpartition(".")[0]
        if name and name != module:
            targets.append(name)
    return tuple(dict.fromkeys(targets))


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def import_sites(module: str) -> Iterator[ImportSite]:
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))

    def visit(node: ast.AST, in_function: bool) -> Iterator[ImportSite]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                yield from (s for n in child.orelse for s in visit_one(n, in_function))
                continue
            yield from visit_one(child, in_function)

    def visit_one(node: ast.AST, in_function: bool) -> Iterator[ImportSite]:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield ImportSite(module, _resolve(module, node), node.lineno, in_function)
            return
        nested = in_function or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        yield from visit(node, nested)

    yield from visit(tree, False)


def import_graph() -> dict[str, set[str]]:
    """Module -> the modules importing it executes, including the packages above each target
    (importing ``a.b.c`` runs ``a/__init__`` and ``a/b/__init__`` first)."""
    graph: dict[str, set[str]] = {}
    for module in MODULES:
        edges: set[str] = set()
        for site in import_sites(module):
            for target in site.targets:
                parts = target.split(".")
                for depth in range(1, len(parts) + 1):
                    step = ".".join(parts[:depth])
                    # The packages above ``module`` are already being imported when it runs.
                    if step in MODULES and not f"{module}.".startswith(f"{step}."):
                        edges.add(step)
        graph[module] = edges - {module}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as a path that returns to its start, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return [*path[path.index(target) :], target]
            if target not in state:
                found = visit(target)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


@pytest.mark.parametrize("module", sorted(MODULES))
def test_every_module_imports(module: str) -> None:
    importlib.import_module(module)


def test_the_import_graph_has_no_cycle() -> None:
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_graph_of_top_level_units_has_no_cycle() -> None:
    """Read top-down at the level of ``generator.<unit>`` too (cli -> pipeline -> check ->
    validate -> cel -> model ...): a unit may not reach back into one that uses it, even through
    modules that are acyclic one by one."""
    units: dict[str, set[str]] = {}
    for module, targets in import_graph().items():
        unit = ".".join(module.split(".")[:2])
        units.setdefault(unit, set()).update(".".join(target.split(".")[:2]) for target in targets)
    cycle = find_cycle({unit: targets - {unit} for unit, targets in units.items()})
    assert cycle is None, "cycle between units: " + " -> ".join(cycle or [])


def test_the_cycle_finder_finds_cycles() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_imports_inside_functions_say_why() -> None:
    missing = []
    for module, path in MODULES.items():
        lines = path.read_text(encoding="utf-8").splitlines()
        for site in import_sites(module):
            if not site.in_function:
                continue
            here, above = lines[site.line - 1], lines[site.line - 2] if site.line > 1 else ""
            if "# lazy:" not in here and not above.strip().startswith("# lazy:"):
                missing.append(f"{path.relative_to(PACKAGE_DIR.parent)}:{site.line}")
    assert not missing, "imports inside functions without a '# lazy: <reason>' comment: " + (
        ", ".join(missing)
    )
