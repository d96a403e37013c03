"""The C extensions of the compiled wheel, built from their sources for a test run on sources: the
C and Python paths are then compared in every run, not only under ``make test-compiled``."""

from __future__ import annotations

import importlib.util
import shlex
import sysconfig
from pathlib import Path
from types import ModuleType

import pytest

from tests.processes import run_reaped


def built_extension(source: Path, folder: Path) -> ModuleType:
    """``source`` (a C extension's ``.c``) compiled into ``folder`` with Python's own compiler
    settings and imported from there under its bare name (never as its package's module, so the
    code under test stays pure in this run); the test is skipped, naming the compiler's
    complaint, where that fails."""
    name = source.stem
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    target = folder / f"{name}{suffix}"
    compiler = shlex.split(sysconfig.get_config_var("CC") or "cc")
    include = sysconfig.get_paths()["include"]
    argv = [*compiler, "-O2", "-Wall", "-shared", "-fPIC", f"-I{include}", str(source)]
    finished = run_reaped([*argv, "-o", str(target)], cwd=folder, cpu_seconds=120, merged=True)
    if finished.returncode != 0 or not target.exists():
        pytest.skip(f"cannot compile {source.name} ({shlex.join(argv)}): {finished.stdout[-2000:]}")
    spec = importlib.util.spec_from_file_location(name, target)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
