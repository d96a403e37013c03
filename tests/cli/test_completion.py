"""`capzgen completion bash|zsh|fish` and the completion protocol its scripts speak
(`_CAPZGEN_COMPLETE=<shell>_complete` with COMP_WORDS/COMP_CWORD), driven through main()."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

FLAVORS = [
    "aks",
    "aks-automatic",
    "aks-clusterclass",
    "aks-legacy",
    "aks-maintenance",
    "aks-multi-tenancy",
    "aks-topology",
]


def bash(run_cli: Any, line: str, **extra: str) -> list[str]:
    """What bash would be offered with the cursor at the end of ``line``."""
    words = line.split(" ")
    env = {
        "_CAPZGEN_COMPLETE": "bash_complete",
        "COMP_WORDS": line,
        "COMP_CWORD": str(len(words) - 1),
        **extra,
    }
    result = run_cli([], env=env)
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    assert result.stdout.endswith("\n")  # click's scripts expect one answer per line
    return [line for line in result.stdout.splitlines() if line]


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_prints_the_script_of_each_shell(run_cli: Any, shell: str) -> None:
    result = run_cli(["completion", shell])
    assert result.exit_code == 0, result.stderr
    assert f"_CAPZGEN_COMPLETE={shell}_complete" in result.stdout
    assert "capzgen" in result.stdout


def test_completion_of_an_unknown_shell_is_a_usage_error(run_cli: Any) -> None:
    result = run_cli(["completion", "tcsh"])
    assert result.exit_code == 2
    assert "'tcsh' is not one of 'bash', 'zsh', 'fish'" in result.stderr


def test_flavor_names_complete_after_flavor(run_cli: Any) -> None:
    assert bash(run_cli, "capzgen generate cluster demo --flavor ") == [
        f"plain,{name}" for name in FLAVORS
    ]
    assert bash(run_cli, "capzgen generate cluster demo -f aks-m") == [
        "plain,aks-maintenance",
        "plain,aks-multi-tenancy",
    ]
    assert bash(run_cli, "capzgen flavors show aks-l") == ["plain,aks-legacy"]


def test_flavors_of_a_flavors_dir_complete_too(run_cli: Any, tmp_path: Path) -> None:
    mine = tmp_path / "flavors" / "mine"
    mine.mkdir(parents=True)
    (mine / "flavor.yaml").write_text("name: mine\n")
    line = f"capzgen generate cluster demo --flavors-dir {tmp_path / 'flavors'} --flavor m"
    assert bash(run_cli, line) == ["plain,mine"]
    # A --flavors-dir that does not exist still offers the built-in flavors.
    assert bash(run_cli, "capzgen generate cluster demo --flavors-dir /nowhere -f aks-t") == [
        "plain,aks-topology"
    ]


def test_variable_names_complete_after_var(run_cli: Any) -> None:
    offered = bash(run_cli, "capzgen generate cluster demo --var ")
    assert "plain,AZURE_LOCATION=" in offered
    assert "plain,NODE_POOLS=" in offered
    assert bash(run_cli, "capzgen generate cluster demo --var azure_l") == ["plain,AZURE_LOCATION="]
    # The value is the user's: nothing is offered after the '='.
    assert bash(run_cli, "capzgen generate cluster demo --var AZURE_LOCATION=w") == []


def test_variable_names_follow_the_chosen_flavor(run_cli: Any) -> None:
    legacy = bash(run_cli, "capzgen generate cluster demo -f aks-legacy --var ")
    aks = bash(run_cli, "capzgen generate cluster demo --var ")
    assert "plain,AKS_VNET=" in aks
    assert "plain,AKS_VNET=" not in legacy
    assert bash(run_cli, "capzgen generate cluster demo -f nope --var A") == []


@pytest.mark.parametrize(
    "line",
    [
        "capzgen generate cluster demo --values v",
        "capzgen generate cluster demo --patch p",
        "capzgen generate cluster demo --write-to o",
        "capzgen generate cluster demo --from t",
        "capzgen generate yaml --from t",
        "capzgen generate fleet f",
        "capzgen validate m",
        "capzgen migrate l",
    ],
)
def test_file_arguments_complete_paths(run_cli: Any, line: str) -> None:
    assert bash(run_cli, line) == [f"file,{line.rsplit(' ', 1)[1]}"]


def test_commands_and_options_complete(run_cli: Any) -> None:
    assert "plain,completion" in bash(run_cli, "capzgen ")
    options = bash(run_cli, "capzgen generate cluster demo --control")
    assert options == ["plain,--control-plane-machine-count"]


def test_zsh_and_fish_protocols(run_cli: Any) -> None:
    zsh = run_cli(
        [],
        env={
            "_CAPZGEN_COMPLETE": "zsh_complete",
            "COMP_WORDS": "capzgen generate cluster demo --flavor aks-t",
            "COMP_CWORD": "5",
        },
    )
    assert zsh.exit_code == 0
    assert zsh.stdout == "plain\naks-topology\n_\n"
    fish = run_cli(
        [],
        env={
            "_CAPZGEN_COMPLETE": "fish_complete",
            "COMP_WORDS": "capzgen generate cluster demo --var AZURE_LOC",
            "COMP_CWORD": "AZURE_LOC",
        },
    )
    assert fish.exit_code == 0
    assert fish.stdout.startswith("plain,AZURE_LOCATION=\t")


def test_the_source_instruction_prints_the_script(run_cli: Any) -> None:
    result = run_cli([], env={"_CAPZGEN_COMPLETE": "fish_source"})
    assert result.exit_code == 0
    assert result.stdout == run_cli(["completion", "fish"]).stdout


@pytest.mark.parametrize(
    "env",
    [
        {"_CAPZGEN_COMPLETE": "tcsh_complete"},
        {"_CAPZGEN_COMPLETE": "bash_explode"},
        {"_CAPZGEN_COMPLETE": "bash_complete"},  # no COMP_WORDS
        {"_CAPZGEN_COMPLETE": "bash_complete", "COMP_WORDS": "capzgen", "COMP_CWORD": "x"},
    ],
)
def test_malformed_requests_exit_1_quietly(run_cli: Any, env: dict[str, str]) -> None:
    result = run_cli([], env=env)
    assert (result.exit_code, result.stdout, result.stderr) == (1, "", "")
