"""RFC 7386 (merge patch) and RFC 6902 (JSON Patch) as pure functions, checked against the RFCs'
own examples and a few properties."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from generator.jsonpatch import (
    PatchFailure,
    apply_json_patch,
    json_equal,
    merge_patch,
    parse_pointer,
)

# --- RFC 7386 appendix A -------------------------------------------------------------------------

MERGE_CASES: list[tuple[Any, Any, Any]] = [
    ({"a": "b"}, {"a": "c"}, {"a": "c"}),
    ({"a": "b"}, {"b": "c"}, {"a": "b", "b": "c"}),
    ({"a": "b"}, {"a": None}, {}),
    ({"a": "b", "b": "c"}, {"a": None}, {"b": "c"}),
    ({"a": ["b"]}, {"a": "c"}, {"a": "c"}),
    ({"a": "c"}, {"a": ["b"]}, {"a": ["b"]}),
    ({"a": {"b": "c"}}, {"a": {"b": "d", "c": None}}, {"a": {"b": "d"}}),
    ({"a": [{"b": "c"}]}, {"a": [1]}, {"a": [1]}),
    (["a", "b"], ["c", "d"], ["c", "d"]),
    ({"a": "b"}, ["c"], ["c"]),
    ({"a": "foo"}, None, None),
    ({"a": "foo"}, "bar", "bar"),
    ({"e": None}, {"a": 1}, {"e": None, "a": 1}),
    ([1, 2], {"a": "b", "c": None}, {"a": "b"}),
    ({}, {"a": {"bb": {"ccc": None}}}, {"a": {"bb": {}}}),
]


@pytest.mark.parametrize(("target", "patch", "expected"), MERGE_CASES)
def test_merge_patch_rfc7386_examples(target: Any, patch: Any, expected: Any) -> None:
    before = copy.deepcopy(target)
    assert merge_patch(target, patch) == expected
    assert target == before  # arguments are never modified


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=12,
)


@given(json_values, json_values)
def test_merge_patch_is_idempotent(target: Any, patch: Any) -> None:
    once = merge_patch(target, patch)
    assert merge_patch(once, patch) == once


# --- RFC 6901 ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pointer", "tokens"),
    [
        ("", []),
        ("/", [""]),
        ("/a~1b", ["a/b"]),
        ("/m~0n", ["m~n"]),
        ("/~01", ["~1"]),
        ("/a/0", ["a", "0"]),
    ],
)
def test_pointer_tokens(pointer: str, tokens: list[str]) -> None:
    assert parse_pointer(pointer) == tokens


@pytest.mark.parametrize("pointer", ["a", "/a~2", "/a~"])
def test_bad_pointers(pointer: str) -> None:
    with pytest.raises(PatchFailure):
        parse_pointer(pointer)


# --- RFC 6902 appendix A -------------------------------------------------------------------------

JSON_PATCH_CASES: list[tuple[Any, list[dict[str, Any]], Any]] = [
    ({"foo": "bar"}, [{"op": "add", "path": "/baz", "value": "qux"}], {"baz": "qux", "foo": "bar"}),
    (
        {"foo": ["bar", "baz"]},
        [{"op": "add", "path": "/foo/1", "value": "qux"}],
        {"foo": ["bar", "qux", "baz"]},
    ),
    ({"baz": "qux", "foo": "bar"}, [{"op": "remove", "path": "/baz"}], {"foo": "bar"}),
    ({"foo": ["bar", "qux", "baz"]}, [{"op": "remove", "path": "/foo/1"}], {"foo": ["bar", "baz"]}),
    (
        {"baz": "qux", "foo": "bar"},
        [{"op": "replace", "path": "/baz", "value": "boo"}],
        {"baz": "boo", "foo": "bar"},
    ),
    (
        {"foo": {"bar": "baz", "waldo": "fred"}, "qux": {"corge": "grault"}},
        [{"op": "move", "from": "/foo/waldo", "path": "/qux/thud"}],
        {"foo": {"bar": "baz"}, "qux": {"corge": "grault", "thud": "fred"}},
    ),
    (
        {"foo": ["all", "grass", "cows", "eat"]},
        [{"op": "move", "from": "/foo/1", "path": "/foo/3"}],
        {"foo": ["all", "cows", "eat", "grass"]},
    ),
    (
        {"baz": "qux", "foo": ["a", 2, "c"]},
        [
            {"op": "test", "path": "/baz", "value": "qux"},
            {"op": "test", "path": "/foo/1", "value": 2},
        ],
        {"baz": "qux", "foo": ["a", 2, "c"]},
    ),
    (
        {"foo": "bar"},
        [{"op": "add", "path": "/child", "value": {"grandchild": {}}}],
        {"foo": "bar", "child": {"grandchild": {}}},
    ),
    (
        {"foo": "bar"},
        [{"op": "add", "path": "/baz", "value": "qux", "xyz": 123}],
        {"foo": "bar", "baz": "qux"},
    ),
    (
        {"foo": ["bar"]},
        [{"op": "add", "path": "/foo/-", "value": ["abc", "def"]}],
        {"foo": ["bar", ["abc", "def"]]},
    ),
    ({"/": 9, "~1": 10}, [{"op": "test", "path": "/~01", "value": 10}], {"/": 9, "~1": 10}),
    (
        {"a/b": 1, "m~n": 2},
        [{"op": "replace", "path": "/a~1b", "value": 3}, {"op": "remove", "path": "/m~0n"}],
        {"a/b": 3},
    ),
    ({"a": {"b": 1}}, [{"op": "copy", "from": "/a", "path": "/c"}], {"a": {"b": 1}, "c": {"b": 1}}),
    ({"a": 1}, [{"op": "replace", "path": "", "value": {"b": 2}}], {"b": 2}),
    ({"a": 1}, [{"op": "move", "from": "/a", "path": "/a"}], {"a": 1}),
    ({"a": [1, 2]}, [{"op": "replace", "path": "/a/1", "value": 9}], {"a": [1, 9]}),
]


@pytest.mark.parametrize(("document", "operations", "expected"), JSON_PATCH_CASES)
def test_json_patch_rfc6902_examples(
    document: Any, operations: list[dict[str, Any]], expected: Any
) -> None:
    before = copy.deepcopy(document)
    assert apply_json_patch(document, operations) == expected
    assert document == before


@pytest.mark.parametrize(
    ("document", "operations", "message", "index"),
    [
        ({"foo": "bar"}, [{"op": "add", "path": "/baz/bat", "value": "qux"}], "does not exist", 0),
        ({"baz": "qux"}, [{"op": "test", "path": "/baz", "value": "bar"}], "test failed", 0),
        ({"a": 1}, [{"op": "test", "path": "/a", "value": True}], "test failed", 0),
        ({"a": [1]}, [{"op": "add", "path": "/a/2", "value": 0}], "out of range", 0),
        ({"a": [1]}, [{"op": "add", "path": "/a/01", "value": 0}], "not a list index", 0),
        ({"a": [1]}, [{"op": "remove", "path": "/a/-"}], "not a list index", 0),
        ({"a": 1}, [{"op": "remove", "path": "/b"}], "does not exist", 0),
        ({"a": 1}, [{"op": "replace", "path": "/b", "value": 1}], "does not exist", 0),
        ({"a": {"b": {}}}, [{"op": "move", "from": "/a", "path": "/a/b/c"}], "own children", 0),
        (
            {"a": 1},
            [{"op": "test", "path": "/a", "value": 1}, {"op": "copy", "from": "/x", "path": "/y"}],
            "does not exist",
            1,
        ),
        ({"a": "s"}, [{"op": "add", "path": "/a/b", "value": 1}], "not a mapping or list", 0),
        ({"a": 1}, [{"op": "remove", "path": ""}], "whole object", 0),
        ({"a": 1}, [{"op": "frobnicate", "path": "/a"}], "unknown operation", 0),
        ({"a": 1}, [{"op": ["add"], "path": "/a"}], r"unknown operation \['add'\]", 0),
        ({"a": 1}, [{"op": "frobnicate"}], "operation 'frobnicate' needs 'path'", 0),
        ({"a": 1}, [{"op": "move", "path": "/b"}], "operation 'move' needs 'from'", 0),
        ({"a": 1}, [{"op": "replace", "path": "/a"}], "operation 'replace' needs 'value'", 0),
        ({"a": [1]}, [{"op": "replace", "path": "/a/1", "value": 0}], "out of range", 0),
    ],
)
def test_json_patch_errors_name_the_operation(
    document: Any, operations: list[dict[str, Any]], message: str, index: int
) -> None:
    before = copy.deepcopy(document)
    with pytest.raises(PatchFailure, match=message) as raised:
        apply_json_patch(document, operations)
    assert raised.value.operation == index
    assert document == before


def test_json_equality_is_json_not_python() -> None:
    assert json_equal({"a": [1, 2.0]}, {"a": [1.0, 2]})
    assert not json_equal(1, True)
    assert not json_equal(0, False)
    assert not json_equal({"a": 1}, {"a": 1, "b": 2})
    assert not json_equal([1], [1, 1])
    assert not json_equal("1", 1)
    assert json_equal(None, None)


def test_copy_bomb_is_stopped_before_it_grows() -> None:
    """40 doubling copies of a small value would need terabytes; the patch fails at the copy
    that passes the bound, naming it, and nothing large is ever built."""
    operations = [{"op": "add", "path": "/a", "value": ["x" * 1000]}]
    operations += [{"op": "copy", "from": "/a", "path": "/a/-"} for _ in range(40)]
    with pytest.raises(PatchFailure, match="would make the object larger than 32 MiB") as caught:
        apply_json_patch({}, operations)
    assert caught.value.operation is not None and 10 < caught.value.operation < 40


def test_too_many_operations() -> None:
    operations = [{"op": "test", "path": "", "value": {}}] * 10_001
    with pytest.raises(PatchFailure, match="at most 10,000 operations"):
        apply_json_patch({}, operations)
