"""The parser is chosen per document: one go-yaml-sensitive document does not slow the others.

The rule (``needs_precise`` on the document's own text) is checked against the parity corpus:
for every tricky token, wherever ryaml and the go-yaml reading differ, the rule says "precise".
"""

from __future__ import annotations

from typing import Any

import pytest
import ryaml

from generator.errors import YamlError
from generator.yamlio import load_documents
from generator.yamlio import precise as precise_module
from generator.yamlio.budget import Budget, Part
from generator.yamlio.detect import needs_precise
from generator.yamlio.limits import MAX_DEPTH
from generator.yamlio.precise import parse_documents
from tests.yamlio.test_yaml_parity import TRICKY
from tests.yamlio.yamlio_support import objects, precise, same

FAST = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k: v}\n"
SENSITIVE = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\ndata: {k: yes}\n"


def _shapes(token: str) -> list[str]:
    return [
        f"k: {token}\n",
        f"- {token}\n",
        f"[{token}, x]\n",
        f"{token}: x\n",
        f"{{{token}: x}}\n",
    ]


def _differs(text: str) -> bool:
    try:
        expected = objects(precise(text))
    except YamlError:
        return True
    try:
        return not same(ryaml.loads_all(text), expected)  # type: ignore[attr-defined]
    except Exception:  # ryaml refuses what go-yaml reads: a difference too
        return True


@pytest.mark.parametrize("token", TRICKY)
def test_the_rule_says_precise_wherever_the_parsers_differ(token: str) -> None:
    for text in _shapes(token):
        if _differs(text):
            assert needs_precise(text), text


def test_the_corpus_has_differences_to_find() -> None:
    assert sum(_differs(text) for token in TRICKY for text in _shapes(token)) > 20


@pytest.fixture
def precise_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    real = parse_documents

    def spy(text: str, **kwargs: Any) -> Any:
        calls.append(text)
        return real(text, **kwargs)

    monkeypatch.setattr(precise_module, "parse_documents", spy)
    return calls


def test_only_the_sensitive_document_is_read_precisely(precise_calls: list[str]) -> None:
    text = "# head\n---\n" + FAST + "---\n" + SENSITIVE + "---\n" + FAST
    documents = load_documents(text, source="m.yaml")
    assert [d.obj["data"]["k"] for d in documents] == ["v", True, "v"]
    assert [(d.index, d.start_line) for d in documents] == [(0, 3), (1, 8), (2, 13)]
    assert precise_calls == ["---\n" + SENSITIVE]
    assert same(objects(documents), objects(precise(text)))


def test_an_error_in_a_later_document_has_its_place_in_the_stream() -> None:
    text = FAST + "---\n" + FAST + "---\nkind: a\nkind: b\n"
    with pytest.raises(YamlError, match=r'duplicate key "kind" \(first at line 11\)') as caught:
        load_documents(text, source="m.yaml")
    location = caught.value.location
    assert location is not None
    assert (location.file, location.line, location.document) == ("m.yaml", 12, 2)
    with pytest.raises(YamlError) as whole:
        precise(text, "m.yaml")
    assert str(whole.value) == str(caught.value)


def test_a_stream_with_directives_or_end_markers_is_read_whole(precise_calls: list[str]) -> None:
    text = FAST + "...\n---\n" + FAST
    assert len(load_documents(text, source="m.yaml")) == 2
    assert precise_calls == [text]


def test_parts_of_one_stream_share_the_bounds() -> None:
    budget = Budget()
    part = "a: &a [1, 2, 3]\nb: [*a, *a]\n"  # 8 written nodes, 8 copied: 16
    arguments: dict[str, Any] = {"source": "m.yaml", "max_depth": MAX_DEPTH, "max_nodes": 25}
    parse_documents(part, budget=budget, **arguments)
    assert budget.nodes == 16
    with pytest.raises(YamlError, match="alias expansion exceeds 25 nodes") as caught:
        parse_documents("---\n" + part, part=Part(3, 1), budget=budget, **arguments)
    assert caught.value.location is not None
    assert (caught.value.location.line, caught.value.location.document) == (5, 1)
