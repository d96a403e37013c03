"""The static cost estimate (cel-go's ``checker/cost.go`` as the API server applies it to CRDs):
sizes from the schema's bounds, per-step charges, macros multiplying, and the estimate bounding
what the run-time meter counts."""

from __future__ import annotations

from typing import Any

import pytest

from generator.cel.cost import estimate_cost
from generator.cel.limits import MAX_REQUEST_SIZE_BYTES, CostLimits, Meter
from generator.cel.runtime import CelEvaluationError, compile_program, parse, to_cel
from generator.cel.shapes import Shape
from generator.cel.tree import build_tree


def estimate(rule: str, schema: dict[str, Any], root: dict[str, Any] | None = None) -> int:
    return estimate_cost(parse(rule), schema, root)


def strings(**bounds: Any) -> dict[str, Any]:
    return {"type": "array", "items": {"type": "string", "maxLength": 5}, **bounds}


@pytest.mark.parametrize(
    ("rule", "schema", "expected"),
    [
        # self 1, size() 1, < 1
        ("self.size() < 3", strings(maxItems=5), 3),
        # self 1; matches: ceil(0.1 * (1 + 63*4)) * ceil(0.25 * 8) = 26 * 2
        ("self.matches('^[a-z]+$')", {"type": "string", "maxLength": 63}, 53),
        # self 1; per item: loop 3 + x 1 + (x != '': ceil(0.1 * 0) = 0); result 1
        ("self.all(x, x != '')", strings(maxItems=10), 1 + 10 * 4 + 1),
        # an enum's longest value bounds the string: ceil(0.1 * min(10, 3)) = 1
        ("self == 'abc'", {"type": "string", "enum": ["a", "abcdefghij"]}, 2),
        # date-time strings are at most 32 bytes: ceil(0.1 * 32) = 4
        ("self.startsWith('a')", {"type": "string", "format": "date-time"}, 5),
        # a list literal 10, `in` a list of 3: 3
        ("self in ['a', 'b', 'c']", {"type": "string", "maxLength": 3}, 1 + 10 + 3),
        # false && x, has(), ternary: the larger branch
        ("has(self.a) ? self.a.size() : 0", {"type": "object"}, (1 + 2) + (2 + 1)),
    ],
)
def test_estimate_charges_each_step(rule: str, schema: dict[str, Any], expected: int) -> None:
    assert estimate(rule, schema) == expected


def test_unbounded_lists_are_bounded_by_the_request_size() -> None:
    unbounded = {"type": "array", "items": {"type": "string"}}
    # "" is 2 bytes, plus a comma: (3 MiB - 2) // 3 strings fit into one request
    assert Shape(unbounded).max_size() == (MAX_REQUEST_SIZE_BYTES - 2) // 3
    assert Shape({"type": "string"}).max_size() == MAX_REQUEST_SIZE_BYTES - 2
    assert Shape({"type": "string", "maxLength": 10}).max_size() == 40  # 4 bytes per code point
    assert Shape({"type": "object", "additionalProperties": {"type": "integer"}}).max_size() == (
        (MAX_REQUEST_SIZE_BYTES - 2) // 7
    )
    # required properties make each element larger, so fewer fit
    item = {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}
    assert Shape({"type": "array", "items": item}).max_size() == (MAX_REQUEST_SIZE_BYTES - 2) // (
        2 + len("name") + 4 + 2 + 1
    )


def test_nested_macros_multiply_and_bounds_bring_them_down() -> None:
    rule = "self.all(x, self.all(y, self.all(z, x != '' && y != '' && z != '')))"
    bounded = estimate(rule, strings(maxItems=80))
    assert 80**3 * 6 < bounded < 80**3 * 7  # six charges per innermost item, plus the loops
    unbounded = estimate(rule, {"type": "array", "items": {"type": "string"}})
    assert unbounded > 10**17


def test_fields_and_refs_are_followed_and_escaped_names_found() -> None:
    root = {
        "$defs": {"Names": {"type": "array", "maxItems": 4, "items": {"type": "string"}}},
    }
    schema = {
        "type": "object",
        "properties": {"x-names": {"$ref": "#/$defs/Names"}, "namespace": {"type": "string"}},
    }
    # self 1, field 1, per item: 3 + x 1 + size 1 + < 1; result 1
    assert estimate("self.x__dash__names.all(x, x.size() < 9)", schema, root) == 2 + 4 * 6 + 1
    assert estimate("self.__namespace__ == ''", schema, root) == 2


def test_map_filter_and_exists_one_charge_their_loops() -> None:
    schema = strings(maxItems=2)
    assert estimate("self.exists_one(x, x == 'a')", schema) == 1 + 2 * (2 + 2) + 1
    assert estimate("self.map(x, x).size() > 0", schema) == 1 + 2 * (12 + 1) + 1 + 10 + 2
    assert estimate("self.filter(x, true).size() > 0", schema) == 1 + 2 * 13 + 1 + 10 + 2


def test_rule_cardinality_is_the_product_of_the_enclosing_bounds() -> None:
    schema = {
        "type": "object",
        "properties": {
            "groups": {
                "type": "array",
                "maxItems": 3,
                "items": {
                    "type": "object",
                    "properties": {
                        "labels": {
                            "type": "object",
                            "maxProperties": 5,
                            "additionalProperties": {
                                "type": "string",
                                "x-kubernetes-validations": [{"rule": "self != ''"}],
                            },
                        }
                    },
                },
            }
        },
    }
    tree = build_tree(schema)
    assert tree is not None
    (rule,) = tree.properties["groups"].items.properties["labels"].values.rules  # type: ignore[union-attr]
    assert rule.location == "groups[*].labels.*"
    assert rule.cardinality == 15


@pytest.mark.parametrize(
    ("rule", "value"),
    [
        ("self.all(x, self.exists_one(y, x == y))", ["a", "bb", "ccc", "dddd", "eeeee"]),
        ("self.map(x, x + x).all(y, y.startsWith('a'))", ["aaaaa"] * 5),
        ("self.filter(x, x.contains('a')).size() <= 5 && self.all(x, x.matches('^a+$'))", ["a"]),
        ("self.exists(x, x in ['zz', 'yy']) || size(self) == 5", ["x", "y", "z", "w", "v"]),
    ],
)
def test_the_estimate_bounds_what_the_meter_counts(rule: str, value: list[str]) -> None:
    schema = strings(maxItems=5)
    meter = Meter(CostLimits())
    meter.start_call()
    compile_program(rule).evaluate(to_cel(value, schema), meter)
    assert 0 < meter.total <= estimate(rule, schema)


SAMPLE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "a": {"type": "boolean"},
        "n": {"type": "integer"},
        "s": {"type": "string", "maxLength": 8},
        "l": {"type": "array", "maxItems": 4, "items": {"type": "integer"}},
        "m": {
            "type": "object",
            "maxProperties": 3,
            "additionalProperties": {"type": "integer"},
        },
    },
}
SAMPLE = {"a": True, "n": 2, "s": "ab", "l": [1, 2], "m": {"x": 1}}


@pytest.mark.parametrize(
    "rule",
    [
        "self.a ? self.n == 2 : self.s == ''",
        "-self.n < 0 && !(self.n == 0)",
        "self.n * 2 / 1 % 5 == 4",
        "self.n + 1 - 1 == self.n",
        "self.s + 'x' == 'abx'",
        "self.l + [3] == [1, 2, 3]",
        "{'k': self.n}['k'] == self.n",
        "self.l[0] == 1 && self.m['x'] == 1",
        "dyn(self.n) == 2",
        "self.m.all(k, k.size() > 0)",
        "self.s.lowerAscii().split('b').size() == 2",
        "self.s.charAt(0) == 'a' && self.s.upperAscii().startsWith('A')",
        "self.l.exists_one(x, x == 1)",
        "self.l.filter(x, x > 1).map(y, y * 2) == [4]",
        "has(self.missing) || self.s.contains('b')",
        "self.l.isSorted() && self.l.sum() == 3 && self.s.find('b') == 'b'",
        "size(self.s) == 2 && 1 in self.l && 'x' in self.m",
        "int(self.s.size()) == 2 && string(self.n) == '2'",
    ],
)
def test_estimates_bound_the_meter_across_the_language(rule: str) -> None:
    meter = Meter(CostLimits())
    meter.start_call()
    assert compile_program(rule).evaluate(to_cel(SAMPLE, SAMPLE_SCHEMA), meter)
    assert 0 < meter.total <= estimate(rule, SAMPLE_SCHEMA)


@pytest.mark.parametrize(
    ("rule", "problem"),
    [
        ("self.n < 'a'", "no matching overload"),
        ("self.n.all(x, true)", "cannot iterate over"),
        ("1 && 2", "no matching overload for _&&_"),
    ],
)
def test_type_errors_are_evaluation_errors(rule: str, problem: str) -> None:
    with pytest.raises(CelEvaluationError, match=problem):
        compile_program(rule).evaluate(to_cel(SAMPLE, SAMPLE_SCHEMA))
