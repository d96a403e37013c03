"""The dense-run pre-count (generator/yamlio/dense.py): a sound lower bound, refusing early.

Soundness: for every text below, parsing with a node bound equal to its exact node count must
succeed, whatever the pre-count saw (a count above the real one would refuse it). Early refusal:
a dense run over the bound is refused at the collection that opens it, before its entries are
read (the location is the opening bracket, not the entry where the count passed the bound).
"""

from __future__ import annotations

import pytest

from generator.errors import YamlError
from generator.yamlio.budget import Budget
from generator.yamlio.dense import block_nodes, flow_nodes
from generator.yamlio.limits import MAX_DEPTH
from generator.yamlio.precise import parse_documents
from tests.yamlio.test_yaml_parity import TRICKY


def _parse(text: str, nodes: int, budget: Budget | None = None) -> None:
    parse_documents(text, source="d.yaml", max_depth=MAX_DEPTH, max_nodes=nodes, budget=budget)


def exact_nodes(text: str) -> int:
    budget = Budget()
    _parse(text, 10**9, budget)
    return budget.nodes


# Texts whose commas, dashes and colons are not all nodes: the pre-count must not count those.
LOOKALIKES = [
    "a: [0, 1, 2, 3]\n",
    'a: ["x,y", "1,2", 3, 4]\n',
    "a: ['x,y', 'it''s', 3, 4]\n",
    "a: [0, 1, # 2, 3, 4\n  5]\n",
    "a: |\n  - 0\n  - 1\n  - 2\nb: [x]\n",
    "a: >\n  0, 1, 2, 3\nb: [x]\n",
    "a: 0, 1, 2, 3, 4\nb: [x, y]\n",
    "- a\n  - b\n- c\n- d\n",
    "- 0\n- 1\n  2\n- 3\n- 4\n",
    "a: 0\nb: 1\n  c\nd: 2\ne: 3\n",
    "a: 0\nb: 1 # c: 3\nd: 2\ne: 3\n",
    "[a: 1, [1, 2], {x: 1, y: 2}, 0,]\n",
    "{a: 1, b: [1, 2], c: {x: 1}, d}\n",
    "[[0, 0], [0, 0], [0, 0], 0]\n",
    "- [0, 0, 0]\n- {a: 0, b: 0}\n- 0\n",
    "x: &a [0, 0, 0]\ny: [*a, *a, 0]\n",
    "[!!str 0, !!str 1, 2, 3]\n",
    '["a", "b", "c", "d"]\n',
    "---\n- 0\n- 1\n---\n- 2\n- 3\n...\n",
    "- -1\n- +2\n- 3.5\n- 4\n",
    "[0,\n0,\n0,\n0]\n",
    *TRICKY,
]


@pytest.mark.parametrize("text", LOOKALIKES)
def test_the_pre_count_never_refuses_a_text_within_the_bound(text: str) -> None:
    try:
        nodes = exact_nodes(text)
    except YamlError:
        return  # not YAML the parser accepts: nothing to compare
    _parse(text, nodes)


@pytest.mark.parametrize(
    ("text", "start", "column", "pairs", "at_most"),
    [
        ("- 0\n- 1\n- 2\n", 0, 0, False, 3),
        ("a: 0\nb: 1\nc: 2\n", 0, 0, True, 6),
        ("- 0\n-  1 # no\n- 2\n", 0, 0, False, 3),
        ("  - 0\n  - 1\n    - 2\n", 2, 2, False, 3),
    ],
)
def test_block_counts_stay_under_the_entries(
    text: str, start: int, column: int, pairs: bool, at_most: int
) -> None:
    found, end = block_nodes(text, start, column, pairs=pairs, needed=10**6)
    assert 0 < found <= at_most
    assert end <= len(text)


def test_flow_counting_stops_once_the_bound_is_passed() -> None:
    text = "[" + "0," * 1_000_000 + "0]"
    found, end = flow_nodes(text, 1, 10)
    assert 10 < found < 200_000  # one chunk, not the whole run
    assert end < len(text) // 4


@pytest.mark.parametrize(
    "text",
    [
        "k: [" + "0, " * 500 + "0]\n",
        "k: [" + "[0, 0], " * 200 + "0]\n",
        "k: {" + ", ".join(f"a{i}: {i}" for i in range(300)) + "}\n",
        'k: ["' + '", "'.join(["x"] * 500) + '"]\n',
        "k:\n" + "- 0\n" * 500,
        "k:\n" + "".join(f"  a{i}: 0\n" for i in range(300)),
    ],
    ids=["flow", "nested-flow", "flow-map", "quoted", "block-sequence", "block-map"],
)
def test_a_dense_run_over_the_bound_is_refused_where_it_opens(text: str) -> None:
    with pytest.raises(YamlError, match="more than 100 nodes") as caught:
        _parse(text, 100)
    location = caught.value.location
    assert location is not None
    # The collection's first line, and for flow collections its bracket: the entries were not read.
    if text.startswith(("k: [", "k: {")):
        assert (location.line, location.column) == (1, 4)
    else:
        assert location.line == 2
