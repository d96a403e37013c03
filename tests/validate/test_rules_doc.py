"""docs/rules.md is generated from the rule registry: every rule with its severity, gate and who
fails it later. The test fails when the file is stale; ``--snapshot-update`` writes it again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from generator.checks.rule_table import render_rules_markdown, rule_rows

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_rules_doc_is_generated_from_the_registry(snapshot: Any) -> None:
    snapshot.snapshot_dir = DOCS
    snapshot.assert_match(render_rules_markdown(), "rules.md")


def test_rules_doc_lists_every_rule_once() -> None:
    text = render_rules_markdown()
    for rule_id, *_ in rule_rows():
        assert text.count(f"| `{rule_id}` |") == 1, rule_id


def test_readme_and_validation_doc_link_the_rules_doc() -> None:
    readme = (DOCS.parent / "README.md").read_text(encoding="utf-8")
    assert "(docs/rules.md)" in readme
    assert "(rules.md)" in (DOCS / "validation.md").read_text(encoding="utf-8")
