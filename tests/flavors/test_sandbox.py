"""A user's flavor is user code: whatever its templates do ends in one located error (exit 1),
never a crash, a traceback, gigabytes or minutes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import GENERATE_DEMO

CASES = {
    "huge-range": ("{% for i in range(10**9) %}{% endfor %}", "Range too big"),
    "endless-macro": (
        "{% macro m() %}{{ m() }}{% endmacro %}{{ m() }}",
        "template recursion is too deep",
    ),
    "undefined-to-yaml": ("{{ UNDEFINED | to_yaml }}", "'UNDEFINED' is undefined"),
    "bad-format-spec": ('{{ "{:zz}".format(1) }}', "Unknown format code"),
    "division-by-zero": ("{{ 1 / 0 }}", "ZeroDivisionError"),
    "string-repeat": ('{{ "x" * 10**9 }}', "a repeated value is larger than a flavor may build"),
    "list-repeat": ("{{ [1] * 10**8 }}", "a repeated value is larger than a flavor may build"),
    "power": ("{% set n = 10 %}{{ 7 ** (n ** 6) }}", "is larger than a flavor may build"),
    "percent-width": ('{{ "%1000000000d" % 1 }}', "format width 1000000000"),
    "format-width": ('{{ "{:>1000000000}".format(1) }}', "format width 1000000000"),
    "center-filter": ('{{ "a" | center(10**9) }}', "center width 1000000000"),
    "indent-filter": ('{{ "a\\nb" | indent(10**9) }}', "indent width 1000000000"),
    "ljust-method": ('{{ "a".ljust(10**9) }}', "str.ljust width 1000000000"),
}


def user_flavor(root: Path, template: str, variables: str = "") -> Path:
    folder = root / "flavors" / "mine"
    folder.mkdir(parents=True)
    (folder / "flavor.yaml").write_text(
        "name: mine\ndescription: d\ntemplates: [t.yaml.j2]\nvariables:\n"
        + (variables or "  X: {type: string, description: x, default: v}\n")
    )
    (folder / "t.yaml.j2").write_text(template + "\n")
    return root / "flavors"


@pytest.mark.parametrize("case", sorted(CASES))
def test_template_mistakes_are_flavor_errors(run_cli: Any, tmp_path: Path, case: str) -> None:
    template, message = CASES[case]
    flavors = user_flavor(tmp_path, template)
    result = run_cli(
        ["generate", "cluster", "demo", "--flavor", "mine", "--flavors-dir", str(flavors)]
    )
    assert result.exit_code == 1, result.stderr
    first = result.stderr.splitlines()[0]
    assert first.startswith(f"Error: {flavors / 'mine' / 't.yaml.j2'}"), first
    assert message in first, first
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr


def test_reasonable_repetition_still_works(run_cli: Any, tmp_path: Path) -> None:
    flavors = user_flavor(
        tmp_path,
        'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: "{{ "a" * 3 }}"}\n'
        'data: {x: "{{ "%5d" % 1 }}"}',
    )
    result = run_cli(
        ["generate", "cluster", "demo", "--flavor", "mine", "--flavors-dir", str(flavors)]
    )
    assert "name: aaa" in result.stdout, result.stderr


def test_flavor_patterns_keep_ecma_lookaround_with_bounded_backtracking(
    run_cli: Any, tmp_path: Path
) -> None:
    """Variable schemas are plain JSON Schema: a lookahead works, and a catastrophic pattern
    answers at once instead of running for minutes."""
    variables = (
        "  X: {type: string, description: x, default: v, pattern: '^(?!kube)[a-z]+$'}\n"
        "  Y: {type: string, description: y, default: aaa, pattern: '^(a+)+b$'}\n"
    )
    flavors = user_flavor(tmp_path, "kind: ConfigMap", variables)
    base = ["generate", "cluster", "demo", "--flavor", "mine", "--flavors-dir", str(flavors)]
    refused = run_cli([*base, "--var", "X=kubelet", "--var", "Y=" + "a" * 5000 + "!"])
    assert refused.exit_code == 1
    assert 'X: "kubelet" does not match' in refused.stderr
    assert "Y: " in refused.stderr


def test_variable_schema_with_an_external_ref_is_a_flavor_error(
    run_cli: Any, tmp_path: Path
) -> None:
    ref = json.dumps({"type": "string", "description": "x", "$ref": "file:///etc/passwd"})
    flavors = user_flavor(tmp_path, "kind: ConfigMap", f"  X: {ref}\n")
    result = run_cli(
        [
            "generate",
            "cluster",
            "demo",
            "--flavor",
            "mine",
            "--flavors-dir",
            str(flavors),
            "--var",
            "X=a",
        ]
    )
    assert result.exit_code == 1
    assert "refers outside itself" in result.stderr


def test_deeply_nested_value_from_the_environment_is_a_variable_error(run_cli: Any) -> None:
    deep = "[" * 60_000 + "]" * 60_000
    result = run_cli(
        GENERATE_DEMO,
        env={"NODE_POOLS": deep},
    )
    assert result.exit_code == 1
    assert (
        "NODE_POOLS: expected a YAML/JSON array: document nests deeper than 128 levels "
        "(from environment)" in result.stderr
    )


def test_a_symlink_out_of_the_flavor_folder_is_refused(run_cli: Any, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("kind: TopSecret\n")
    flavors = user_flavor(tmp_path, "placeholder")
    template = flavors / "mine" / "t.yaml.j2"
    template.unlink()
    template.symlink_to(secret)
    result = run_cli(
        ["generate", "cluster", "demo", "--flavor", "mine", "--flavors-dir", str(flavors)]
    )
    assert result.exit_code == 1
    assert f"resolves to {secret}, outside the flavor folders" in result.stderr
    assert "TopSecret" not in result.stdout + result.stderr


def test_a_symlink_inside_the_flavor_folders_is_fine(run_cli: Any, tmp_path: Path) -> None:
    flavors = user_flavor(tmp_path, "placeholder")
    real = flavors / "mine" / "real.yaml.j2"
    real.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: linked}\n")
    template = flavors / "mine" / "t.yaml.j2"
    template.unlink()
    template.symlink_to(real)
    result = run_cli(
        ["generate", "cluster", "demo", "--flavor", "mine", "--flavors-dir", str(flavors)]
    )
    assert "name: linked" in result.stdout, result.stderr
