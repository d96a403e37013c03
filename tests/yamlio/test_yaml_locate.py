"""LineLocator: lines of keys, list items, missing paths, several documents."""

from __future__ import annotations

from typing import Any

import pytest

from generator.yamlio import LineLocator, load_documents, locate
from generator.yamlio.limits import MAX_DEPTH

TEXT = """\
# leading comment
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureASOManagedControlPlane
metadata:
  name: c1
  annotations:
    serviceoperator.azure.com/credential-from: aso
spec:
  resources:
  - apiVersion: containerservice.azure.com/v1api20240901
    kind: ManagedCluster
    spec:
      location:
        eastus
      agentPools: [{name: a}, {name: b}]
  -
    kind: Second
  version: v1.31.0
---

---
apiVersion: v1
kind: ConfigMap
data:
  "1": one
  2: two
  yes: three
"""


@pytest.fixture(scope="module")
def locator() -> LineLocator:
    return LineLocator(TEXT)


@pytest.mark.parametrize(
    ("document", "path", "line"),
    [
        (0, (), 2),
        (0, ("kind",), 3),
        (0, ("metadata", "name"), 5),
        (0, ("metadata", "annotations", "serviceoperator.azure.com/credential-from"), 7),
        (0, ("spec", "resources"), 9),
        (0, ("spec", "resources", 0), 10),
        (0, ("spec", "resources", 0, "kind"), 11),
        (0, ("spec", "resources", 0, "spec", "location"), 13),  # the key, not the value
        (0, ("spec", "resources", 0, "spec", "agentPools", 1, "name"), 15),
        (0, ("spec", "resources", 1), 17),  # a node starts at its content
        (0, ("spec", "resources", 1, "kind"), 17),
        (0, ("spec", "version"), 18),
        (2, ("data", "1"), 25),
        (2, ("data", "2"), 26),  # an integer key, converted as on load
        (2, ("data", "true"), 27),  # "yes" is a boolean key for go-yaml
    ],
)
def test_existing_paths(
    locator: LineLocator, document: int, path: tuple[str | int, ...], line: int
) -> None:
    assert locator.line_of(document, path) == line


@pytest.mark.parametrize(
    ("document", "path", "line"),
    [
        (0, ("spec", "missing"), 8),
        (0, ("spec", "resources", 0, "spec", "owner", "name"), 12),
        (0, ("spec", "resources", 5), 9),
        (0, ("spec", "resources", -1), 9),
        (0, ("spec", "resources", "0"), 9),
        (0, ("kind", "deeper"), 3),
        (0, ("spec", "resources", True), 9),
        (1, ("anything",), 19),  # empty document: its "---" line
    ],
)
def test_missing_paths_give_the_deepest_existing_ancestor(
    locator: LineLocator, document: int, path: tuple[str | int, ...], line: int
) -> None:
    assert locator.line_of(document, path) == line


def test_unknown_document_is_none(locator: LineLocator) -> None:
    assert locator.line_of(3, ()) is None
    assert locator.line_of(-1, ()) is None


def test_document_indexes_match_load_documents() -> None:
    documents = load_documents(TEXT, source="t.yaml")
    locator = LineLocator(TEXT)
    assert len(documents) == 3
    for document in documents:
        assert locator.line_of(document.index, ()) == document.start_line


def test_lazy_and_parsed_once() -> None:
    locator = LineLocator("a: 1\n")
    assert locator._roots is None  # nothing composed yet
    assert locator.line_of(0, ("a",)) == 1
    roots = locator._roots
    assert locator.line_of(0, ()) == 1
    assert locator._roots is roots


def test_aliases_and_merge_keys() -> None:
    text = "base: &b\n  x: 1\n  inner:\n    w: 2\nuse:\n  <<: *b\n  z: 3\ncopy: *b\n"
    locator = LineLocator(text)
    assert locator.line_of(0, ("use", "z")) == 7
    assert locator.line_of(0, ("use", "inner", "w")) == 4  # inside the anchored mapping
    assert locator.line_of(0, ("copy",)) == 8
    assert locator.line_of(0, ("copy", "x")) == 2


def test_text_with_a_syntax_error_keeps_earlier_documents() -> None:
    locator = LineLocator("a: 1\n---\nb: [1,\n")
    assert locator.line_of(0, ("a",)) == 1
    assert locator.line_of(1, ()) == 3


def test_text_libyaml_cannot_take_answers_with_the_line_its_document_starts_at() -> None:
    # A lone surrogate (an invalid byte read with surrogateescape) cannot be handed to libyaml.
    assert LineLocator("a: \udcff\n").line_of(0, ("a",)) == 1
    assert LineLocator("a: 1\n---\nb: \udcff\n").line_of(1, ("b",)) == 2
    assert LineLocator("a: \udcff\n").line_of(3, ("a",)) is None, "no such document"


def test_nesting_beyond_the_limit_stops_the_reading() -> None:
    text = "x: 0\na:\n  " + "[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5) + "\n---\nb: 1\n"
    locator = LineLocator(text)
    assert locator.line_of(0, ("x",)) == 1
    assert locator.line_of(0, ("a", 0, 0)) == 3
    assert locator.line_of(1, ()) == 5  # each document is read on its own


def test_only_the_documents_asked_about_are_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    parsed: list[tuple[str, int]] = []
    real = locate.line_trees

    def spy(text: str, base: int = 1) -> Any:
        parsed.append((text, base))
        return real(text, base)

    monkeypatch.setattr(locate, "line_trees", spy)
    text = "\ufeff# head\n---\na: 1\n---\nb:\n  c: 2\n---\nd: 3\n"
    locator = LineLocator(text)
    assert locator.line_of(1, ("b", "c")) == 6
    assert locator.line_of(1, ("b",)) == 5
    assert parsed == [("---\nb:\n  c: 2\n", 4)]
    documents = load_documents(text, source="t.yaml")
    assert [locator.line_of(d.index, ()) for d in documents] == [d.start_line for d in documents]


def test_a_stream_with_end_markers_is_read_whole() -> None:
    locator = LineLocator("a: 1\n...\n---\nb: 2\n")
    assert locator.line_of(1, ("b",)) == 4
    assert locator.line_of(2, ()) is None
