"""Where the data that ships with capzgen (built-in flavors, our own schemas) lives.

In a wheel, the top-level ``flavors/`` and ``schemas/`` folders are mapped into
``generator/_data/`` (see pyproject.toml). In a source checkout (editable install) they stay at the
repository root. Both layouts are looked up here and nowhere else.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


def _data_dir(name: str) -> Path:
    packaged = _PACKAGE_DIR / "_data" / name
    if packaged.is_dir():
        return packaged
    return _PACKAGE_DIR.parent / name


def builtin_flavors_dir() -> Path:
    """The folder of the built-in flavors (in the wheel or the source checkout)."""
    return _data_dir("flavors")


def builtin_schemas_dir() -> Path:
    """The folder of capzgen's own schemas (flavor, fleet, patch) and the schema bundle."""
    return _data_dir("schemas")
