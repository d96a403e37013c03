"""Fixtures of the release tests: one release built per session, and values for every variable."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest

from generator.flavors.catalog import FlavorCatalog
from generator.flavors.model import Flavor
from generator.generate.release import Release, ReleaseRequest, build_release

VERSION = "v0.3.0"
GOLDEN = Path(__file__).resolve().parent / "golden"

# Values that differ from every default, so a round trip proves each placeholder is wired through.
SAMPLE_VALUES: dict[str, Any] = {
    "CLUSTER_NAME": "rt-cluster",
    "NAMESPACE": "rt-ns",
    "AZURE_LOCATION": "westus2",
    "KUBERNETES_VERSION": "v1.31.4",
    "ASO_CREDENTIAL_SECRET_NAME": "rt-credentials",
    "AZURE_NODE_MACHINE_TYPE": "Standard_D4s_v5",
    "WORKER_MACHINE_COUNT": 3,
    "CLUSTER_CLASS_NAME": "rt-class",
    "CLUSTER_IDENTITY_NAME": "rt-identity",
    "AZURE_SUBSCRIPTION_ID": "11111111-2222-3333-4444-555555555555",
    "AZURE_TENANT_ID": "22222222-3333-4444-5555-666666666666",
    "AZURE_CLIENT_ID": "33333333-4444-5555-6666-777777777777",
    "AZURE_CLIENT_ID_USER_ASSIGNED_IDENTITY": "44444444-5555-6666-7777-888888888888",
    # Not ServicePrincipal*: the aks-multi-tenancy flavor pairs those with a structural variable
    # (AZURE_CLUSTER_IDENTITY_SECRET_NAME) that an exported template cannot set.
    "CLUSTER_IDENTITY_TYPE": "UserAssignedMSI",
}


def catalog() -> FlavorCatalog:
    return FlavorCatalog()


def flavor_names() -> list[str]:
    return catalog().names()


def placeholder_variables(flavor: Flavor) -> dict[str, Any]:
    return {n: s for n, s in flavor.variables.items() if s.export == "placeholder"}


def sample_value(flavor: Flavor, name: str) -> Any:
    """A valid, non-default value for a placeholder variable of ``flavor``."""
    spec = flavor.variables[name]
    if name in SAMPLE_VALUES:
        value = SAMPLE_VALUES[name]
    elif "enum" in spec.schema:
        value = next(v for v in spec.schema["enum"] if v != spec.default)
    elif spec.type == "integer" and spec.has_default:
        value = spec.default + 1
    elif spec.type == "boolean":
        value = not spec.default
    else:
        pytest.fail(f"add a round-trip value for {name} (flavor {flavor.name}) to SAMPLE_VALUES")
    validator = jsonschema_rs.validator_for(json.loads(json.dumps(spec.schema)))
    assert validator.is_valid(value), f"{name}={value!r} does not fit the variable's schema"
    return value


def as_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@pytest.fixture(scope="session")
def release() -> Release:
    return build_release(ReleaseRequest(VERSION))
