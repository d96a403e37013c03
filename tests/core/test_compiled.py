"""The modules mypyc compiles (pyproject.toml, ``hatch_build.py``): the run is the build it claims
to be, and no test monkeypatches them.

``make test`` runs the sources (an editable install); ``make test-compiled`` runs a slice of the
suite against the compiled wheel with ``CAPZGEN_EXPECT_COMPILED=1``. A compiled module's
functions cannot be replaced from outside (mypyc binds calls between compiled functions
directly), so a test that patched one would test nothing there: tests change behaviour through
parameters and tuning values instead.
"""

from __future__ import annotations

import ast
import importlib
import importlib.machinery
import importlib.util
import os
import tomllib
from pathlib import Path

import pytest

from generator.yamlio import block
from generator.yamlio.load import load_documents

TESTS = Path(__file__).resolve().parent.parent
PYPROJECT = TESTS.parent / "pyproject.toml"


def compiled_modules() -> list[str]:
    """Dotted names of the modules the wheel build compiles."""
    config = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))
    paths = config["tool"]["hatch"]["build"]["targets"]["wheel"]["hooks"]["custom"]["modules"]
    return [path.removesuffix(".py").replace("/", ".") for path in paths]


def c_extensions() -> list[str]:
    """Dotted names of the hand-written C extensions the wheel build compiles."""
    config = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))
    paths = config["tool"]["hatch"]["build"]["targets"]["wheel"]["hooks"]["custom"]["c-extensions"]
    return [path.removesuffix(".c").replace("/", ".") for path in paths]


def _module_aliases(tree: ast.Module, compiled: set[str]) -> dict[str, str]:
    """Names a test file binds to a compiled module (``import a.b as n``, ``from a import b``)."""
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in compiled and alias.asname:
                    aliases[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                dotted = f"{node.module}.{alias.name}"
                if dotted in compiled:
                    aliases[alias.asname or alias.name] = dotted
    return aliases


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return ""


def patched_targets(source: str, compiled: set[str]) -> list[str]:
    """The compiled modules ``source`` patches with ``monkeypatch.setattr``/``mock.patch``."""
    tree = ast.parse(source)
    aliases = _module_aliases(tree, compiled)
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and node.args):
            continue
        name = _dotted(node.func)
        if not name.endswith(("monkeypatch.setattr", "mock.patch")):
            continue
        target = _dotted(node.args[0])
        head, _, rest = target.partition(".")
        resolved = f"{aliases[head]}.{rest}" if head in aliases else target
        found += [module for module in compiled if f"{resolved}.".startswith(f"{module}.")]
    return found


def test_the_compiled_modules_exist() -> None:
    modules = compiled_modules()
    assert modules, "pyproject.toml lists no module to compile"
    for module in modules:
        assert importlib.util.find_spec(module) is not None, module


def test_no_test_patches_a_compiled_module() -> None:
    compiled = set(compiled_modules())
    offenders = {
        str(path.relative_to(TESTS)): patched
        for path in sorted(TESTS.rglob("*.py"))
        if (patched := patched_targets(path.read_text(encoding="utf-8"), compiled))
    }
    assert offenders == {}


def test_the_scan_sees_a_patch_of_a_compiled_module() -> None:
    source = (
        "from generator.checks import views\n"
        "import generator.validate.partition_keys as keys\n"
        "def test(monkeypatch):\n"
        "    monkeypatch.setattr(views, 'views_of', None)\n"
        "    monkeypatch.setattr(keys.DocumentKeys, 'x', None)\n"
        "    monkeypatch.setattr('generator.model.values.as_str', None)\n"
        "    monkeypatch.setattr(other, 'views_of', None)\n"
    )
    compiled = {
        "generator.checks.views",
        "generator.validate.partition_keys",
        "generator.model.values",
    }
    assert patched_targets(source, compiled) == [
        "generator.checks.views",
        "generator.validate.partition_keys",
        "generator.model.values",
    ]


@pytest.mark.parametrize("module", compiled_modules())
def test_the_run_uses_the_build_it_claims(module: str) -> None:
    """Compiled under ``make test-compiled``, the sources everywhere else."""
    expected = os.environ.get("CAPZGEN_EXPECT_COMPILED") == "1"
    origin = importlib.import_module(module).__file__ or ""
    compiled = origin.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))
    assert compiled == expected, origin


@pytest.mark.parametrize("module", c_extensions())
def test_the_c_extensions_are_there_only_when_compiled(module: str) -> None:
    """Importable from the compiled wheel; absent from the sources, whose loader then reads
    every text as before (the pure build needs no compiler)."""
    expected = os.environ.get("CAPZGEN_EXPECT_COMPILED") == "1"
    assert (importlib.util.find_spec(module) is not None) == expected
    package, _, name = module.rpartition(".")
    folder = Path(importlib.import_module(package).__file__ or "").parent
    assert (folder / f"{name}.c").is_file()  # the source ships with the package, both ways


def test_the_loader_works_with_or_without_the_block_reader() -> None:
    compiled = os.environ.get("CAPZGEN_EXPECT_COMPILED") == "1"
    assert (block.VERSION is not None) == compiled
    assert (block.block_documents("a: 1\n") is not None) == compiled
    documents = load_documents("a: 1\n---\nb: [x]\n", source="t.yaml")
    assert [d.obj for d in documents] == [{"a": 1}, {"b": ["x"]}]
