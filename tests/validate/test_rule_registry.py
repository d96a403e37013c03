"""The rule registry: the import in ``generator/checks/rules/__init__.py`` is its order.

Each rule module registers its rules as it is imported, so the registry's order is the import's
only while no rule module pulls in another one ahead of its turn. This test holds the two together,
and checks that every record a module declares is registered exactly once.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

from generator.checks.rules import RULES
from generator.checks.rules.base import Rule

RULES_PACKAGE = Path(importlib.import_module("generator.checks.rules").__file__ or "").parent


def _imported_in_order() -> list[str]:
    tree = ast.parse((RULES_PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "generator.checks.rules":
            return [f"generator.checks.rules.{alias.name}" for alias in node.names]
    msg = "no import of the rule modules"
    raise AssertionError(msg)


def _module_of(rule_id: str) -> str:
    entry = RULES[rule_id]
    return (
        entry.schema_check or entry.update_check or entry.delete_check or entry.check
    ).__module__


def test_rules_run_in_the_order_their_modules_are_imported() -> None:
    modules = list(dict.fromkeys(_module_of(rule_id) for rule_id in RULES))
    assert modules == _imported_in_order()
    grouped = [_module_of(rule_id) for rule_id in RULES]
    assert grouped == sorted(grouped, key=modules.index), "a module's rules are not together"


def test_every_declared_record_is_registered_once() -> None:
    declared = [
        value
        for name in _imported_in_order()
        for value in vars(importlib.import_module(name)).values()
        if isinstance(value, Rule)
    ]
    registered = [entry.rule for entry in RULES.values()]
    assert sorted(r.id for r in declared) == sorted(r.id for r in registered)
    assert all(any(d is r for r in registered) for d in declared)
