"""The released CAPZ aks-aso templates, substituted with plain values, satisfy every rule, alone
and as a thousand clusters together (how fast that is, is measured by `make bench`)."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from generator.checks import ValidationOptions, validate_documents
from generator.documents import Document

RULES_ONLY = ValidationOptions(schemas=False)


@pytest.mark.parametrize(
    "flavor", ["aks-aso", "aks-aso-maintenance", "aks-aso-clusterclass", "aks-aso-topology"]
)
def test_released_template_has_no_rule_findings(
    flavor: str, template_docs: Callable[[str], list[Document]]
) -> None:
    findings = validate_documents(template_docs(flavor), None, RULES_ONLY)
    assert [f.to_text() for f in findings] == []


def test_released_template_with_fake_store(
    template_docs: Callable[[str], list[Document]], fake_store: object
) -> None:
    docs = template_docs("aks-aso-maintenance")
    findings = validate_documents(docs, fake_store, ValidationOptions())  # type: ignore[arg-type]
    assert [f.to_text() for f in findings] == []


def test_rule_pass_on_a_thousand_clusters(template_docs: Callable[[str], list[Document]]) -> None:
    # 1,000 copies of the released aks-aso cluster, renamed (JSON round trip: parsing 7,000 YAML
    # documents would dominate the test's run time).
    text = json.dumps([doc.obj for doc in template_docs("aks-aso")])
    documents = [
        Document("many.yaml", 7 * i + j, obj)
        for i in range(1000)
        for j, obj in enumerate(json.loads(text.replace("demo", f"c{i}")))
    ]
    assert len(documents) == 7000
    assert validate_documents(documents, None, RULES_ONLY) == []
