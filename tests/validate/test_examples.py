"""Example manifests discovered from ``examples/`` (check-jsonschema style).

* ``examples/valid/*.yaml`` must produce no finding at all, with rules only and with the fake store.
* ``examples/invalid/<rule-id>/*.yaml`` declare what they must produce in leading comments::

      # expect: CAPZ-POOL-NAME spec.resources[0].spec.azureName "at most 6" @bad-win
      # store: fake

  ``expect`` takes the rule ID, the path as ``format_path`` writes it (``-`` for the object
  itself), a fragment of the message and optionally ``@name``: the ``metadata.name`` of the
  top-level object. The findings of every rule named in an ``expect`` must match the expectations
  one to one, so the passing objects that examples carry next to the broken ones (named ``good-*``)
  prove the rule's passing case too. ``store: fake`` validates with the fake schema store
  (missing schemas reported) instead of rules only; ``store: shared`` with the vendored upstream
  CRDs and ASO schemas (for rules whose messages come from the real schemas).
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from generator.checks import ValidationOptions, known_rule_ids, validate_documents
from generator.checks.engine import CEL_RULE_IDS
from generator.checks.rules import CHANGE_RULES
from generator.documents import Document
from generator.findings import Finding, format_path

EXAMPLES = Path(__file__).resolve().parent / "examples"
VALID = sorted((EXAMPLES / "valid").glob("*.yaml"))
INVALID = sorted((EXAMPLES / "invalid").glob("*/*.yaml"))


@dataclass(frozen=True)
class Expectation:
    rule: str
    path: str
    fragment: str
    name: str | None

    def matches(self, finding: Finding) -> bool:
        return (
            finding.rule == self.rule
            and format_path(finding.path) == self.path
            and self.fragment in finding.message
            and (self.name is None or finding.subject.name == self.name)
        )


@dataclass(frozen=True)
class Header:
    expectations: tuple[Expectation, ...]
    store: str | None  # "fake", "shared" or None (rules only)


def read_header(path: Path) -> Header:
    expectations: list[Expectation] = []
    store: str | None = None
    for line in path.read_text().splitlines():
        if not line.startswith("#"):
            break
        text = line[1:].strip()
        if text.startswith("expect:"):
            parts = shlex.split(text[len("expect:") :])
            assert len(parts) in (3, 4), f"{path}: malformed expect line: {line}"
            name = parts[3][1:] if len(parts) == 4 else None
            assert len(parts) == 3 or parts[3].startswith("@"), (
                f"{path}: object name must start with @"
            )
            expectations.append(
                Expectation(parts[0], "" if parts[1] == "-" else parts[1], parts[2], name)
            )
        elif text.startswith("store:"):
            store = text.split(":", 1)[1].strip()
            assert store in ("fake", "shared"), f"{path}: unknown store {store!r}"
    return Header(tuple(expectations), store)


def _describe(findings: list[Finding]) -> str:
    return "\n".join(
        f"  {f.rule} {format_path(f.path) or '-'} @{f.subject.name}: {f.message}" for f in findings
    )


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_valid_example_has_no_rule_findings(
    path: Path, parse: Callable[..., list[Document]]
) -> None:
    documents = parse(path.read_text(), path.name)
    findings = validate_documents(documents, None, ValidationOptions(schemas=False))
    assert findings == [], _describe(findings)


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_valid_example_passes_the_fake_store(
    path: Path, parse: Callable[..., list[Document]], fake_store: Any
) -> None:
    documents = parse(path.read_text(), path.name)
    findings = validate_documents(
        documents, fake_store, ValidationOptions(ignore_missing_schemas=True)
    )
    # Kinds the fake store lacks are reported as skipped (warnings); nothing else may appear.
    reported = [f for f in findings if not (f.rule == "no-schema" and not f.is_error)]
    assert reported == [], _describe(reported)
    assert fake_store.lookups, "the store was never asked"


@pytest.mark.parametrize("path", INVALID, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_invalid_example_produces_declared_findings(
    path: Path,
    parse: Callable[..., list[Document]],
    make_store: Callable[[], Any],
    request: pytest.FixtureRequest,
) -> None:
    header = read_header(path)
    assert header.expectations, f"{path} declares no '# expect:' line"
    assert path.parent.name in {e.rule for e in header.expectations}, "expect the folder's own rule"
    documents = parse(path.read_text(), path.name)
    store = None
    if header.store == "fake":
        store = make_store()
    elif header.store == "shared":
        store = request.getfixturevalue("shared_store")
    findings = validate_documents(
        documents, store, ValidationOptions(schemas=header.store is not None)
    )
    declared = {e.rule for e in header.expectations}
    relevant = [f for f in findings if f.rule in declared]
    unmatched = list(relevant)
    for expectation in header.expectations:
        hit = next((f for f in unmatched if expectation.matches(f)), None)
        assert hit is not None, (
            f"missing {expectation}\nfindings of these rules:\n{_describe(relevant)}"
        )
        unmatched.remove(hit)
    assert not unmatched, f"unexpected findings:\n{_describe(unmatched)}"


def test_every_rule_has_an_invalid_example_folder() -> None:
    folders = {p.name for p in (EXAMPLES / "invalid").iterdir() if p.is_dir()}
    assert folders - set(known_rule_ids()) == set(), "folders named after unknown rules"
    # CEL findings need CRDs with CEL rules: tests/cel has their failing and passing cases; the
    # update and delete rules compare two revisions: tests/validate/update_cases has theirs
    missing = [
        rule
        for rule in known_rule_ids()
        if rule not in CEL_RULE_IDS
        and rule not in CHANGE_RULES
        and not list((EXAMPLES / "invalid" / rule).glob("*.yaml"))
    ]
    assert missing == []
