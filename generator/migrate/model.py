"""What a migration produces besides the objects: notes for stderr, credential needs, checklists.

Every note names the object and the field it is about, so a user can find it in the input:
``unmapped: AzureManagedControlPlane/my-cluster: spec.azureEnvironment: <reason>``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from generator.capzbuild.objects import NOTE as NOTE
from generator.capzbuild.objects import UNMAPPED as UNMAPPED
from generator.errors import Location, MigrationError
from generator.findings import PathPart, format_path
from generator.jsontypes import JsonObject
from generator.yamlio.emit import dump_documents


@dataclass(frozen=True)
class Note:
    """One line for stderr about one field of one input object (see the module docstring)."""

    category: str  # UNMAPPED or NOTE
    kind: str
    name: str
    path: str  # JSON path in the input object ("spec.sshPublicKey"), or "(object)"
    reason: str

    def to_text(self) -> str:
        """``category: Kind/name: path: reason``."""
        return f"{self.category}: {self.kind}/{self.name}: {self.path}: {self.reason}"


@dataclass(frozen=True)
class SecretKey:
    """One key the credential Secret needs, and where its value comes from."""

    key: str
    source: str  # where the value comes from (a value from the manifests, or what to copy)


@dataclass(frozen=True)
class CredentialNeed:
    """The ASO credential Secret one migrated cluster names in its credential-from annotations."""

    namespace: str
    name: str
    cluster: str
    keys: tuple[SecretKey, ...]
    hint: str = ""

    def to_lines(self) -> list[str]:
        """Which Secret to create and its keys, for stderr; no secret value is ever printed."""
        lines = [
            f"credentials: Cluster {self.cluster} needs Secret {self.namespace}/{self.name} "
            "(named by serviceoperator.azure.com/credential-from; capzgen writes no secret values) with:"
        ]
        width = max(len(k.key) for k in self.keys)
        lines += [f"  {k.key.ljust(width)}  {k.source}" for k in self.keys]
        if self.hint:
            lines.append(f"  ({self.hint})")
        return lines


@dataclass
class Checklist:
    """A titled list of steps the user carries out after applying the output."""

    title: str
    steps: list[str] = field(default_factory=list)

    def to_data(self) -> JsonObject:
        """The checklist for ``--output json``: each step's text and its command lines apart."""
        steps = []
        for number, step in enumerate(self.steps, start=1):
            head, *rest = step.split("\n")
            steps.append({"number": number, "text": head, "commands": rest})
        return {"title": self.title, "steps": steps}

    def to_lines(self) -> list[str]:
        """The title, then numbered steps; continuation lines of a step are indented under it."""
        lines = [self.title]
        for number, step in enumerate(self.steps, start=1):
            head, *rest = step.split("\n")
            lines.append(f"  {number}. {head}")
            lines += [f"     {line}" for line in rest]
        return lines


@dataclass
class MigrationResult:
    """What ``capzgen migrate`` produces: the objects for stdout and everything for stderr."""

    objects: list[JsonObject]
    notes: list[Note] = field(default_factory=list)
    credentials: list[CredentialNeed] = field(default_factory=list)
    checklists: list[Checklist] = field(default_factory=list)
    summary: str = ""

    @property
    def unmapped(self) -> list[Note]:
        """The notes about legacy fields that were not carried over."""
        return [n for n in self.notes if n.category == UNMAPPED]

    def text(self) -> str:
        """The migrated manifests as multi-document YAML (deterministic, keys sorted)."""
        return str(dump_documents(self.objects))

    def report_data(self) -> JsonObject:
        """Everything :meth:`report` prints, as data (``--output json``)."""
        return {
            "summary": self.summary,
            "notes": [
                {
                    "category": n.category,
                    "kind": n.kind,
                    "name": n.name,
                    "path": n.path,
                    "reason": n.reason,
                }
                for n in self.notes
            ],
            "credentials": [
                {
                    "namespace": c.namespace,
                    "name": c.name,
                    "cluster": c.cluster,
                    "keys": {k.key: k.source for k in c.keys},
                }
                for c in self.credentials
            ],
            "checklists": [c.to_data() for c in self.checklists],
        }

    def report(self) -> str:
        """Everything for stderr: summary, notes, credential needs, then the checklists."""
        lines = [self.summary] if self.summary else []
        lines += [note.to_text() for note in self.notes]
        for need in self.credentials:
            lines += need.to_lines()
        for checklist in self.checklists:
            lines += checklist.to_lines()
        return "".join(f"{line}\n" for line in lines)


@dataclass(frozen=True)
class Origin:
    """Where an input object came from, for error locations and notes."""

    source: str
    document: int
    line: int | None
    kind: str
    name: str

    def location(self, path: Sequence[PathPart] = ()) -> Location:
        """The object's location, at ``path`` inside it when given."""
        return Location(
            file=self.source,
            line=self.line,
            document=self.document,
            kind=self.kind,
            name=self.name,
            path=format_path(list(path)) or None,
        )

    def error(
        self, message: str, path: Sequence[PathPart] = (), hint: str | None = None
    ) -> MigrationError:
        """A :class:`MigrationError` at ``path`` in this object, for the caller to raise."""
        return MigrationError(message, location=self.location(path), hint=hint)
