"""cel-go's expression limits (issue 24): a rule longer than 100,000 code points or nesting
deeper than 250 levels is refused by the API server, so it is an error finding naming the CRD and
the rule, found before parsing (length) or before any recursive walk (nesting), never a
RecursionError; long ``&&``/``||`` chains, which cel-go balances, are evaluated; a rule this
evaluator cannot finish is an error, not a warning."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest

from generator.cel.limits import MAX_EXPRESSION_CODE_POINTS, MAX_EXPRESSION_DEPTH
from generator.cel.runtime import (
    CelLimitError,
    compile_program,
    limit_problem,
    parse,
    to_cel,
)
from generator.cel.syntax import nesting_depth
from generator.cel.validate import check_cel
from generator.documents import Document
from generator.findings import Finding, Severity
from generator.model.manifests import ManifestSet
from generator.schemastore.store import SchemaStore
from tests.cel.conftest import crd

StoreFactory = Callable[..., SchemaStore]


def store_with(crd_store: StoreFactory, rule: str, message_expression: str | None = None) -> Any:
    validation: dict[str, Any] = {"rule": rule}
    if message_expression is not None:
        validation["messageExpression"] = message_expression
    spec = {
        "type": "object",
        "properties": {"x": {"type": "integer"}},
        "x-kubernetes-validations": [validation],
    }
    return crd_store(crd("Widget", spec))


def check(store: SchemaStore, x: int = 1) -> list[Finding]:
    obj = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}
    obj["spec"] = {"x": x}
    return check_cel(ManifestSet([Document("w.yaml", 0, obj)]), store)


def test_the_length_limit_is_cel_gos_and_checked_before_parsing() -> None:
    assert limit_problem("x" * MAX_EXPRESSION_CODE_POINTS) is None
    problem = limit_problem("x" * (MAX_EXPRESSION_CODE_POINTS + 1))
    assert problem is not None
    assert "100,001 characters long, over the API server's limit of 100,000" in problem
    # 2 MB of text that would take the parser a minute: refused at once.
    with pytest.raises(CelLimitError, match="characters long"):
        parse("self.x == 1 || " * 140_000 + "true")


def test_a_rule_over_the_length_limit_is_an_error_naming_the_crd_and_the_rule(
    crd_store: StoreFactory,
) -> None:
    rule = "self.x >= 0 && " + " || ".join(["self.x == 1"] * 10_000)
    findings = check(store_with(crd_store, rule))
    assert [(f.rule, f.severity, f.path) for f in findings] == [
        ("cel-cost", Severity.ERROR, ("spec",))
    ]
    message = findings[0].message
    assert message.startswith("CEL rule not evaluated: the expression is 150,011 characters long")
    assert "so the API server refuses the CRD example.com/v1 Widget" in message
    assert "(rule at spec: self.x >= 0 && self.x == 1" in message
    assert len(message) < 600  # the rule is shown clipped


@pytest.mark.parametrize(
    "rule",
    [
        "(" * 300 + "self.x" + ")" * 300 + " > 0",
        "self.x" + " + 1" * 300 + " > 0",
        "[" * 300 + "]" * 300 + " != []",
        "self" + ".a" * 300 + " > 0",
        "(" * 20_000 + "self.x" + ")" * 20_000 + " > 0",
    ],
    ids=["parentheses", "sum", "lists", "selections", "parentheses-20000"],
)
def test_a_rule_nesting_deeper_than_the_limit_is_an_error_not_a_recursion_error(
    crd_store: StoreFactory, rule: str
) -> None:
    findings = check(store_with(crd_store, rule))
    assert [(f.rule, f.severity) for f in findings] == [("cel-cost", Severity.ERROR)]
    assert f"nests deeper than {MAX_EXPRESSION_DEPTH} levels" in findings[0].message


def test_a_message_expression_over_the_limits_refuses_the_rule_too(
    crd_store: StoreFactory,
) -> None:
    findings = check(store_with(crd_store, "self.x > 5", "(" * 300 + "'m'" + ")" * 300))
    assert [(f.rule, f.severity) for f in findings] == [("cel-cost", Severity.ERROR)]
    assert "its messageExpression: the expression nests deeper" in findings[0].message


@pytest.mark.parametrize("depth", [1, 10, 100, 240])
def test_nesting_within_the_limit_parses(depth: int) -> None:
    tree = parse("(" * depth + "self.x" + ")" * depth + " > 0")
    assert depth < nesting_depth(tree, MAX_EXPRESSION_DEPTH) <= MAX_EXPRESSION_DEPTH


@pytest.mark.parametrize("x", [1, -1])
def test_two_thousand_and_terms_are_evaluated(crd_store: StoreFactory, x: int) -> None:
    rule = " && ".join(["self.x >= 0"] * 2000)
    findings = check(store_with(crd_store, rule), x)
    expected = [] if x >= 0 else [("cel", Severity.ERROR)]
    assert [(f.rule, f.severity) for f in findings] == expected


def test_a_long_chain_is_balanced_like_cel_gos() -> None:
    tree = parse(" || ".join(["self.x == 1"] * 4096))
    assert nesting_depth(tree, 10**6) < 30  # 12 levels of balancing, not 4,096


@pytest.mark.parametrize(
    "operands",
    [list(bits) for size in range(1, 8) for bits in itertools.product("TFE", repeat=size)][::7],
)
def test_balanced_chains_keep_cel_logic(operands: list[str]) -> None:
    # true/false/error operands under && and || mixed: the result must be CEL's, operand order kept
    words = {"T": "true", "F": "false", "E": "(1 / 0 == 1)"}
    for joiner in (" && ", " || "):
        program = compile_program(joiner.join(words[o] for o in operands))
        values = ["E" if o == "E" else o == "T" for o in operands]
        if joiner == " && ":
            expected: object = False if False in values else ("E" if "E" in values else True)
        else:
            expected = True if True in values else ("E" if "E" in values else False)
        try:
            result: object = bool(program.evaluate(to_cel({})))
        except Exception:
            result = "E"
        assert result == expected, (joiner, operands)


def test_a_rule_too_deep_for_the_evaluator_is_an_error_not_a_warning(
    crd_store: StoreFactory,
) -> None:
    # 240 nested list literals: within the API server's limit, beyond cel-python's recursion.
    rule = "[" * 240 + "]" * 240 + " != []"
    findings = check(store_with(crd_store, rule))
    assert [(f.rule, f.severity) for f in findings] == [("cel-cost", Severity.ERROR)]
    assert findings[0].message.startswith("CEL rule not evaluated: ")
