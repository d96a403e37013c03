"""capzgen against upstream's own code, on every mutant (tests/differential/mutants.py).

* ``capz-oracle`` runs CAPZ v1.26.0's own webhooks and the API server's CRD validation: every
  document it refuses, capzgen refuses with an ``admission`` finding; every document capzgen
  alone refuses carries only ``provisioning`` findings (AKS or a controller fails it later) or is
  a difference listed in :data:`KNOWN` with its upstream source.
* ``kubectl-validate`` runs the API server's schema, defaulting and CEL code: capzgen's ``schema``
  and ``cel`` findings refuse exactly the documents it refuses.

Run in addition when the peers are at hand (``../shared/peers`` or ``$CAPZGEN_PEERS``), skipped
with the reason otherwise. ``python -m tests.differential.report`` prints the same comparison.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from generator.findings import Finding
from tests.differential.mutants import all_mutants
from tests.differential.report import SCHEMA_RULES, compare, store_for, write_mutants
from tests.differential.verdicts import (
    KUBECTL_VALIDATE,
    ORACLE,
    Verdicts,
    capzgen_verdicts,
    kubectl_validate_verdicts,
    oracle_verdicts,
)

# Documents capzgen and CAPZ's webhooks judge differently on purpose: a pattern of the mutant's
# file name and document, and why (with the upstream place that makes the difference).
KNOWN: dict[str, str] = {}


@dataclass(frozen=True)
class Judged:
    """The mutants on disk and every tool's verdicts on them."""

    files: list[Path]
    oracle: Verdicts
    kubectl_validate: Verdicts
    capzgen: Verdicts
    capzgen_schema: Verdicts
    findings: dict[tuple[str, int], list[Finding]]


@pytest.fixture(scope="module")
def judged(peers: Any, tmp_path_factory: pytest.TempPathFactory) -> Judged:
    oracle, kubectl_validate = peers.binary(ORACLE), peers.binary(KUBECTL_VALIDATE)
    if oracle is None or kubectl_validate is None:
        pytest.skip(f"capz-oracle and kubectl-validate are not at hand: {peers.why_not}")
    root = tmp_path_factory.mktemp("mutants")
    files = write_mutants(root, all_mutants())
    store = store_for(tmp_path_factory.mktemp("cache"))
    ours, findings = capzgen_verdicts(files, store)
    schema_only, _ = capzgen_verdicts(files, store, only=SCHEMA_RULES)
    folder = oracle.parent
    return Judged(
        files,
        oracle_verdicts(folder, files),
        kubectl_validate_verdicts(folder, files),
        ours,
        schema_only,
        findings,
    )


def _unexplained(rows: list[tuple[tuple[str, int], str]]) -> list[str]:
    found = []
    for (file, document), why in rows:
        label = f"{file} #{document}"
        if not any(re.search(pattern, label) for pattern in KNOWN):
            found.append(f"{label}: {why}")
    return found


def test_every_document_capz_refuses_capzgen_refuses(judged: Judged) -> None:
    comparison = compare(judged.oracle, judged.capzgen)
    assert comparison.documents > 2000
    assert _unexplained(comparison.only_peer) == []


def test_what_capzgen_alone_refuses_is_provisioning_or_known(judged: Judged) -> None:
    """capzgen is stricter than admission only with provisioning findings: on the documents
    CAPZ admits, no admission finding (but provisioning ones, which say who fails later)."""
    comparison = compare(judged.oracle, judged.capzgen)
    assert _unexplained(comparison.only_capzgen) == []
    stricter = [
        f
        for key, found in judged.findings.items()
        if not judged.oracle[key].refused
        for f in found
        if f.is_error
    ]
    assert stricter, "the mutants include cases only AKS refuses"
    assert {f.gate.value for f in stricter} == {"provisioning"}
    assert all(f.why for f in stricter)


def test_schema_and_cel_verdicts_are_the_api_servers(judged: Judged) -> None:
    comparison = compare(judged.kubectl_validate, judged.capzgen_schema)
    assert comparison.documents > 2000
    assert comparison.only_peer == [] and comparison.only_capzgen == []
