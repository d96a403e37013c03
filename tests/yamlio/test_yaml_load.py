"""load_documents: values as Kubernetes reads them, documents, separators, errors."""

from __future__ import annotations

import pytest

from generator.errors import YamlError
from generator.yamlio import load_documents
from generator.yamlio.detect import needs_precise
from tests.yamlio.yamlio_support import objects, precise


def load(text: str) -> list[object]:
    return list(objects(load_documents(text, source="t.yaml")))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a: yes", True),
        ("a: Yes", True),
        ("a: YES", True),
        ("a: no", False),
        ("a: NO", False),
        ("a: on", True),
        ("a: Off", False),
        ("a: y", True),
        ("a: N", False),
        ("a: [y, n]", [True, False]),
        ('{"a":yes}', True),
        ("a: yEs", "yEs"),  # not a go-yaml spelling
        ("a: 'yes'", "yes"),
        ("a: 010", 8),
        ("a: -010", -8),
        ("a: 00", 0),
        ("a: 08", 8.0),  # invalid octal, go-yaml falls back to float
        ("a: 0o17", 15),
        ("a: 0X1F", 31),
        ("a: 0x1F", 31),
        ("a: 1_000", 1000),
        ("a: 0b101", 5),
        ("a: 1e3", 1000.0),
        ("a: .5", 0.5),
        ("a: 1:20", "1:20"),  # no sexagesimal in go-yaml
        ("a: 2024-01-02", "2024-01-02"),  # timestamps stay strings
        ("a: 9223372036854775808", 9223372036854775808),  # uint64
        ("a: 99999999999999999999999", 1e23),  # beyond uint64: float
        ("a: ~", None),
        ("a:", None),
        ("a: .inf", float("inf")),
        ("a: !!str 12", "12"),
        ("a: !!float '1'", 1.0),
        ("a: !!binary aGk=", "hi"),
        ("a: !local text", "text"),
    ],
)
def test_scalars_resolve_like_go_yaml_v2(text: str, expected: object) -> None:
    assert load(text) == [{"a": expected}]


def test_one_one_booleans_take_the_precise_path() -> None:
    text = "enabled: on\nreplicas: 010\n"
    assert needs_precise(text)
    assert load(text) == [{"enabled": True, "replicas": 8}]


@pytest.mark.parametrize(
    ("text", "key"),
    [("1: x", "1"), ("true: x", "true"), ("yes: x", "true"), ("1.5: x", "1.5"), ("0x10: x", "16")],
)
def test_keys_become_strings_as_in_kubernetes(text: str, key: str) -> None:
    assert load(text) == [{key: "x"}]


@pytest.mark.parametrize("text", ["~: 1", ": 1", "? [a]\n: 1", "{a: 1}: 2"])
def test_null_and_collection_keys_are_rejected(text: str) -> None:
    with pytest.raises(YamlError) as caught:
        load_documents(text, source="t.yaml")
    assert caught.value.location is not None
    assert caught.value.location.line == 1


def test_duplicate_key_reports_both_lines() -> None:
    text = "apiVersion: v1\nmetadata:\n  name: a\n  labels: {}\n  name: b\n"
    with pytest.raises(YamlError) as caught:
        load_documents(text, source="dup.yaml")
    error = caught.value
    assert error.message == 'duplicate key "name" (first at line 3)'
    assert error.location is not None
    assert (error.location.file, error.location.line, error.location.document) == (
        "dup.yaml",
        5,
        0,
    )


def test_duplicate_after_key_conversion_is_reported() -> None:
    with pytest.raises(YamlError, match='duplicate key "1"'):
        load_documents("1: a\n'1': b\n", source="t.yaml")


def test_duplicate_in_second_document_names_it() -> None:
    with pytest.raises(YamlError) as caught:
        load_documents("a: 1\n---\nb: 1\nb: 2\n", source="t.yaml")
    assert caught.value.location is not None
    assert caught.value.location.document == 1
    assert caught.value.location.line == 4


def test_merge_keys_follow_go_yaml_v2() -> None:
    text = "base: &b {x: 1, z: 2}\nd:\n  <<: *b\n  z: 3\ne:\n  z: 0\n  <<: [{z: 9, w: 1}, {w: 2}]\n"
    assert load(text) == [{"base": {"x": 1, "z": 2}, "d": {"x": 1, "z": 3}, "e": {"z": 9, "w": 1}}]


def test_aliases_are_independent_copies() -> None:
    [document] = load_documents("a: &x {k: [1]}\nb: *x\n", source="t.yaml")
    document.obj["b"]["k"].append(2)
    assert document.obj["a"] == {"k": [1]}


def test_non_mapping_documents_are_returned_as_they_are() -> None:
    assert load("- a\n- b\n---\nhello\n---\n42\n---\n[1, {a: b}]\n") == [
        ["a", "b"],
        "hello",
        42,
        [1, {"a": "b"}],
    ]


def test_empty_documents_are_kept_with_indexes_and_lines() -> None:
    documents = load_documents("---\n# only a comment\n---\na: 1\n---\n~\n---\n", source="t.yaml")
    assert [(d.index, d.obj, d.start_line) for d in documents] == [
        (0, None, 1),
        (1, {"a": 1}, 4),
        (2, None, 6),
        (3, None, 7),
    ]


@pytest.mark.parametrize("text", ["", "\n\n", "# nothing here\n", "  # indented comment\n"])
def test_text_without_content_has_no_documents(text: str) -> None:
    assert load_documents(text, source="t.yaml") == []


def test_start_line_is_the_first_content_line() -> None:
    text = "# header\n\napiVersion: v1\n--- # next\n\n  # note\nkind: A\n"
    documents = load_documents(text, source="t.yaml")
    assert [d.start_line for d in documents] == [3, 7]
    assert [d.start_line for d in precise(text)] == [3, 7]


@pytest.mark.parametrize(
    "text",
    ["a: 1\n--- b: 2\n", "a: 1\n--- 1\n", "a: 1\n---x\n", "--- |\n  text\n", "a: 1\n---- \n"],
)
def test_separator_followed_by_content_is_rejected(text: str) -> None:
    with pytest.raises(YamlError, match="invalid document separator") as caught:
        load_documents(text, source="t.yaml")
    location = caught.value.location
    assert location is not None
    assert location.line == text.count("\n", 0, text.index("--")) + 1


@pytest.mark.parametrize(
    "text", ["--- # c\na: 1\n", "---\r\na: 1\r\n", "---\t\na: 1\n", "a: 1\n---\n"]
)
def test_separator_with_comment_or_blanks_is_accepted(text: str) -> None:
    assert load(text)[0] == {"a": 1}


def test_crlf_and_bom() -> None:
    assert load("\ufeffa: 1\r\nb: x\r\n") == [{"a": 1, "b": "x"}]


def test_syntax_error_has_line_column_and_document() -> None:
    with pytest.raises(YamlError) as caught:
        load_documents("a: 1\n---\nb: [1, 2\nc: 3\n", source="s.yaml")
    error = caught.value
    assert error.location is not None
    assert error.location.file == "s.yaml"
    assert error.location.document == 1
    assert error.location.line is not None and error.location.line >= 3
    assert error.location.column is not None
    assert "expected" in error.message


def test_tab_indentation_error_is_plain_words() -> None:
    with pytest.raises(YamlError, match="cannot start any token"):
        load_documents("a:\n\t- b\n", source="t.yaml")


def test_lone_surrogate_is_a_yaml_error() -> None:
    with pytest.raises(YamlError, match="surrogate"):
        load_documents("a: \ud800\n", source="t.yaml")
