"""Validation findings: what is wrong, where, and which check said so.

A finding names its place the way a person looks for it: the file and line, the top-level object
(``Kind/name``), the embedded ASO resource inside it when there is one, and the JSON path. Findings
are plain values so that checks can be pure functions and reports can sort and render them freely.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from enum import StrEnum

from generator.jsontypes import Json, JsonObject

MAX_SHOWN = 500  # characters of one message line shown to a person


def clip(text: str, limit: int = MAX_SHOWN) -> str:
    """``text`` shortened for a person to read: a 5 MB value in a message helps nobody, and a
    terminal or CI log should not receive it."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text) - limit:,} more characters)"


PathPart = str | int
JsonPath = tuple[PathPart, ...]


class Severity(StrEnum):
    """How bad a finding is: only errors fail a command (exit code 1); warnings are reported;
    info (what the cluster will do, such as a default it sets) never fails and is counted apart."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Gate(StrEnum):
    """Which gate a finding stands for: where the manifest would be stopped without capzgen.

    ``admission``: the management cluster refuses the apply (YAML that is no Kubernetes object,
    the CRD schema, CEL rules, unknown fields, CAPI's, CAPZ's or ASO's webhooks; for an ASO
    resource embedded in a CAPZ object, ASO's admission when CAPZ creates it). ``provisioning``:
    the API server admits the manifest, and AKS/ARM or a CAPI, CAPZ or ASO controller fails later,
    or the setting is silently ignored or overwritten. capzgen checks the second kind on purpose,
    and the user must be able to tell the two apart: an admission finding is what ``kubectl
    apply`` would say; a provisioning one is capzgen being stricter than the API server.
    """

    ADMISSION = "admission"
    PROVISIONING = "provisioning"


class Operation(StrEnum):
    """Which API request a finding stands for: ``create`` (the object applied as new, what every
    check judges without ``--against``), ``update`` (the object changed from its previous
    revision: immutable fields, transitions, CEL rules on ``oldSelf``) or ``delete`` (the object
    gone from the new revision: the delete webhooks)."""

    CREATE = "create"
    UPDATE = "update"
    DELETE = "delete"


def format_path(path: Sequence[PathPart]) -> str:
    """``("spec", "resources", 0, "metadata")`` -> ``spec.resources[0].metadata``.

    Keys that are not plain identifiers (``serviceoperator.azure.com/credential-from``) are quoted
    in brackets so the path stays unambiguous.
    """
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part and all(c.isalnum() or c in "_-" for c in part):
            out += f".{part}" if out else part
        else:
            out += f"[{json.dumps(part)}]"
    return out


@dataclass(frozen=True, slots=True)
class Subject:
    """The object a finding is about: a top-level document and, optionally, an embedded resource."""

    file: str
    document: int | None = None  # 0-based index among the file's documents
    kind: str | None = None
    name: str | None = None
    embedded_path: JsonPath | None = None  # where the embedded resource sits in the document
    embedded_kind: str | None = None
    embedded_name: str | None = None

    def embedded(self, path: JsonPath, obj: Json) -> Subject:
        """The subject for the ASO resource found at ``path`` inside this document."""
        kind = obj.get("kind") if isinstance(obj, dict) else None
        meta = obj.get("metadata") if isinstance(obj, dict) else None
        name = meta.get("name") if isinstance(meta, dict) else None
        return Subject(  # not dataclasses.replace, twice as slow, for each embedded resource
            self.file,
            self.document,
            self.kind,
            self.name,
            path,
            kind if isinstance(kind, str) else None,
            name if isinstance(name, str) else None,
        )

    def label(self) -> str:
        """``Kind/name``, then ``> Kind/name`` of an embedded resource; ``?`` for unknown parts."""
        text = f"{self.kind or '?'}/{self.name or '?'}"
        if self.embedded_path is not None:
            text += f" > {self.embedded_kind or '?'}/{self.embedded_name or '?'}"
        return text


@dataclass(frozen=True, slots=True)
class PatchRef:
    """The patch document that last changed what a finding is about (``--patch``, fleet
    overrides): the object on the rendered line may be right, the patch is what to fix."""

    file: str
    document: int | None = None  # 0-based index of the YAML document in ``file``
    where: str | None = None  # JSON path inside ``file`` (a fleet file's overrides)

    def label(self) -> str:
        """``patch.yaml (document 2)``, or ``fleet.yaml clusters[0].overrides[1]``."""
        if self.where:
            return f"{self.file} {self.where}"
        if self.document is not None:
            return f"{self.file} (document {self.document + 1})"
        return self.file


@dataclass(frozen=True, slots=True)
class OldPlace:
    """Where the object an update or delete finding compares with was in the previous revision:
    ``HEAD~1:clusters/a.yaml`` (or the old file's path), its document, the JSON path there and,
    once the old text is at hand, its line."""

    file: str
    document: int | None = None
    path: JsonPath = ()
    line: int | None = None

    def label(self) -> str:
        """``HEAD~1:clusters/a.yaml:12`` (without the line when it is not known)."""
        return self.file + (f":{self.line}" if self.line is not None else "")


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem a check found, and where.

    ``path`` is absolute inside the top-level document, even for a finding about an embedded
    resource (:attr:`display_path` is the relative one); ``line`` (1-based) is added after
    validation, where the text is at hand. ``column`` (1-based) is known only where the parser
    reported it, a YAML error: there the line alone can leave a person hunting for one missing
    bracket, while an object finding's line already points at its key. ``hint`` is a remedy shown once per run and does not take
    part in equality; nor does ``patch``, the patch document that changed the field, when one did.

    ``gate`` says whether the management cluster refuses the apply (:class:`Gate`), and ``why``,
    for a provisioning finding, who fails it later. Both follow from the rule (and, for a rule
    some of whose findings a webhook also refuses, from the object) and never tell two findings
    apart: they take no part in equality, so a finding reached by two paths (pass 1 and pass 2,
    a template and its rendered object) still dedupes to one. The default is ``admission``
    because the findings built outside a :class:`~generator.checks.rules.base.Rule` are, with
    the exceptions that set it, the API server's own checks (YAML, structure, schema, CEL); a
    rule always states its gate.
    """

    severity: Severity
    rule: str  # "schema", "no-schema", "yaml" or a rule ID such as "CAPZ-REF-001"
    message: str
    subject: Subject
    path: JsonPath = ()  # absolute path inside the top-level document
    line: int | None = None
    origin: str = "capzgen"
    column: int | None = None  # 1-based; only where the parser said it (YAML errors)
    hint: str | None = field(default=None, compare=False)
    patch: PatchRef | None = field(default=None, compare=False)
    gate: Gate = field(default=Gate.ADMISSION, compare=False)
    why: str | None = field(default=None, compare=False)  # who refuses a provisioning finding
    operation: Operation = Operation.CREATE  # the request it stands for (--against: update, delete)
    old: OldPlace | None = field(default=None, compare=False)  # the previous revision's place

    @property
    def is_error(self) -> bool:
        """Whether the finding fails the run."""
        return self.severity is Severity.ERROR

    @property
    def display_path(self) -> str:
        """Path relative to the embedded resource when there is one, else to the document."""
        embedded = self.subject.embedded_path
        if embedded is not None and tuple(self.path[: len(embedded)]) == tuple(embedded):
            return format_path(self.path[len(embedded) :])
        return format_path(self.path)

    def sort_key(self) -> tuple[str, int, int, str, str]:
        """Report order: file, then line (findings without one last), document, path, message."""
        return (
            self.subject.file,
            self.line if self.line is not None else 1 << 30,
            self.subject.document if self.subject.document is not None else -1,
            format_path(self.path),
            self.message,
        )

    def gate_label(self) -> str:
        """``[admission]``, or ``[provisioning: who fails it]`` when the finding says who."""
        if self.gate is Gate.PROVISIONING and self.why:
            return f"[{self.gate.value}: {self.why}]"
        return f"[{self.gate.value}]"

    def to_text(self) -> str:
        """One line: ``file:line[:column]: Kind/name: path: [warning: ]message (rule) [gate] [origin]``,
        where the gate is ``[admission]`` or ``[provisioning: who fails it later]`` (the origin,
        such as ``[kubeconform]``, only when capzgen did not make the finding itself); a
        finding on a patched field starts with the patch: ``patch.yaml (document 2) -> file:line``."""
        where = self.subject.file + (f":{self.line}" if self.line is not None else "")
        if self.line is not None and self.column is not None:
            where += f":{self.column}"
        if self.patch is not None:
            where = f"{self.patch.label()} -> {where}"
        path = self.display_path or "(object)"
        prefix = "" if self.severity is Severity.ERROR else f"{self.severity.value}: "
        origin = "" if self.origin == "capzgen" else f" [{self.origin}]"
        return (
            f"{where}: {self.subject.label()}: {path}: {prefix}{clip(self.message)} "
            f"({self.rule}) {self.gate_label()}{self.operation_label()}{origin}"
        )

    def operation_label(self) -> str:
        """`` [update] (was HEAD~1:a.yaml:12)`` for a finding of ``--against``; empty on create,
        so the output of a run without ``--against`` is what it always was."""
        if self.operation is Operation.CREATE:
            return ""
        text = f" [{self.operation.value}]"
        if self.old is not None:
            text += f" (was {self.old.label()})"
        return text

    def to_json(self) -> JsonObject:
        """A flat JSON object: the subject's fields at the top level, paths as text, ``gate``
        always and ``why`` only where a provisioning finding says who fails it."""
        data = asdict(self)
        data["severity"] = self.severity.value
        data["gate"] = self.gate.value
        if self.why is None:
            del data["why"]  # only provisioning findings that say who fails them carry the key
        data["path"] = format_path(self.path)
        data["display_path"] = self.display_path
        if self.patch is None:
            del data["patch"]  # only findings on patched fields carry the key
        if self.operation is Operation.CREATE:
            del data["operation"]  # only --against findings carry the key (and ``old``)
        else:
            data["operation"] = self.operation.value
        if self.old is None:
            del data["old"]
        else:
            data["old"] = {**data["old"], "path": format_path(self.old.path)}
        subject = data.pop("subject")
        subject["embedded_path"] = (
            format_path(self.subject.embedded_path)
            if self.subject.embedded_path is not None
            else None
        )
        data.update(subject)
        return data


def fails(findings: Iterable[Finding], fail_on: Severity = Severity.ERROR) -> bool:
    """Whether ``findings`` fail the run under ``--fail-on``: ``error`` (the default) fails on an
    error only, ``warning`` on a warning too, so a CI job can hold the line on warnings such as
    an unknown region without capzgen making them errors for everyone. Info never fails: it says
    what the cluster will do, which is nothing to fix."""
    failing = (Severity.ERROR,) if fail_on is Severity.ERROR else (Severity.ERROR, Severity.WARNING)
    return any(finding.severity in failing for finding in findings)


def sort_findings(findings: Iterable[Finding]) -> list[Finding]:
    """``findings`` in report order (:meth:`Finding.sort_key`)."""
    return sorted(findings, key=Finding.sort_key)


def hint_lines(findings: Iterable[Finding]) -> list[str]:
    """``hint: ...`` once per distinct hint, in first-seen order (a fleet with a thousand objects
    of an unknown kind gets the remedy once, not a thousand times)."""
    seen: dict[str, None] = {}
    for finding in findings:
        if finding.hint:
            seen.setdefault(finding.hint, None)
    return [f"hint: {hint}" for hint in seen]


def summarize(findings: Sequence[Finding], documents: int) -> str:
    """``N documents checked: E errors, W warnings``, with singulars where they apply, then
    ``, I info`` when there is informational finding."""
    errors = sum(1 for f in findings if f.is_error)
    infos = sum(1 for f in findings if f.severity is Severity.INFO)
    warnings = len(findings) - errors - infos
    return (
        f"{documents} document{'s' if documents != 1 else ''} checked: "
        f"{errors} error{'s' if errors != 1 else ''}, "
        f"{warnings} warning{'s' if warnings != 1 else ''}" + (f", {infos} info" if infos else "")
    )
