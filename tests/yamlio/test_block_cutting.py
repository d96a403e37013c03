"""The C reader's cutting at ``---`` lines, its layout of a stream and its control-byte search
against the Python paths they stand in for (``chunks.checked_spans``, ``load.checked_layout``,
``source.control_offset``): the same answer or the same refusal, on real inputs, edge cases and
generated texts of every string width."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.errors import YamlError
from generator.yamlio.chunks import Span, checked_spans
from generator.yamlio.load import checked_layout
from generator.yamlio.source import control_offset

REPO = Path(__file__).resolve().parents[2]
REAL = sorted((REPO / "tests/gitops/golden/plain").glob("*.yaml"))


def python_spans(text: str) -> list[Span] | None:
    """The Python path's spans, or None where it raises (a ``---`` line with more after it)."""
    try:
        return checked_spans(text, "t.yaml")
    except YamlError:
        return None


EDGES = [
    "",
    "a: 1\n",
    "---\n",
    "---",
    "--",
    "---\na: 1\n---\nb: 2\n",
    "a: 1\n---\nb: 2",
    "--- # a comment\na: 1\n",
    "---\t# a comment\na: 1\n",
    "---   \t\r\na: 1\r\n---\r\nb: 2\r\n",
    "---#not a comment\n",
    "--- a: 1\n",
    "----\n",
    "---\r#x\n",
    "a: |\n  ---\n---\nb: 2\n",
    "a: 1\n\n---\n\n---\n",
    "k: é\n---\nk: ü\n",  # one byte per character, beyond ASCII
    "k: Ω\n---\n--- # ω\nk: 2\n",  # two bytes
    "k: 😀\n---\nk: 3\n---x\n",  # four bytes, refused
    " ---\n---\n",
]


def python_layout(text: str) -> tuple[list[int], list[int]] | None:
    """The Python path's layout, or None where it raises."""
    try:
        found = checked_layout(text, "t.yaml")
    except YamlError:
        return None
    return found.separators, found.starts


LAYOUT_EDGES = [
    "# only a comment\n",
    "\n\n---\n\n# c\n  \n\ta: 1\n---\n",
    "---\n---\n---\n",
    "a: 1\n---\n   # indented comment\n\r\nb: 2",
    "  \t\n---\n",
]


@pytest.mark.parametrize("text", EDGES + LAYOUT_EDGES)
def test_edges_cut_alike(blockyaml: ModuleType, text: str) -> None:
    assert blockyaml.spans(text) == python_spans(text)
    assert blockyaml.layout(text) == python_layout(text)


def test_real_inputs_cut_alike(blockyaml: ModuleType) -> None:
    assert REAL
    for path in REAL:
        text = path.read_text(encoding="utf-8")
        found = blockyaml.spans(text)
        assert found is not None
        assert found == python_spans(text), path
        assert blockyaml.layout(text) == python_layout(text), path


PIECES = ["---", "--- #c", "---x", "\n", "\r\n", "a: 1", " ", "\t", "#", "-", "é", "Ω", "😀", "\r"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40))
def test_generated_texts_cut_alike(blockyaml: ModuleType, pieces: list[str]) -> None:
    text = "".join(pieces)
    assert blockyaml.spans(text) == python_spans(text)
    assert blockyaml.layout(text) == python_layout(text)


@pytest.mark.parametrize(
    "data",
    [b"", b"a: 1\n", b"\x00", b"a\tb\r\n", b"x" * 200 + b"\x7f", b"y" * 64 + b"\x1b" + b"z" * 70],
)
def test_edges_find_the_same_control_byte(blockyaml: ModuleType, data: bytes) -> None:
    assert blockyaml.first_control(data) == control_offset(data)


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=300), st.integers(min_value=0, max_value=300))
def test_generated_bytes_find_the_same_control_byte(
    blockyaml: ModuleType, data: bytes, clean: int
) -> None:
    padded = b"k: v\n" * clean + data  # the search runs in blocks of 64: both sides of a block
    assert blockyaml.first_control(padded) == control_offset(padded)
