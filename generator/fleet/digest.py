"""Re-running ``generate fleet`` with nothing changed: clusters whose inputs are unchanged are not
rendered again.

Each cluster folder capzgen writes holds ``.capzgen-inputs.json``: a digest of everything the
cluster's output depends on, and what the cross-cluster rules and the summary need from the cluster
(its facts, object count and warnings). On the next run a cluster is skipped when its digest is the
same and its files are still what capzgen's manifest says it wrote (an edited file is rendered
again, so the usual conflict check sees it).

The digest covers: capzgen's version; the cluster's request (flavor, versions, namespace, values,
overrides, ``--patch`` files, validation switches, Flux settings); every file of the flavor folders
(built-in and ``--flavors-dir``, through symbolic links to sub-folders); the clusterctl config
values; the environment variables whose names occur in a flavor file, the config values or the
cluster's own values, overrides and patches (a ``${VAR}`` there); and the schema sources (path, size
and content of every file of ``--schema-dir``, ``CAPZGEN_SCHEMA_PATH`` and the schema cache; the
built-in bundle changes only with capzgen's version). Anything else that changed makes
the digest differ, which only costs a render. Folders are named relative to their roots, so
the digest does not depend on where the repository is checked out.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from generator import __version__
from generator.checks.context import CheckOptions
from generator.errors import CapzgenError
from generator.findings import Finding, Gate, Severity, Subject
from generator.fleet.rules import Fact
from generator.generate.request import ClusterRequest
from generator.jsontypes import Json, JsonObject
from generator.output.gitops import digest as file_digest
from generator.output.gitops import read_manifest
from generator.resources import builtin_flavors_dir
from generator.yamlio.load import load_json
from generator.yamlio.source import read_bytes
from generator.yamlio.walk import ignore, walk_folders

RECORD_NAME = ".capzgen-inputs.json"
_FORMAT = 2  # 2: findings carry their gate and why
_RECORD_LIMIT = 4 << 20  # bytes; a record holds a few facts and warnings
_WORD = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Fingerprint:
    """What every cluster of one run shares: flavor files, schema sources, the words in flavors."""

    digest: str
    words: frozenset[str]


def _walk_files(root: Path) -> Iterable[Path]:
    """Every file below ``root``, symbolic links to folders followed (the flavor catalog and the
    schema loader read through them, so the digest must too); a folder already walked (a link
    back up, or two links to one folder) is walked once."""
    if root.is_file():
        yield root
        return
    for folder, _dirs, files in walk_folders(
        str(root), onerror=ignore, skip_hidden=False, follow_links=True
    ):
        for name in files:
            yield Path(folder) / name


def _contents(root: Path) -> Iterable[tuple[Path, bytes]]:
    for path in _walk_files(root):
        yield path, path.read_bytes()


def _add(digest: Any, tag: str, name: object, data: bytes) -> None:
    """Add one file to ``digest``: where it is (relative to its root, so the digest does not
    depend on where the folders are) and a hash of its content."""
    digest.update(f"{tag} {name} {hashlib.sha256(data).hexdigest()}\n".encode())


def run_fingerprint(
    flavors_dirs: Sequence[Path], schema_paths: Sequence[Path], config: Mapping[str, Json]
) -> Fingerprint:
    """Hash the shared inputs once per run (flavor and schema files by relative path and
    content: a few megabytes, hashed in milliseconds)."""
    digest = hashlib.sha256(f"capzgen {__version__} {_FORMAT}\n".encode())
    words: set[str] = set()
    for number, root in enumerate((builtin_flavors_dir(), *flavors_dirs)):
        for path, data in _contents(root):
            words.update(word.decode() for word in _WORD.findall(data))
            _add(digest, f"F{number}", path.relative_to(root) if path != root else path.name, data)
    for number, root in enumerate(schema_paths):
        for path, data in _contents(root) if root.exists() else ():
            _add(digest, f"S{number}", path.relative_to(root) if path != root else path.name, data)
    config_text = json.dumps(config, sort_keys=True, default=repr)
    digest.update(config_text.encode())
    words.update(word.decode() for word in _WORD.findall(config_text.encode()))  # ${VAR} there
    return Fingerprint(digest.hexdigest(), frozenset(words))


def cluster_digest(
    fingerprint: Fingerprint,
    request: ClusterRequest,
    environ: Mapping[str, str],
    values: Json,
    extra: object,
) -> str:
    """The digest of one cluster's inputs (``request`` and ``extra`` by their reprs: frozen
    dataclasses of plain values; folders by content, in the fingerprint)."""
    # An environment variable can reach the output through a flavor file, the config file, or a
    # ${VAR} in the cluster's values, overrides or patches: every name found in any of them.
    own = json.dumps(values, sort_keys=True, default=repr) + repr(request) + repr(extra)
    words = fingerprint.words | {word.decode() for word in _WORD.findall(own.encode())}
    relevant = {key: value for key, value in environ.items() if key in words}
    request = replace(
        request, schema_dirs=(), flavors_dirs=(), checks=_about_output(request.checks)
    )
    text = json.dumps(
        {
            "run": fingerprint.digest,
            "request": repr(request),
            "environment": relevant,
            "values": values,
            "extra": repr(extra),
        },
        sort_keys=True,
        default=repr,
    )
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def _about_output(checks: CheckOptions) -> CheckOptions:
    """``checks`` without what cannot change a cluster's findings: where caches live, the
    environment kubeconform runs with (the environment a flavor reads is digested apart) and
    ``--fail-on`` (a kept cluster's recorded warnings are reported and judged again)."""
    validation = replace(checks.validation, cache_root=None)
    kubeconform = checks.kubeconform
    if kubeconform is not None:
        kubeconform = replace(kubeconform, environ={})
    return replace(checks, validation=validation, kubeconform=kubeconform, fail_on=Severity.ERROR)


@dataclass
class Record:
    """What a skipped cluster contributes to the run, as recorded when it was written."""

    inputs: str
    objects: int = 0
    facts: list[Fact] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)  # warnings (errors are never written)
    files: int = 0  # how many files the folder holds (known once they are checked, not recorded)


def record_text(record: Record) -> str:
    """The record file's JSON text."""
    data = {
        "format": _FORMAT,
        "inputs": record.inputs,
        "objects": record.objects,
        "facts": [_fact_data(fact) for fact in record.facts],
        "findings": [_finding_data(f) for f in record.findings],
    }
    return json.dumps(data, sort_keys=True, indent=1) + "\n"


def _flat(value: Any) -> JsonObject:
    """A dataclass of plain fields as a dict (what ``asdict`` gives, without its deep copies:
    seven facts per cluster, a thousand clusters)."""
    return {f.name: getattr(value, f.name) for f in fields(value)}


def _fact_data(fact: Fact) -> JsonObject:
    data = _flat(fact)
    data["subject"] = _flat(fact.subject)
    return data


def _finding_data(finding: Finding) -> JsonObject:
    data = asdict(finding)
    data["severity"] = finding.severity.value
    data["gate"] = finding.gate.value
    return data


def _subject(data: Json) -> Subject:
    embedded = data.get("embedded_path")
    return Subject(**{**data, "embedded_path": tuple(embedded) if embedded is not None else None})


def _parse_record(data: Json) -> Record:
    facts = [
        Fact(f["rule"], f["value"], _subject(f["subject"]), tuple(f["path"])) for f in data["facts"]
    ]
    findings = [
        Finding(
            severity=Severity(f["severity"]),
            rule=f["rule"],
            message=f["message"],
            subject=_subject(f["subject"]),
            path=tuple(f["path"]),
            line=f["line"],
            origin=f["origin"],
            hint=f["hint"],
            gate=Gate(f["gate"]),
            why=f["why"],
        )
        for f in data["findings"]
    ]
    return Record(str(data["inputs"]), int(data["objects"]), facts, findings)


def unchanged(folder: Path, digest: str) -> Record | None:
    """The record of ``folder`` when its digest is ``digest`` and its files are as written."""
    try:
        path = str(folder / RECORD_NAME)
        data = load_json(read_bytes(path, limit=_RECORD_LIMIT).decode(), source=path)
        if not isinstance(data, dict) or data.get("format") != _FORMAT:
            return None
        if data.get("inputs") != digest:
            return None
        record = _parse_record(data)
    except (CapzgenError, KeyError, TypeError, ValueError, UnicodeDecodeError):
        return None  # unreadable or from another version: render again
    record.files = _files_as_written(folder)
    return record if record.files else None


def _files_as_written(folder: Path) -> int:
    """How many files capzgen's manifest lists there, or 0 when one of them is not as written."""
    try:
        files = read_manifest(folder, force=False)
        for name, expected in files.items():
            if file_digest(read_bytes(str(folder / name))) != expected:
                return 0
    except CapzgenError:
        return 0
    return len(files)
