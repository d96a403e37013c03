"""``--list-variables`` output of both commands and Go's %q quoting."""

from __future__ import annotations

import pytest

from generator.envsubst import go_quote, inspect_variables
from generator.envsubst.listing import format_cluster_variable_list, format_yaml_variable_list

REFERENCE_EXAMPLE = """\
Required Variables:
  - AWS_REGION
  - KUBERNETES_VERSION

Optional Variables:
  - CLUSTER_NAME                 (defaults to c1)
  - CONTROL_PLANE_MACHINE_COUNT  (defaults to 1)
  - NAMESPACE                    (defaults to ns1)
  - SSH_KEY                      (defaults to "default-key")
  - WORKER_MACHINE_COUNT         (defaults to 0)

"""


def test_reference_example_verbatim() -> None:
    variables = inspect_variables(
        "name: ${CLUSTER_NAME}\nnamespace: ${NAMESPACE}\nversion: ${KUBERNETES_VERSION}\n"
        "region: ${AWS_REGION}\nkey: ${SSH_KEY:=default-key}\n"
        "cp: ${CONTROL_PLANE_MACHINE_COUNT}\nworkers: ${WORKER_MACHINE_COUNT}\n"
    )
    overrides = {
        "CLUSTER_NAME": "c1",
        "NAMESPACE": "ns1",
        "CONTROL_PLANE_MACHINE_COUNT": "1",
        "WORKER_MACHINE_COUNT": "0",
    }
    assert format_cluster_variable_list(variables, overrides) == REFERENCE_EXAMPLE


def test_no_variables_is_a_single_newline() -> None:
    assert format_cluster_variable_list({}, {}) == "\n"
    assert format_yaml_variable_list([]) == "\n"


def test_only_optional_starts_with_an_empty_line() -> None:
    out = format_cluster_variable_list({"A": "x"}, {})
    assert out == '\nOptional Variables:\n  - A  (defaults to "x")\n\n'


def test_only_required() -> None:
    out = format_cluster_variable_list({"B": "", "A": ""}, {})
    assert out == "Required Variables:\n  - A\n  - B\n\n"


def test_defaults_are_go_quoted_unless_they_start_with_a_quote() -> None:
    variables = inspect_variables('${E=""} ${Q:="a b"} ${P:=say "hi"} ${T:=tab\there} ${U:=é}')
    out = format_cluster_variable_list(variables, {})
    assert out == (
        "\nOptional Variables:\n"
        '  - E  (defaults to "")\n'
        '  - P  (defaults to "say \\"hi\\"")\n'
        '  - Q  (defaults to "a b")\n'
        '  - T  (defaults to "tab\\there")\n'
        '  - U  (defaults to "é")\n'
        "\n"
    )


def test_empty_default_is_required_and_overrides_are_unquoted() -> None:
    variables = inspect_variables(
        "${A:=} ${NAMESPACE} ${KUBERNETES_VERSION:=v1.30.0} ${WORKER_MACHINE_COUNT:=3}"
    )
    overrides = {
        "NAMESPACE": "current Namespace in the KubeConfig file",
        "WORKER_MACHINE_COUNT": "",
        "NOT_IN_TEMPLATE": "ignored",
    }
    assert format_cluster_variable_list(variables, overrides) == (
        "Required Variables:\n"
        "  - A\n"
        "\n"
        "Optional Variables:\n"
        '  - KUBERNETES_VERSION    (defaults to "v1.30.0")\n'
        "  - NAMESPACE             (defaults to current Namespace in the KubeConfig file)\n"
        "  - WORKER_MACHINE_COUNT  (defaults to )\n"
        "\n"
    )


def test_recorded_defaults_of_other_operators_are_listed() -> None:
    variables = inspect_variables("${RG:=${CLUSTER_NAME}} ${S:1:2} ${R/x/y}")
    assert format_cluster_variable_list(variables, {}) == (
        "\nOptional Variables:\n"
        '  - R   (defaults to "xy")\n'
        '  - RG  (defaults to "${CLUSTER_NAME}")\n'
        '  - S   (defaults to "12")\n'
        "\n"
    )


def test_names_are_byte_sorted() -> None:
    assert format_yaml_variable_list(["b", "B", "a", "_", "B"]) == (
        "Variables:\n  - B\n  - _\n  - a\n  - b\n"
    )
    variables = {"b": "", "B": "", "É": "", "Z": ""}
    assert format_cluster_variable_list(variables, {}) == (
        "Required Variables:\n  - B\n  - Z\n  - b\n  - É\n\n"
    )


def test_yaml_listing_takes_the_inspected_map() -> None:
    variables = inspect_variables("${B:=x} ${A} ${C:=${D}}")
    assert format_yaml_variable_list(variables) == "Variables:\n  - A\n  - B\n  - C\n"


def test_padding_is_measured_in_runes() -> None:
    out = format_cluster_variable_list({"É": "1", "AB": "2"}, {})
    assert out == '\nOptional Variables:\n  - AB  (defaults to "2")\n  - É   (defaults to "1")\n\n'


def test_raw_tab_in_a_quoted_default_makes_an_extra_column() -> None:
    variables = inspect_variables('${A:="x\ty"} ${LONGER:=z}')
    assert format_cluster_variable_list(variables, {}) == (
        '\nOptional Variables:\n  - A       (defaults to "x  y")\n  - LONGER  (defaults to "z")\n\n'
    )


def test_raw_newline_in_a_quoted_default_breaks_the_alignment_block() -> None:
    variables = inspect_variables('${A:="x\ny"} ${LONGER:=z}')
    assert format_cluster_variable_list(variables, {}) == (
        '\nOptional Variables:\n  - A  (defaults to "x\ny")\n  - LONGER  (defaults to "z")\n\n'
    )


@pytest.mark.parametrize("opener", ["<", "&"])
def test_unclosed_html_tag_or_entity_swallows_the_following_lines(opener: str) -> None:
    # clusterctl's tabwriter filters HTML: after "<" (or "&") tabs and newlines are plain text
    # until ">" (or ";"), so the next rows are not aligned any more.
    variables = inspect_variables(f"${{A:=a{opener}b}} ${{LONGER:=z}}")
    assert format_cluster_variable_list(variables, {}) == (
        "\nOptional Variables:\n"
        f'  - A  (defaults to "a{opener}b")\n'
        '  - LONGER\t(defaults to "z")\n'
        "\n"
    )


def test_closed_html_tag_is_harmless() -> None:
    variables = inspect_variables("${A:=<none>} ${LONGER:=a&amp;b}")
    assert format_cluster_variable_list(variables, {}) == (
        "\nOptional Variables:\n"
        '  - A       (defaults to "<none>")\n'
        '  - LONGER  (defaults to "a&amp;b")\n'
        "\n"
    )


@pytest.mark.parametrize(
    ("value", "quoted"),
    [
        ("", '""'),
        ("plain", '"plain"'),
        ('a"b\\c', '"a\\"b\\\\c"'),
        ("'", '"\'"'),
        ("\a\b\f\n\r\t\v", '"\\a\\b\\f\\n\\r\\t\\v"'),
        ("\x00\x1f\x7f", '"\\x00\\x1f\\x7f"'),
        ("\x85", '"\\u0085"'),
        ("é😀\ufffd", '"é😀\ufffd"'),
        ("\u00a0\u200b\u2028", '"\\u00a0\\u200b\\u2028"'),
        ("\U000e0001", '"\\U000e0001"'),
        ("\u0378", '"\\u0378"'),
        ("\udcff\udc80", '"\\xff\\x80"'),
        (b"ok\xc3(".decode("utf-8", "surrogateescape"), '"ok\\xc3("'),
        ("${A}", '"${A}"'),
    ],
)
def test_go_quote(value: str, quoted: str) -> None:
    assert go_quote(value) == quoted


def test_invalid_bytes_in_defaults_are_escaped_in_the_listing() -> None:
    text = b"${A:=\xff}".decode("utf-8", "surrogateescape")
    assert format_cluster_variable_list(inspect_variables(text), {}) == (
        '\nOptional Variables:\n  - A  (defaults to "\\xff")\n\n'
    )
