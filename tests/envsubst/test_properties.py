"""Properties that must hold for any input."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from generator.envsubst import normalize_legacy, parse, substitute
from generator.errors import CapzgenError, TemplateSyntaxError

# Text rich in the characters the grammar cares about, plus some non-ASCII and invalid bytes.
_SPECIAL = st.sampled_from(
    [
        *"${}:=-+?#%/^,\\ \t\n\r\f\v\0AB_1é€😀\udcff[]*!.",
        *("${", "$$", "${A", "${A:", "${ ", " }", "}", "\\/", "\\\\", "$${"),
    ]
)
template_text = st.lists(st.one_of(_SPECIAL, st.text(max_size=3)), max_size=40).map("".join)
values = st.text(max_size=20) | st.sampled_from(["", "${B}", "$$", "a/b", "é\udcff", "-3", "2"])


@given(st.text().filter(lambda text: "$" not in text and "\0" not in text))
def test_text_without_dollar_is_unchanged(text: str) -> None:
    assert parse(text).evaluate(lambda name: "X") == text
    assert substitute(text, lambda name: "X", lambda name: True) == text


@given(value=st.text(), before=st.text().filter(lambda t: "$" not in t and "\0" not in t))
def test_values_are_inserted_literally(value: str, before: str) -> None:
    template = parse(before + "${A}" + before + "${B:-${A}}")
    assert template.evaluate({"A": value}.get) == before + value + before + value


@settings(max_examples=400)
@given(template_text)
def test_parse_raises_only_template_syntax_errors(text: str) -> None:
    problem: TemplateSyntaxError | None = None
    try:
        parse(text)
    except TemplateSyntaxError as error:
        problem = error
    if problem is not None:
        assert problem.location is not None
        assert problem.location.line is not None
        assert problem.location.line >= 1


@settings(max_examples=300)
@given(template_text, values, values)
def test_evaluation_raises_only_the_documented_panic(text: str, a: str, b: str) -> None:
    try:
        template = parse(text)
    except TemplateSyntaxError:
        return
    result: str | CapzgenError
    try:
        result = template.evaluate({"A": a, "B": b, "1": a}.get)
    except CapzgenError as error:
        result = error
    if isinstance(result, CapzgenError):
        assert "would crash" in result.message
    else:
        assert "\0" not in result or "\0" in a + b


@settings(max_examples=300)
@given(template_text)
def test_normalisation_is_idempotent(text: str) -> None:
    once = normalize_legacy(text)
    assert normalize_legacy(once) == once


@given(template_text)
def test_normalisation_only_removes_whitespace(text: str) -> None:
    normalized = normalize_legacy(text)
    assert len(normalized) <= len(text)
    strip = str.maketrans("", "", " \t\n\f\r")
    assert normalized.translate(strip) == text.translate(strip)
