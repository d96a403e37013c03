"""The create admission chain and the API server's extra checks, case by case
(kubectl-validate's house style: a folder of inputs, each with its expected outcome beside it).

``admission/<case>.yaml`` is the input; ``admission/<case>.expected.yaml`` says, per document (by
``metadata.name``), capzgen's ``verdict`` (``admitted``: no error, ``rejected``: at least one),
the ``findings`` it must produce (one to one for every rule named there and for ``schema``,
``cel`` and ``admission``: ``rule``, ``path`` as ``format_path`` writes it, a message fragment
and the object's name) and the values the admission chain ``sets`` (the object after
:func:`generator.checks.admission.chain.admit` holds ``value`` at ``path``).

``kubectl-validate`` (the API server's schema, defaulting and CEL, no webhooks) and
``capz-oracle`` (CAPZ v1.26.0's webhooks, then the API server's CRD validation) record what
those programs answer for each document. They are checked only where the programs are found
(``tests.peers``: ``$CAPZGEN_PEERS``, else ``../shared/peers`` unpacked for the run; the CRDs are
the vendored copies in ``tests/data/upstream/crds``); otherwise those tests skip
saying why. The ``sets`` are then also compared with ``capz-oracle -dump``.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from generator.checks import ValidationOptions, validate_documents
from generator.checks.admission.chain import admit
from generator.documents import Document
from generator.findings import Finding, format_path
from generator.jsontypes import Json

CASES_DIR = Path(__file__).resolve().parent / "admission"
CASES = sorted(p for p in CASES_DIR.glob("*.yaml") if not p.name.endswith(".expected.yaml"))
ALWAYS_COMPARED = {"schema", "cel", "admission"}
REPO = Path(__file__).resolve().parents[2]


def _expected(case: Path) -> dict[str, Any]:
    data = yaml.safe_load(case.with_name(f"{case.stem}.expected.yaml").read_text())
    assert isinstance(data, dict)
    return data


def _documents(case: Path) -> list[Document]:
    objects = [obj for obj in yaml.safe_load_all(case.read_text()) if obj is not None]
    return [Document(case.name, index, obj) for index, obj in enumerate(objects)]


def _name(obj: Json) -> str:
    assert isinstance(obj, dict)
    return str(obj["metadata"]["name"])


def _describe(findings: list[Finding]) -> str:
    return "\n".join(
        f"  {f.rule} {format_path(f.path) or '-'} @{f.subject.name}: {f.message}" for f in findings
    )


def _get(obj: Json, path: str) -> Json:
    """``obj`` at a dotted path (``[n]`` for list items; keys with dots are not supported)."""
    node = obj
    for part in path.split("."):
        key, _, rest = part.partition("[")
        assert isinstance(node, dict), f"no {path}"
        node = node.get(key)
        for index in filter(None, rest.replace("]", "").split("[")):
            assert isinstance(node, list), f"no {path}"
            node = node[int(index)]
    return node


def test_every_case_has_its_expectations() -> None:
    assert CASES
    for case in CASES:
        assert case.with_name(f"{case.stem}.expected.yaml").is_file(), case.name


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.stem)
def test_capzgen_findings_and_verdicts(case: Path, shared_store: Any) -> None:
    expected = _expected(case)
    findings = validate_documents(_documents(case), shared_store, ValidationOptions())
    rules = ALWAYS_COMPARED | {item["rule"] for item in expected.get("findings", [])}
    unmatched = [f for f in findings if f.rule in rules]
    for item in expected.get("findings", []):
        hit = next(
            (
                f
                for f in unmatched
                if f.rule == item["rule"]
                and format_path(f.path) == item["path"]
                and item["message"] in f.message
                and f.subject.name == item["name"]
            ),
            None,
        )
        assert hit is not None, f"missing {item}\nfindings:\n{_describe(unmatched)}"
        unmatched.remove(hit)
    assert not unmatched, f"unexpected findings:\n{_describe(unmatched)}"
    for document in expected["documents"]:
        errors = [f for f in findings if f.is_error and f.subject.name == document["name"]]
        verdict = "rejected" if errors else "admitted"
        assert verdict == document["verdict"], f"{document['name']}:\n{_describe(errors)}"


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.stem)
def test_admission_sets(case: Path, shared_store: Any) -> None:
    admitted = {_name(d.obj): admit(d.obj, shared_store)[0] for d in _documents(case)}
    for item in _expected(case).get("sets", []):
        assert _get(admitted[item["name"]], item["path"]) == item["value"], item


# The CRDs the peers validate against: the vendored copies of the pinned releases.
PEER_CRDS = ",".join(
    str(REPO / "tests" / "data" / "upstream" / "crds" / name)
    for name in ("capz-v1.26.0", "capi-v1.13.3")
)


@pytest.fixture
def peer_folder(peers: Any) -> Path:
    """The folder of kubectl-validate and capz-oracle (tests.peers), or a skip saying why."""
    oracle, kubectl_validate = peers.binary("capz-oracle"), peers.binary("kubectl-validate")
    if oracle is None or kubectl_validate is None:
        pytest.skip(f"kubectl-validate and capz-oracle are not at hand: {peers.why_not}")
    return Path(oracle.parent)


def _run(*argv: str) -> str:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    return done.stdout


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.stem)
def test_kubectl_validate_answers_as_recorded(case: Path, peer_folder: Path) -> None:
    out = _run(
        str(peer_folder / "kubectl-validate"), "--local-crds", PEER_CRDS, "--version", "1.33",
        "-o", "json", str(case),
    )  # fmt: skip
    results = next(iter(json.loads(out).values()))
    results = results if isinstance(results, list) else [results]
    statuses = [r["status"] for r in results]
    recorded = [d["kubectl-validate"] for d in _expected(case)["documents"]]
    assert statuses == recorded, out


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.stem)
def test_capz_oracle_answers_as_recorded_and_sets_the_same(case: Path, peer_folder: Path) -> None:
    out = _run(str(peer_folder / "capz-oracle"), "-dump", "-crds", PEER_CRDS, str(case))
    lines = [json.loads(line) for line in out.splitlines() if line.strip()]
    answers = {line["name"]: line for line in lines}
    for document in _expected(case)["documents"]:
        if "capz-oracle" in document:
            assert answers[document["name"]]["admitted"] == document["capz-oracle"], out
    for item in _expected(case).get("sets", []):
        dumped = answers[item["name"]].get("object")
        assert dumped is not None, out
        assert _get(dumped, item["path"]) == item["value"], (item, dumped)
