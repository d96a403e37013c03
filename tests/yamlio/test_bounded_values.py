"""Small YAML inputs that are not manifests go through the same bounds as manifests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from generator.errors import YamlError
from generator.yamlio.load import load_json, load_manifest_value, load_value

DEEP = "a: " + "[" * 5000 + "]" * 5000 + "\n"
BOMB = 'a: &a ["x","x","x","x","x","x","x","x","x"]\n' + "".join(
    f"{c}: &{c} [*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p}]\n"
    for p, c in zip("abcdefgh", "bcdefghi", strict=True)
)


def test_values_keep_their_yaml_1_1_meaning() -> None:
    """Flavor metadata and clusterctl config always meant PyYAML's reading: ``n`` is a string
    there, while a manifest (go-yaml v2, as Kubernetes reads it) makes it false."""
    assert load_value("description: n\nflag: yes\nday: 2024-01-01\n", source="x") == {
        "description": "n",
        "flag": True,
        "day": "2024-01-01",
    }
    assert load_manifest_value("description: n\n", source="x") == {"description": False}
    assert load_value("", source="x") is None


@pytest.mark.parametrize("text", [DEEP, BOMB, "a: 1\na: 2\n"], ids=["deep", "alias-bomb", "dup"])
def test_bounds_and_duplicate_keys(text: str) -> None:
    with pytest.raises(YamlError) as caught:
        load_value(text, source="config.yaml")
    assert caught.value.location is not None and caught.value.location.file == "config.yaml"


def test_strict_json_with_position_and_depth() -> None:
    with pytest.raises(YamlError, match="invalid JSON") as caught:
        load_json('{"a": }', source="m.json")
    assert caught.value.location is not None and caught.value.location.column == 7
    with pytest.raises(YamlError, match="nested deeper than"):
        load_json("[" * 200 + "]" * 200, source="m.json")
    with pytest.raises(YamlError, match="nested deeper than"):
        load_json("[" * 100_000 + "]" * 100_000, source="m.json")


@pytest.mark.parametrize("text", [DEEP, BOMB], ids=["deep", "alias-bomb"])
def test_hostile_clusterctl_config_is_one_clear_error(
    run_cli: Any, tmp_path: Path, text: str
) -> None:
    config = tmp_path / "clusterctl.yaml"
    config.write_text(text)
    result = run_cli(["generate", "yaml", "--config", str(config)], stdin="a: ${A:=1}\n")
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: {config}")
    assert "clusterctl config file is not valid YAML" in result.stderr


def test_hostile_flavor_metadata_is_one_clear_error(run_cli: Any, tmp_path: Path) -> None:
    flavor = tmp_path / "flavors" / "mine"
    flavor.mkdir(parents=True)
    (flavor / "flavor.yaml").write_text(BOMB)
    result = run_cli(["flavors", "show", "mine", "--flavors-dir", str(tmp_path / "flavors")])
    assert result.exit_code == 1
    assert f"{flavor / 'flavor.yaml'}" in result.stderr
    assert "flavor metadata is not valid YAML" in result.stderr
