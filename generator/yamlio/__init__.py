"""YAML input and output: safe multi-document loading, line lookup, deterministic emission."""

from generator.yamlio.emit import dump_documents
from generator.yamlio.load import (
    MAX_BYTES,
    MAX_DEPTH,
    MAX_EXPANDED_BYTES,
    MAX_NODES,
    iter_files,
    load_documents,
    read_source,
)
from generator.yamlio.locate import LineLocator

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
