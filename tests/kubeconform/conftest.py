"""Fixtures of the kubeconform tests: a fake ``kubeconform`` on PATH and a store over the vendored upstream data."""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent


@dataclass
class FakeKubeconform:
    path: Path
    log: Path

    def calls(self) -> list[list[str]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]


@pytest.fixture
def fake_kubeconform(tmp_path: Path, cli_env: dict[str, str]) -> Callable[[str], FakeKubeconform]:
    """``fake_kubeconform(mode)`` puts the fake first on the PATH of ``cli_env`` (what the CLI
    and the library tests hand to capzgen) and selects its behaviour."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "kubeconform"
    source = (HERE / "fake_kubeconform.py").read_text()
    script.write_text(f"#!{sys.executable}\n{source}")
    script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    log = tmp_path / "fake-kubeconform.log"

    def install(mode: str) -> FakeKubeconform:
        cli_env["PATH"] = f"{bin_dir}{os.pathsep}{cli_env['PATH']}"
        cli_env["FAKE_KUBECONFORM_MODE"] = mode
        cli_env["FAKE_KUBECONFORM_LOG"] = str(log)
        return FakeKubeconform(script, log)

    return install


@pytest.fixture
def no_kubeconform(tmp_path: Path, cli_env: dict[str, str]) -> None:
    """A PATH on which no kubeconform can be found."""
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    cli_env["PATH"] = str(empty)


CONTROL_PLANE: dict[str, Any] = {
    "apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1",
    "kind": "AzureASOManagedControlPlane",
    "metadata": {"name": "demo", "namespace": "default"},
    "spec": {
        "version": "v1.31.1",
        "resources": [
            {
                "apiVersion": "containerservice.azure.com/v1api20240901",
                "kind": "ManagedCluster",
                "metadata": {"name": "demo"},
                "spec": {
                    "location": "westeurope",
                    "dnsPrefix": "demo",
                    "owner": {"name": "demo-rg"},
                },
            }
        ],
    },
}

RESOURCE_GROUP: dict[str, Any] = {
    "apiVersion": "resources.azure.com/v1api20200601",
    "kind": "ResourceGroup",
    "metadata": {"name": "demo-rg", "namespace": "default"},
    "spec": {"location": "westeurope"},
}

SECRET: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Secret",
    "metadata": {"name": "creds", "namespace": "default"},
    "stringData": {"AZURE_CLIENT_ID": "x"},
}
