"""Fixtures for the GitOps, patch and fleet tests (the patch and fleet folders import them)."""

from __future__ import annotations

import errno
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from generator.output.staging import STAGING_PREFIX

BASE_ARGS = ["--var", "AZURE_LOCATION=westeurope", "--kubernetes-version", "v1.31.1"]


def read_dir(directory: Path) -> dict[str, str]:
    """Every file below ``directory`` (relative posix path -> text), hidden files included."""
    return {
        path.relative_to(directory).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted(directory.rglob("*"))
        if path.is_file()
    }


def stat_dir(directory: Path) -> dict[str, tuple[int, bytes]]:
    """Relative path -> (mtime in ns, bytes), to prove a rerun touches nothing."""
    return {
        path.relative_to(directory).as_posix(): (path.stat().st_mtime_ns, path.read_bytes())
        for path in sorted(directory.rglob("*"))
        if path.is_file()
    }


def leftovers(root: Path) -> list[str]:
    """Staging folders of generator.output.staging anywhere below ``root``."""
    return sorted(str(p) for p in root.rglob(f"{STAGING_PREFIX}*"))


def fail_at(call: int, error: int = errno.ENOSPC) -> Callable[[Callable[..., Any]], Any]:
    """Wrap a function so that its ``call``-th call (0-based, counted across threads) raises
    ``OSError(error)``, as a full disk would."""

    def wrap(function: Callable[..., Any]) -> Any:
        lock = threading.Lock()
        calls = [0]

        def failing(*args: Any, **kwargs: Any) -> Any:
            with lock:
                number = calls[0]
                calls[0] += 1
            if number == call:
                raise OSError(error, os.strerror(error), str(args[0]))
            return function(*args, **kwargs)

        return failing

    return wrap
