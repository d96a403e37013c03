"""Every drone/envsubst operator, including the places where it differs from bash."""

from __future__ import annotations

import pytest

from generator.envsubst import parse
from generator.errors import CapzgenError, TemplateSyntaxError

from .helpers import render

PATH = "foo/bar.txt"


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        # the reference's valid examples (A = foo/bar.txt, B unset)
        ("${A##*/}", "bar.txt"),
        ("${A%.*}", "foo/bar"),
        ("${A//\\//-}", "foo-bar.txt"),
        ("${B:-fallback}", "fallback"),
        ("${A:4:3}", "bar"),
        ("${#A}", "11"),
    ],
)
def test_reference_examples(template: str, expected: str) -> None:
    assert render(template, A=PATH) == expected


@pytest.mark.parametrize("op", ["=", ":=", ":-", ":+", ":?"])
def test_default_family_all_behave_like_colon_minus(op: str) -> None:
    assert render(f"${{A{op}word}}", A="value") == "value"
    assert render(f"${{A{op}word}}") == "word"
    assert render(f"${{A{op}word}}", A="") == "word"
    assert render(f"${{A{op}}}") == ""
    assert render(f"${{A{op}}}", A="v") == "v"


def test_default_keeps_spaces_dollars_and_backslashes() -> None:
    assert render("${A:= x }") == " x "
    assert render("${A:=$$}") == "$$"
    assert render("${A:=$B}", B="no") == "$B"
    assert render("${A:=a\\/b\\\\}") == "a\\/b\\\\"
    assert render("${A==x}") == "=x"
    assert render("${A:=a}b}") == "ab}"
    assert render("${A:=x:y-z}") == "x:y-z"


def test_default_with_several_parts() -> None:
    assert render("${A:=pre-${B}-${C:-c}-post}", B="b") == "pre-b-c-post"
    assert render("${A=${B}${B}}", B="2") == "22"


def test_assignment_forms_assign_nothing() -> None:
    assert render("${A:=first} ${A}") == "first "


def test_length_counts_bytes() -> None:
    assert render("${#A}", A="") == "0"
    assert render("${#A}", A="é") == "2"
    assert render("${#A}", A="😀") == "4"
    assert render("${#A}", A="a\udcff") == "2"


@pytest.mark.parametrize(
    ("template", "value", "expected"),
    [
        ("${A^}", "abc", "Abc"),
        ("${A^^}", "abc dEf", "ABC DEF"),
        ("${A,}", "ABC", "aBC"),
        ("${A,,}", "ABC DeF", "abc def"),
        ("${A^}", "", ""),
        ("${A,}", "", ""),
        ("${A^^}", "straße", "STRAßE"),
        ("${A^}", "ßa", "ßa"),
        ("${A,,}", "İSTANBUL", "istanbul"),
        ("${A,}", "İ", "i"),
        ("${A^^}", "ᾳ", "ᾼ"),
        ("${A^^}", "ŉ ﬀ", "ŉ ﬀ"),
        ("${A,,}", "ΑΣ", "ασ"),
        ("${A^^}", "ǆ", "Ǆ"),
        ("${A,^}", "aBc", "aBc"),
        ("${A^,}", "aBc", "aBc"),
        ("${A^}", "éa", "Éa"),
    ],
)
def test_casing_is_go_simple_per_rune_mapping(template: str, value: str, expected: str) -> None:
    assert render(template, A=value) == expected


def test_casing_turns_invalid_bytes_into_replacement_characters() -> None:
    assert render("${A^^}", A="a\udcffb") == "A\ufffdB"
    assert render("${A,,}", A="\udc80") == "\ufffd"
    assert render("${A^}", A="\udcffabc") == "\ufffdabc"
    assert render("${A^}", A="a\udcff") == "A\udcff"  # the rest is copied byte for byte


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("${A:0}", "abcdef"),
        ("${A:2}", "cdef"),
        ("${A:6}", ""),
        ("${A:60}", ""),
        ("${A:-2}", "abcdef"),  # ":-" is the default operator
        ("${A: -2}", "abcdef"),  # unparsable offset: value unchanged
        ("${A:+2}", "abcdef"),  # ":+" is the default operator too
        ("${A:x}", "abcdef"),
        ("${A:1.5}", "abcdef"),
        ("${A:1:2}", "bc"),
        ("${A:1:0}", ""),
        ("${A:1:50}", "bcdef"),
        ("${A:4:2}", "ef"),
        ("${A:10:2}", ""),
        ("${A:1:x}", "abcdef"),
        ("${A:1: 2}", "abcdef"),
        ("${A:1:2:3}", "abcdef"),  # length "2:3" does not parse
        ("${A:1::2}", "bc"),  # several colons are one delimiter
        ("${A:+1:2}", "abcdef"),
        ("${A:${OFF}:${LEN}}", "cd"),
        ("${A:${NONE}}", "abcdef"),
        ("${A:99999999999999999999}", "abcdef"),  # out of int64 range
        ("${A:1:-0}", ""),
    ],
)
def test_substring(template: str, expected: str) -> None:
    assert render(template, A="abcdef", OFF="2", LEN="2") == expected


def test_substring_negative_offset_needs_a_non_default_spelling() -> None:
    # An offset can only be negative through a nested expression (":-" is the default form).
    assert render("${A:${N}}", A="abcdef", N="-2") == "ef"
    assert render("${A:${N}:1}", A="abcdef", N="-2") == "e"
    assert render("${A:${N}:2}", A="abcdef", N="-100") == "ab"
    assert render("${A:${N}}", A="abcdef", N="-100") == "abcdef"


def test_substring_cuts_multibyte_characters_on_bytes() -> None:
    assert render("${A:0:1}", A="é") == "\udcc3"
    assert render("${A:1}", A="éa").encode("utf-8", "surrogateescape") == b"\xa9a"
    assert render("${A:1:2}", A="a😀b").encode("utf-8", "surrogateescape") == b"\xf0\x9f"


@pytest.mark.parametrize(
    "template",
    ["${A:1:-1}", "${A:2:-1}", "${A:0:-1}", "${A:9223372036854775807:9223372036854775807}"],
)
def test_substring_negative_length_is_the_go_panic(template: str) -> None:
    # (the last case overflows int64 in Go and wraps to a negative end)
    with pytest.raises(CapzgenError, match="would crash") as caught:
        render("line\n  " + template, A="abc")
    assert not isinstance(caught.value, TemplateSyntaxError)
    assert template in caught.value.message
    assert caught.value.location is not None
    assert (caught.value.location.line, caught.value.location.column) == (2, 3)


def test_substring_negative_length_reaching_the_end_is_fine() -> None:
    assert render("${A:5:-1}", A="abc") == ""
    assert render("${A:2:-1}", A="") == ""


@pytest.mark.parametrize(
    ("template", "value", "expected"),
    [
        ("${A#*.}", "bash.string.txt", "string.txt"),
        ("${A##*.}", "bash.string.txt", "txt"),
        ("${A%.*}", "bash.string.txt", "bash.string"),
        ("${A%%.*}", "bash.string.txt", "bash"),
        ("${A#*/}", "/path/to/file", "path/to/file"),
        ("${A##*/}", "/path/to/file", "file"),
        ("${A#pre}", "prefix", "fix"),
        ("${A#nope}", "prefix", "prefix"),
        ("${A%fix}", "prefix", "pre"),
        ("${A###}", "##x", "#x"),  # operator "##", pattern "#"
        ("${A%#}", "x#", "x"),
        ("${A#?}", "abc", "bc"),
        ("${A%?}", "abc", "ab"),
        ("${A#[ab]}", "bcd", "cd"),
        ("${A#[a-c]*}", "bcd", "cd"),
        ("${A##[a-c]*}", "bcd", ""),
        ("${A#[^a-c]}", "bcd", "bcd"),
        ("${A#[^a-c]}", "xcd", "cd"),
        ("${A#\\*}", "*x", "x"),
        ("${A#\\?}", "ax", "ax"),
        ("${A#${P}}", "prefix", "fix"),
    ],
)
def test_remove_prefix_and_suffix(template: str, value: str, expected: str) -> None:
    assert render(template, A=value, P="pre") == expected


def test_remove_empty_prefix_is_never_tried() -> None:
    assert render("${A#*}", A="abc") == "bc"  # bash would remove nothing
    assert render("${A%*}", A="abc") == "ab"
    assert render("${A##*}", A="abc") == ""
    assert render("${A%%*}", A="abc") == ""
    assert render("${A#*}", A="") == ""


def test_remove_star_matches_slashes() -> None:
    assert render("${A#*/}", A="a/b/c") == "b/c"
    assert render("${A%/*}", A="a/b/c") == "a/b"
    assert render("${A#?}", A="/x") == "x"


def test_remove_malformed_pattern_leaves_value() -> None:
    assert render("${A#[}", A="abc") == "abc"
    assert render("${A#a[}", A="abc") == "abc"
    assert render("${A#[]}", A="abc") == "abc"
    assert render("${A#a\\}", A="abc") == "abc"
    assert render("${A#[a-]}", A="abc") == "abc"


def test_remove_works_on_bytes() -> None:
    # "?" on a one-byte prefix of "é" matches the lone lead byte, which is the shortest match.
    assert render("${A#?}", A="éa").encode("utf-8", "surrogateescape") == b"\xa9a"
    # Suffix removal reverses rune-wise; the cut rune comes back as U+FFFD.
    assert render("${A%?}", A="aé") == "a\ufffd"
    assert render("${A%%x}", A="\udcffx") == "\ufffd"


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("${A/abc/xyz}", "xyzABC123ABCabc"),
        ("${A//abc/xyz}", "xyzABC123ABCxyz"),
        ("${A/#abc/XYZ}", "XYZABC123ABCabc"),
        ("${A/%abc/XYZ}", "abcABC123ABCXYZ"),
        ("${A/#ABC/XYZ}", "abcABC123ABCabc"),
        ("${A/%ABC/XYZ}", "abcABC123ABCabc"),
        ("${A/abc}", "abcABC123ABCabc"),  # no later "/": see the error tests
        ("${A/abc/}", "ABC123ABCabc"),
        ("${A//abc/}", "ABC123ABC"),
        ("${A/#abc/}", "abcABC123ABCabc"),  # /# and /% need a replacement
        ("${A/%abc/}", "abcABC123ABCabc"),
        ("${A/a*c/-}", "abcABC123ABCabc"),  # literal, not glob
        ("${A//B/${R}}", "abcA-C123A-Cabc"),
        ("${A/${P}/_}", "_ABC123ABCabc"),
        ("${A/abc//x}", "xABC123ABCabc"),  # all slashes after the pattern are one delimiter
    ],
)
def test_replace(template: str, expected: str) -> None:
    if template == "${A/abc}":
        with pytest.raises(TemplateSyntaxError, match="bad substitution"):
            render(template, A="abcABC123ABCabc")
        return
    assert render(template, A="abcABC123ABCabc", R="-", P="abc") == expected


def test_replace_escapes() -> None:
    assert render("${A/\\//-}", A="a/b/c") == "a-b/c"
    assert render("${A//\\//-}", A="a/b/c") == "a-b-c"
    assert render("${A//\\\\/|}", A="a\\b") == "a|b"
    assert render("${A//$$/D}", A="a$b") == "aDb"
    assert render("${A//x/$$}", A="axb") == "a$b"
    assert render("${A//x/\\/}", A="axb") == "a/b"
    assert render("${A//x/a/b}", A="x") == "a/b"  # the replacement may contain "/"
    assert render("${A//\\x/y}", A="\\x") == "y"  # other backslashes are literal
    assert render("${A//$${B}/y}", A="${B}", B="no") == "y"


def test_replace_pattern_swallows_closing_brace_up_to_a_later_slash() -> None:
    assert render("${A/x} foo/bar}", A="ax} foob") == "abarb"
    assert render("head ${A/x}/y} tail", A="x}") == "head y tail"


def test_replace_with_empty_pattern_from_a_nested_expression() -> None:
    assert render("${A/${E}/-}", A="ab") == "-ab"
    assert render("${A//${E}/-}", A="aé") == "-a-é-"
    assert render("${A//${E}/-}", A="") == "-"
    assert render("${A/#${E}/-}", A="ab") == "-ab"
    assert render("${A/%${E}/-}", A="ab") == "ab-"


def test_replace_works_on_bytes() -> None:
    out = render("${A/\udc82/X}", A="€")
    assert out.encode("utf-8", "surrogateescape") == b"\xe2X\xac"


def test_arguments_are_evaluated_before_the_value() -> None:
    order: list[str] = []

    def lookup(name: str) -> str:
        order.append(name)
        return name.lower()

    parse("${OUTER/${PAT}/${REP}}").evaluate(lookup)
    assert order == ["PAT", "REP", "OUTER"]
