"""Variable precedence and clusterctl config-file semantics."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.clusterctl.config import config_value_as_string, find_config_file, load_config
from generator.clusterctl.variables import (
    VariableStore,
    config_layer,
    environment_layer,
    override_layer,
)
from generator.errors import InputOutputError, VariableError, YamlError


def store(**layers: dict[str, object]) -> VariableStore:
    return VariableStore(
        [
            override_layer(layers.get("flags", {}), "command line"),
            environment_layer({k: str(v) for k, v in layers.get("env", {}).items()}),
            config_layer(layers.get("config", {})),
        ]
    )


def test_environment_beats_config_and_flags_beat_environment() -> None:
    s = store(
        flags={"A": "flag"},
        env={"A": "env", "B": "env"},
        config={"A": "cfg", "B": "cfg", "C": "cfg"},
    )
    assert (s.lookup("A"), s.lookup("B"), s.lookup("C")) == ("flag", "env", "cfg")
    assert s.resolve("B") is not None and s.resolve("B").source == "environment"  # type: ignore[union-attr]


@pytest.mark.parametrize(("layer", "label"), [("env", "environment"), ("flags", "command line")])
def test_a_value_that_is_not_utf8_is_named_when_it_is_used(layer: str, label: str) -> None:
    """The environment and the command line hand over bytes that are not UTF-8 as lone
    surrogates (``os.fsdecode``): a variable holding one is an error naming it, the others
    (and unused ones) are fine."""
    values: dict[str, object] = {"LOCATION": "east\udcffus", "UNUSED": "\udcfe", "OK": "été"}
    s = store(**{layer: values})
    assert s.lookup("OK") == "été"
    for ask in (s.lookup, s.resolve):
        with pytest.raises(VariableError) as raised:
            ask("LOCATION")
        assert str(raised.value.message) == (
            f"LOCATION: the value from the {label} is not UTF-8 text (at character 5)"
        )


def test_names_are_upper_cased_for_the_environment_only() -> None:
    s = store(env={"FOO_BAR": "x", "lower": "never"})
    assert s.lookup("foo-bar") == "x"
    assert s.lookup("lower") is None  # an env var with lower-case letters is never consulted


def test_config_keys_match_case_insensitively() -> None:
    s = store(config={"Azure_Location": "westeurope"})
    assert s.lookup("AZURE_LOCATION") == "westeurope"


def test_empty_environment_value_counts_as_set() -> None:
    s = store(env={"EMPTY": ""})
    assert s.is_set("EMPTY") and s.lookup("EMPTY") == ""


def test_null_config_value_is_unset_and_collections_are_empty_strings() -> None:
    s = store(config={"NOTHING": None, "LIST": [1, 2], "MAP": {"a": 1}})
    assert not s.is_set("NOTHING")
    assert s.lookup("LIST") == "" and s.lookup("MAP") == ""


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (True, "true"),
        (False, "false"),
        (3, "3"),
        (1.0, "1"),
        (1.5, "1.5"),
        ("x", "x"),
        (None, None),
    ],
)
def test_config_values_convert_like_viper(value: object, text: str | None) -> None:
    assert config_value_as_string(value) == text


def test_config_file_discovery_order(tmp_path: Path) -> None:
    home = tmp_path / "home"
    xdg = tmp_path / "xdg"
    (home / ".cluster-api").mkdir(parents=True)
    (home / ".cluster-api" / "clusterctl.yaml").write_text("A: home\n")
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(xdg)}
    assert find_config_file(env) == home / ".cluster-api" / "clusterctl.yaml"
    (xdg / "cluster-api").mkdir(parents=True)
    (xdg / "cluster-api" / "clusterctl.yaml").write_text("A: xdg\n")
    assert load_config(None, env) == {"A": "xdg"}


def test_no_config_file_is_fine(tmp_path: Path) -> None:
    assert load_config(None, {"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "x")}) == {}


def test_explicit_config_file_must_exist(tmp_path: Path) -> None:
    with pytest.raises(InputOutputError, match="does not exist"):
        load_config(tmp_path / "missing.yaml", {})


def test_malformed_config_file_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "clusterctl.yaml"
    path.write_text("A: 1\nB: [\n")
    with pytest.raises(YamlError) as info:
        load_config(path, {})
    assert info.value.location is not None and info.value.location.file == str(path)
    assert info.value.location.line is not None


def test_config_file_must_be_a_mapping(tmp_path: Path) -> None:
    path = tmp_path / "clusterctl.yaml"
    path.write_text("- a\n- b\n")
    with pytest.raises(YamlError, match="mapping"):
        load_config(path, {})
