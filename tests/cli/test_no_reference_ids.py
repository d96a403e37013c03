"""Help texts and ``--list-rules`` name rules by their public IDs, never by capzgen's internal
reference IDs (``K9``, ``C19``, ``§4.4``): those point into design notes a user does not have."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import click
import pytest

from generator.checks.references import public_text
from generator.checks.rule_table import describe_rules, render_rules_markdown
from generator.cli import cli

REFERENCE_ID = re.compile(r"§\s?\d|\b[RCOKWP]\d{1,2}\b")


def _commands(group: click.Command, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    yield path
    if isinstance(group, click.Group):
        for name, command in sorted(group.commands.items()):
            yield from _commands(command, (*path, name))


@pytest.mark.parametrize("path", list(_commands(cli)), ids=lambda p: " ".join(p) or "capzgen")
def test_help_names_no_reference_id(run_cli: Any, path: tuple[str, ...]) -> None:
    result = run_cli([*path, "--help"])
    assert result.exit_code == 0, result.stderr
    assert REFERENCE_ID.findall(result.stdout) == [], result.stdout


def test_list_rules_and_rules_doc_name_no_reference_id() -> None:
    for text in (describe_rules(), render_rules_markdown()):
        found = [line for line in text.splitlines() if REFERENCE_ID.search(line)]
        assert found == []


@pytest.mark.parametrize(
    ("internal", "public"),
    [
        ("has metadata.name (C19)", "has metadata.name"),
        (
            "exists (O9; off with --ignore-missing-schemas)",
            "exists (off with --ignore-missing-schemas)",
        ),
        ("ends (§4.8, §5.4; CAPZ validateMPSubnetName)", "ends (CAPZ validateMPSubnetName)"),
        ("names (K3, §5.4: the pool's identity)", "names (the pool's identity)"),
        ("in the set (R1, R2, R4 for templates; §6.1, P3)", "in the set"),
        ("no IDs here (User) / (System)", "no IDs here (User) / (System)"),
    ],
)
def test_public_text_keeps_only_what_a_user_can_read(internal: str, public: str) -> None:
    assert public_text(internal) == public
