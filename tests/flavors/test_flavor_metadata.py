"""The built-in flavors' metadata loads, is self-consistent, and every flavor renders."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema_rs
import pytest
import yaml

from generator.errors import FlavorError
from generator.flavors import render
from generator.flavors.catalog import FlavorCatalog
from generator.flavors.model import Flavor
from tests.flavors.flavor_testing import AKS_REQUIRED, load_objects, render_text

BUILTIN = [
    "aks",
    "aks-automatic",
    "aks-clusterclass",
    "aks-legacy",
    "aks-maintenance",
    "aks-multi-tenancy",
    "aks-topology",
]
LEGACY_IDS = {
    "AZURE_SUBSCRIPTION_ID": "00000000-0000-0000-0000-000000000001",
    "CLUSTER_IDENTITY_NAME": "cluster-identity",
}
# One value set per flavor that satisfies every required variable.
REQUIRED_VALUES = {
    "aks": AKS_REQUIRED,
    "aks-maintenance": AKS_REQUIRED,
    "aks-automatic": AKS_REQUIRED,
    "aks-legacy": {**AKS_REQUIRED, **LEGACY_IDS},
    "aks-multi-tenancy": {
        **AKS_REQUIRED,
        **LEGACY_IDS,
        "AZURE_TENANT_ID": "00000000-0000-0000-0000-000000000002",
        "AZURE_CLIENT_ID_USER_ASSIGNED_IDENTITY": "00000000-0000-0000-0000-000000000003",
    },
    "aks-clusterclass": {**AKS_REQUIRED, "CLUSTER_CLASS_NAME": "aks-class"},
    "aks-topology": {
        "CLUSTER_NAME": "my-cluster",
        "CLUSTER_CLASS_NAME": "aks-class",
        "KUBERNETES_VERSION": "v1.33.1",
    },
}


@pytest.fixture(scope="module")
def catalog() -> FlavorCatalog:
    return FlavorCatalog()


def test_builtin_flavors_are_listed(catalog: FlavorCatalog) -> None:
    assert catalog.names() == BUILTIN


@pytest.mark.parametrize("name", BUILTIN)
def test_metadata_loads(catalog: FlavorCatalog, name: str) -> None:
    flavor = catalog.get(name)
    assert flavor.builtin
    assert flavor.description and "\n" not in flavor.description
    assert flavor.variables, "every built-in flavor declares its variables"
    assert flavor.notes.strip()


@pytest.mark.parametrize("name", BUILTIN)
def test_every_default_satisfies_its_own_schema(catalog: FlavorCatalog, name: str) -> None:
    for spec in catalog.get(name).variables.values():
        if spec.has_default:
            validator = jsonschema_rs.validator_for(spec.schema)
            errors = [e.message for e in validator.iter_errors(spec.default)]
            assert not errors, f"{name}: default of {spec.name}: {errors}"


@pytest.mark.parametrize("name", BUILTIN)
def test_renders_yaml_with_required_values_only(name: str) -> None:
    objects = load_objects(render_text(name, REQUIRED_VALUES[name]))
    assert objects
    for obj in objects:
        assert {"apiVersion", "kind", "metadata"} <= set(obj)
        assert obj["metadata"]["namespace"] == "default"


@pytest.mark.parametrize("name", BUILTIN)
def test_renders_yaml_with_placeholders(catalog: FlavorCatalog, name: str) -> None:
    """What `flavors show` and export do: ${VAR} placeholders for scalars, defaults for structure."""
    flavor = catalog.get(name)
    text = render.render_flavor(
        flavor, render.placeholder_values(flavor), catalog.template_search_path(flavor)
    )
    assert all(isinstance(doc, dict) for doc in yaml.safe_load_all(text))
    assert "${CLUSTER_NAME}" in text


def test_required_variables_are_marked(catalog: FlavorCatalog) -> None:
    aks = catalog.get("aks")
    required = sorted(n for n, spec in aks.variables.items() if spec.required)
    assert required == ["AZURE_LOCATION", "CLUSTER_NAME", "KUBERNETES_VERSION"]
    assert aks.variables["NODE_POOLS"].export == "default"
    assert aks.variables["ASO_CREDENTIAL_SECRET_CREATE"].export == "default"
    assert aks.variables["WORKER_MACHINE_COUNT"].export == "placeholder"


def _schemas(flavor: Flavor) -> dict[str, str]:
    return {
        name: json.dumps(spec.schema, sort_keys=True) for name, spec in flavor.variables.items()
    }


def test_aks_maintenance_declares_exactly_the_aks_variables_plus_its_windows(
    catalog: FlavorCatalog,
) -> None:
    """aks-maintenance extends aks (metadata `extends`), so it has every aks variable unchanged."""
    aks, maintenance = _schemas(catalog.get("aks")), _schemas(catalog.get("aks-maintenance"))
    assert {name: maintenance.get(name) for name in aks} == aks
    assert sorted(set(maintenance) - set(aks)) == [
        "AKS_MAINTENANCE_AUTO_UPGRADE",
        "AKS_MAINTENANCE_DEFAULT",
        "AKS_MAINTENANCE_NODE_OS_UPGRADE",
    ]


@pytest.mark.parametrize("shared", ["CLUSTER_CLASS_NAME", "KUBERNETES_VERSION"])
def test_topology_and_clusterclass_agree_on_shared_variables(
    catalog: FlavorCatalog, shared: str
) -> None:
    clusterclass = catalog.get("aks-clusterclass").variables[shared].schema
    topology = catalog.get("aks-topology").variables[shared].schema
    assert {k: v for k, v in clusterclass.items() if k != "description"} == {
        k: v for k, v in topology.items() if k != "description"
    }


def _write_flavor(root: Path, name: str, body: str) -> None:
    (root / name).mkdir(parents=True)
    (root / name / "flavor.yaml").write_text(body)
    (root / name / "t.yaml.j2").write_text("kind: {{ X | yaml }}\n")


def test_user_flavor_extends_a_builtin_and_overrides_a_declaration(tmp_path: Path) -> None:
    _write_flavor(
        tmp_path,
        "mine",
        "name: mine\nextends: aks\ndescription: d\ntemplates: [t.yaml.j2]\n"
        "variables:\n  WORKER_MACHINE_COUNT: {type: integer, description: more, default: 5}\n"
        "  X: {type: string, description: x, default: y}\n",
    )
    flavor = FlavorCatalog([tmp_path]).get("mine")
    assert flavor.variables["WORKER_MACHINE_COUNT"].default == 5
    assert "NODE_POOLS" in flavor.variables  # inherited


def test_extends_cycles_are_reported(tmp_path: Path) -> None:
    for name, parent in (("a", "b"), ("b", "a")):
        _write_flavor(
            tmp_path,
            name,
            f"name: {name}\nextends: {parent}\ndescription: d\ntemplates: [t.yaml.j2]\nvariables: {{}}\n",
        )
    with pytest.raises(FlavorError, match="extends itself"):
        FlavorCatalog([tmp_path]).get("a")


def test_builtin_flavor_never_extends_a_user_flavor(tmp_path: Path) -> None:
    _write_flavor(
        tmp_path,
        "aks",
        "name: aks\ndescription: d\ntemplates: [t.yaml.j2]\nvariables:\n  X: {type: string, description: x}\n",
    )
    maintenance = FlavorCatalog([tmp_path]).get("aks-maintenance")
    assert "X" not in maintenance.variables
    assert "NODE_POOLS" in maintenance.variables
