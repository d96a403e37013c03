"""The picture of the package's import graph: rooms, floors and arrows that run back up.

``python -m benchmarks.import_graph [PACKAGE_DIR]`` reads the imports of every module (at module
top, inside functions and in ``TYPE_CHECKING`` blocks) without importing anything, so it can
describe an older checkout too (``git worktree add /tmp/old REV`` then
``python -m benchmarks.import_graph /tmp/old/generator``). It prints:

- rooms: the folders of the package plus its top-level modules, and the imports between rooms;
- floors: the longest chain of room imports (a room's floor is one above the highest room it
  imports), counted on the room graph without its cycles;
- arrows that run back up: imports from a room to a room that (directly or not) imports it, the
  edges a reader meets going the wrong way, and module imports on a module cycle (a package's
  modules importing its face are not counted: the face is already loading); type-only and
  function-level imports included.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Edge:
    """One import between modules of the package."""

    source: str
    target: str
    line: int
    in_function: bool  # made when a function runs, not when the module loads
    type_only: bool  # inside ``if TYPE_CHECKING:``

    @property
    def kind(self) -> str:
        """How the import is made, for the picture."""
        if self.type_only:
            return "type-only"
        return "function" if self.in_function else "top"


def modules_of(package: Path) -> dict[str, Path]:
    """Dotted module name -> file, for every module below ``package``."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def targets_of(
    modules: dict[str, Path], module: str, node: ast.Import | ast.ImportFrom
) -> list[str]:
    """The package modules an import statement in ``module`` loads (the deepest existing module
    per name), in the statement's order."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            package = module.split(".")
            if modules[module].name != "__init__.py":
                package = package[:-1]
            package = package[: len(package) - node.level + 1]
            base = ".".join([*package, *([base] if base else [])])
        names = [f"{base}.{alias.name}" for alias in node.names] + [base]
    found: list[str] = []
    for name in names:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        if name and name != module and name not in found:
            found.append(name)
    return found


def edges_of(modules: dict[str, Path]) -> Iterator[Edge]:
    """Every import between the package's modules, with where and how it is made."""
    for module in modules:
        yield from edges_from(modules, module)


def edges_from(modules: dict[str, Path], module: str) -> Iterator[Edge]:
    """The imports ``module`` makes of the package's modules, in source order."""
    tree = ast.parse(modules[module].read_text(encoding="utf-8"))
    yield from _walk(modules, module, tree, in_function=False, type_only=False)


def _walk(
    modules: dict[str, Path], module: str, node: ast.AST, *, in_function: bool, type_only: bool
) -> Iterator[Edge]:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Import | ast.ImportFrom):
            for target in targets_of(modules, module, child):
                yield Edge(module, target, child.lineno, in_function, type_only)
            continue
        function = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
        typing = type_only or (
            isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test)
        )
        yield from _walk(modules, module, child, in_function=function, type_only=typing)


def room_of(module: str) -> str:
    """``generator.a.b`` stands in room ``a``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def reaches(graph: dict[str, set[str]], start: str, goal: str) -> bool:
    """Whether ``goal`` is reachable from ``start``."""
    seen, todo = {start}, [start]
    while todo:
        for nxt in graph.get(todo.pop(), ()):
            if nxt == goal:
                return True
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return False


def floors(graph: dict[str, set[str]]) -> dict[str, int]:
    """Each node's floor on the graph without the edges that close a cycle (depth-first)."""
    acyclic: dict[str, set[str]] = {node: set() for node in graph}
    state: dict[str, int] = {}

    def visit(node: str) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                continue  # closes a cycle
            acyclic[node].add(nxt)
            if nxt not in state:
                visit(nxt)
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    level: dict[str, int] = {}

    def floor(node: str) -> int:
        if node not in level:
            level[node] = 1 + max((floor(n) for n in acyclic[node]), default=-1)
        return level[node]

    return {node: floor(node) for node in graph}


def main(argv: list[str]) -> int:
    """Print the picture of the package at ``argv[0]`` (default: this checkout's)."""
    package = Path(argv[0]) if argv else Path(__file__).resolve().parent.parent / "generator"
    modules = modules_of(package)
    edges = list(edges_of(modules))
    rooms: dict[str, set[str]] = {}
    for module in modules:
        rooms.setdefault(room_of(module), set())
    for edge in edges:
        source, target = room_of(edge.source), room_of(edge.target)
        if source != target and target != package.name:
            rooms[source].add(target)
    level = floors(rooms)
    top = [m for m, p in modules.items() if m.count(".") == 1 and p.name != "__init__.py"]
    folders = sorted({room_of(m) for m in modules if modules[m].parent != package})
    print(f"modules: {len(modules)}; top-level modules: {len(top)}; folders: {len(folders)}")
    print(f"rooms (folders + top-level modules): {len(rooms) - 1}")
    print(f"floors of the room graph: {max(level.values()) + 1}")
    for number in range(max(level.values()) + 1):
        print(f"  {number:2}: " + " ".join(sorted(r for r, f in level.items() if f == number)))
    # An import of a package above the importing module is not an edge: that package is being
    # imported already when the module runs (the face imports its own modules).
    inner = [e for e in edges if not f"{e.source}.".startswith(f"{e.target}.")]
    module_graph: dict[str, set[str]] = {m: set() for m in modules}
    for edge in inner:
        module_graph[edge.source].add(edge.target)
    back = [
        e
        for e in edges
        if room_of(e.source) != room_of(e.target)
        and reaches(rooms, room_of(e.target), room_of(e.source))
    ]
    cycles = [e for e in inner if reaches(module_graph, e.target, e.source)]
    print(f"imports between rooms: {sum(len(t) for t in rooms.values())} room pairs")
    print(f"arrows that run back up (room imports inside a room cycle): {len(back)}")
    for edge in back:
        print(f"  {edge.source}:{edge.line} -> {edge.target} ({edge.kind})")
    print(f"module imports on a module cycle: {len(cycles)}")
    for edge in cycles:
        print(f"  {edge.source}:{edge.line} -> {edge.target} ({edge.kind})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
