"""dump_documents: go-yaml v2 key order, quoting, literal blocks, separators, round trip."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.yamlio import dump_documents, load_documents
from generator.yamlio.emit import object_texts
from generator.yamlio.keyorder import key_order


def reload(text: str) -> list[Any]:
    return [document.obj for document in load_documents(text, source="out.yaml")]


def test_empty_list_is_empty_text() -> None:
    assert dump_documents([]) == ""


def test_documents_are_joined_by_separators_with_one_trailing_newline() -> None:
    text = dump_documents([{"a": 1}, {"b": [1, 2]}, "x", None, {}, [], {"c": {"d": "e"}}])
    assert text == "a: 1\n---\nb:\n- 1\n- 2\n---\nx\n---\nnull\n---\n{}\n---\n[]\n---\nc:\n  d: e\n"
    assert not text.startswith("---")
    assert text.endswith("e\n") and not text.endswith("\n\n")


def test_layout_two_space_indent_and_list_items_at_parent_indentation() -> None:
    obj = {"spec": {"resources": [{"kind": "A", "spec": {"list": [[1, 2], {"k": "v"}]}}]}}
    assert dump_documents([obj]) == (
        "spec:\n"
        "  resources:\n"
        "  - kind: A\n"
        "    spec:\n"
        "      list:\n"
        "      - - 1\n"
        "        - 2\n"
        "      - k: v\n"
    )


@pytest.mark.parametrize(
    ("keys", "ordered"),
    [
        (["a10", "a2", "a1"], ["a1", "a2", "a10"]),
        (["a", "_x"], ["_x", "a"]),
        (["b", "B", "a", "A"], ["A", "B", "a", "b"]),
        (["a-b", "a_b", "a.b", "a/b"], ["a-b", "a.b", "a/b", "a_b"]),
        (["a1", "a-", "ab"], ["a-", "a1", "ab"]),
        (["a01", "a1", "a001"], ["a1", "a01", "a001"]),
        (["x10y", "x9z", "x9y"], ["x9y", "x9z", "x10y"]),
        (["ab", "a"], ["a", "ab"]),
        (["kind", "apiVersion", "spec", "metadata"], ["apiVersion", "kind", "metadata", "spec"]),
        (["v1beta10", "v1beta2", "v1alpha1"], ["v1alpha1", "v1beta2", "v1beta10"]),
        (["é", "z", "1"], ["1", "z", "é"]),
    ],
)
def test_key_order_is_go_yaml_v2(keys: list[str], ordered: list[str]) -> None:
    assert sorted(keys, key=key_order) == ordered
    text = dump_documents([dict.fromkeys(keys, 0)])
    assert [line.split(":")[0].strip('"') for line in text.splitlines()] == ordered


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("plain", "plain"),
        ("yes", '"yes"'),
        ("No", '"No"'),
        ("n", '"n"'),
        ("yEs", '"yEs"'),
        ("true", '"true"'),
        ("null", '"null"'),
        ("~", '"~"'),
        ("", '""'),
        ("123", '"123"'),
        ("010", '"010"'),
        ("0o10", '"0o10"'),
        ("1e3", '"1e3"'),
        ("1_000", '"1_000"'),
        (".inf", '".inf"'),
        ("2024-01-02", '"2024-01-02"'),
        ("1:20", '"1:20"'),
        ("<<", '"<<"'),
        (" x", "' x'"),
        ("x ", "'x '"),
        ("a: b", "'a: b'"),
        ("- x", "'- x'"),
        ("{{ .builtin.cluster.name }}", "'{{ .builtin.cluster.name }}'"),
        ("*", "'*'"),
        ("&a", "'&a'"),
        ("!x", "'!x'"),
        ("#x", "'#x'"),
        ("${CLUSTER_NAME}", "${CLUSTER_NAME}"),
        ("a#b", "a#b"),
        ("v1.31.0", "v1.31.0"),
        ("é ü 日本", "é ü 日本"),
        ("a\x00b", '"a\\0b"'),
        ("it's", "it's"),
    ],
)
def test_string_quoting(value: str, written: str) -> None:
    text = dump_documents([{"k": value}])
    assert text == f"k: {written}\n"
    assert reload(text) == [{"k": value}]


@pytest.mark.parametrize(
    ("value", "written"),
    [
        (1, "1"),
        (-5, "-5"),
        (1.5, "1.5"),
        (1.0, "1"),
        (1e6 + 0.5, "1.0000005e+06"),
        (1e-7, "1e-07"),
        (1e21, "1e+21"),
        (float("inf"), ".inf"),
        (True, "true"),
        (None, "null"),
    ],
)
def test_other_scalars(value: object, written: str) -> None:
    assert dump_documents([{"k": value}]) == f"k: {written}\n"


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("line1\nline2\n", "k: |\n  line1\n  line2\n"),
        ("line1\nline2", "k: |-\n  line1\n  line2\n"),
        ("  indented\nnext\n", "k: |2\n    indented\n  next\n"),
        ("a\n\nb\n", "k: |\n  a\n\n  b\n"),
        ("a\n\n", "k: |+\n  a\n\n"),  # go-yaml v2 keeps the blank line, with no "..." after
        ("\n", "k: |2+\n\n"),
        ("trailing \nspace", 'k: "trailing \\nspace"\n'),
        ("cr\r\nlf", 'k: "cr\\r\\nlf"\n'),
    ],
)
def test_multi_line_strings(value: str, written: str) -> None:
    text = dump_documents([{"k": value}])
    assert text == written
    assert reload(text) == [{"k": value}]


def test_long_lines_are_folded_past_column_80_as_go_yaml_v2_folds_them() -> None:
    value = " ".join(["word"] * 40)
    first = "k: " + " ".join(["word"] * 16)  # the first space past column 80 breaks the line
    text = dump_documents([{"k": value}])
    assert text.startswith(first + "\n  word ")
    assert all(len(line) <= 86 for line in text.splitlines())
    assert reload(text) == [{"k": value}]


def test_long_lines_break_only_at_single_spaces_and_keys_never_break() -> None:
    unbroken = "x" * 200
    assert dump_documents([{"k": unbroken}]) == f"k: {unbroken}\n"
    doubled = "  ".join(["word"] * 40)  # plain scalars never break inside a run of spaces
    assert dump_documents([{"k": doubled}]) == f"k: {doubled}\n"
    key = " ".join(["key"] * 30)
    assert dump_documents([{key: "v"}]) == f"{key}: v\n"


def test_a_stream_ending_in_a_kept_blank_line_has_no_end_mark() -> None:
    text = dump_documents([{"a": 1}, {"k": "x\n\n"}])
    assert text == "a: 1\n---\nk: |+\n  x\n\n"
    assert reload(text) == [{"a": 1}, {"k": "x\n\n"}]
    assert dump_documents(["x\n\n"]) == '"x\\n\\n"\n'


def test_repeated_objects_are_written_out_without_anchors() -> None:
    shared = {"a": [1, 2]}
    text = dump_documents([{"x": shared, "y": shared}, shared])
    assert "&" not in text and "*" not in text
    assert reload(text) == [{"x": shared, "y": shared}, shared]


def test_non_string_keys_are_written_as_kubernetes_keys() -> None:
    assert dump_documents([{1: "a", False: "b", 2.5: "c"}]) == '"1": a\n"2.5": c\n"false": b\n'


def test_unsupported_values_are_a_type_error() -> None:
    with pytest.raises(TypeError, match="cannot write"):
        dump_documents([{"k": object()}])


def test_five_thousand_small_objects_dump_as_one_stream() -> None:
    objects = [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": f"cm-{i}", "namespace": "default", "labels": {"app": "x"}},
            "data": {"key": "value", "n": "1", "script": "echo hi\nexit 0\n"},
        }
        for i in range(5000)
    ]
    text = dump_documents(objects)
    assert text.count("\n---\n") == 4999


json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False),
    st.text(),
    st.sampled_from(
        [
            "yes",
            "010",
            "1e3",
            "",
            " x",
            "a: b",
            "- x",
            "{{ .builtin.cluster.name }}",
            "line1\nline2\n",
            "1",
            "true",
            "a/b",
            "~",
            "<<",
            "\t",
            "\x85",
            "...",
            "---",
            "? x",
        ]
    ),
)
json_values = st.recursive(
    json_scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=15,
)


@settings(max_examples=400, deadline=None)
@given(st.lists(json_values, max_size=4))
def test_round_trip(objects: list[Any]) -> None:
    assert reload(dump_documents(objects)) == objects


def test_clusterctl_output_is_reproduced_byte_for_byte(corpus_dir: Path) -> None:
    """The CAPZ templates are clusterctl output; loading and dumping them changes nothing."""
    templates = sorted(corpus_dir.glob("*.yaml"))
    assert templates
    for template in templates:
        text = template.read_text()
        assert dump_documents(reload(text)) == text, template.name


@given(
    st.lists(st.dictionaries(st.text(min_size=1, max_size=8), json_values, min_size=1), max_size=5)
)
def test_object_texts_join_to_the_stream(objects: list[dict[str, Any]]) -> None:
    """Each mapping written once serves both the per-object files and the stream."""
    texts, stream = object_texts(objects)
    assert stream == dump_documents(objects)
    if objects:
        assert texts == [dump_documents([obj]) for obj in objects]
        assert "---\n".join(texts) == stream


def test_object_texts_of_other_values_fall_back_to_the_stream() -> None:
    texts, stream = object_texts([{"a": 1}, "scalar", {}])
    assert texts == []
    assert stream == dump_documents([{"a": 1}, "scalar", {}])
