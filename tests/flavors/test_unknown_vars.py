"""generator/generate/unknown_vars.py and generator/flavors/messages.py, below the CLI."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest

from generator.clusterctl.substitution import Inputs, ValuesOrigin
from generator.errors import VariableError
from generator.flavors.catalog import FlavorCatalog
from generator.flavors.messages import subschema, unknown_fields, value_message
from generator.flavors.model import Flavor
from generator.generate.pipeline import check_unknown_variables
from generator.generate.request import ClusterRequest
from generator.generate.unknown_vars import (
    SuppliedName,
    check_names,
    flavor_names,
    supplied_names,
    template_names,
)


def test_values_origin_names_the_line_when_it_knows_the_text() -> None:
    origin = ValuesOrigin("v.yaml", text="A: 1\nNODE_POOLS:\n  - name: x\n    vmsize: y\n")
    assert origin.where(("A",)) == "v.yaml:1"
    assert origin.where(("NODE_POOLS", 0, "vmsize")) == "v.yaml:4"
    assert ValuesOrigin("v.yaml", text="A: 1\n", document=3).where(("A",)) == "v.yaml"
    assert ValuesOrigin("fleet values").where(("A",)) == "fleet values"


def test_supplied_names_keep_their_place() -> None:
    origin = ValuesOrigin("v.yaml", text="B: 1\n")
    assert supplied_names({"A": "1"}, {"B": 1}, origin) == [
        SuppliedName("A", "--var"),
        SuppliedName("B", "v.yaml:1"),
    ]


def test_check_names_passes_known_names_in_any_case() -> None:
    check_names([SuppliedName("azure_location", "--var")], ["AZURE_LOCATION"], owner="flavor x")


def test_check_names_reports_each_name_once() -> None:
    given = [SuppliedName("NODE_POOL", "--var"), SuppliedName("NODE_POOL", "v.yaml:2")]
    with pytest.raises(VariableError) as caught:
        check_names(given, ["NODE_POOLS"], owner="flavor x")
    assert caught.value.message == "1 unknown variable given to flavor x"
    assert caught.value.details == (
        "NODE_POOL: not a variable of flavor x; did you mean NODE_POOLS?",
    )


def test_a_flavor_accepts_the_placeholders_its_templates_write(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "t.yaml.j2").write_text("kind: X\nvalue: ${ MY_PLACEHOLDER:=a}\nother: ${OTHER}\n")
    flavor = Flavor(
        name="mine", description="d", directory=folder, templates=("t.yaml.j2", "gone.j2")
    )
    # an unreadable template is left to the render, which reports it with its own message
    assert flavor_names(flavor) == {"MY_PLACEHOLDER", "OTHER"}


def test_template_names_include_clusterctl_flag_variables() -> None:
    names = template_names("a: ${FOO}\n")
    assert names is not None and {"FOO", "CLUSTER_NAME", "WORKER_MACHINE_COUNT"} <= names
    assert template_names("a: ${FOO\n") is None  # the substitution reports the syntax error


def test_an_unparsable_template_is_left_to_the_substitution() -> None:
    request = ClusterRequest(
        name="demo", flavor=None, template_text="a: ${FOO\n", variables={"X": "1"}
    )
    check_unknown_variables(request, Inputs(environ={}))  # no error: nothing to compare with


def test_builtin_flavor_names_are_its_declared_variables() -> None:
    flavor = FlavorCatalog().get("aks")
    assert flavor_names(flavor) == set(flavor.variables)


# --- messages -------------------------------------------------------------------------------

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "POOLS": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "properties": {"vmSize": {"type": "string"}, "mode": {"enum": ["System", "User"]}},
            },
        },
        "REGION": {"type": "string", "pattern": "^[a-z]+$", "format": "azure-region"},
        "SIZE": {"type": "string", "pattern": "^Standard_", "format": "azure-vm-size"},
        "VERSION": {"type": "string", "pattern": "^v", "format": "kubernetes-version"},
        "OTHER": {"type": "string", "pattern": "^x$"},
        "COUNT": {"enum": [1, 2]},
    },
}


def errors_for(value: dict[str, Any]) -> list[Any]:
    return list(jsonschema_rs.validator_for(SCHEMA).iter_errors(value))


def test_subschema_follows_the_path_and_gives_up_quietly() -> None:
    assert subschema(SCHEMA, ["properties", "POOLS", "items"])["type"] == "object"
    assert subschema(SCHEMA, ["properties", "NOPE"]) == {}
    assert subschema({"anyOf": [{"type": "string"}]}, ["anyOf", 0]) == {"type": "string"}
    assert subschema({"anyOf": [{"type": "string"}]}, ["anyOf", 5]) == {}
    assert subschema({"a": "text"}, ["a"]) == {}


def test_unknown_fields_suggest_the_declared_ones() -> None:
    (error,) = errors_for({"POOLS": [{"vmsize": "x", "zzz": 1}]})
    assert unknown_fields(error, SCHEMA) == [
        ("vmsize", "unknown field 'vmsize'; did you mean vmSize?"),
        ("zzz", "unknown field 'zzz'"),
    ]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"POOLS": [{"mode": "user"}]}, "'user' is not one of System, User; did you mean User?"),
        (
            {"REGION": "North Europe"},
            "'North Europe' is not an Azure region name (lower-case letters and digits, as "
            "`az account list-locations -o table` names them, e.g. westeurope); did you mean "
            "northeurope?",
        ),
        (
            {"REGION": "Q"},
            "'Q' is not an Azure region name (lower-case letters and digits, as "
            "`az account list-locations -o table` names them, e.g. westeurope)",
        ),
        (
            {"SIZE": "D4"},
            "'D4' is not a VM size name (Standard_<family><vCPUs>[<features>][_<version>], e.g. "
            "Standard_D4s_v5 or Standard_B2ms)",
        ),
        (
            {"VERSION": "1.31"},
            "'1.31' is not a Kubernetes version (v<major>.<minor>.<patch>, e.g. v1.33.1)",
        ),
        ({"OTHER": "y"}, '"y" does not match "^x$"'),  # no format: the validator's words
        ({"COUNT": 3}, "3 is not one of 1 or 2"),  # not text: nothing to suggest
    ],
)
def test_value_messages(value: dict[str, Any], expected: str) -> None:
    (error,) = errors_for(value)
    assert value_message(error, SCHEMA) == expected
