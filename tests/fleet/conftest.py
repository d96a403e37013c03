"""Fixtures of the fleet tests: the fake ``kubeconform`` the kubeconform tests put on PATH."""

from __future__ import annotations

from tests.kubeconform.conftest import fake_kubeconform

__all__ = ["fake_kubeconform"]
