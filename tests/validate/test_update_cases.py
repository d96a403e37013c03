"""Upstream's own ValidateUpdate tables, re-expressed as data (tests/validate/update_cases/), run
through the update rules of the rulebook on each old/new pair as the webhook sees it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from generator.checks.changes import Change
from generator.checks.rules import CHANGE_RULES
from generator.documents import Document
from generator.model.manifests import ManifestSet

CASES = Path(__file__).parent / "update_cases"
CAPZ = "infrastructure.cluster.x-k8s.io/v1beta1"


def _cases() -> Iterator[Any]:
    for path in sorted(CASES.glob("*.yaml")):
        table = yaml.safe_load(path.read_text(encoding="utf-8"))
        for case in table["cases"]:
            yield pytest.param(
                table["kind"],
                table.get("apiVersion", CAPZ),
                case,
                id=f"{path.stem}: {case['name']}",
            )


def _set(
    kind: str, api_version: str, case: dict[str, Any], spec: dict[str, Any], file: str
) -> ManifestSet:
    metadata = {"name": "test", "namespace": "default", **case.get("metadata", {})}
    obj = {"apiVersion": api_version, "kind": kind, "metadata": metadata, "spec": spec}
    return ManifestSet([Document(file, 0, obj)])


@pytest.mark.parametrize(("kind", "api_version", "case"), list(_cases()))
def test_upstream_update_case(kind: str, api_version: str, case: dict[str, Any]) -> None:
    old = _set(kind, api_version, case, case["old"], "HEAD~1:case.yaml")
    new = _set(kind, api_version, case, case["new"], "case.yaml")
    change = Change(old.objects[0], new.objects[0], old, new)
    found = {
        finding.rule
        for rule in CHANGE_RULES.values()
        if rule.update_check is not None
        for finding in rule.update_check(change)
        if finding.is_error
    }
    expected = set() if case["verdict"] == "valid" else {case["verdict"]}
    assert found == expected, case["name"]


def test_every_update_rule_has_a_case_or_a_history_test() -> None:
    """Each update rule is exercised by an upstream case here or by tests/validate/test_against.py."""
    verdicts = {
        case["verdict"]
        for path in CASES.glob("*.yaml")
        for case in yaml.safe_load(path.read_text(encoding="utf-8"))["cases"]
    }
    against = (Path(__file__).parent / "test_against.py").read_text(encoding="utf-8")
    for rule_id in CHANGE_RULES:
        assert rule_id in verdicts or rule_id in against, f"{rule_id}: no case"
