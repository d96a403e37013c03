"""The expanded-size and node bounds, on every load path (issue 13).

Inputs here are small: the bounds are passed in small where the parser takes them, and the
production figures are exercised end to end by tests/hostile/.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from yaml.events import AliasEvent, MappingStartEvent, ScalarEvent, SequenceStartEvent

from generator.errors import YamlError
from generator.yamlio import MAX_EXPANDED_BYTES, MAX_NODES, load_documents
from generator.yamlio.limits import MAX_DEPTH
from generator.yamlio.load import few_nodes, load_json, load_value, node_estimate
from generator.yamlio.precise import parse_documents
from tests.yamlio.test_yaml_parity import TRICKY

LONG = "x" * (1 << 20)
STRING_BOMB = f"a: &a {LONG}\nb: [{', '.join(['*a'] * 3000)}]\n"


def small(text: str, *, nodes: int = MAX_NODES, chars: int = MAX_EXPANDED_BYTES) -> object:
    documents = parse_documents(
        text, source="s.yaml", max_depth=MAX_DEPTH, max_nodes=nodes, max_expanded_bytes=chars
    )
    return [document.obj for document in documents]


def test_an_aliased_long_string_is_refused_with_file_line_and_bound() -> None:
    with pytest.raises(YamlError, match="alias expansion exceeds 64 MiB: \\*a copies") as caught:
        load_documents(STRING_BOMB, source="bomb.yaml")
    location = caught.value.location
    assert location is not None
    assert (location.file, location.line) == ("bomb.yaml", 2)


def test_load_value_is_guarded_by_the_same_bound() -> None:
    with pytest.raises(YamlError, match="alias expansion exceeds") as caught:
        load_value(STRING_BOMB, source="clusterctl.yaml")
    assert caught.value.location is not None
    assert caught.value.location.file == "clusterctl.yaml"


def test_keys_and_nested_strings_count_towards_the_expanded_size() -> None:
    text = "a: &a {key: [abcd, efgh]}\nb: *a\nc: *a\n"  # each alias copies 3 + 4 + 4 = 11
    assert small(text, chars=len(text) + 22) == [
        {
            "a": {"key": ["abcd", "efgh"]},
            "b": {"key": ["abcd", "efgh"]},
            "c": {"key": ["abcd", "efgh"]},
        }
    ]
    with pytest.raises(YamlError, match="copies 11 characters"):
        small(text, chars=len(text) + 21)


def test_aliases_within_the_expanded_size_still_share_nothing() -> None:
    value = small("a: &a [x]\nb: *a\n")
    assert isinstance(value, list)
    assert value[0]["a"] == value[0]["b"]
    assert value[0]["a"] is not value[0]["b"]


def test_the_node_bound_counts_written_nodes_as_they_are_read() -> None:
    at_bound = "[" + ", ".join(["1"] * 9) + "]"  # the list and nine numbers: 10 nodes
    assert small(at_bound, nodes=10) == [[1] * 9]
    with pytest.raises(YamlError, match="more than 9 nodes") as caught:
        small(at_bound, nodes=9)
    assert caught.value.location is not None
    assert (caught.value.location.line, caught.value.location.column) == (1, 26)


def test_alias_copies_count_towards_the_same_node_bound() -> None:
    text = "a: &a [1, 2, 3]\nb: *a\n"  # mapping, 2 keys, list and 3 items, 4 copied: 11
    assert small(text, nodes=11)
    with pytest.raises(YamlError, match="alias expansion exceeds 10 nodes"):
        small(text, nodes=10)


def _node_count(text: str) -> int:
    """Nodes libyaml reads in ``text``: scalars, collections and aliases (not expanded)."""
    loader = yaml.CSafeLoader(text)
    kinds = (ScalarEvent, MappingStartEvent, SequenceStartEvent, AliasEvent)
    try:
        return sum(isinstance(event, kinds) for event in iter(loader.get_event, None))
    finally:
        loader.dispose()


SHAPES = [
    "a: b",
    "a:",
    "? a",
    "? a\n: b",
    "- - a: b",
    "- - - - -",
    "[a]: b",
    "[a: b]",
    "{? a}",
    "[[[]]]",
    "a: {b: [c, d]}",
    "a: &x b\nc: *x",
    "- ? a\n  : b",
    '{"a":1,"b":[1,2]}',
    "a: |\n  x\n  y\nb: >-\n  z\n",
    "k:\n- a\n- b: c\n  d: e\n",
]


@pytest.mark.parametrize(
    "text",
    SHAPES + [f"k:\n- {word}: {word}\n- [{word}, {{{word}: {word}}}]" for word in TRICKY[:8]],
)
def test_the_byte_count_estimate_never_under_counts(text: str) -> None:
    assert node_estimate(text) >= _node_count(text) > 0


def test_a_dense_list_is_kept_from_the_fast_path() -> None:
    dense = "[" + "0," * 100 + "0]"
    assert not few_nodes(dense, limit=100)
    assert few_nodes(dense, limit=500)


def test_a_json_text_over_the_node_bound_is_refused_before_it_is_built() -> None:
    text = "[" + "0," * MAX_NODES + "0]"
    with pytest.raises(YamlError, match=f"more than {MAX_NODES:,} values") as caught:
        load_json(text, source="state.json")
    assert caught.value.location is not None
    assert caught.value.location.file == "state.json"


def test_commas_inside_json_strings_are_not_values() -> None:
    text = json.dumps({"note": "," * (2 * MAX_NODES), "n": [1, 2]})
    assert load_json(text, source="state.json") == {"note": "," * (2 * MAX_NODES), "n": [1, 2]}


def test_escaped_quotes_do_not_end_a_json_string_early() -> None:
    text = json.dumps(['a\\"' + "," * (2 * MAX_NODES), "b"])
    assert load_json(text, source="state.json") == ['a\\"' + "," * (2 * MAX_NODES), "b"]


def test_the_estimate_holds_on_every_upstream_template_and_crd() -> None:
    upstream = Path(__file__).parents[1] / "data" / "upstream"
    texts = [path.read_text(encoding="utf-8") for path in sorted(upstream.rglob("*.yaml"))]
    assert len(texts) > 10
    for text in texts:
        assert node_estimate(text) >= _node_count(text)
