"""Shared fixtures: see tests/gitops/conftest.py."""

from __future__ import annotations

from tests.gitops.conftest import isolated_env, schema_args

__all__ = ["isolated_env", "schema_args"]
