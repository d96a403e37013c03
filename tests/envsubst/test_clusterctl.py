"""clusterctl's wrapper: legacy normalisation, variable inspection, missing check, substitution."""

from __future__ import annotations

import pytest

from generator.clusterctl.substitution import as_clusterctl_numbers
from generator.envsubst import (
    inspect_variables,
    missing_variables,
    normalize_legacy,
    parse,
    substitute,
)
from generator.errors import MissingVariablesError, TemplateSyntaxError


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("${ A }", "${A}"),
        ("${ A}", "${A}"),
        ("${A }", "${A}"),
        ("${\tA\n}", "${A}"),
        ("${ \r\f A \n\n}", "${A}"),
        ("${A}", "${A}"),
        ("$${ A }", "$${A}"),
        ("${ BA$R }", "${BA$R}"),
        ("${ A_1 } ${ b2 }", "${A_1} ${b2}"),
        ("${X:=${ A }}", "${X:=${A}}"),
        ("${ A:=x }", "${ A:=x }"),
        ("${ }", "${ }"),
        ("${\vA}", "${\vA}"),
        ("${\u00a0A}", "${\u00a0A}"),
        ("${ é }", "${ é }"),
        ("${ A B }", "${ A B }"),
        ("text ${ A } more ${B }", "text ${A} more ${B}"),
    ],
)
def test_normalize_legacy(text: str, expected: str) -> None:
    assert normalize_legacy(text) == expected


def test_legacy_forms_substitute() -> None:
    assert substitute("${ A } ${B }", {"A": "1", "B": "2"}.get) == "1 2"
    assert substitute("$${ A }", {"A": "1"}.get) == "${A}"


def test_legacy_forms_that_still_fail() -> None:
    with pytest.raises(TemplateSyntaxError, match="missing closing brace"):
        inspect_variables("${ BA$R }")
    with pytest.raises(TemplateSyntaxError, match="unable to parse variable name"):
        inspect_variables("${ A:=x }")


def test_errors_after_normalisation_point_at_the_original_text() -> None:
    text = "a ${ \n\n A } ${ BA$R }"
    with pytest.raises(TemplateSyntaxError) as caught:
        inspect_variables(text)
    assert caught.value.location is not None
    assert (caught.value.location.line, caught.value.location.column) == (3, 6)
    with pytest.raises(TemplateSyntaxError) as caught:
        substitute("x: ${  A  }\ny: ${B", lambda name: None)
    assert caught.value.location is not None
    assert (caught.value.location.line, caught.value.location.column) == (2, 4)


@pytest.mark.parametrize(
    ("template", "default"),
    [
        ("${A}", ""),
        ("${#A}", ""),
        ("${A,,}", ""),
        ("${A^}", ""),
        ("${A:=x}", "x"),
        ("${A=x}", "x"),
        ("${A:-x}", "x"),
        ("${A:+x}", "x"),
        ("${A:?x}", "x"),
        ("${A:=}", ""),
        ("${A:-}", ""),
        ('${A=""}', '""'),
        ("${A:=${B}}", "${B}"),
        ("${A:=p${B:-q}s}", "p${B}s"),
        ("${A/x/y}", "xy"),
        ("${A//\\//-}", "/-"),
        ("${A:1:2}", "12"),
        ("${A#pre}", "pre"),
        ("${A%%${B}}", "${B}"),
    ],
)
def test_inspection_records_arguments_as_default(template: str, default: str) -> None:
    assert inspect_variables(template) == {"A": default}


def test_inspection_first_occurrence_wins_and_order_is_kept() -> None:
    assert inspect_variables("${Z} ${A} ${Z:=x} ${M:=m}") == {"Z": "", "A": "", "M": "m"}
    assert inspect_variables("${A:=x} ${A}") == {"A": "x"}


def test_inspection_ignores_nested_and_escaped_expressions() -> None:
    assert inspect_variables("${A:=${NESTED}} $${ESCAPED} $VAR") == {"A": "${NESTED}"}


def test_template_variables_method_matches() -> None:
    assert parse("${B:=1}${A}").variables() == {"B": "1", "A": ""}


def test_missing_variables() -> None:
    variables = inspect_variables("${Z} ${A} ${B:=x} ${C:=} ${D:=${E}} ${F}")
    assert missing_variables(variables, lambda name: name == "F") == ["A", "C", "Z"]
    assert missing_variables(variables, lambda name: True) == []
    assert missing_variables({"b": "", "B": "", "a": ""}, lambda name: False) == ["B", "a", "b"]


def test_a_bare_occurrence_before_the_default_makes_the_variable_required() -> None:
    variables = inspect_variables("${A} ${A:=x}")
    assert missing_variables(variables, lambda name: False) == ["A"]
    variables = inspect_variables("${A:=x} ${A}")
    assert missing_variables(variables, lambda name: False) == []
    assert substitute("${A:=x} [${A}]", lambda name: None, lambda name: False) == "x []"


def test_substitute_reports_all_missing_variables_at_once() -> None:
    with pytest.raises(MissingVariablesError) as caught:
        substitute("${SSH_KEY} ${AWS_REGION} ${OK} ${D:=d}", {"OK": "1"}.get, {"OK"}.__contains__)
    assert caught.value.names == ("AWS_REGION", "SSH_KEY")
    assert caught.value.message == "value for variables [AWS_REGION, SSH_KEY] is not set"


def test_the_missing_variables_line_lists_every_name_and_clips_only_a_huge_one() -> None:
    names = [f"V{i}" for i in range(300)]
    error = MissingVariablesError(names)
    assert error.headline() == error.message
    assert all(name in error.headline() for name in names)
    huge = MissingVariablesError(["A", "B" * 5000])
    assert huge.headline().startswith("value for variables [A, " + "B" * 500 + "... (4,500 more")
    assert huge.headline().endswith("] is not set")


@pytest.mark.parametrize(
    ("value", "printed"),
    [  # as clusterctl v1.13.3 prints them (measured)
        (12345, 12345),
        (2**53, 2**53),
        (9223372036854775807, 9223372036854776000),
        (12345678901234567890, 12345678901234567000),
        (1e19, 10000000000000000000),
        (-0.0, 0),
        (3.0, 3),
        (0.5, 0.5),
        (18446744073709551615, 1.8446744073709552e19),
        (-9223372036854775808, -9.223372036854776e18),
        (10**400, 10**400),  # beyond float64: left alone
    ],
)
def test_numbers_come_out_as_clusterctl_prints_them(value: float, printed: float) -> None:
    result = as_clusterctl_numbers({"a": [value]})
    assert result == {"a": [printed]}
    assert type(result["a"][0]) is type(printed)


def test_objects_without_such_numbers_are_returned_as_they_are() -> None:
    obj = {"a": [1, 2.5, "x", True, None, {"b": 2**40}]}
    assert as_clusterctl_numbers(obj) is obj


def test_set_but_empty_counts_as_set_and_default_still_applies() -> None:
    values = {"A": "", "B": ""}
    assert substitute("[${A}][${B:=d}]", values.get, values.__contains__) == "[][d]"


def test_substitute_without_is_set_never_checks() -> None:
    assert substitute("${A}-${B:=b}", lambda name: None) == "-b"


def test_syntax_errors_come_before_missing_variables() -> None:
    with pytest.raises(TemplateSyntaxError):
        substitute("${MISSING} ${", lambda name: None, lambda name: False)


def test_substitute_values_are_never_reexpanded() -> None:
    values = {"A": "${B}", "B": "no"}
    assert substitute("${A} ${ A }", values.get, values.__contains__) == "${B} ${B}"
