"""A second opinion from kubeconform, the validator GitOps pipelines already run.

:func:`run_kubeconform` hands kubeconform what capzgen validated, offline and with capzgen's own
schemas, and turns its JSON report into findings (``origin="kubeconform"``):

* every top-level object *and* every ASO resource embedded in a CAPZ object (``spec.resources``,
  which the CAPZ CRDs leave unchecked) is written as a document of its own, one file each, so that
  every result maps back to exactly one :class:`~generator.findings.Subject` and its JSON pointer
  to an absolute path in the original document (line numbers are added by the caller);
* the schema of every apiVersion/kind present is written from the store in kubeconform's template
  layout ``<dir>/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json`` (``ResourceKind`` is
  lower-cased by kubeconform; for core kinds ``Group`` is the version, e.g. ``v1/secret_v1.json``),
  and that folder is the *only* ``-schema-location``: kubeconform never goes to the network;
* kubeconform runs as ``kubeconform -strict -summary -output json -schema-location <layout>
  <folder>`` in its own process group, killed as a whole when it exceeds the timeout.

Whatever goes wrong with kubeconform itself (not installed, cannot start, crashes, times out,
prints something that is not its JSON report) becomes one line in :attr:`KubeconformResult.notes`
and never an exception: capzgen's own findings are always kept, and the exit status is decided by
the findings alone. Results kubeconform reports as invalid are error findings (rule ``schema``);
results it could not check (``statusError``) are warnings (rule ``kubeconform``), except "could not
find schema" for kinds capzgen has no schema for either, which capzgen reports itself
(``no-schema``) unless told to ignore missing schemas.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from generator.documents import Document
from generator.findings import Finding, JsonPath, PathPart, Severity, Subject
from generator.model import kinds
from generator.model.manifests import ManifestSet
from generator.model.values import dig, is_templated
from generator.names import valid_api_version
from generator.schemastore.compiler import PYTHON_PATTERN
from generator.schemastore.types import GroupVersionKind, SchemaLookup

log = logging.getLogger(__name__)

ORIGIN = "kubeconform"
RULE_ERROR = "kubeconform"  # kubeconform could not check an object
RULE_SCHEMA = "schema"  # kubeconform found the object invalid
DEFAULT_TIMEOUT = 60.0
BINARY = "kubeconform"
INSTALL_HINT = (
    "install it from https://github.com/yannh/kubeconform/releases or "
    "'go install github.com/yannh/kubeconform/cmd/kubeconform@latest'"
)
NOT_FOUND = f"kubeconform not found on PATH; {INSTALL_HINT}"
SCHEMA_TEMPLATE = "{{ .Group }}/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json"
_STATUSES = frozenset(
    {"statusValid", "statusInvalid", "statusError", "statusSkipped", "statusEmpty"}
)
_NOT_FOUND_MESSAGE = "could not find schema"
# Fallback when a kubeconform release reports no validationErrors: its message names the pointer.
_MESSAGE_POINTER = re.compile(
    r"jsonschema: '(?P<path>[^']*)' does not validate with \S+: (?P<msg>.*)"
)


@dataclass(frozen=True)
class KubeconformOptions:
    timeout: float = DEFAULT_TIMEOUT  # seconds
    binary: str | None = None  # None: "kubeconform" from PATH


@dataclass
class KubeconformResult:
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # one line per problem with kubeconform itself
    ran: bool = False  # kubeconform ran and its report was read


@dataclass(frozen=True, slots=True)
class _Sent:
    """One object written for kubeconform: where its findings belong."""

    subject: Subject
    prefix: JsonPath  # where the object sits in its document (embedded resources)
    obj: dict[str, Any]
    gvk: GroupVersionKind
    in_template: bool


# --- schema layout -----------------------------------------------------------------------------


def layout_paths(gvk: GroupVersionKind) -> list[str]:
    """Where kubeconform looks for ``gvk`` under :data:`SCHEMA_TEMPLATE` (relative paths)."""
    name = f"{gvk.kind.lower()}_{gvk.version}.json"
    if gvk.group:
        return [f"{gvk.group}/{name}"]
    # Core kinds: kubeconform's .Group is the first part of the apiVersion ("v1"); an empty group
    # (should a release change that) resolves to "<dir>//name", i.e. the folder itself.
    return [f"{gvk.version}/{name}", name]


def schema_for_kubeconform(schema: Any) -> Any:
    """A copy of a converted schema for kubeconform: patterns that jsonschema-rs could not compile
    (moved to ``x-capzgen-python-pattern`` by the store) go back to ``pattern``, since kubeconform
    uses Go's RE2 as the API server does. Everything else, ``x-`` keys included, is kept."""
    if isinstance(schema, dict):
        out = {key: schema_for_kubeconform(value) for key, value in schema.items()}
        moved = out.pop(PYTHON_PATTERN, None)
        if isinstance(moved, str) and "pattern" not in out:
            out["pattern"] = moved
        return out
    if isinstance(schema, list):
        return [schema_for_kubeconform(item) for item in schema]
    return schema


def write_schema(root: Path, gvk: GroupVersionKind, schema: Mapping[str, Any]) -> None:
    data = json.dumps(schema_for_kubeconform(dict(schema)), separators=(",", ":"))
    for relative in layout_paths(gvk):
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(data, encoding="utf-8")


def schema_location(root: Path) -> str:
    return f"{root}{os.sep}{SCHEMA_TEMPLATE}"


def write_store_layout(store: Any, root: Path) -> int:
    """Every schema of a SchemaStore (first source of a GVK wins) in kubeconform's layout."""
    count = 0
    for gvk, _source, schema in store.effective_schemas():
        write_schema(root, gvk, schema)
        count += 1
    return count


# --- running -----------------------------------------------------------------------------------


def find_binary(options: KubeconformOptions) -> str | None:
    return shutil.which(options.binary or BINARY)


@dataclass(frozen=True)
class Completed:
    returncode: int | None  # None: timed out (and killed)
    stdout: str
    stderr: str


def run_process(argv: Sequence[str], timeout: float) -> Completed:
    """Run ``argv`` in its own process group; on timeout kill the whole group (a wrapper script's
    children included). Raises OSError when the program cannot be started."""
    with subprocess.Popen(
        list(argv),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    ) as process:
        try:
            out, err = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(process)
            try:  # bounded: a grandchild that left the group could hold the pipes open
                out, err = process.communicate(timeout=5)
            except subprocess.TimeoutExpired:
                out, err = b"", b""
            return Completed(None, _text(out), _text(err))
        except BaseException:  # Ctrl-C: do not leave kubeconform running
            _kill_group(process)
            raise
    return Completed(process.returncode, _text(out), _text(err))


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    try:
        if hasattr(os, "killpg"):
            os.killpg(process.pid, signal.SIGKILL)
        else:  # pragma: no cover - Windows
            process.kill()
    except (ProcessLookupError, PermissionError):
        pass


def _text(data: bytes | None) -> str:
    return (data or b"").decode("utf-8", errors="replace")


def run_kubeconform(
    documents: Sequence[Document],
    store: SchemaLookup | None,
    options: KubeconformOptions = KubeconformOptions(),
) -> KubeconformResult:
    """kubeconform's findings for ``documents``; never raises for a kubeconform problem."""
    result = KubeconformResult()
    binary = find_binary(options)
    if binary is None:
        result.notes.append(
            NOT_FOUND
            if options.binary is None
            else f"kubeconform ({options.binary}) not found; {INSTALL_HINT}"
        )
        return result
    sent = list(_objects(documents))
    if not sent:
        return result
    with tempfile.TemporaryDirectory(prefix="capzgen-kubeconform-") as tmp:
        root = Path(tmp)
        written = _write_inputs(root, sent, store, result)
        if written is None:
            return result
        completed = _run(binary, root, len(sent), options, result)
        if completed is None:
            return result
    _read_report(completed, sent, written, options, result)
    return result


def _write_inputs(
    root: Path, sent: Sequence[_Sent], store: SchemaLookup | None, result: KubeconformResult
) -> set[tuple[str, str, str]] | None:
    """Schemas and one file per object under ``root``; None (and a note) when that fails."""
    try:
        (root / "documents").mkdir()
        written = _write_schemas(root / "schemas", sent, store)
        for index, item in enumerate(sent):
            (root / "documents" / _file_name(index)).write_text(
                json.dumps(item.obj, ensure_ascii=True, default=str), encoding="utf-8"
            )
    except OSError as error:
        result.notes.append(
            f"kubeconform was not run: its input could not be written to {root}: "
            f"{error.strerror or error}"
        )
        return None
    return written


def _run(
    binary: str, root: Path, count: int, options: KubeconformOptions, result: KubeconformResult
) -> Completed | None:
    argv = [
        binary,
        "-strict",
        "-summary",
        "-output",
        "json",
        "-schema-location",
        schema_location(root / "schemas"),
        str(root / "documents"),
    ]
    log.info("running %s on %d objects", binary, count)
    try:
        return run_process(argv, options.timeout)
    except OSError as error:
        result.notes.append(
            f"kubeconform ({binary}) could not be started: {error.strerror or error}; "
            f"{INSTALL_HINT}"
        )
        return None


def _read_report(
    completed: Completed,
    sent: Sequence[_Sent],
    written: set[tuple[str, str, str]],
    options: KubeconformOptions,
    result: KubeconformResult,
) -> None:
    """Findings from kubeconform's JSON report; notes for a timeout or a failed run."""
    if completed.returncode is None:
        result.notes.append(
            f"kubeconform did not finish within {options.timeout:g}s and was stopped; "
            "its findings are missing (raise --kubeconform-timeout)"
        )
        return
    report = parse_report(completed.stdout)
    if report is None:
        result.notes.append(_failure(completed))
        return
    result.ran = True
    for entry in report:
        _merge_entry(entry, sent, written, result)
    if completed.returncode not in (0, 1):  # 1 means "some object is invalid or unchecked"
        problem = _first_line(completed.stderr)
        result.notes.append(
            f"kubeconform exited with status {completed.returncode}"
            + (f": {problem}" if problem else "")
        )


def _objects(documents: Sequence[Document]) -> Iterator[_Sent]:
    manifests = ManifestSet(documents)
    for top in manifests.objects:
        in_template = top.kind in kinds.TEMPLATE_KINDS
        gvk = _gvk(top.obj)
        if gvk is not None:
            yield _Sent(top.subject, (), top.obj, gvk, in_template)
        for resource in top.resources:
            gvk = _gvk(resource.obj)
            if gvk is not None:
                yield _Sent(resource.subject, resource.path, resource.obj, gvk, in_template)


def _gvk(obj: dict[str, Any]) -> GroupVersionKind | None:
    """Objects without a usable apiVersion/kind are left out: the structure check reports them."""
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str) or not kind:
        return None
    if not valid_api_version(api_version):
        return None
    return GroupVersionKind.from_api_version(api_version, kind)


def _write_schemas(
    root: Path, sent: Sequence[_Sent], store: SchemaLookup | None
) -> set[tuple[str, str, str]]:
    """Schemas of the kinds present; returns the (group, version, lower kind) keys written."""
    written: set[tuple[str, str, str]] = set()
    tried: set[tuple[str, str, str]] = set()
    root.mkdir(parents=True, exist_ok=True)
    for item in sent:
        key = _key(item.gvk)
        if key in tried or store is None:
            continue
        tried.add(key)
        handle = store.lookup(item.gvk.api_version, item.gvk.kind)
        schema = getattr(handle, "schema", None) if handle is not None else None
        if isinstance(schema, Mapping):
            write_schema(root, item.gvk, schema)
            written.add(key)
    return written


def _key(gvk: GroupVersionKind) -> tuple[str, str, str]:
    return (gvk.group, gvk.version, gvk.kind.lower())


def _file_name(index: int) -> str:
    return f"{index:07d}.yaml"


# --- the report --------------------------------------------------------------------------------


def parse_report(stdout: str) -> list[dict[str, Any]] | None:
    """The ``resources`` of kubeconform's ``-output json`` report, or None if ``stdout`` is not
    such a report (garbage, a partial write, another output format)."""
    try:
        data = json.loads(stdout)
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("resources"), list):
        return None
    entries: list[dict[str, Any]] = []
    for entry in data["resources"]:
        if not isinstance(entry, dict):
            return None
        if not isinstance(entry.get("filename"), str) or entry.get("status") not in _STATUSES:
            return None
        entries.append(entry)
    return entries


def _failure(completed: Completed) -> str:
    code = completed.returncode
    problem = _first_line(completed.stderr)
    if code is not None and code < 0:
        return f"kubeconform was killed by signal {-code}" + (f": {problem}" if problem else "")
    if code not in (0, 1) or (not completed.stdout.strip() and problem):
        return f"kubeconform failed (exit status {code})" + (f": {problem}" if problem else "")
    snippet = _first_line(completed.stdout) or "(no output)"
    return (
        "kubeconform's output could not be read (expected its -output json report): "
        f"{snippet[:120]}"
    )


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:300]
    return ""


def _merge_entry(
    entry: dict[str, Any],
    sent: Sequence[_Sent],
    written: set[tuple[str, str, str]],
    result: KubeconformResult,
) -> None:
    status = entry["status"]
    if status in ("statusValid", "statusSkipped", "statusEmpty"):
        return
    index = _index_of(entry["filename"])
    if index is None or index >= len(sent):
        result.notes.append(
            f"kubeconform reported a file capzgen did not give it: {entry['filename']}"
        )
        return
    item = sent[index]
    raw_message = entry.get("msg")
    message = raw_message if isinstance(raw_message, str) else ""
    if status == "statusError":
        if _NOT_FOUND_MESSAGE in message and _key(item.gvk) not in written:
            return  # capzgen reports the missing schema itself (or was told to ignore it)
        if _NOT_FOUND_MESSAGE in message:
            message = (
                f"kubeconform could not use the schema capzgen gave it for {item.gvk} "
                f"(it says: {message})"
            )
        result.findings.append(
            Finding(
                Severity.WARNING,
                RULE_ERROR,
                f"kubeconform could not check this object: {message}"
                if not message.startswith("kubeconform")
                else message,
                item.subject,
                item.prefix,
                origin=ORIGIN,
            )
        )
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


def _violations(entry: dict[str, Any], message: str) -> list[tuple[str, str]]:
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


def _index_of(filename: str) -> int | None:
    stem = Path(filename).name.removesuffix(".yaml")
    return int(stem) if stem.isdigit() else None


def pointer_to_path(pointer: str, obj: Any) -> tuple[PathPart, ...]:
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
    node: Any = obj
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


@contextlib.contextmanager
def store_layout(store: Any) -> Iterator[Path]:
    """A temporary folder holding every schema of ``store`` in kubeconform's layout."""
    with tempfile.TemporaryDirectory(prefix="capzgen-kubeconform-") as tmp:
        root = Path(tmp) / "schemas"
        count = write_store_layout(store, root)
        log.info("wrote %d schemas for kubeconform to %s", count, root)
        yield root
