"""Top-level text: what is copied, what is escaped, what starts an expression."""

from __future__ import annotations

import pytest

from generator.envsubst import parse

from .helpers import render


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("a$$b", "a$b"),
        ("$$$x", "$$x"),
        ("$$$$", "$$"),
        ("$$", "$"),
        ("$${A}", "${A}"),
        ("$$${A}", "$value"),
        ("$$$${A}", "$${A}"),
        ("x$$y$$z", "x$y$z"),
        ("$${A:=x}", "${A:=x}"),
        ("something $${var=${A}}", "something ${var=value}"),
    ],
)
def test_double_dollar_is_one_literal_dollar(template: str, expected: str) -> None:
    assert render(template, A="value") == expected


@pytest.mark.parametrize(
    "template",
    ["$A", "$", "trailing $", "$}", "a $ b", "$A$B", "$-{A}", "$ {A}", "{A}", "}}{{"],
)
def test_text_without_braced_expression_is_literal(template: str) -> None:
    assert render(template, A="value", B="other") == template


def test_backslashes_have_no_meaning_at_top_level() -> None:
    assert render("\\${A}", A="v") == "\\v"
    assert render("\\\\", A="v") == "\\\\"
    assert render("\\/", A="v") == "\\/"
    assert render(r"\\.\pipe\pipename") == r"\\.\pipe\pipename"
    assert render("\\$${A}", A="v") == "\\${A}"


def test_nul_ends_the_input() -> None:
    assert render("abc\0def ${A}", A="v") == "abc"
    assert render("${A}\0${B}", A="v", B="w") == "v"
    assert render("\0") == ""


def test_nul_hides_a_broken_expression() -> None:
    assert render("ok ${A}\0${broken", A="v") == "ok v"


def test_unset_and_empty_are_the_same() -> None:
    template = parse("[${A}|${A:-d}|${#A}]")
    assert template.evaluate(lambda name: None) == "[|d|0]"
    assert template.evaluate({"A": ""}.get) == "[|d|0]"
    assert template.evaluate(lambda name: None) == "[|d|0]"
    assert template.evaluate({"A": "x"}.get) == "[x|x|1]"


@pytest.mark.parametrize(
    "value",
    ["${B}", "$${B}", "{", "}", "a\nb\n", "${", "$", "\\", "${B:=x}", "line1\r\n  - x: y"],
)
def test_values_are_inserted_literally(value: str) -> None:
    assert render("<${A}>", A=value, B="expanded") == f"<{value}>"
    assert render("<${C:=${A}}>", A=value, B="expanded") == f"<{value}>"


def test_unicode_and_digit_names() -> None:
    assert render("${café}", café="latte") == "latte"
    assert render("${1}-${1a}-${_}", **{"1": "one", "1a": "x", "_": "u"}) == "one-x-u"
    assert render("${名前}", 名前="n") == "n"
    assert render("${x٣}", x٣="arabic-indic digit") == "arabic-indic digit"


def test_superscript_digits_are_not_name_characters() -> None:
    with pytest.raises(Exception, match="missing closing brace"):
        parse("${A²}")


def test_invalid_bytes_pass_through_text_and_values() -> None:
    raw = b"key: \xff\xfe ${A} \xc3(".decode("utf-8", "surrogateescape")
    out = render(raw, A=b"\x80v\xe2\x82".decode("utf-8", "surrogateescape"))
    assert out.encode("utf-8", "surrogateescape") == b"key: \xff\xfe \x80v\xe2\x82 \xc3("


def test_invalid_byte_is_never_part_of_a_name() -> None:
    with pytest.raises(Exception, match="missing closing brace"):
        parse("${A\udcff}")
    with pytest.raises(Exception, match="unable to parse variable name"):
        parse("${\udcffA}")


def test_nested_default_and_eager_lookup() -> None:
    seen: list[str] = []

    def lookup(name: str) -> str | None:
        seen.append(name)
        return {"A": "set", "B": "inner"}.get(name)

    assert parse("${A:=${B}}").evaluate(lookup) == "set"
    assert "B" in seen, "nested variables are looked up even when the outer one is set"
    assert parse("${X:=${B}}").evaluate(lookup) == "inner"
    assert parse("${X:=p${Y:-q}s}").evaluate(lookup) == "pqs"
    assert parse("${X:=${Y:=${Z:=${B^^}}}}").evaluate(lookup) == "INNER"


def test_deep_nesting_does_not_hit_the_recursion_limit() -> None:
    depth = 5000
    template = "${A:=" * depth + "core" + "}" * depth
    assert render(template) == "core"
    assert render(template, A="top") == "top"


def test_adjacent_expressions_and_text() -> None:
    assert render("${A}${B}-${A}", A="1", B="2") == "12-1"
    assert render("pre ${A} post", A="mid") == "pre mid post"
