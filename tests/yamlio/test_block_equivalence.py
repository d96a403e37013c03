"""The C block reader against both parsers on real inputs, generated trees and mutated manifests:
where it answers, ryaml and the precise path read the same values; on demo output and the fleet
it must answer (the loader's fast path cannot silently stop working); it never crashes."""

from __future__ import annotations

import random
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.inputs import TEMPLATE, cluster_text
from generator.yamlio import block
from generator.yamlio.emit import dump_documents
from generator.yamlio.load import layout, load_documents
from tests.yamlio.blockyaml_support import agreement
from tests.yamlio.yamlio_support import objects, same

REPO = Path(__file__).resolve().parents[2]
REAL = sorted(
    path
    for folder in ("tests", "flavors", "generator")
    for pattern in ("*.yaml", "*.yml")
    for path in (REPO / folder).rglob(pattern)
)
DEMO = sorted((REPO / "tests/gitops/golden/plain").glob("*.yaml"))


def _documents(text: str) -> list[str]:
    """Each document of ``text`` on its own (cut at its ``---`` lines)."""
    return [part for part in text.split("\n---") if part.strip()]


def test_real_inputs_agree(blockyaml: ModuleType) -> None:
    accepted = 0
    for path in REAL:
        text = path.read_text(encoding="utf-8")
        if not text.isascii():
            continue
        whole = agreement(blockyaml, text)
        accepted += whole is not None
        for part in _documents(text) if whole is None else []:
            agreement(blockyaml, part)
    assert accepted > len(REAL) // 2, (accepted, len(REAL))


@pytest.mark.parametrize("path", DEMO, ids=lambda path: path.name)
def test_demo_output_is_accepted(blockyaml: ModuleType, path: Path) -> None:
    assert agreement(blockyaml, path.read_text(encoding="utf-8")) is not None


def fleet_text(clusters: int) -> str:
    """``clusters`` copies of CAPZ's aks-aso template, substituted as the benchmark fleet is."""
    template = TEMPLATE.read_text(encoding="utf-8")
    return "---\n".join(cluster_text(template, f"fleet-{i:05d}") for i in range(clusters))


def test_the_generated_fleet_is_accepted(blockyaml: ModuleType) -> None:
    text = fleet_text(20)
    found = agreement(blockyaml, text)
    assert found is not None
    assert len(found) == len(layout(text, "f.yaml").starts) == 140


def test_the_loader_uses_the_reader(blockyaml: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    text = "# fleet\n" + fleet_text(3) + "---\n---\n# empty\n"
    monkeypatch.setattr(block, "_READER", None)
    before = load_documents(text, source="f.yaml")
    assert block.block_documents(text) is None
    monkeypatch.setattr(block, "_READER", blockyaml)
    calls: list[str] = []
    monkeypatch.setattr("generator.yamlio.load.needs_precise", calls.append)
    after = load_documents(text, source="f.yaml")
    assert calls == []  # the reader answered: no scan
    assert [(d.source, d.index, d.start_line) for d in after] == [
        (d.source, d.index, d.start_line) for d in before
    ]
    assert same(objects(after), objects(before))
    assert after[-1].obj is None
    assert block.block_documents("a: yes\n") is None


def test_the_loader_reads_refused_texts_as_before(
    blockyaml: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One document outside the subset: the whole text goes the old way, per document."""
    monkeypatch.setattr(block, "_READER", blockyaml)
    text = "a: 1\n---\nb: yes\n"
    assert blockyaml.load_all(text) is None
    documents = load_documents(text, source="t.yaml")
    assert [d.obj for d in documents] == [{"a": 1}, {"b": True}]


# Values on which the two schemas part, or that look like syntax.
TRICKY = [
    "yes",
    "no",
    "on",
    "off",
    "y",
    "n",
    "Yes",
    "ON",
    "1",
    "010",
    "0x1F",
    "0o7",
    "1_000",
    "~",
    "null",
    "Null",
    "true",
    "False",
    "-",
    "a: b",
    "#x",
    "x #y",
    " lead",
    "trail ",
    "",
    "'",
    '"',
    "|",
    ">",
    "1.5",
    "-1",
    "-0",
    "0",
    "1e3",
    ".5",
    "1.",
    "+1",
    ".inf",
    "-.inf",
    ".nan",
    "10.0.0.1",
    "1.31.1",
    "10.0.0.0/16",
    "2024-01-01",
    "12:30",
    "100Mi",
    "--flag",
    "a,b",
    "[x]",
    "{}",
    "<<",
    "&a",
    "*a",
    "!t",
    "?",
    "%",
    "@",
    "`",
    "a\nb",
    "x\\y",
    "tab\there",
    "-x",
]
SCALARS = st.one_of(
    st.sampled_from(TRICKY),
    st.integers(-(10**20), 10**20),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.none(),
    st.text(st.sampled_from("ab1.-_: #'\"|"), max_size=6),
)
KEYS = st.one_of(st.sampled_from(TRICKY), st.text(st.sampled_from("ab1.-_: #"), max_size=6))
TREES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=4)),
    max_leaves=12,
)


@settings(max_examples=250, deadline=None)
@given(st.lists(TREES, min_size=1, max_size=3))
def test_pyyaml_block_dumps_agree(blockyaml: ModuleType, trees: list[Any]) -> None:
    text = yaml.safe_dump_all(trees, default_flow_style=False, sort_keys=False)
    agreement(blockyaml, text)


@settings(max_examples=250, deadline=None)
@given(st.lists(TREES, min_size=1, max_size=3))
def test_capzgen_dumps_agree(blockyaml: ModuleType, trees: list[Any]) -> None:
    text = dump_documents(trees)
    agreement(blockyaml, text)


EDITS = [":", "-", "#", "'", '"', "|", "[", "]", "{", "}", " ", "\n", "a", "Z", "1", "0", ".", "  "]


def _mutated(text: str, rng: random.Random) -> str:
    chars = list(text)
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(chars) + 1)
        action = rng.randrange(3)
        if action == 0:
            chars.insert(at, rng.choice(EDITS))
        elif at < len(chars):
            if action == 1:
                del chars[at]
            else:
                chars[at] = rng.choice(EDITS)
    return "".join(chars)


def test_mutated_manifests_never_mislead(blockyaml: ModuleType) -> None:
    rng = random.Random(29)
    seeds = [path.read_text(encoding="utf-8") for path in DEMO]
    seeds.append("a: |\n  x\n\n  y\nb:\n- 'q''s'\n- \"e\\n\"\n- [1, x]\n- {k: v}\nc: |+\n  z\n\n")
    seeds.append("a: [[1], [], {x: [z, {}]}]\nb: {c: {d: e}, f: [1.5, 'q', \"r\"]}\n")
    refused = 0
    for _ in range(1500):
        text = _mutated(rng.choice(seeds), rng)
        found = blockyaml.load_all(text)
        if found is None:
            refused += 1
            continue
        agreement(blockyaml, text)
    assert 0 < refused < 1500
