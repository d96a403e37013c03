"""Fixtures of the YAML I/O tests."""

from __future__ import annotations

import os
from types import ModuleType

import pytest

from tests.yamlio.blockyaml_support import built_reader, installed_reader


@pytest.fixture(scope="session")
def blockyaml(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """The C block reader: the installed one under ``make test-compiled``, else built here."""
    if os.environ.get("CAPZGEN_EXPECT_COMPILED") == "1":
        return installed_reader()
    return built_reader(tmp_path_factory.mktemp("blockyaml"))
