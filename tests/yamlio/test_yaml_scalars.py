"""The go-yaml v2 scalar rules, key conversion and float formatting, checked directly."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.yamlio.detect import needs_precise
from generator.yamlio.scalars import (
    InvalidKey,
    go_format_float,
    key_text,
    needs_quotes,
    resolve_plain,
)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("", None),
        ("plain", "plain"),
        ("<<", "<<"),
        ("+1", 1),
        ("-0x10", -16),
        ("0b_1_0", 2),
        ("1__0", 10),
        ("1_", 1),
        ("._5", "._5"),
        (".5_5", 0.55),
        ("+.5", 0.5),
        ("1.5e+3", 1500.0),
        ("1e400", "1e400"),
        (".5e4_00", ".5e4_00"),  # overflows: kept as text, underscores and all
        ("1_0e4_00", "1_0e4_00"),
        ("18446744073709551615", 18446744073709551615),
        ("18446744073709551616", 1.8446744073709552e19),
        ("+18446744073709551615", 1.8446744073709552e19),
        ("0x", "0x"),
        ("-", "-"),
        ("0xg", "0xg"),
        ("١", "١"),
    ],
)
def test_resolve_plain(text: str, value: object) -> None:
    result = resolve_plain(text)
    assert result == value
    assert type(result) is type(value)


def test_nan() -> None:
    assert math.isnan(resolve_plain(".NaN"))


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("a", "a"),
        (True, "true"),
        (False, "false"),
        (7, "7"),
        (1.5, "1.5"),
        (1e6, "1e+06"),
        (0.1, "0.1"),
        (1000.0, "1000"),
        (math.inf, ".inf"),
        (1e39, ".inf"),
        (-0.0, "-0"),
    ],
)
def test_key_text(value: object, text: str) -> None:
    assert key_text(value) == text


@pytest.mark.parametrize("value", [None, [1], {"a": 1}])
def test_key_text_rejects(value: object) -> None:
    with pytest.raises(InvalidKey):
        key_text(value)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.1, "0.1"),
        (123456.5, "123456.5"),
        (1234567.5, "1.2345675e+06"),
        (0.0001, "0.0001"),
        (0.00001, "1e-05"),
        (-2.5e-10, "-2.5e-10"),
        (1e100, "1e+100"),
        (math.nan, ".nan"),
        (-math.inf, "-.inf"),
    ],
)
def test_go_format_float(value: float, text: str) -> None:
    assert go_format_float(value) == text


@pytest.mark.parametrize("text", ["yes", "NULL", "0x1F", "1_000", "2001-12-14", "-1:30", "<<", ""])
def test_needs_quotes(text: str) -> None:
    assert needs_quotes(text)


@pytest.mark.parametrize("text", ["name", "v1", "1.2.3", "a_b", "yess", "0x1G", "${A}"])
def test_does_not_need_quotes(text: str) -> None:
    assert not needs_quotes(text)


@pytest.mark.parametrize(
    "text",
    [
        "a: no\n",
        "a: Off # comment\n",
        "- y\n",
        "k: [on, x]\n",
        "yes: 1\n",
        "a: n \n",
        "a: 010\n",
        "a: 0X1\n",
        "a: 1_000\n",
        "a: +_1\n",
        "a: 0x_1\n",
        "1: a\n",
        "1.5: a\n",
        "~: a\n",
        ": a\n",
        "- : a\n",
        "true: a\n",
        "NULL: a\n",
        "{.inf: 1}\n",
        "0xff: a\n",
        "? a\n: b\n",
        "a: &x 1\n",
        "a: *x\n",
        "a: !t 1\n",
        "<<: {}\n",
        "%YAML 1.2\n---\na: 1\n",
        "a\n...\n",
        "a: 1\rb: 2\r",
        "a: 1\u2028b: 2\n",
        '{"a":010}',
        'a: "x"\nb: no',
    ],
)
def test_needs_precise_flags(text: str) -> None:
    assert needs_precise(text)


@pytest.mark.parametrize(
    "text",
    [
        "a: name\n",
        "a: 'no'\n",
        'a: "010"\n',
        "a: v1.0\n",
        "a: 10\n",
        "a: 0\n",
        "a: -5\n",
        "a: 0x1F\n",
        "a: Standard_D2s_v3\n",
        'startTime: "02:00"\nutcOffset: "-05:00"\n',
        "a: this is on the list\n",
        "# turn it on for now\na: b\n",
        "a: 1.5\n",
        "a: [1, 2]\n",
        "image: repo/x:1.2.3\n",
        "a: no-op\n",
        "#!/bin/bash\na: b\n",
    ],
)
def test_needs_precise_lets_ordinary_text_through(text: str) -> None:
    assert not needs_precise(text)


_PADDING = "metadata:\n  name: a-fairly-ordinary-name\n" * 20  # makes underscores sparse


@pytest.mark.parametrize(
    ("value", "flagged"),
    [
        ("1_000", True),
        ("+_1", True),
        ("-1_0", True),
        (".5_5", True),
        ("[1_0]", True),
        ("{a: 2_0}", True),
        ("Standard_D2s_v3", False),
        ("x1_0", False),
        ("_1_0", False),
        ("a_b c_d", False),
    ],
)
def test_sparse_underscores_are_judged_token_by_token(value: str, flagged: bool) -> None:
    """In a long ASCII text with few underscores the token-by-token path decides; it agrees
    with the regex, which decides for short or dense texts."""
    text = f"{_PADDING}spec:\n  size: {value}\n{_PADDING}"
    assert needs_precise(text) is flagged


@given(st.text(alphabet=" \t\n\x1c\x0b[]{},:_+-.019aZ#'\"", max_size=60))
@settings(max_examples=400)
def test_sparse_underscore_scan_matches_the_regex(text: str) -> None:
    from generator.yamlio import detect

    spaced = text.encode("ascii").translate(detect._TOKEN_TABLE)
    regex = bool(detect._NUMERIC_UNDERSCORE.search(text))
    assert detect._sparse_numeric_underscore(spaced) is regex
