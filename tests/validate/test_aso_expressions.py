"""ASO-EXPRESSION: ASO's admission compile of configMapExpressions/secretExpressions, checked as far
as capzgen can type an expression (syntax, declared names, fields of the resource's schema, the
result type), and never beyond: what it cannot type is left alone."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from generator.checks import ValidationOptions, validate_documents
from generator.checks.rules.aso_expressions import analyse, aso_cel_name
from generator.documents import Document
from generator.findings import format_path
from generator.jsontypes import Json

Parse = Callable[..., list[Document]]
EXAMPLES = Path(__file__).resolve().parent / "examples"
IDENTITY = ("managedidentity.azure.com/v1api20230131", "UserAssignedIdentity")
CLUSTER = ("containerservice.azure.com/v1api20240901", "ManagedCluster")


def _schema(store: Any, api_version: str, kind: str) -> Mapping[str, Json]:
    schema: Mapping[str, Json] = store.lookup(api_version, kind).schema
    return schema


@pytest.mark.parametrize(
    ("expression", "problem", "output"),
    [
        ("self.status.principalId", None, "string"),
        ("self.spec.tags", None, "map(string, string)"),
        ("self.metadata.annotations['a']", None, "string"),
        ("self.metadata.labels", None, "map(string, string)"),
        ("self.status.conditions[0].observedGeneration", None, "int"),
        ("self.status.conditions", None, "list"),
        ("self.status", None, "object"),
        ("string(self.metadata.generation)", None, "string"),
        ("self.status.principalId + '/' + self.status.clientId", None, "string"),
        ("self.status.conditions[0].lastTransitionTime", None, None),  # a metav1.Time in Go
        ("secret.key", None, None),
        ("self.spec.?tags.orValue({})", None, None),  # optional syntax: not judged
        ("size(self.spec.tags) > 0 ? 'some' : 'none'", None, None),
        ("self.status.conditions.exists(c, c.type == 'Ready') ? 'y' : 'n'", None, None),
        ("self.spec.tags.all(k, v, v != '') ? 'y' : 'n'", None, None),
        ("self.spec.sku.name", "undefined field 'sku' at self.spec.sku", None),
        ("has(self.spec.sku)", "undefined field 'sku'", None),
        ("self.metadata.nmae", "undefined field 'nmae' at self.metadata.nmae", None),
        (
            "self.status.conditions[0].typ",
            "undefined field 'typ' at self.status.conditions[0].typ",
            None,
        ),
        (
            "self.spec.location.name",
            "self.spec.location is a string, which has no field 'name'",
            None,
        ),
        (
            "spec.location",
            "undeclared reference to 'spec' (ASO declares self and secret; did you mean self.spec?)",
            None,
        ),
        ("self.status.principalId +", "syntax error at column 25", None),
    ],
)
def test_analyse_against_the_identity_schema(
    shared_store: Any, expression: str, problem: str | None, output: str | None
) -> None:
    analysis = analyse(expression, _schema(shared_store, *IDENTITY))
    if problem is None:
        assert analysis.problems == []
    else:
        assert len(analysis.problems) == 1
        assert problem in analysis.problems[0]
    assert analysis.output == output


def test_without_a_schema_only_the_syntax_and_names_are_judged() -> None:
    assert analyse("self.spec.sku.name", None).problems == []
    assert analyse("self.spec.sku.name", None).output is None
    assert analyse("self.", None).problems == ["syntax error at column 5"]
    assert analyse("status.fqdn", None).problems != []


def test_managed_cluster_status_fields(shared_store: Any) -> None:
    schema = _schema(shared_store, *CLUSTER)
    assert analyse("self.status.oidcIssuerProfile.issuerURL", schema).output == "string"
    assert analyse("self.status.fqdn", schema).problems == []
    assert analyse("self.spec.networkProfile.podCidrs", schema).output == "list"
    assert (
        "undefined field 'issuerUrl'"
        in analyse("self.status.oidcIssuerProfile.issuerUrl", schema).problems[0]
    )


def test_aso_escapes_property_names_but_few_keywords() -> None:
    assert aso_cel_name("maxmemory-delta") == "maxmemory__dash__delta"
    assert aso_cel_name("a.b/c__d") == "a__dot__b__slash__c__underscores__d"
    assert aso_cel_name("in") == "__in__"
    assert aso_cel_name("namespace") == "namespace"  # Kubernetes would escape it, ASO does not


def _expression_findings(docs: list[Document], store: Any) -> list[tuple[str, str | None]]:
    found = validate_documents(docs, store, ValidationOptions(schemas=store is not None))
    return [(format_path(f.path), f.subject.name) for f in found if f.rule == "ASO-EXPRESSION"]


def test_the_valid_example_compiles_against_the_real_schema(
    parse: Parse, shared_store: Any
) -> None:
    docs = parse((EXAMPLES / "valid" / "aso-expressions.yaml").read_text())
    assert _expression_findings(docs, shared_store) == []


def test_embedded_resources_and_templated_values(parse: Parse, shared_store: Any) -> None:
    text = (EXAMPLES / "invalid" / "ASO-SECRET-DESTINATION" / "embedded.yaml").read_text()
    docs = parse(text)
    assert _expression_findings(docs, shared_store) == []  # self.status.fqdn is a real field
    cluster = docs[0].obj["spec"]["resources"][0]["spec"]
    cluster["operatorSpec"]["secretExpressions"][0]["value"] = "self.status.fqnd"
    assert _expression_findings(docs, shared_store) == [
        ("spec.resources[0].spec.operatorSpec.secretExpressions[0].value", "bad")
    ]
    assert _expression_findings(docs, None) == []  # without schemas: syntax only
    cluster["operatorSpec"]["secretExpressions"][0]["value"] = "self.status.{{ .field }}"
    assert _expression_findings(docs, shared_store) == []
