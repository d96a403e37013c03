"""`capzgen flavors schema NAME`: a flavor's variables as one JSON Schema for values files."""

from __future__ import annotations

import json
import re
from typing import Any

import jsonschema_rs
import pytest
import yaml

from tests.conftest import REPO_ROOT

FLAVORS_DOC = (REPO_ROOT / "docs" / "flavors-and-variables.md").read_text(encoding="utf-8")
FLEETS_DOC = (REPO_ROOT / "docs" / "gitops-and-fleets.md").read_text(encoding="utf-8")


def readme_values_example() -> dict[str, Any]:
    """The `values.yaml` example docs/flavors-and-variables.md gives for `--values`."""
    after = FLAVORS_DOC.split("Example (`values.yaml`, passed with `--values`):", 1)[1]
    block = re.search(r"```yaml\n(.*?)```", after, re.S)
    assert block is not None
    values = yaml.safe_load(block.group(1))
    assert isinstance(values, dict)
    return values


def readme_fleet_values() -> list[tuple[str, dict[str, Any]]]:
    """Every ``values`` mapping of the fleet example in docs/gitops-and-fleets.md, with its flavor."""
    block = re.search(r"```yaml\n(apiVersion: capzgen.dev/v1alpha1.*?)```", FLEETS_DOC, re.S)
    assert block is not None
    fleet = yaml.safe_load(block.group(1))
    default = fleet["defaults"].get("flavor", "aks")
    found = [(default, fleet["defaults"]["values"])]
    found += [(c.get("flavor", default), c["values"]) for c in fleet["clusters"] if "values" in c]
    return found


def schema_of(run_cli: Any, flavor: str) -> Any:
    result = run_cli(["flavors", "schema", flavor])
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def test_schema_is_draft_2020_12_with_descriptions_defaults_and_item_fields(
    run_cli: Any,
) -> None:
    schema = schema_of(run_cli, "aks")
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["additionalProperties"] is False
    assert "required" not in schema  # values may come from --var, the environment or config
    pools = schema["properties"]["NODE_POOLS"]
    assert pools["description"].startswith("Node pools")
    assert pools["default"] == [
        {"name": "pool0", "mode": "System"},
        {"name": "pool1", "mode": "User"},
    ]
    item = pools["items"]
    assert item["additionalProperties"] is False
    assert {"name", "mode", "vmSize", "replicas", "autoscaling"} <= set(item["properties"])
    assert item["properties"]["vmSize"]["description"]
    assert schema["properties"]["WORKER_MACHINE_COUNT"]["default"] == 2
    for key in ("required", "export"):  # capzgen's own keys are no JSON Schema
        assert not any(key in spec for spec in schema["properties"].values() if spec is not None)
    jsonschema_rs.Draft202012Validator(schema)  # a usable schema for that draft


def test_readme_values_files_validate_and_typos_do_not(run_cli: Any) -> None:
    validator = jsonschema_rs.Draft202012Validator(schema_of(run_cli, "aks"))
    example = readme_values_example()
    assert validator.is_valid(example), list(validator.iter_errors(example))
    typo = {**example, "NODE_POOL": example["NODE_POOLS"]}
    assert not validator.is_valid(typo)
    field_typo = {"NODE_POOLS": [{"name": "sys", "mode": "System", "vmsize": "Standard_D4s_v5"}]}
    assert not validator.is_valid(field_typo)


@pytest.mark.parametrize("index", range(len(readme_fleet_values())))
def test_readme_fleet_values_validate(run_cli: Any, index: int) -> None:
    flavor, values = readme_fleet_values()[index]
    validator = jsonschema_rs.Draft202012Validator(schema_of(run_cli, flavor))
    assert validator.is_valid(values), list(validator.iter_errors(values))


def test_aliases_and_unknown_names(run_cli: Any) -> None:
    assert schema_of(run_cli, "aks-aso-maintenance")["title"] == (
        "capzgen values for flavor aks-maintenance"
    )
    result = run_cli(["flavors", "schema", "aks-maintenence"])
    assert result.exit_code == 1
    assert result.stdout == ""
    assert "Hint: did you mean aks-maintenance or aks-aso-maintenance? " in result.stderr
