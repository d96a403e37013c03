"""Fixtures for the GitOps, patch and fleet tests (the patch and fleet folders import them)."""

from __future__ import annotations

from pathlib import Path

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
