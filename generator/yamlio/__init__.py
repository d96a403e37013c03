"""YAML input and output: safe multi-document loading, line lookup, deterministic emission.

The names below load their module on first use (:mod:`generator.faces`): reading manifests needs neither the
emitter nor PyYAML, and ``from generator.yamlio.load import ...`` runs this file first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from generator.faces import lazy_names

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


__getattr__ = lazy_names(__name__, _HOMES)
