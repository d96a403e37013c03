"""Helpers for the topology plan tests: inputs from CAPZ's templates and capzgen's flavors, and
planning them the way the CLI does (the built-in schema bundle, validation included)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from generator.settings import Settings
from generator.topology.run import PlanInputs, PlanRequest, PlanResult, plan_text
from generator.yamlio.load import load_documents
from tests.flavors.flavor_testing import load_objects, render_text, substitute

CLASS_NAME = "aks-class"
CLUSTER = "my-cluster"
# One set of values for the class, the topology Cluster and CAPZ's non-class aks-aso template.
VALUES: dict[str, Any] = {
    "CLUSTER_CLASS_NAME": CLASS_NAME,
    "AZURE_LOCATION": "westeurope",
    "KUBERNETES_VERSION": "v1.33.1",
    "ASO_CREDENTIAL_SECRET_NAME": "team-aso-credentials",
    "AZURE_NODE_MACHINE_TYPE": "Standard_D4s_v5",
    "WORKER_MACHINE_COUNT": 1,  # the topology's replicas
}
CLASS_TEMPLATES = "class-templates"  # CLUSTER_NAME of the class: its templates' name prefix


def capz_text(corpus_dir: Path, template: str, settings: Mapping[str, Any]) -> str:
    """CAPZ's released template ``cluster-template-<template>.yaml``, substituted."""
    text = (corpus_dir / f"cluster-template-{template}.yaml").read_text(encoding="utf-8")
    return substitute(text, settings)


def capz_inputs(corpus_dir: Path) -> str:
    """CAPZ's aks-aso-clusterclass and aks-aso-topology, one stream."""
    klass = capz_text(
        corpus_dir, "aks-aso-clusterclass", {**VALUES, "CLUSTER_NAME": CLASS_TEMPLATES}
    )
    cluster = capz_text(corpus_dir, "aks-aso-topology", {**VALUES, "CLUSTER_NAME": CLUSTER})
    return f"{klass}\n---\n{cluster}"


def flavor_inputs() -> str:
    """capzgen's aks-clusterclass and aks-topology flavors, one stream."""
    klass = render_text("aks-clusterclass", {**_class_values(), "CLUSTER_NAME": CLASS_TEMPLATES})
    cluster = render_text(
        "aks-topology",
        {
            "CLUSTER_NAME": CLUSTER,
            "CLUSTER_CLASS_NAME": CLASS_NAME,
            "KUBERNETES_VERSION": VALUES["KUBERNETES_VERSION"],
        },
    )
    return f"{klass}\n---\n{cluster}"


def _class_values() -> dict[str, Any]:
    return {k: v for k, v in VALUES.items() if k != "WORKER_MACHINE_COUNT"}


def aks_aso_objects(corpus_dir: Path) -> list[dict[str, Any]]:
    """CAPZ's non-class aks-aso template for the same values and cluster name."""
    return load_objects(capz_text(corpus_dir, "aks-aso", {**VALUES, "CLUSTER_NAME": CLUSTER}))


def plan(text: str, cache_root: Path, source: str = "inputs.yaml") -> PlanResult:
    """The plan of ``text`` as ``capzgen topology plan`` makes it (validated with the built-in
    bundle)."""
    inputs = PlanInputs(tuple(load_documents(text, source=source)), {source: text})
    return plan_text(inputs, PlanRequest(paths=(source,)), Settings(cache_root=cache_root))
