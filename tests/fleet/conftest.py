"""Fixtures of the fleet tests: the fake ``kubeconform`` the kubeconform tests put on PATH,
or a PATH without any."""

from __future__ import annotations

from tests.kubeconform.conftest import fake_kubeconform, no_kubeconform

__all__ = ["fake_kubeconform", "no_kubeconform"]
