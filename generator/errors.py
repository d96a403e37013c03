"""Domain exceptions.

Every user mistake is raised as a :class:`CapzgenError` carrying where it happened. The CLI edge
(:func:`generator.cli.main`) is the one place that turns them into a message, a hint and an exit code;
the core never prints.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum

from generator.findings import Finding, clip


class ExitCode(IntEnum):
    """Documented process exit codes (also listed in ``capzgen --help`` and the README)."""

    OK = 0
    INVALID = 1  # invalid input or content: bad template, missing variables, findings
    USAGE = 2  # usage error, unreadable file, unusable schema store
    INTERNAL = 3  # a bug in capzgen (an exception that is not a domain error)
    INTERRUPTED = 130  # Ctrl-C: 128 + SIGINT, as shells report it
    TERMINATED = 143  # SIGTERM (CI timeouts, ``timeout``, ``kill``): 128 + SIGTERM


@dataclass(frozen=True)
class Location:
    """Where a problem is. Every field is optional; the message shows the ones that are known."""

    file: str | None = None
    line: int | None = None
    column: int | None = None
    document: int | None = None  # 0-based index of the YAML document in the file
    kind: str | None = None
    name: str | None = None
    path: str | None = None  # JSON path inside the object, e.g. spec.resources[0].spec.owner

    def describe(self) -> str:
        """Render as ``file:line:col: document N (Kind/name): path`` with unknown parts left out."""
        head = ""
        if self.file is not None:
            head = self.file
            if self.line is not None:
                head += f":{self.line}"
                if self.column is not None:
                    head += f":{self.column}"
        elif self.line is not None:
            head = f"line {self.line}"
            if self.column is not None:
                head += f", column {self.column}"
        parts = [head] if head else []
        if self.document is not None:
            doc = f"document {self.document + 1}"
            if self.kind or self.name:
                doc += f" ({self.kind or '?'}/{self.name or '?'})"
            parts.append(doc)
        elif self.kind or self.name:
            parts.append(f"{self.kind or '?'}/{self.name or '?'}")
        if self.path:
            parts.append(self.path)
        return ": ".join(parts)


class CapzgenError(Exception):
    """Base of every error a user can cause. Context is keyword-only so call sites stay readable."""

    exit_code: ExitCode = ExitCode.INVALID

    def __init__(
        self,
        message: str,
        *,
        location: Location | None = None,
        hint: str | None = None,
        details: Sequence[str] = (),
    ) -> None:
        super().__init__(message)
        self.message = message
        self.location = location
        self.hint = hint
        self.details: tuple[str, ...] = tuple(details)

    def __str__(self) -> str:
        where = self.location.describe() if self.location else ""
        return f"{where}: {self.message}" if where else self.message

    def headline(self) -> str:
        """The ``Error:`` line a person reads: clipped, since a message may quote a huge value."""
        return clip(str(self))


class UsageError(CapzgenError):
    """The command line itself is wrong (conflicting or malformed options)."""

    exit_code = ExitCode.USAGE


class InputOutputError(CapzgenError):
    """A file or folder cannot be read or written."""

    exit_code = ExitCode.USAGE


class WorkerDied(CapzgenError):
    """A worker process ended without an answer (the OOM killer, a signal): nothing is wrong
    with the input as far as capzgen knows, so this is not exit 1, and not a bug."""

    exit_code = ExitCode.USAGE


class ResourceExhausted(CapzgenError):
    """The system refused what the run needs: memory, file descriptors, processes (a shell's
    ``ulimit``, a container's limits). The environment's limit, not the input's fault (every
    reader is bounded far below what a machine has), and not a bug."""

    exit_code = ExitCode.USAGE


class TemplateSyntaxError(CapzgenError):
    """A ``${...}`` expression the clusterctl engine rejects."""


MAX_NAME_SHOWN = 500  # characters of one variable name in the missing-variables line


class MissingVariablesError(CapzgenError):
    """Required template variables have no value; all of them are reported at once."""

    def __init__(self, names: Sequence[str], *, location: Location | None = None) -> None:
        self.names = tuple(sorted(names))
        super().__init__(
            f"value for variables [{', '.join(self.names)}] is not set",
            location=location,
            hint="set them in the environment, the clusterctl config file, --var or --values",
        )

    def headline(self) -> str:
        """Every missing name, however many, as clusterctl lists them: the list is what the user
        must act on, and a clipped one hides names. Only a single absurdly long name is clipped
        (the guard of :func:`~generator.findings.clip`, applied to it alone)."""
        if all(len(name) <= MAX_NAME_SHOWN for name in self.names):
            return str(self)
        shown = ", ".join(clip(name, MAX_NAME_SHOWN) for name in self.names)
        message = f"value for variables [{shown}] is not set"
        where = self.location.describe() if self.location else ""
        return f"{where}: {message}" if where else message


class VariableError(CapzgenError):
    """Variable values that break their declared types or constraints (all problems at once)."""


class YamlError(CapzgenError):
    """Text that is not valid YAML, or a document that is not a Kubernetes object."""


class SchemaStoreError(CapzgenError):
    """A schema source cannot be used (malformed file, bad digest, unreachable mirror)."""

    exit_code = ExitCode.USAGE


class FlavorError(CapzgenError):
    """A flavor is unknown, malformed, or fails to render."""


class ValidationFailed(CapzgenError):
    """Validation produced error findings; the findings travel with the exception."""

    def __init__(self, findings: Sequence[Finding], *, summary: str) -> None:
        super().__init__(summary)
        self.findings = tuple(findings)


class PatchError(CapzgenError):
    """A patch file is malformed, its target matches nothing, or an operation fails."""


class OutputConflict(CapzgenError):
    """Writing would overwrite or delete something a person made; nothing was written."""


class MigrationError(CapzgenError):
    """Input that cannot be migrated: not Kubernetes objects, malformed legacy fields, nothing to do."""


class FleetError(CapzgenError):
    """The fleet file is malformed (every problem is listed)."""


class FleetInvalid(ValidationFailed):
    """Some clusters failed to render or validate; nothing was written."""

    def __init__(self, findings: Sequence[Finding], *, summary: str, errors: Sequence[str]) -> None:
        super().__init__(findings, summary=summary)
        self.details = tuple(errors)


class TopologyError(CapzgenError):
    """``topology plan`` input that cannot be planned: no Cluster with a topology, its
    ClusterClass or a template it references missing, a topology naming a class that is not
    there. A user's input mistake, named at its file and line (exit 2, as for a file that
    cannot be read): nothing was planned, so nothing was written."""

    exit_code = ExitCode.USAGE
