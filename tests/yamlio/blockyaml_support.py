"""The C block reader for tests: built from its source when the suite runs on sources, the installed
extension under ``make test-compiled``; and a strict comparison of parsed values."""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType
from typing import Any

import ryaml

from generator.yamlio.block import VERSION
from tests.native import built_extension
from tests.yamlio.yamlio_support import objects, precise, same

SOURCE = Path(__file__).resolve().parents[2] / "generator" / "yamlio" / "_blockyaml.c"


def installed_reader() -> ModuleType:
    """The extension the compiled wheel carries (it must be there)."""
    module = importlib.import_module("generator.yamlio._blockyaml")
    assert module.VERSION == VERSION
    return module


def built_reader(folder: Path) -> ModuleType:
    """``_blockyaml.c`` compiled into ``folder`` and imported from there (see
    :func:`tests.native.built_extension`)."""
    return built_extension(SOURCE, folder)


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
