"""The rule model and the static analysis: evaluable, unsupported (and why), transition."""

from __future__ import annotations

import pytest

from generator.cel.rules import CelRule, RuleStatus, analyze, rules_of


@pytest.mark.parametrize(
    "expression",
    [
        "has(self.a) && self.a.startsWith('x')",
        "self.size() <= 3 && size(self) >= 0",
        "self.all(k, self[k] != '')",
        "self.exists(x, x == 1) || self.exists_one(x, x == 2)",
        "self.map(x, x * 2).filter(y, y > 2).size() == 1",
        "self.matches('^a+$')",
        "int(self) < 10 && string(self) != '' && double(self) > 0.5",
        "self.lowerAscii().split('-').join('.') == self.trim()",
        "self.min() <= self.max() && self.isSorted() && self.sum() > 0",
        "self.find('[0-9]+') != '' && self.findAll('a').size() < 3",
        "dyn(self) == self",
        "duration(self) > duration('1s') && timestamp(self) > timestamp('2020-01-01T00:00:00Z')",
    ],
)
def test_standard_cel_and_implemented_extensions_are_evaluable(expression: str) -> None:
    analysis = analyze(expression)
    assert analysis.status is RuleStatus.EVALUABLE, analysis.detail


@pytest.mark.parametrize(
    ("expression", "detail"),
    [
        ("self.isURL()", "unsupported function isURL"),
        ("isURL(self)", "unsupported function isURL"),
        ("url(self).getHost() == 'x'", "unsupported function url, getHost"),
        ("format.dns1123Label().validate(self).hasValue() == false", "format.dns1123Label"),
        ("quantity(self).isGreaterThan(quantity('1Gi'))", "quantity, isGreaterThan"),
        ("sets.contains(self, ['a'])", "sets.contains"),
        ("isCIDR(self) && cidr(self).prefixLength() < 24", "isCIDR, cidr, prefixLength"),
    ],
)
def test_unsupported_functions_are_named(expression: str, detail: str) -> None:
    analysis = analyze(expression)
    assert analysis.status is RuleStatus.UNSUPPORTED
    assert detail in analysis.detail


def test_syntax_cel_python_cannot_parse_is_unsupported() -> None:
    analysis = analyze("self.?spec.orValue('') == ''")
    assert analysis.status is RuleStatus.UNSUPPORTED
    assert analysis.detail.startswith("syntax cel-python cannot parse")


@pytest.mark.parametrize(
    "expression",
    ["self == oldSelf", "!has(oldSelf.x) || has(self.x)", "oldSelf.hasValue() ? true : false"],
)
def test_rules_using_old_self_are_transition_rules(expression: str) -> None:
    analysis = analyze(expression)
    assert analysis.status is RuleStatus.TRANSITION
    assert "not evaluated statically" in analysis.detail


def test_rule_entries_are_parsed_and_malformed_ones_ignored() -> None:
    node = {
        "x-kubernetes-validations": [
            {
                "rule": "self > 1",
                "message": "too small",
                "messageExpression": "'got ' + string(self)",
                "fieldPath": ".a",
                "reason": "FieldValueForbidden",
                "optionalOldSelf": True,
            },
            {"message": "no rule"},
            "not a mapping",
            {"rule": "self < 9", "message": "  "},
        ]
    }
    first, second = rules_of(node)
    assert first == CelRule(
        rule="self > 1",
        message="too small",
        message_expression="'got ' + string(self)",
        field_path=".a",
        reason="FieldValueForbidden",
        optional_old_self=True,
    )
    assert second == CelRule(rule="self < 9")
    assert rules_of({"x-kubernetes-validations": "nope"}) == []
    assert rules_of(["not", "a", "node"]) == []


def test_failure_message_follows_the_api_server() -> None:
    assert CelRule("self > 1").failure_message() == "failed rule: self > 1"
    assert CelRule("self > 1", message="m").failure_message() == "m (rule: self > 1)"
    assert CelRule("self > 1", message="m").failure_message("e") == "e (rule: self > 1)"
