"""The API server's CEL cost limits during validation (rule ``cel-cost``): a rule whose estimate
makes the CRD refused is reported and not evaluated, an evaluation over the per-call limit or the
per-object budget is stopped with an error, and so is one stopped by capzgen's wall-clock bound
(its rules were not evaluated)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from generator.cel.limits import CALL, OBJECT, TIME, CostExceeded, CostLimits, Meter
from generator.cel.runtime import compile_program, to_cel
from generator.cel.validate import check_cel
from generator.checks import ValidationOptions, validate_documents
from generator.documents import Document
from generator.findings import Finding, Severity
from generator.model.manifests import ManifestSet
from generator.schemastore.store import SchemaStore
from tests.cel.conftest import crd

StoreFactory = Callable[..., SchemaStore]
TRIPLE_ALL = "self.all(x, self.all(y, self.all(z, x != '' && y != '' && z != '')))"
ITEMS_80 = [f"item-{i}" for i in range(80)]


def names_store(crd_store: StoreFactory, rule: str, **bounds: Any) -> SchemaStore:
    names = {
        "type": "array",
        "items": {"type": "string", "maxLength": 16},
        "x-kubernetes-validations": [{"rule": rule, "message": "names"}],
        **bounds,
    }
    return crd_store(crd("Widget", {"type": "object", "properties": {"names": names}}))


def widget(names: Any, name: str = "w") -> dict[str, Any]:
    return {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": name},
        "spec": {"names": names},
    }


def run(store: SchemaStore, *objects: Any, limits: CostLimits | None = None) -> list[Finding]:
    documents = [Document("w.yaml", i, obj) for i, obj in enumerate(objects)]
    return check_cel(ManifestSet(documents), store, limits=limits)


def test_triple_all_over_an_unbounded_list_is_reported_and_not_evaluated(
    crd_store: StoreFactory,
) -> None:
    # Evaluated, this took 156 s before cost limits, and the empty last item would fail it.
    store = names_store(crd_store, TRIPLE_ALL)
    documents = [Document("w.yaml", 0, widget([*ITEMS_80[:-1], ""]))]
    findings = validate_documents(documents, store, ValidationOptions())
    cel = [f for f in findings if f.origin == "cel"]
    assert [(f.rule, f.severity, f.path) for f in cel] == [
        ("cel-cost", Severity.ERROR, ()),  # the CRD's total: the API server refuses it
        ("cel-cost", Severity.ERROR, ("spec", "names")),  # the rule, not evaluated
    ]
    assert "over the API server's limit of 100,000,000 per CRD" in cel[0].message
    finding = cel[1]
    assert "CEL rule not evaluated: its estimated cost " in finding.message
    assert "exceeds the API server's limit of 10,000,000 per rule" in finding.message
    assert "the CRD example.com/v1 Widget (" in finding.message
    assert f"(rule at spec.names: {TRIPLE_ALL})" in finding.message
    assert finding.hint is not None
    assert "maxItems" in finding.hint


def test_an_evaluation_over_the_per_call_limit_is_stopped_with_an_error(
    crd_store: StoreFactory,
) -> None:
    # with maxItems 80 the estimate (about 3.1 million) is within the CRD limit: it is evaluated
    store = names_store(crd_store, TRIPLE_ALL, maxItems=80)
    limits = CostLimits(per_call=20_000)
    findings = run(store, widget(ITEMS_80), limits=limits)
    assert [(f.rule, f.severity, f.path) for f in findings] == [
        ("cel-cost", Severity.ERROR, ("spec", "names"))
    ]
    assert findings[0].message.startswith("CEL evaluation stopped after cost 20,00")
    assert "> per-call limit 20,000; the API server stops it too" in findings[0].message


def test_a_small_list_under_the_same_rule_passes(crd_store: StoreFactory) -> None:
    store = names_store(crd_store, TRIPLE_ALL, maxItems=80)
    assert run(store, widget(["a", "b", "c"])) == []
    assert [f.rule for f in run(store, widget(["a", ""]))] == ["cel"]


def test_the_per_object_budget_stops_the_remaining_rules(crd_store: StoreFactory) -> None:
    store = names_store(crd_store, "self.all(x, x.size() < 99)", maxItems=80)
    limits = CostLimits(per_object=400)
    ok = widget(ITEMS_80[:40], "small")  # self 1 + 40 * (loop 3 + x 1 + size 1 + < 1) = 241
    findings = run(store, ok, widget(ITEMS_80, "large"), limits=limits)
    assert [(f.rule, f.severity, f.subject.name) for f in findings] == [
        ("cel-cost", Severity.ERROR, "large")
    ]
    assert "> per-object budget 400; the API server rejects the object" in findings[0].message
    assert findings[0].path == ()


def test_remembered_outcomes_still_count_towards_the_object_budget(
    crd_store: StoreFactory,
) -> None:
    item = {
        "type": "string",
        "maxLength": 16,
        "x-kubernetes-validations": [{"rule": "self.size() < 99"}],
    }
    names = {"type": "array", "maxItems": 100, "items": item}
    store = crd_store(crd("Widget", {"type": "object", "properties": {"names": names}}))
    # each evaluation costs 3; the same value is evaluated once and then remembered
    findings = run(store, widget(["same"] * 30), limits=CostLimits(per_object=60))
    assert [(f.rule, f.path) for f in findings] == [("cel-cost", ())]
    assert "after cost 63 > per-object budget 60" in findings[0].message


def test_the_wall_clock_bound_stops_with_an_error(crd_store: StoreFactory) -> None:
    # The rules it stops were not evaluated: the object must not pass (issue 24).
    store = names_store(crd_store, "self.size() < 99", maxItems=80)
    findings = run(store, widget(["a"]), limits=CostLimits(wall_seconds=-1))
    assert [(f.rule, f.severity) for f in findings] == [("cel-cost", Severity.ERROR)]
    assert findings[0].message.startswith(
        "CEL rules not evaluated: evaluation stopped after -1 s (cost 1 so far"
    )


def test_rules_over_the_crd_limit_together_are_reported_once_per_object(
    crd_store: StoreFactory,
) -> None:
    store = names_store(crd_store, "self.size() < 99", maxItems=80)
    limits = CostLimits(static_per_crd=2)
    findings = run(store, widget(["a"]), widget(["b"], "other"), limits=limits)
    assert [(f.rule, f.subject.name, f.path) for f in findings] == [
        ("cel-cost", "w", ()),
        ("cel-cost", "other", ()),
    ]
    assert "have an estimated total cost of 3, over the API server's limit of 2 per CRD" in (
        findings[0].message
    )


def test_a_rule_over_the_limit_is_reported_once_per_object_even_under_a_list(
    crd_store: StoreFactory,
) -> None:
    item = {
        "type": "string",
        "x-kubernetes-validations": [{"rule": "self.matches('^[a-z]+$')"}],
    }
    names = {"type": "array", "items": item}  # unbounded: 1 million strings of up to 3 MiB
    store = crd_store(crd("Widget", {"type": "object", "properties": {"names": names}}))
    findings = run(store, widget(["a", "b", "c"]))
    assert [(f.rule, f.path) for f in findings] == [
        ("cel-cost", ()),  # over the CRD limit too
        ("cel-cost", ("spec", "names", 0)),
    ]
    assert " per evaluation x 1,048,575 evaluations)" in findings[1].message


def test_the_meter_raises_past_each_limit() -> None:
    meter = Meter(CostLimits(per_call=10, per_object=25))
    meter.start_call()
    meter.charge(10)
    with pytest.raises(CostExceeded) as call:
        meter.charge(1)
    assert (call.value.scope, call.value.cost, call.value.limit) == (CALL, 11, 10)
    meter.start_call()
    meter.charge(10)
    with pytest.raises(CostExceeded) as budget:
        meter.replay(5)
    assert (budget.value.scope, budget.value.cost) == (OBJECT, 26)
    late = Meter(CostLimits(wall_seconds=-1))
    with pytest.raises(CostExceeded) as timed:
        late.charge(1)
    assert timed.value.scope == TIME


@pytest.mark.parametrize(
    ("rule", "short"),
    [
        ("self.size() == 0 && self.all(x, x.size() > 0)", True),
        ("self.size() > 0 || self.all(x, x.size() > 0)", True),
        ("self.size() > 0 && self.all(x, x.size() > 0)", False),
        ("self.all(x, x == 'stop')", True),
        ("self.exists(x, x == 'go')", True),
    ],
)
def test_evaluation_stops_where_cel_go_does(rule: str, short: bool) -> None:
    value = ["go", "stop", *ITEMS_80]
    meter = Meter(CostLimits())
    meter.start_call()
    compile_program(rule).evaluate(to_cel(value, {"type": "array"}), meter)
    assert (meter.total < 50) is short
