"""The released CAPZ AKS templates go through inspection and substitution cleanly."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from generator.envsubst import inspect_variables, missing_variables, substitute
from generator.envsubst.listing import format_cluster_variable_list, format_yaml_variable_list
from generator.errors import MissingVariablesError

CORPUS = [
    "cluster-template-aks-aso-clusterclass.yaml",
    "cluster-template-aks-aso-maintenance.yaml",
    "cluster-template-aks-aso-topology.yaml",
    "cluster-template-aks-aso.yaml",
    "cluster-template-aks-clusterclass.yaml",
    "cluster-template-aks-topology.yaml",
    "cluster-template-aks.yaml",
]


def _read(path: Path) -> str:
    return path.read_bytes().decode("utf-8", "surrogateescape")


def test_corpus_list_is_complete(corpus_dir: Path) -> None:
    assert sorted(path.name for path in corpus_dir.glob("cluster-template-*.yaml")) == CORPUS


def test_aks_aso_variables(corpus_dir: Path) -> None:
    variables = inspect_variables(_read(corpus_dir / "cluster-template-aks-aso.yaml"))
    assert list(variables.items()) == [
        ("CLUSTER_NAME", ""),
        ("ASO_CREDENTIAL_SECRET_NAME", ""),
        ("AZURE_LOCATION", ""),
        ("KUBERNETES_VERSION", ""),
        ("WORKER_MACHINE_COUNT", "2"),
        ("AZURE_NODE_MACHINE_TYPE", ""),
    ]


def test_aks_variables(corpus_dir: Path) -> None:
    variables = inspect_variables(_read(corpus_dir / "cluster-template-aks.yaml"))
    assert list(variables.items()) == [
        ("CLUSTER_NAME", ""),
        ("CLUSTER_IDENTITY_NAME", ""),
        ("AZURE_LOCATION", ""),
        ("AZURE_RESOURCE_GROUP", "${CLUSTER_NAME}"),
        ("AZURE_SSH_PUBLIC_KEY_B64", '""'),
        ("AZURE_SUBSCRIPTION_ID", ""),
        ("KUBERNETES_VERSION", ""),
        ("WORKER_MACHINE_COUNT", "2"),
        ("AZURE_NODE_MACHINE_TYPE", ""),
        ("AZURE_CLIENT_ID_USER_ASSIGNED_IDENTITY", ""),
        ("AZURE_TENANT_ID", ""),
        ("CLUSTER_IDENTITY_TYPE", "WorkloadIdentity"),
    ]


def test_aks_listings(corpus_dir: Path) -> None:
    variables = inspect_variables(_read(corpus_dir / "cluster-template-aks.yaml"))
    overrides = {
        "CLUSTER_NAME": "demo",
        "NAMESPACE": "current Namespace in the KubeConfig file",
        "WORKER_MACHINE_COUNT": "0",
    }
    assert format_cluster_variable_list(variables, overrides) == (
        "Required Variables:\n"
        "  - AZURE_CLIENT_ID_USER_ASSIGNED_IDENTITY\n"
        "  - AZURE_LOCATION\n"
        "  - AZURE_NODE_MACHINE_TYPE\n"
        "  - AZURE_SUBSCRIPTION_ID\n"
        "  - AZURE_TENANT_ID\n"
        "  - CLUSTER_IDENTITY_NAME\n"
        "  - KUBERNETES_VERSION\n"
        "\n"
        "Optional Variables:\n"
        '  - AZURE_RESOURCE_GROUP      (defaults to "${CLUSTER_NAME}")\n'
        '  - AZURE_SSH_PUBLIC_KEY_B64  (defaults to "")\n'
        '  - CLUSTER_IDENTITY_TYPE     (defaults to "WorkloadIdentity")\n'
        "  - CLUSTER_NAME              (defaults to demo)\n"
        "  - WORKER_MACHINE_COUNT      (defaults to 0)\n"
        "\n"
    )
    assert format_yaml_variable_list(variables).splitlines()[:3] == [
        "Variables:",
        "  - AZURE_CLIENT_ID_USER_ASSIGNED_IDENTITY",
        "  - AZURE_LOCATION",
    ]


def test_aks_defaults_apply_when_unset(corpus_dir: Path) -> None:
    text = _read(corpus_dir / "cluster-template-aks.yaml")
    values = {
        name: f"value-{name.lower().replace('_', '-')}"
        for name, default in inspect_variables(text).items()
        if not default
    }
    values["CLUSTER_NAME"] = "my-cluster"
    out = substitute(text, values.get, values.__contains__)
    assert "resourceGroupName: my-cluster\n" in out
    assert 'sshPublicKey: ""\n' in out
    assert "replicas: 2\n" in out
    assert "type: WorkloadIdentity\n" in out


def test_aks_missing_variables_are_reported_together(corpus_dir: Path) -> None:
    text = _read(corpus_dir / "cluster-template-aks.yaml")
    assert missing_variables(inspect_variables(text), {"CLUSTER_NAME"}.__contains__) == [
        "AZURE_CLIENT_ID_USER_ASSIGNED_IDENTITY",
        "AZURE_LOCATION",
        "AZURE_NODE_MACHINE_TYPE",
        "AZURE_SUBSCRIPTION_ID",
        "AZURE_TENANT_ID",
        "CLUSTER_IDENTITY_NAME",
        "KUBERNETES_VERSION",
    ]
    with pytest.raises(MissingVariablesError) as caught:
        substitute(text, {"CLUSTER_NAME": "c"}.get, {"CLUSTER_NAME"}.__contains__)
    assert len(caught.value.names) == 7


@pytest.mark.parametrize("name", CORPUS)
def test_every_template_substitutes_cleanly(corpus_dir: Path, name: str) -> None:
    text = _read(corpus_dir / name)
    variables = inspect_variables(text)
    assert variables, "every CAPZ template uses variables"
    values = {name: f"v-{index}" for index, name in enumerate(variables)}
    values["WORKER_MACHINE_COUNT"] = "3"
    out = substitute(text, values.get, values.__contains__)
    assert "${" not in out
    documents = [doc for doc in yaml.safe_load_all(out) if doc is not None]
    assert documents
    assert all(isinstance(doc, dict) and "kind" in doc for doc in documents)
    assert "v-0" in out
