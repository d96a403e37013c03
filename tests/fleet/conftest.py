"""Every test here runs without the machine's clusterctl config or variables."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _isolated(isolated_env: None) -> None:
    """See ``isolated_env`` in tests/conftest.py."""
