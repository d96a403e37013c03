"""YAML input and output: safe multi-document loading, line lookup, deterministic emission.

The names below load their module on first use (PEP 562): reading manifests needs neither the
emitter nor PyYAML, and ``from generator.yamlio.load import ...`` runs this file first.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from generator.yamlio.emit import dump_documents
    from generator.yamlio.limits import MAX_BYTES, MAX_DEPTH, MAX_EXPANDED_BYTES, MAX_NODES
    from generator.yamlio.load import iter_files, load_documents, read_source
    from generator.yamlio.locate import LineLocator

_HOMES = {
    "MAX_BYTES": "limits",
    "MAX_DEPTH": "limits",
    "MAX_EXPANDED_BYTES": "limits",
    "MAX_NODES": "limits",
    "LineLocator": "locate",
    "dump_documents": "emit",
    "iter_files": "load",
    "load_documents": "load",
    "read_source": "load",
}

__all__ = [
    "MAX_BYTES",
    "MAX_DEPTH",
    "MAX_EXPANDED_BYTES",
    "MAX_NODES",
    "LineLocator",
    "dump_documents",
    "iter_files",
    "load_documents",
    "read_source",
]


def __getattr__(name: str) -> Any:
    """The exported ``name`` from its module, imported now (other names: AttributeError)."""
    home = _HOMES.get(name)
    if home is None:
        msg = f"module {__name__!r} has no attribute {name!r}"
        raise AttributeError(msg)
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)
