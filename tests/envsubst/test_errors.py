"""Malformed templates: drone's exact messages and where capzgen says they are."""

from __future__ import annotations

import pytest

from generator.envsubst import parse
from generator.errors import TemplateSyntaxError

NAME = "unable to parse variable name"
BRACE = "missing closing brace"
FUNC = "unable to parse substitution within function"
BAD = "bad substitution"

TABLE = [
    # unable to parse variable name
    ("${}", NAME),
    ("${ A}", NAME),
    ("${-x}", NAME),
    ("${", NAME),
    ("${${A}}", NAME),
    # missing closing brace
    ("${A", BRACE),
    ("${A-x}", BRACE),
    ("${A+x}", BRACE),
    ("${A?x}", BRACE),
    ("${A.B}", BRACE),
    ("${A[0]}", BRACE),
    ("${A x}", BRACE),
    ("${A€}", BRACE),
    # unable to parse substitution within function
    ("${A:=abc", FUNC),
    ("${A:=${B}", FUNC),
    ("${A:}", FUNC),
    ("${A::2}", FUNC),
    ("${A:1:}", FUNC),
    ("${A#}", FUNC),
    ("${A%}", FUNC),
    ("${A##}", FUNC),
    ("${A///x}", FUNC),
    ("${A/", FUNC),
    ("${A#", FUNC),
    ("${A/x/", FUNC),
    # bad substitution
    ("${#}", BAD),
    ("${##A}", BAD),
    ("${#A", BAD),
    ("${#A:1}", BAD),
    ("${A,,,}", BAD),
    ("${A^x}", BAD),
    ("${A#x${B}}", BAD),
    ("${A#${B}x}", BAD),
    ("${A/x}", BAD),
    ("${A//}", BAD),
    ("${A/x/y", BAD),
    ("${A/x${B}/c}", BAD),
    ("${A:1${B}}", BAD),
    ("${A:${B}x}", BAD),
    ("${A:1", BAD),
    ("${A:1:2", BAD),
    ("${A:1:2${B}}", BAD),
]


@pytest.mark.parametrize(("template", "message"), TABLE)
def test_malformed_table(template: str, message: str) -> None:
    with pytest.raises(TemplateSyntaxError) as caught:
        parse(template)
    assert caught.value.message == message
    assert str(caught.value) == f"line 1, column 1: {message}"


@pytest.mark.parametrize(("template", "message"), TABLE)
def test_error_location_is_the_top_level_dollar(template: str, message: str) -> None:
    with pytest.raises(TemplateSyntaxError) as caught:
        parse("ok: ${FINE}\nx: é ${OUTER:=${INNER:-y}} " + template)
    assert caught.value.message == message
    assert caught.value.location is not None
    assert (caught.value.location.line, caught.value.location.column) == (2, 28)


def test_nested_error_points_at_the_outer_expression() -> None:
    with pytest.raises(TemplateSyntaxError) as caught:
        parse("a\nbc ${X:=pre${A:}}")
    assert caught.value.message == FUNC
    assert caught.value.location is not None
    assert (caught.value.location.line, caught.value.location.column) == (2, 4)


def test_first_error_wins() -> None:
    with pytest.raises(TemplateSyntaxError, match=BRACE):
        parse("${A x} ${}")


def test_colon_followed_by_a_multibyte_character_or_end_of_input() -> None:
    # drone steps back by the width of the character after ":" (a scanner bug).
    with pytest.raises(TemplateSyntaxError, match=BAD):
        parse("${A:é}")
    with pytest.raises(TemplateSyntaxError, match=BAD):
        parse("${A:😀}")
    with pytest.raises(TemplateSyntaxError, match=BAD):
        parse("${A:")
    # an invalid byte or a NUL is one byte wide, so the normal substring path applies
    assert parse("${A:\udc80}").evaluate({"A": "abc"}.get) == "abc"
    with pytest.raises(TemplateSyntaxError, match=FUNC):
        parse("${A:\0}")


def test_reserved_default_function_message_is_unreachable() -> None:
    for template in ("${A:=", "${A=", "${A:-", "${A:?x", "${A==="):
        with pytest.raises(TemplateSyntaxError) as caught:
            parse(template)
        assert caught.value.message != "unable to parse default function"


def test_column_counts_characters() -> None:
    with pytest.raises(TemplateSyntaxError) as caught:
        parse("😀é ${A")
    assert caught.value.location is not None
    assert caught.value.location.column == 4
