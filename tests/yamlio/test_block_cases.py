"""The C block reader on small texts, one rule of its subset per case, the expected outcome beside
each: the documents' values (which ryaml and the precise path must also give), or None (left to
them)."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from tests.yamlio.blockyaml_support import agreement
from tests.yamlio.yamlio_support import same


def nested(depth: int) -> list[Any]:
    """``[[[...]]]``, ``depth`` lists deep."""
    value: list[Any] = []
    for _ in range(depth - 1):
        value = [value]
    return value


ACCEPTED: list[tuple[str, list[Any]]] = [
    # documents, separators, comments
    ("a: 1\n", [{"a": 1}]),
    ("a: 1", [{"a": 1}]),
    ("---\na: 1\n", [{"a": 1}]),
    ("# head\n---\na: 1\n", [{"a": 1}]),
    ("a: 1\n---\n", [{"a": 1}, None]),
    ("---\n---\na: 1\n---\n", [None, {"a": 1}, None]),
    ("--- # the first\na: 1\n---  \nb: 2\n", [{"a": 1}, {"b": 2}]),
    ("---\n# only a comment\n", [None]),
    ("a: 1 # trailing\n# own line\n  # indented\n\nb: 2\n", [{"a": 1, "b": 2}]),
    # block mappings and sequences
    ("a:\n  b:\n    c: d\n  e: f\n", [{"a": {"b": {"c": "d"}, "e": "f"}}]),
    ("a:\n- x\n- z\nb: 2\n", [{"a": ["x", "z"], "b": 2}]),
    ("a:\n  - x\n  - z\nb: 2\n", [{"a": ["x", "z"], "b": 2}]),
    ("- a: 1\n  b: 2\n- a: 3\n", [[{"a": 1, "b": 2}, {"a": 3}]]),
    ("- a:\n  - x\n  b: 1\n", [[{"a": ["x"], "b": 1}]]),
    ("- - a\n  - b\n- c\n", [[["a", "b"], "c"]]),
    ("-\n  a: 1\n- # c\n  b: 2\n-\n", [[{"a": 1}, {"b": 2}, None]]),
    ("a:\nb: # c\nc: ~\nd: null\ne: Null\nf: NULL\n", [dict.fromkeys("abcdef")]),
    ("a:\n  'x'\n", [{"a": "x"}]),
    ("  a: 1\n  b: 2\n", [{"a": 1, "b": 2}]),
    # scalars
    (
        "a: true\nb: True\nc: TRUE\nd: false\ne: False\nf: FALSE\n",
        [{**dict.fromkeys("abc", True), **dict.fromkeys("def", False)}],
    ),
    (
        "a: 0\nb: 7\nc: -5\nd: 123456789012345678\n",
        [{"a": 0, "b": 7, "c": -5, "d": 123456789012345678}],
    ),
    (
        "a: 1.5\nb: -0.5\nc: 0.1\nd: 12345678901234567.25\n",
        [{"a": 1.5, "b": -0.5, "c": 0.1, "d": 12345678901234567.25}],
    ),
    (
        "a: 10.0.0.1\nb: 1.31.1\nc: 10.0.0.0/16\nd: 100Mi\ne: --flag\nf: -x\ng: 30s\n",
        [
            {
                "a": "10.0.0.1",
                "b": "1.31.1",
                "c": "10.0.0.0/16",
                "d": "100Mi",
                "e": "--flag",
                "f": "-x",
                "g": "30s",
            }
        ],
    ),
    (
        "a: repo/image:v1.2\nb: http://x/y\nc: a#b\nd: x y  z\ne: trueish\nf: b,c\n",
        [
            {
                "a": "repo/image:v1.2",
                "b": "http://x/y",
                "c": "a#b",
                "d": "x y  z",
                "e": "trueish",
                "f": "b,c",
            }
        ],
    ),
    ("a: 'it''s'\nb: ''\nc: \"\"\nd: 'x # y'\n", [{"a": "it's", "b": "", "c": "", "d": "x # y"}]),
    ('a: "\\u0041\\n\\t\\/\\0\\"\\\\\\r"\n', [{"a": 'A\n\t/\0"\\\r'}]),
    ('"q": 1\n\'r\': 2\n10.0.0.1: x\n"yes": 3\n', [{"q": 1, "r": 2, "10.0.0.1": "x", "yes": 3}]),
    (
        "a: 2024-01-01\nb: 00000000-0000-0000-0000-000000000000\nc: 33%\nd: ./x/y\n"
        "e: .metadata.labels['x']\nf: 33000 32999\ng: 1-2\n",
        [
            {
                "a": "2024-01-01",
                "b": "00000000-0000-0000-0000-000000000000",
                "c": "33%",
                "d": "./x/y",
                "e": ".metadata.labels['x']",
                "f": "33000 32999",
                "g": "1-2",
            }
        ],
    ),
    (
        "a: 1.2.\nb: 9.9.9-rc1\nc: 1.5e+5-a\nd: 3-\ne: 0.0.0.0/0\n",
        [{"a": "1.2.", "b": "9.9.9-rc1", "c": "1.5e+5-a", "d": "3-", "e": "0.0.0.0/0"}],
    ),
    ("\"<<\": 1\n'k': {}\n", [{"<<": 1, "k": {}}]),
    ('a:b: c\nx: "<<"\n', [{"a:b": "c", "x": "<<"}]),
    ("-  a: 1\n   b: 2\n- \n", [[{"a": 1, "b": 2}, None]]),
    # flow collections on one line
    ("a: {}\nb: []\nc: [ ]\n", [{"a": {}, "b": [], "c": []}]),
    ('a: [1, b, "c", x y]\n', [{"a": [1, "b", "c", "x y"]}]),
    ("a: {x: 1, 'y': two}\n", [{"a": {"x": 1, "y": "two"}}]),
    ("- []\n- {}\n", [[[], {}]]),
    (
        "a: [[1], [], {x: [z, {}]}]\nb: {c: {d: e}, f: [1.5]}\n",
        [{"a": [[1], [], {"x": ["z", {}]}], "b": {"c": {"d": "e"}, "f": [1.5]}}],
    ),
    ("a: " + "[" * 40 + "]" * 40 + "\n", [{"a": nested(40)}]),
    # literal blocks
    ("a: |\n  x\n  y\n\nb: 2\n", [{"a": "x\ny\n", "b": 2}]),
    ("a: |-\n  x\n\n", [{"a": "x"}]),
    ("a: |+\n  x\n\n\nb: 1\n", [{"a": "x\n\n\n", "b": 1}]),
    ("a: |\n  x\n\n   y\n", [{"a": "x\n\n y\n"}]),
    ("a: |\nb: 1\n", [{"a": "", "b": 1}]),
    ("a: |\n  # not a comment\n  x\n# a comment\nb: 1\n", [{"a": "# not a comment\nx\n", "b": 1}]),
    ("- |\n  t\n- |-\n t\n", [["t\n", "t"]]),
    ("a: |+\n  x\n\n# c\n\nb: 1\n", [{"a": "x\n\n", "b": 1}]),
    ("a: |+\n  x\n\n\n---\nb: 1\n", [{"a": "x\n\n\n"}, {"b": 1}]),
    ("a: |-\n\n  x\n\n\nb: 1\n", [{"a": "\nx", "b": 1}]),
    ("top:\n  k: | # why\n    x\n  j: 1\n", [{"top": {"k": "x\n", "j": 1}}]),
]

REFUSED: list[str] = [
    # no document at all (ryaml says None, the loader never asks)
    "",
    "# nothing\n\n",
    # outside ASCII, control characters, stream markers
    "a: \u00e9\n",
    "a: 1\r\n",
    "a:\t1\n",
    "a: \x01\n",
    "%YAML 1.2\n---\na: 1\n",
    "a: 1\n...\n",
    "---x\n",
    "--- a: 1\n",
    # properties, complex and merge keys
    "a: &x 1\nb: *x\n",
    "a: !t 1\n",
    "? a\n: 1\n",
    "<<: {a: 1}\n",
    "a: <<\n",
    # booleans and numbers where YAML 1.1 and 1.2 part
    "a: yes\n",
    "a: No\n",
    "a: on\n",
    "a: y\n",
    "a: tRUE\n",
    "a: 010\n",
    "a: 00.5\n",
    "a: 0x1F\n",
    "a: 0o7\n",
    "a: 1_000\n",
    "a: 1e3\n",
    "a: +1\n",
    "a: .inf\n",
    "a: -.inf\n",
    "a: .nan\n",
    "a: -0\n",
    "a: 1.\n",
    "a: .5\n",
    "a: 1234567890123456789\n",
    "a: 12:30\n",
    "a: 1e\n",
    "a: 1d\n",
    "a: .5e3\n",
    "a: .Inf\n",
    "a: 0b1\n",
    # keys that are not strings
    "1: a\n",
    "true: a\n",
    "null: a\n",
    "~: a\n",
    "yes: a\n",
    "1.5: a\n",
    # errors either parser reports
    "a: 1\na: 2\n",
    "a: {x: 1, x: 2}\n",
    "a: x\n  y\n",
    "a: b: c\n",
    "a: -\n",
    "a: - b\n",
    "a:\n  b: 1\n c: 2\n",
    "- a\nb: 1\n",
    "a: 1\n- b\n",
    "a: 'open\n",
    'a: "x"y\n',
    "a: 'x'#c\n",
    # scalars and collections this reader leaves to the parsers
    "plain\n",
    "[a]\n",
    "a: >\n  folded\n",
    "a: |2\n  x\n",
    "a: |\n  x",
    "a: |\n    \n  x\n",
    "a: |\n  x\n    \n  y\n",
    "a: |\n   x\n  y\n",
    "a: " + "[" * 150 + "]" * 150 + "\n",
    "a: [[1], ]\n",
    "a: {[x]: 1}\n",
    "a: [1, ]\n",
    "a: [-1]\n",
    "a: {x: }\n",
    'a: ["x": 1]\n',
    "a: [x:y]\n",
    'a: "\\x41"\n',
    'a: "\\u00e9"\n',
    "a: @x\n",
    "a: `x`\n",
    "a: %x\n",
    "a  : 1\n",
    "a: multi\n  line\n",
    '"' + "k" * 1100 + '": 1\n',
    "k" * 1100 + ": 1\n",
    "a:\n" + "".join("  " * i + "- \n" for i in range(1, 150)),
]


@pytest.mark.parametrize(("text", "expected"), ACCEPTED)
def test_accepted(blockyaml: ModuleType, text: str, expected: list[Any]) -> None:
    found = agreement(blockyaml, text)
    assert found is not None
    assert same(found, expected)


@pytest.mark.parametrize("text", REFUSED)
def test_refused(blockyaml: ModuleType, text: str) -> None:
    assert blockyaml.load_all(text) is None


def test_deep_nesting_is_refused_not_recursed(blockyaml: ModuleType) -> None:
    deep = "".join(" " * i + "a:\n" for i in range(2_000)) + " " * 2_000 + "b: 1\n"
    assert blockyaml.load_all(deep) is None
    assert blockyaml.load_all("- " * 50_000 + "x\n") is None
    shallow = "".join(" " * i + "a:\n" for i in range(50)) + " " * 50 + "b: 1\n"
    assert blockyaml.load_all(shallow) is not None


def test_only_text_is_read(blockyaml: ModuleType) -> None:
    with pytest.raises(TypeError):
        blockyaml.load_all(b"a: 1\n")
    assert isinstance(blockyaml.VERSION, int)
