"""The package's import graph stays visible, acyclic and layered.

Every module under ``generator`` is imported, and the graph of imports read from the source (at
module top, inside functions and inside ``TYPE_CHECKING`` blocks) must have no cycle, between
modules nor between the package's rooms: a cycle hidden behind an import inside a function or a
type-only import is still a cycle, it only fails later or confuses the reader. Imports inside
functions are allowed only with a ``# lazy: <reason>`` comment on the line above or on the line
itself, so that each one is a decision someone can check.

The layering rule (``FLOORS``, also in docs/architecture.md): each room of the package stands on
one floor, and a module imports only its own room and rooms on lower floors. So the shared
vocabulary imports no room, kubeconform never reaches into the validate run, migrate never
imports the generate pipeline, and nothing below the CLI imports the CLI.
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import generator
from benchmarks.import_graph import Edge, edges_from, modules_of
from tests.processes import run_reaped

PACKAGE_DIR = Path(generator.__file__).parent


MODULES = modules_of(PACKAGE_DIR)


@dataclass(frozen=True)
class ImportSite:
    module: str
    targets: tuple[str, ...]  # modules of this package the statement imports
    line: int
    in_function: bool


def import_sites(module: str) -> Iterator[ImportSite]:
    """Every import statement of ``module`` that loads modules of the package, read by the same
    reader as the picture (:mod:`benchmarks.import_graph`), type-only imports included."""
    sites: dict[int, list[Edge]] = {}
    for edge in edges_from(MODULES, module):
        sites.setdefault(edge.line, []).append(edge)
    for line, edges in sites.items():
        yield ImportSite(module, tuple(e.target for e in edges), line, edges[0].in_function)


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


# The floors of the house, lowest first. A room is a folder of ``generator`` or one top-level module
# (the shared vocabulary); it may import itself and rooms of lower floors only.
FLOORS: tuple[tuple[str, ...], ...] = (
    # the shared vocabulary: words every room uses
    (
        "errors",
        "findings",
        "documents",
        "names",
        "suggest",
        "settings",
        "resources",
        "jsonpatch",
        "jsontypes",
        "faces",
        "children",
        "runtime",
    ),
    ("yamlio", "envsubst", "model"),  # reading and writing YAML; ${VAR} text; the document model
    (
        "azure_data",
        "output",
        "capzbuild",
        "history",
    ),  # Azure facts; nothing half-written; CAPZ's builders; files at a git revision
    ("schemastore", "clusterctl"),  # schemas; clusterctl's variables, config and templates
    ("cel", "kubeconform"),  # CEL rules of the schemas; kubeconform as a second opinion
    ("checks",),  # the rulebook: one engine every path calls
    ("flavors", "migrate", "validate"),  # flavors; migration and adoption; the validate run
    ("generate", "topology"),  # the generate pipeline; offline ClusterClass topology plans
    ("fleet",),  # fleets of generate requests
    ("cli",),  # the only edge that reads os.environ and prints
    ("__main__",),
)


def room_of(module: str) -> str:
    """The room ``generator.a.b`` stands in: ``a`` (a folder or a top-level module)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_every_room_has_a_floor() -> None:
    placed = [room for floor in FLOORS for room in floor]
    assert len(placed) == len(set(placed)), "a room stands on two floors"
    rooms = {room_of(module) for module in MODULES} - {""}
    assert rooms == set(placed), f"rooms without a floor: {sorted(rooms - set(placed))}; " + (
        f"floors naming no room: {sorted(set(placed) - rooms)}"
    )


def test_imports_go_down_the_floors() -> None:
    floor = {room: number for number, rooms in enumerate(FLOORS) for room in rooms}
    wrong = []
    for module in MODULES:
        here = room_of(module)
        for site in import_sites(module):
            for target in site.targets:
                there = room_of(target)
                if not there or there == here or floor[there] < floor.get(here, -1):
                    continue
                if floor[there] == floor.get(here) == 0:
                    continue  # the vocabulary's words may use each other (the cycle tests hold)
                wrong.append(f"{module}:{site.line} imports {target}")
    assert not wrong, "imports that run up or across the floors:\n" + "\n".join(sorted(wrong))


def test_the_floor_rule_names_the_forbidden_directions() -> None:
    """The directions the layering exists to forbid, spelled out so a change of FLOORS that
    allows one of them fails here first."""
    floor = {room: number for number, rooms in enumerate(FLOORS) for room in rooms}
    assert floor["kubeconform"] < floor["validate"]
    assert floor["migrate"] < floor["generate"]
    assert floor["clusterctl"] < floor["flavors"]
    assert all(floor[room] < floor["cli"] for room in floor if room not in {"cli", "__main__"})
    assert all(
        number == 0
        for room, number in floor.items()
        if "." not in room and room in {"errors", "findings", "documents", "names"}
    )


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


# Faces that load their modules on purpose: the CLI's is the program's entry point, envsubst's is
# clusterctl's whole engine (small, and every use needs all of it), and the rules' is the registry.
EAGER_FACES = {"generator", "generator.cli", "generator.envsubst", "generator.checks.rules"}
# What a lazy face may load at once: the schema store's contract (plain types, cheap to load).
FACE_LOADS = {"generator.schemastore": ["generator.schemastore.types"]}
PACKAGES = sorted(
    module
    for module, path in MODULES.items()
    if path.name == "__init__.py" and module not in EAGER_FACES
)


@pytest.mark.parametrize("package", PACKAGES)
def test_a_folder_face_is_empty_or_lazy(package: str) -> None:
    """Importing a folder loads none of its modules (a fresh interpreter, as a user's is)."""
    script = (
        "import importlib, json, sys\n"
        f"importlib.import_module({package!r})\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m.startswith({package + '.'!r}))))\n"
    )
    done = run_reaped([sys.executable, "-c", script], cwd=PACKAGE_DIR.parent)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == FACE_LOADS.get(package, [])
