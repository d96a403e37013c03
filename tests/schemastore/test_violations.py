"""Readable violation messages and paths, directly on compiled JSON Schemas."""

from __future__ import annotations

from typing import Any

import jsonschema_rs
import pytest

from generator.schemastore.compiler import RE2_PATTERN, compile_schema
from generator.schemastore.structural import to_json_schema
from generator.schemastore.violations import render_value, violations


def check(schema: Any, instance: Any) -> list[tuple[tuple[Any, ...], str]]:
    validator = compile_schema(schema, source="<test>")
    return [(v.path, v.message) for v in violations(validator.iter_errors(instance))]


POOL = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "required": ["location"],
            "additionalProperties": False,
            "properties": {
                "location": {"type": "string"},
                "mode": {"enum": ["System", "User"]},
                "count": {"type": "integer"},
                "dnsPrefix": {"type": "string", "pattern": "^[a-z][a-z0-9-]*$"},
                "nodes": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "additionalProperties": False,
                        "properties": {"name": {"type": "string"}},
                    },
                },
            },
        }
    },
}


def test_one_violation_per_unknown_key_pointing_at_the_key() -> None:
    found = check(POOL, {"spec": {"location": "x", "dnsPrefx": "a", "cuont": 1}})
    assert sorted(found) == [
        (("spec", "cuont"), 'unknown field "cuont"'),
        (("spec", "dnsPrefx"), 'unknown field "dnsPrefx"'),
    ]


def test_unknown_key_inside_a_list_item() -> None:
    assert check(POOL, {"spec": {"location": "x", "nodes": [{"name": "a"}, {"nmae": "b"}]}}) == [
        (("spec", "nodes", 1, "nmae"), 'unknown field "nmae"')
    ]


def test_all_violations_are_reported_not_only_the_first() -> None:
    found = check(POOL, {"spec": {"mode": "Sytem", "count": "3", "dnsPrefix": "Bad_Prefix"}})
    assert sorted(found) == [
        (("spec",), 'required field "location" is missing'),
        (("spec", "count"), 'expected integer, got string "3"'),
        (("spec", "dnsPrefix"), 'must match pattern "^[a-z][a-z0-9-]*$" (got "Bad_Prefix")'),
        (("spec", "mode"), 'must be one of: "System", "User" (got "Sytem")'),
    ]


def test_unknown_field_without_declared_properties() -> None:
    # The converter gives closed objects a property map so that every key is named.
    schema = to_json_schema({"type": "object", "additionalProperties": False})
    assert sorted(check(schema, {"x": 1, "y": 2})) == [
        (("x",), 'unknown field "x"'),
        (("y",), 'unknown field "y"'),
    ]
    raw = {"type": "object", "additionalProperties": False}
    assert check(raw, {"x": 1}) == [((), "unknown fields are not allowed here")]


def test_anyof_of_types_becomes_one_message() -> None:
    schema = {"anyOf": [{"type": "integer"}, {"type": "string"}]}
    assert check(schema, True) == [((), "expected integer or string, got boolean true")]


def test_anyof_reports_the_branch_that_came_closest() -> None:
    schema = {
        "anyOf": [
            {"type": "string"},
            {
                "type": "object",
                "additionalProperties": False,
                "properties": {"name": {"type": "string"}, "port": {"type": "integer"}},
            },
        ]
    }
    assert check(schema, {"name": "a", "port": "80"}) == [
        (("port",), 'expected integer, got string "80"')
    ]


def test_nested_alternatives_keep_absolute_paths() -> None:
    branch = {"type": "object", "properties": {"port": {"type": "integer"}}}
    schema = {"properties": {"x": {"items": {"anyOf": [{"type": "string"}, branch]}}}}
    assert check(schema, {"x": ["ok", {"port": "80"}]}) == [
        (("x", 1, "port"), 'expected integer, got string "80"')
    ]


def test_oneof_with_several_matches() -> None:
    schema = {"oneOf": [{"type": "string"}, {"minLength": 1}]}
    assert check(schema, "ab") == [
        ((), "matches more than one of the allowed alternatives (exactly one is required)")
    ]


@pytest.mark.parametrize(
    ("schema", "instance", "message"),
    [
        ({"const": "x"}, "y", 'must be "x" (got "y")'),
        ({"minItems": 2}, [1], "must have at least 2 items (got 1)"),
        ({"maxProperties": 1}, {"a": 1, "b": 2}, "must have at most 1 fields (got 2)"),
        ({"exclusiveMinimum": 0}, 0, "must be > 0 (got 0)"),
        ({"multipleOf": 5}, 7, "must be a multiple of 5 (got 7)"),
        ({"type": ["string", "null"]}, 1, "expected string or null, got integer 1"),
        ({"type": "object"}, [1, 2], "expected object, got array"),
        ({"format": "date-time"}, "nope", 'must be a valid RFC 3339 date-time (got "nope")'),
        ({"format": "ipv4"}, "nope", 'must be a valid ipv4 (got "nope")'),
        ({"minLength": 3}, "ab", "must be at least 3 characters long (got 2)"),
        ({"maxLength": 1}, "ab", "must be at most 1 characters long (got 2)"),
        ({"minimum": 3}, 2, "must be >= 3 (got 2)"),
        ({"maximum": 3}, 4.5, "must be <= 3 (got 4.5)"),
        ({"exclusiveMaximum": 3}, 3, "must be < 3 (got 3)"),
        ({"maxItems": 1}, [1, 2], "must have at most 1 items (got 2)"),
        ({"minProperties": 2}, {"a": 1}, "must have at least 2 fields (got 1)"),
        ({"uniqueItems": True}, [1, 1], "must not contain duplicate items"),
        ({"not": {"type": "string"}}, "x", "must not match the excluded schema"),
        (
            {"enum": list(range(20))},
            99,
            "must be one of: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, ... (got 99)",
        ),
        ({RE2_PATTERN: "^a+$"}, "b", 'must match pattern "^a+$" (got "b")'),
        ({"contains": {"type": "string"}}, [1], "contains"),  # no phrase: the kind's name
    ],
)
def test_messages(schema: dict[str, Any], instance: Any, message: str) -> None:
    assert check(schema, instance) == [((), message)]


def test_false_schemas() -> None:
    assert check(False, 1) == [((), "no value is allowed here")]
    assert check({"properties": {"a": False}}, {"a": 1}) == [(("a",), 'unknown field "a"')]


class _Odd:
    """A custom keyword other than capzgen's RE2 pattern: its message is shown as it is."""

    def __init__(self, parent_schema: Any, value: Any, schema_path: Any) -> None:
        pass

    def validate(self, instance: Any) -> None:
        msg = "odd value"
        raise ValueError(msg)


def test_other_custom_keywords_keep_their_message() -> None:
    validator = jsonschema_rs.validator_for({"x-odd": True}, keywords={"x-odd": _Odd})
    assert [v.message for v in violations(validator.iter_errors(1))] == ["odd value"]


def test_long_values_are_shortened() -> None:
    (found,) = check({"type": "integer"}, "x" * 200)
    assert len(found[1]) < 100
    assert found[1].endswith('..."') or "..." in found[1]


@pytest.mark.parametrize(
    ("value", "text"),
    [(None, "null"), (True, "boolean true"), (3, "integer 3"), ("3", 'string "3"'), ({}, "object")],
)
def test_render_value(value: Any, text: str) -> None:
    assert render_value(value) == text


def test_duplicates_are_removed() -> None:
    schema = {"allOf": [{"required": ["a"]}, {"required": ["a"]}]}
    assert check(schema, {}) == [((), 'required field "a" is missing')]
