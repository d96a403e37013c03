"""The Kubernetes library functions implemented on top of cel-python, with cel-go's results."""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from generator.cel.runtime import CelEvaluationError, compile_program, escape_property, to_cel


def evaluate(expression: str, value: Any = None, schema: Any = None) -> Any:
    return compile_program(expression).evaluate(to_cel(value, schema))


@pytest.mark.parametrize(
    ("expression", "value", "expected"),
    [
        ("self.charAt(1)", "héllo", "é"),
        ("self.charAt(5)", "hello", ""),
        ("self.indexOf('l')", "hello", 2),
        ("self.indexOf('l', 3)", "hello", 3),
        ("self.indexOf('')", "hello", 0),
        ("self.indexOf('z')", "hello", -1),
        ("self.lastIndexOf('l')", "hello", 3),
        ("self.lastIndexOf('l', 2)", "hello", 2),
        ("self.lowerAscii()", "ÀBC", "Àbc"),
        ("self.upperAscii()", "àbc", "àBC"),
        ("self.replace('a', 'b')", "banana", "bbnbnb"),
        ("self.replace('a', 'b', 1)", "banana", "bbnana"),
        ("self.split('-')", "a-b-c", ["a", "b", "c"]),
        ("self.split('-', 2)", "a-b-c", ["a", "b-c"]),
        ("self.split('-', 0)", "a-b-c", []),
        ("self.split('')", "abc", ["a", "b", "c"]),
        ("self.substring(1)", "hello", "ello"),
        ("self.substring(1, 3)", "hello", "el"),
        ("self.trim()", "  x \n", "x"),
        ("['a', 'b'].join()", "", "ab"),
        ("['a', 'b'].join('/')", "", "a/b"),
        ("self.isSorted()", [1, 2, 2, 3], True),
        ("self.isSorted()", [2, 1], False),
        ("self.sum()", [1, 2, 3], 6),
        ("self.max()", [1, 5, 3], 5),
        ("self.min()", [4, 2, 3], 2),
        ("self.indexOf(2)", [1, 2, 2], 1),
        ("self.lastIndexOf(2)", [1, 2, 2], 2),
        ("self.find('[0-9]+')", "abc123def45", "123"),
        ("self.find('[0-9]+')", "abc", ""),
        ("self.findAll('[0-9]+')", "a1b22c333", ["1", "22", "333"]),
        ("self.findAll('[0-9]+', 2)", "a1b22c333", ["1", "22"]),
        ("dyn(self) == self", "x", True),
    ],
)
def test_extension_functions(expression: str, value: Any, expected: Any) -> None:
    assert evaluate(expression, value) == expected


@pytest.mark.parametrize(
    ("expression", "value", "fragment"),
    [
        ("self.charAt(9)", "abc", "index out of range"),
        ("self.substring(2, 1)", "abc", "invalid substring range"),
        ("self.substring(7)", "abc", "index out of range"),
        ("self.max()", [], "max of an empty list"),
        ("self.find('[')", "abc", "invalid regular expression"),
        ("self.lowerAscii()", 5, "no such overload"),
        ("self.missing == 1", {}, "no such member"),
    ],
)
def test_misuse_is_an_evaluation_error(expression: str, value: Any, fragment: str) -> None:
    with pytest.raises(CelEvaluationError, match=fragment):
        evaluate(expression, value)


def test_values_are_typed_by_the_schema() -> None:
    schema = {
        "type": "object",
        "properties": {
            "ratio": {"type": "number"},
            "count": {"type": "integer"},
            "at": {"type": "string", "format": "date-time"},
            "every": {"type": "string", "format": "duration"},
            "x-y": {"type": "string"},
            "namespace": {"type": "string"},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        },
    }
    value = {
        "ratio": 1,
        "count": 2,
        "at": "2024-05-01T10:00:00Z",
        "every": "90s",
        "x-y": "dash",
        "namespace": "ns",
        "labels": {"a-b": "c"},
    }
    assert evaluate("self.ratio == 1.0 && type(self.ratio) == double", value, schema)
    assert evaluate("self.count + 1 == 3", value, schema)
    assert evaluate("self.at < timestamp('2025-01-01T00:00:00Z')", value, schema)
    assert evaluate("self.every == duration('1m30s')", value, schema)
    assert evaluate("self.x__dash__y == 'dash'", value, schema)
    assert evaluate("self.__namespace__ == 'ns'", value, schema)
    assert evaluate("self.labels['a-b'] == 'c'", value, schema), "map keys are not escaped"


@pytest.mark.parametrize(
    ("name", "escaped"),
    [
        ("plain", "plain"),
        ("x-y", "x__dash__y"),
        ("a.b/c", "a__dot__b__slash__c"),
        ("a__b", "a__underscores__b"),
        ("namespace", "__namespace__"),
        ("if", "__if__"),
    ],
)
def test_property_names_are_escaped_like_kubernetes(name: str, escaped: str) -> None:
    assert escape_property(name) == escaped


def test_values_of_every_kind_convert_without_a_schema() -> None:
    assert evaluate("type(self) == double && self == 1.5", 1.5)
    assert evaluate("self == null", None)
    assert evaluate("type(self) == int && self == 3", 3)
    assert evaluate("self == [1, 'a', true]", [1, "a", True])
    assert evaluate(
        "self == timestamp('2024-05-01T10:00:00Z')",
        datetime.datetime(2024, 5, 1, 10, 0, tzinfo=datetime.UTC),
    )
    assert evaluate("self == '2024-05-01'", datetime.date(2024, 5, 1))


def test_values_cel_cannot_hold_are_rejected() -> None:
    with pytest.raises(TypeError, match="a set value cannot be given to CEL"):
        to_cel({1, 2})
