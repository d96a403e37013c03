"""`inherit: true`: a flavor that extends another restates an inherited variable (a new default,
a new description) and keeps the rest of its declaration, such as NODE_POOLS's item schema."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.errors import FlavorError
from generator.flavors.catalog import FlavorCatalog


def _child(tmp_path: Path, declaration: str) -> FlavorCatalog:
    folder = tmp_path / "child"
    folder.mkdir()
    (folder / "cluster.yaml.j2").write_text('{% extends "_lib/aks.yaml.j2" %}\n', encoding="utf-8")
    (folder / "flavor.yaml").write_text(
        "name: child\nextends: aks\ndescription: a test flavor\ntemplates: [cluster.yaml.j2]\n"
        f"variables:\n{declaration}",
        encoding="utf-8",
    )
    return FlavorCatalog([tmp_path])


def test_inherit_keeps_the_parents_schema_and_replaces_what_it_states(tmp_path: Path) -> None:
    catalog = _child(
        tmp_path,
        "  NODE_POOLS:\n    type: array\n    inherit: true\n    description: one pool\n"
        "    default: [{name: only, mode: System}]\n",
    )
    parent = catalog.get("aks").variables["NODE_POOLS"]
    restated = catalog.get("child").variables["NODE_POOLS"]
    assert restated.default == [{"name": "only", "mode": "System"}]
    assert restated.description == "one pool"
    assert restated.schema["items"] == parent.schema["items"]
    assert (restated.required, restated.export) == (parent.required, parent.export)
    assert "inherit" not in restated.schema


@pytest.mark.parametrize(
    "declaration",
    [
        "  NEW_THING:\n    type: string\n    inherit: true\n    description: x\n",
        "  NODE_POOLS:\n    type: object\n    inherit: true\n    description: x\n",
    ],
    ids=["not-inherited", "other-type"],
)
def test_inherit_needs_an_inherited_variable_of_the_same_type(
    tmp_path: Path, declaration: str
) -> None:
    with pytest.raises(FlavorError, match="says inherit: true but extends no"):
        _child(tmp_path, declaration).get("child")
