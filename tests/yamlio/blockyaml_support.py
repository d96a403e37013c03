"""The C block reader for tests: built from its source when the suite runs on sources, the installed
extension under ``make test-compiled``; and a strict comparison of parsed values."""

from __future__ import annotations

import importlib
import importlib.util
import shlex
import sysconfig
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import ryaml

from generator.yamlio.block import VERSION
from tests.processes import run_reaped
from tests.yamlio.yamlio_support import objects, precise, same

SOURCE = Path(__file__).resolve().parents[2] / "generator" / "yamlio" / "_blockyaml.c"


def installed_reader() -> ModuleType:
    """The extension the compiled wheel carries (it must be there)."""
    module = importlib.import_module("generator.yamlio._blockyaml")
    assert module.VERSION == VERSION
    return module


def built_reader(folder: Path) -> ModuleType:
    """``_blockyaml.c`` compiled into ``folder`` with Python's own compiler settings and imported
    from there (never as ``generator.yamlio._blockyaml``, so the loader stays pure in this run);
    the test is skipped, naming the compiler's complaint, where that fails."""
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    target = folder / f"_blockyaml{suffix}"
    compiler = shlex.split(sysconfig.get_config_var("CC") or "cc")
    include = sysconfig.get_paths()["include"]
    argv = [*compiler, "-O2", "-Wall", "-shared", "-fPIC", f"-I{include}", str(SOURCE)]
    finished = run_reaped([*argv, "-o", str(target)], cwd=folder, cpu_seconds=120, merged=True)
    if finished.returncode != 0 or not target.exists():
        pytest.skip(f"cannot compile _blockyaml.c ({shlex.join(argv)}): {finished.stdout[-2000:]}")
    spec = importlib.util.spec_from_file_location("_blockyaml", target)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def agreement(reader: ModuleType, text: str) -> list[Any] | None:
    """The reader's documents of ``text``, checked against ryaml and the precise path (both must
    read it, to the same values); None when the reader leaves the text to them."""
    found: list[Any] | None = reader.load_all(text)
    if found is None:
        return None
    by_ryaml = ryaml.loads_all(text)  # type: ignore[attr-defined]
    assert same(found, by_ryaml), (text, found, by_ryaml)
    by_go_rules = objects(precise(text))
    assert same(found, by_go_rules), (text, found, by_go_rules)
    return found
