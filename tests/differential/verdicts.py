"""Per-document verdicts of capzgen and of upstream's own code on the same files.

``capz-oracle`` runs CAPZ v1.26.0's admission webhooks (mutating, then validating) and the API
server's CRD validation; ``kubectl-validate`` runs the API server's schema, defaulting and CEL
code. Both are peers in ``../shared/peers`` (``unpack.sh``), never needed by the product: the
tests that use them find them with :func:`tests.peers.find_peers` and skip, saying why, without them.

A document's verdict is "admitted" or "refused" with the reasons; capzgen's is refused when it
has an error finding of gate ``admission`` (every error, before findings carried a gate).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from generator.checks import ValidationOptions
from generator.checks.admission.defaults import CRD_DEFAULT
from generator.findings import Finding
from generator.validate.check import check_paths
from tests.differential.mutants import CRD_FOLDERS

ORACLE = "capz-oracle"
KUBECTL_VALIDATE = "kubectl-validate"


@dataclass(frozen=True)
class Verdict:
    """One document's verdict: refused or not, and the reasons given."""

    refused: bool
    reasons: tuple[str, ...] = ()


Verdicts = dict[tuple[str, int], Verdict]  # (file name, document index) -> verdict


def _crd_argument() -> str:
    return ",".join(str(folder) for folder in CRD_FOLDERS)


def oracle_verdicts(peers: Path, files: Sequence[Path]) -> Verdicts:
    """CAPZ's webhooks and the API server's CRD validation, per document (``admitted``)."""
    done = subprocess.run(
        [str(peers / ORACLE), "-crds", _crd_argument(), *map(str, files)],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    found: Verdicts = {}
    for line in done.stdout.splitlines():
        row = json.loads(line)
        reasons = tuple(row.get("errors") or ()) + tuple(row.get("schema_errors") or ())
        found[(Path(row["file"]).name, int(row["index"]))] = Verdict(
            not row["admitted"], tuple(str(r) for r in reasons)
        )
    if not found:
        msg = f"{ORACLE} printed nothing: {done.stderr[-500:]}"
        raise AssertionError(msg)
    return found


def kubectl_validate_verdicts(peers: Path, files: Sequence[Path]) -> Verdicts:
    """The API server's schema, defaulting and CEL code, per document."""
    done = subprocess.run(
        [
            str(peers / KUBECTL_VALIDATE),
            "--local-crds",
            _crd_argument(),
            "--version",
            "1.33",
            "-o",
            "json",
            *map(str, files),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
        env={"PATH": os.defpath, "HOME": str(files[0].parent)},
    )
    found: Verdicts = {}
    for name, statuses in json.loads(done.stdout).items():
        for index, status in enumerate(statuses):
            refused = status.get("status") != "Success"
            causes = (status.get("details") or {}).get("causes") or []
            reasons = tuple(f"{c.get('field')}: {c.get('message')}" for c in causes)
            found[(Path(name).name, index)] = Verdict(
                refused, reasons or ((str(status.get("message")),) if refused else ())
            )
    return found


def is_admission(finding: Finding) -> bool:
    """Whether a finding stands for the management cluster refusing the apply."""
    return finding.is_error and str(getattr(finding, "gate", "admission")) == "admission"


def needs_a_webhook(finding: Finding) -> bool:
    """Whether an ``admission`` info finding says the object passes the schema only because a
    CAPZ webhook default fixed it: the API server's schema code alone (kubectl-validate, which
    runs no webhook) refuses such an object as written. A CRD default does not count: the API
    server applies those itself."""
    if finding.rule != "admission" or "sets on create: " not in finding.message:
        return False
    causes = finding.message.split("sets on create: ", 1)[1].split("; as written", 1)[0]
    return any(not cause.endswith(f"({CRD_DEFAULT})") for cause in causes.split("; "))


def capzgen_verdicts(
    files: Iterable[Path], store: object, only: frozenset[str] | None = None
) -> tuple[Verdicts, dict[tuple[str, int], list[Finding]]]:
    """capzgen's verdict per document (each file validated alone, as the oracle reads each one
    alone), and every finding by document; ``only``: count findings of these rules alone, and
    an object as refused when only a CAPZ webhook's default let it pass (the API server's schema
    code, without the webhook, refuses it)."""
    verdicts: Verdicts = {}
    findings: dict[tuple[str, int], list[Finding]] = {}
    for path in files:
        report = check_paths([str(path)], store, ValidationOptions())  # type: ignore[arg-type]
        for finding in report.findings:
            key = (path.name, finding.subject.document or 0)
            findings.setdefault(key, []).append(finding)
        for document in range(report.document_count):
            key = (path.name, document)
            mine = [
                f
                for f in findings.get(key, [])
                if (is_admission(f) and (only is None or f.rule in only))
                or (only is not None and needs_a_webhook(f))
            ]
            verdicts[key] = Verdict(bool(mine), tuple(f"{f.rule}: {f.message}" for f in mine))
    return verdicts, findings
