"""Reading kubeconform's ``-output json`` report back into capzgen findings.

Each result is mapped back to the object sent (:class:`Sent` remembers whose it is and where it
sits in its document), so its JSON pointer becomes an absolute path on one subject. Results
kubeconform reports as invalid are error findings (rule ``schema``); results it could not check
(``statusError``) are warnings (rule ``kubeconform``), except "could not find schema" for kinds
capzgen has no schema for either, which capzgen reports itself.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from generator.findings import Finding, JsonPath, PathPart, Severity, Subject
from generator.jsontypes import Json, JsonObject, dig
from generator.model.values import is_templated
from generator.schemastore.types import GroupVersionKind

ORIGIN = "kubeconform"
RULE_ERROR = "kubeconform"  # kubeconform could not check an object
RULE_SCHEMA = "schema"  # kubeconform found the object invalid
_STATUSES = frozenset(
    {"statusValid", "statusInvalid", "statusError", "statusSkipped", "statusEmpty"}
)
NOT_FOUND_MESSAGE = "could not find schema"  # kubeconform has no schema for the kind
# Fallback when a kubeconform release reports no validationErrors: its message names the pointer.
_MESSAGE_POINTER = re.compile(
    r"jsonschema: '(?P<path>[^']*)' does not validate with \S+: (?P<msg>.*)"
)


@dataclass
class KubeconformResult:
    """kubeconform's findings, and one note line per problem with kubeconform itself.

    ``ran`` is true only when kubeconform ran and its report was read: only then does "no findings"
    mean the objects passed.
    """

    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # one line per problem with kubeconform itself
    ran: bool = False  # kubeconform ran and its report was read


@dataclass(frozen=True, slots=True)
class Sent:
    """One object written for kubeconform: where its findings belong."""

    subject: Subject
    prefix: JsonPath  # where the object sits in its document (embedded resources)
    obj: JsonObject
    gvk: GroupVersionKind
    in_template: bool


@dataclass(frozen=True)
class Completed:
    """How a kubeconform process ended: exit status (None: timed out and killed) and output."""

    returncode: int | None  # None: timed out (and killed)
    stdout: str
    stderr: str


def schema_key(gvk: GroupVersionKind) -> tuple[str, str, str]:
    """How kubeconform files a schema: group, version and lower-case kind."""
    return (gvk.group, gvk.version, gvk.kind.lower())


def parse_report(stdout: str) -> list[JsonObject] | None:
    """The ``resources`` of kubeconform's ``-output json`` report, or None if ``stdout`` is not
    such a report (garbage, a partial write, another output format)."""
    try:
        data = json.loads(stdout)
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("resources"), list):
        return None
    entries: list[JsonObject] = []
    for entry in data["resources"]:
        if not isinstance(entry, dict):
            return None
        if not isinstance(entry.get("filename"), str) or entry.get("status") not in _STATUSES:
            return None
        entries.append(entry)
    return entries


def failure(completed: Completed) -> str:
    """The note for a run without a readable report: killed, failed, or not a JSON report."""
    code = completed.returncode
    problem = first_line(completed.stderr)
    if code is not None and code < 0:
        return f"kubeconform was killed by signal {-code}" + (f": {problem}" if problem else "")
    if code not in (0, 1) or (not completed.stdout.strip() and problem):
        return f"kubeconform failed (exit status {code})" + (f": {problem}" if problem else "")
    snippet = first_line(completed.stdout) or "(no output)"
    return (
        "kubeconform's output could not be read (expected its -output json report): "
        f"{snippet[:120]}"
    )


def first_line(text: str) -> str:
    """The first non-blank line of ``text``, stripped and cut to 300 characters (``""`` if none)."""
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:300]
    return ""


def says_something(entry: JsonObject) -> bool:
    """Whether a report entry can become a finding: valid, skipped and empty objects cannot."""
    return entry["status"] not in ("statusValid", "statusSkipped", "statusEmpty")


def merge_entry(
    entry: JsonObject,
    item: Sent | None,
    written: set[tuple[str, str, str]],
    result: KubeconformResult,
) -> None:
    """Add what one entry of kubeconform's report says to ``result``.

    Valid, skipped and empty objects add nothing. A check kubeconform could not make is a warning,
    except a missing schema for a kind capzgen gave it no schema for (``written`` holds the schema
    keys it did write), which capzgen reports itself. Each violation of an invalid object is an
    error finding at its absolute path, except on Go-template values inside CAPZ ``*Template``
    kinds. An entry for an object capzgen did not send (``item`` None) becomes a note.
    """
    status = entry["status"]
    if not says_something(entry):
        return
    if item is None:
        result.notes.append(
            "kubeconform reported an object capzgen did not give it: "
            f"{entry.get('kind')}/{entry.get('name')} ({entry.get('version')})"
        )
        return
    raw_message = entry.get("msg")
    message = raw_message if isinstance(raw_message, str) else ""
    if status == "statusError":
        warning = _check_not_made(item, message, written)
        if warning is not None:
            result.findings.append(warning)
        return
    for pointer, text in _violations(entry, message):
        relative = pointer_to_path(pointer, item.obj)
        if item.in_template and is_templated(dig(item.obj, *relative) if relative else None):
            continue  # Go-template text in a CAPZ *Template: its final value is unknown
        result.findings.append(
            Finding(
                Severity.ERROR,
                RULE_SCHEMA,
                text,
                item.subject,
                (*item.prefix, *relative),
                origin=ORIGIN,
            )
        )


def _check_not_made(item: Sent, message: str, written: set[tuple[str, str, str]]) -> Finding | None:
    """The warning for an object kubeconform could not check, or None when the reason is a
    schema capzgen never gave it (capzgen reports that itself, or was told to ignore it).

    Like kubeconform's violations it is admission (the default): it stands for a schema check,
    the API server's, that was not made."""
    if NOT_FOUND_MESSAGE in message:
        if schema_key(item.gvk) not in written:
            return None
        message = (
            f"kubeconform could not use the schema capzgen gave it for {item.gvk} "
            f"(it says: {message})"
        )
    text = (
        message
        if message.startswith("kubeconform")
        else (f"kubeconform could not check this object: {message}")
    )
    return Finding(Severity.WARNING, RULE_ERROR, text, item.subject, item.prefix, origin=ORIGIN)


def _violations(entry: JsonObject, message: str) -> list[tuple[str, str]]:
    errors = entry.get("validationErrors")
    found: list[tuple[str, str]] = []
    if isinstance(errors, list):
        for error in errors:
            if not isinstance(error, dict):
                continue
            path, msg = error.get("path"), error.get("msg")
            if isinstance(msg, str) and msg:
                found.append((path if isinstance(path, str) else "", msg))
    if found:
        return found
    match = _MESSAGE_POINTER.search(message)
    if match:
        return [(match["path"], match["msg"].strip())]
    return [("", message or "invalid according to kubeconform")]


def pointer_to_path(pointer: str, obj: Json) -> tuple[PathPart, ...]:
    """A JSON pointer (``/spec/resources/0/name``) as a path tuple, list indexes as ints.

    Indexes are recognised by walking ``obj``, so a map key that looks like a number stays a
    string. Some kubeconform releases join the pointer's parts without escaping ``/``; a key such
    as ``serviceoperator.azure.com/credential-from`` is recovered by matching the object's keys.
    A pointer that leaves the object keeps its remaining parts as strings.
    """
    if not pointer or pointer == "/":
        return ()
    raw = [part.replace("~1", "/").replace("~0", "~") for part in pointer.lstrip("/").split("/")]
    parts: list[PathPart] = []
    node: Json = obj
    position = 0
    while position < len(raw):
        part = raw[position]
        if isinstance(node, list) and part.isdigit():
            index = int(part)
            parts.append(index)
            node = node[index] if index < len(node) else None
            position += 1
            continue
        taken = 1
        if isinstance(node, dict) and part not in node:
            for end in range(position + 2, len(raw) + 1):
                joined = "/".join(raw[position:end])
                if joined in node:
                    part, taken = joined, end - position
                    break
        parts.append(part)
        node = node.get(part) if isinstance(node, dict) else None
        position += taken
    return tuple(parts)
