"""The Go ``text/template`` subset ClusterClass patch templates are rendered with: exact outputs
(as Go and sprig print them), what Go refuses, what the subset leaves unchecked, and bounds."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.checks.clusterclass import goeval
from generator.checks.clusterclass.goeval import render
from generator.checks.clusterclass.goformat import (
    MISSING,
    go_float,
    go_print,
    to_json,
    to_yaml,
    truth,
)
from generator.checks.clusterclass.gotemplate import MAX_NESTING, TemplateFailure, Unsupported

DATA: dict[str, Any] = {
    "builtin": {
        "cluster": {"name": "c1", "namespace": "ns"},
        "controlPlane": {"version": "v1.31.1", "replicas": 3.0},
    },
    "replicas": 3.0,
    "big": 1e6,
    "ratio": 2.5,
    "tags": {"b": "2", "a": "1"},
    "zones": ["1", "2"],
    "empty": [],
    "enabled": True,
    "disabled": False,
    "name": "Pool",
    "nothing": None,
    "obj": {"k": "v", "n": {"deep": "x"}},
}


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("plain text", "plain text"),
        ("{{ .builtin.cluster.name }}", "c1"),
        ("{{.builtin.cluster.namespace}}", "ns"),
        ("a  {{- .builtin.cluster.name -}}  b", "ac1b"),
        ("a\n  {{- .name }}\n", "aPool\n"),
        ("{{ .name -}}\n\n  b", "Poolb"),
        ("x{{/* a comment */}}y", "xy"),
        ("x {{- /* trimmed */ -}} y", "xy"),
        # numbers from variables are float64 in Go; literals are ints
        ("{{ .replicas }} {{ .big }} {{ .ratio }} {{ 3 }} {{ 1.5 }}", "3 1e+06 2.5 3 1.5"),
        ('{{ printf "%d" .replicas }}', "%!d(float64=3)"),
        ('{{ printf "%d-%s" 3 .name }}', "3-Pool"),
        ('{{ printf "%v|%q|%%" .replicas .name }}', '3|"Pool"|%'),
        ('{{ printf "%s" .replicas }}', "%!s(float64=3)"),
        ('{{ printf "%s %s" .name }}', "Pool %!s(MISSING)"),
        ('{{ printf "%s" .name 1 }}', "Pool%!(EXTRA int=1)"),
        ('{{ printf "%s" nil }}', "%!s(<nil>)"),
        ('{{ printf "%d" true }}', "%!d(bool=true)"),
        ("{{ and .enabled .disabled .name }}|{{ or .name .disabled }}", "false|Pool"),
        ("{{ .name | quote }}", '"Pool"'),
        ("{{ quote .name .replicas }}", '"Pool" "3"'),
        ("{{ .missing | quote }}", ""),
        ("{{ .name | squote }}", "'Pool'"),
        ("{{ .name | upper }}-{{ .name | lower }}", "POOL-pool"),
        ('{{ trim "  x  " }}', "x"),
        ('{{ replace "-" "_" "a-b-c" }}', "a_b_c"),
        ('{{ .missing | default "d" }}', "d"),
        ('{{ .name | default "d" }}', "Pool"),
        ('{{ .empty | default "d" }}', "d"),
        ('{{ default "d" }}', "d"),
        ("{{ empty .empty }} {{ empty .name }}", "true false"),
        ("{{ .replicas | toString }}", "3"),
        ("{{ .tags | toYaml }}", "a: '1'\nb: '2'"),
        ("x:{{ .tags | toYaml | nindent 2 }}", "x:\n  a: '1'\n  b: '2'"),
        ("{{ .zones | toYaml | indent 2 }}", "  - '1'\n  - '2'"),
        ("{{ .name | toYaml }}", "Pool"),
        ("{{ .obj | toJson }}", '{"k":"v","n":{"deep":"x"}}'),
        ("{{ .replicas | toJson }}", "3"),
        ('{{ "<&>" | toJson }}', '"\\u003c\\u0026\\u003e"'),
        (
            "{{ .obj }} {{ .zones }} {{ .nothing }} {{ .missing }}",
            "map[k:v n:map[deep:x]] [1 2] <no value> <no value>",
        ),
        ("{{ if .enabled }}yes{{ else }}no{{ end }}", "yes"),
        ("{{ if .disabled }}yes{{ else if .name }}elif{{ else }}no{{ end }}", "elif"),
        ("{{ if .empty }}yes{{ else if .missing }}elif{{ else }}no{{ end }}", "no"),
        ("{{ if .disabled }}yes{{ end }}", ""),
        ("{{ if not .disabled }}yes{{ end }}", "yes"),
        ("{{ if and .enabled .name }}{{ and .enabled .name }}{{ end }}", "Pool"),
        ("{{ or .disabled .empty }}|{{ or .disabled .name }}", "[]|Pool"),
        ('{{ if eq .name "x" "Pool" }}eq{{ end }}{{ if ne .name "x" }}ne{{ end }}', "eqne"),
        ("{{ if eq .replicas 3.0 }}three{{ end }}", "three"),
        ("{{ len .zones }}{{ len .name }}{{ len .tags }}", "242"),
        ("{{ range .zones }}[{{ . }}]{{ end }}", "[1][2]"),
        ("{{ range .tags }}{{ . }}{{ end }}", "12"),
        ("{{ range .empty }}x{{ else }}none{{ end }}", "none"),
        ("{{ range .missing }}x{{ end }}", ""),
        ("{{ with .obj }}{{ .k }}{{ .n.deep }}{{ end }}", "vx"),
        ("{{ with .missing }}x{{ else }}none{{ end }}", "none"),
        ('{{ (printf "%s-%s" .name "x") | lower }}', "pool-x"),
        ("{{ `raw \\n` }}", "raw \\n"),
        ("{{ true }} {{ false }}", "true false"),
        ("{{ . | len }}", str(len(DATA))),
    ],
)
def test_renders_like_go(template: str, expected: str) -> None:
    assert render(template, DATA).text == expected


def test_undefined_top_level_and_builtin_names_are_listed() -> None:
    result = render('{{ .nope | default "x" }}{{ .builtin.machinePool }}{{ .obj.other }}', DATA)
    assert result.text == "x<no value><no value>"
    assert result.undefined == ("nope", "builtin.machinePool")


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ("{{ .a", "unclosed action"),
        ("{{/* never closed", "unclosed comment"),
        ("{{ end }}", "unexpected {{end}}"),
        ("{{ else }}", "unexpected {{else}}"),
        ("{{ if .a }}{{ else }}{{ else }}{{ end }}", "unexpected {{else}}"),
        ("{{ if .enabled }}x", "{{if}} without {{end}}"),
        ("{{ }}", "missing value for command"),
        ("{{ if }}{{ end }}", "missing value for command"),
        ("{{ (.name }}", "unclosed left paren"),
        ("{{ .name ) }}", "unexpected ')'"),
        ("{{ .name .name }}", "can't give argument to non-function"),
        ("{{ .name | .name }}", "can't give argument to non-function"),
        ("{{ .obj.none.field }}", "nil pointer evaluating .obj.none.field"),
        ("{{ .missing.field }}", "missing is not defined for this template"),
        ("{{ nil }}", "nil is not a command"),
        ("{{ quote toString }}", "toString: wrong number of args"),
        ("{{ .builtin.machinePool.name }}", "builtin.machinePool is not defined"),
        ("{{ .name.field }}", "can't evaluate field field in type string"),
        ("{{ eq .replicas 3 }}", "incompatible types for comparison: float64 and int"),
        ("{{ eq .zones .zones }}", "incompatible types"),
        ("{{ eq .name }}", "missing argument"),
        ("{{ ne .name }}", "ne: want 2 args"),
        ("{{ .replicas | upper }}", "expected string; got float64"),
        ("{{ indent 1.5 .name }}", "expected an integer"),
        ("{{ indent 2 }}", "wrong number of args"),
        ('{{ replace "a" "b" }}', "wrong number of args"),
        ('{{ upper "a" "b" }}', "wrong number of args"),
        ("{{ printf }}", "printf: no format"),
        ("{{ printf 1 }}", "expected string"),
        ("{{ len 3 }}", "no length"),
        ("{{ and }}", "want at least 1"),
        ("{{ or }}", "want at least 1"),
        ("{{ default }}", "want at least 1"),
        ("{{ range .name }}{{ end }}", "range can't iterate over Pool"),
    ],
)
def test_what_go_refuses_fails(template: str, message: str) -> None:
    with pytest.raises(TemplateFailure) as caught:
        render(template, DATA)
    assert message in caught.value.message


@pytest.mark.parametrize(
    ("template", "what"),
    [
        ("{{ $x := .name }}", "'$x' (template variables)"),
        ("{{ range $i, $z := .zones }}{{ end }}", "'$i' (template variables)"),
        ("{{ sha256sum .name }}", "function 'sha256sum'"),
        ('{{ template "x" }}', "{{template}}"),
        ('{{ define "x" }}{{ end }}', "{{define}}"),
        ("{{ range .zones }}{{ break }}{{ end }}", "{{break}}"),
        ('{{ printf "%5s" .name }}', "printf verb %5"),
        ("{{ 'a' }}", '"\'"'),
        ('{{ "\\x41" }}', "string escape"),
        ("{{ (.obj).k }}", "a field of a parenthesised value"),
        ("{{ .name-}}", "'-}}' needs a space"),
        ("{{ range 3 }}{{ end }}", "range over a number"),
        ("{{ with .obj }}{{ else if .name }}{{ end }}", "{{else if}} in {{with}}"),
        ("{{ if .a }}{{ else with .obj }}{{ end }}", "{{else}} followed by"),
        ("{{ eq .nothing .name }}", "comparison with nil"),
        (
            "{{ " + "(" * (MAX_NESTING + 1) + ".name" + ")" * (MAX_NESTING + 1) + " }}",
            "nested deeper",
        ),
        ("{{ if .a }}" * (MAX_NESTING + 1), "nested deeper"),
    ],
)
def test_outside_the_subset_is_unsupported(template: str, what: str) -> None:
    with pytest.raises(Unsupported) as caught:
        render(template, DATA)
    assert what in caught.value.what


def test_output_and_work_are_bounded() -> None:
    data = {"items": [1.0] * 50}
    assert render("{{ range .items }}abc{{ end }}", data).text == "abc" * 50
    with pytest.raises(Unsupported, match="output longer than 100 characters"):
        render("{{ range .items }}abc{{ end }}", data, goeval.Bounds(output=100))
    with pytest.raises(Unsupported, match="more than 10 evaluation steps"):
        render("{{ range .items }}{{ . }}{{ end }}", data, goeval.Bounds(steps=10))
    assert goeval.Bounds() == goeval.Bounds(goeval.MAX_OUTPUT, goeval.MAX_STEPS)


def test_functions_cannot_build_huge_strings() -> None:
    with pytest.raises(Unsupported, match="a value longer than"):
        render('{{ indent 100000000 "a\\nb" }}', {})
    with pytest.raises(Unsupported, match="a value longer than"):
        render('{{ replace "a" "' + "b" * 1000 + '" "' + "a" * 1000 + '" }}', {})
    assert render('{{ replace "" "-" "ab" }}', {}).text == "-a-b-"


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (3.0, "3"),
        (-3.0, "-3"),
        (0.0, "0"),
        (-0.0, "-0"),
        (123456.0, "123456"),
        (1e6, "1e+06"),
        (1234567.0, "1.234567e+06"),
        (0.0001, "0.0001"),
        (0.00001, "1e-05"),
        (2.5, "2.5"),
        (1e21, "1e+21"),
        (float("inf"), "+Inf"),
        (float("-inf"), "-Inf"),
        (float("nan"), "NaN"),
    ],
)
def test_go_float(value: float, text: str) -> None:
    assert go_float(value) == text


def test_printing_and_truth() -> None:
    assert go_print([1, None, {"a": False}]) == "[1 <nil> map[a:false]]"
    assert (go_print(MISSING), repr(MISSING)) == ("<no value>", "MISSING")
    falsy: tuple[Any, ...] = (0, 0.0, "", [], {}, None, False)
    assert [truth(v) for v in falsy] == [False] * 7
    assert [truth(v) for v in (1, 0.5, "x", [0], {"a": 1}, True, object())] == [True] * 7
    assert to_json({"b": [1.0, 2.5], "a": None}) == '{"a":null,"b":[1,2.5]}'
    assert to_yaml(None) == "null"
    assert to_yaml({"a": [1.0]}) == "a:\n- 1"


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "{{",
                "}}",
                "{{-",
                "-}}",
                " ",
                "\n",
                ".",
                ".name",
                ".zones",
                ".tags",
                "|",
                "(",
                ")",
                "if",
                "else",
                "end",
                "range",
                "with",
                "quote",
                "default",
                "printf",
                '"%s"',
                "`x`",
                "1",
                "-2.5",
                "$x",
                ":=",
                "toYaml",
                "nindent",
                "2",
                "eq",
                "/*",
                "*/",
                "x",
                "'",
            ]
        ),
        max_size=25,
    )
)
def test_any_text_renders_or_says_why(parts: list[str]) -> None:
    try:
        result = render("".join(parts), DATA)
    except (Unsupported, TemplateFailure):
        return
    assert isinstance(result.text, str)
