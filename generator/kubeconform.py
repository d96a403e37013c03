"""A second opinion from kubeconform, the validator GitOps pipelines already run.

:func:`run_kubeconform` hands kubeconform what capzgen validated, offline and with capzgen's own
schemas, and turns its JSON report into findings (``origin="kubeconform"``):

* every top-level object *and* every ASO resource embedded in a CAPZ object (``spec.resources``,
  which the CAPZ CRDs leave unchecked) is written as a document of its own into ONE multi-document
  stream (one file: kubeconform splits it and validates on its own goroutines). kubeconform names
  each result by kind, apiVersion and ``metadata.name``, so an object whose triple repeats an
  earlier one is sent under a unique name (``<name>.capzgen-<n>``; the schemas never constrain
  ``metadata.name``), and every result maps back to exactly one :class:`~generator.findings.Subject`
  and its JSON pointer to an absolute path in the original document (line numbers are added by
  the caller);
* the schema of every apiVersion/kind present is written from the store in kubeconform's template
  layout ``<dir>/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json`` (``ResourceKind`` is
  lower-cased by kubeconform; for core kinds ``Group`` is the version, e.g. ``v1/secret_v1.json``),
  and that folder is the *only* ``-schema-location``: kubeconform never goes to the network;
* kubeconform runs as ``kubeconform -strict -summary -output json -schema-location <layout>
  <stream file>`` in its own process group, killed as a whole when it exceeds the timeout.

Whatever goes wrong with kubeconform itself (not installed, cannot start, crashes, times out,
prints something that is not its JSON report) becomes one line in :attr:`KubeconformResult.notes`
and never an exception: capzgen's own findings are always kept, and the exit status is decided by
the findings alone. How its report becomes findings is :mod:`generator.kubeconform_report`.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from generator.documents import Document
from generator.findings import Subject
from generator.kubeconform_report import (
    Completed,
    KubeconformResult,
    Sent,
    failure,
    first_line,
    merge_entry,
    parse_report,
    schema_key,
)
from generator.model import kinds
from generator.model.manifests import embedded_items
from generator.names import valid_api_version
from generator.schemastore.compiler import RE2_PATTERN
from generator.schemastore.types import GroupVersionKind, SchemaLookup

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 60.0
BINARY = "kubeconform"
INSTALL_HINT = (
    "install it from https://github.com/yannh/kubeconform/releases or "
    "'go install github.com/yannh/kubeconform/cmd/kubeconform@latest'"
)
NOT_FOUND = f"kubeconform not found on PATH; {INSTALL_HINT}"
SCHEMA_TEMPLATE = "{{ .Group }}/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json"


@dataclass(frozen=True)
class KubeconformOptions:
    """How to run kubeconform: a time limit in seconds, which binary, and the environment it gets.

    ``environ`` is also where the binary is looked up (its ``PATH``); capzgen's own process
    environment is not consulted.
    """

    timeout: float = DEFAULT_TIMEOUT  # seconds
    binary: str | None = None  # None: "kubeconform" from the environment's PATH
    environ: Mapping[str, str] = field(default_factory=dict)  # what kubeconform runs with


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
    (moved to ``x-capzgen-re2-pattern`` by the store) go back to ``pattern``, since kubeconform
    uses Go's RE2 as the API server does. Everything else, ``x-`` keys included, is kept."""
    if isinstance(schema, dict):
        out = {key: schema_for_kubeconform(value) for key, value in schema.items()}
        moved = out.pop(RE2_PATTERN, None)
        if isinstance(moved, str) and "pattern" not in out:
            out["pattern"] = moved
        return out
    if isinstance(schema, list):
        return [schema_for_kubeconform(item) for item in schema]
    return schema


def write_schema(root: Path, gvk: GroupVersionKind, schema: Mapping[str, Any]) -> None:
    """Write ``schema`` where kubeconform looks for ``gvk`` in ``root``, RE2 patterns restored."""
    data = json.dumps(schema_for_kubeconform(dict(schema)), separators=(",", ":"))
    for relative in layout_paths(gvk):
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(data, encoding="utf-8")


def schema_location(root: Path) -> str:
    """The ``-schema-location`` argument for a folder laid out by :func:`write_schema`."""
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
    """The binary, looked up on the PATH of the environment capzgen was given."""
    return shutil.which(options.binary or BINARY, path=options.environ.get("PATH", os.defpath))


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
    with start_kubeconform(documents, store, options) as pending:
        return pending.finish()


@contextlib.contextmanager
def start_kubeconform(
    documents: Sequence[Document],
    store: SchemaLookup | None,
    options: KubeconformOptions = KubeconformOptions(),
) -> Iterator[PendingRun]:
    """kubeconform started on ``documents`` in the background: the caller does its own work and
    then calls :meth:`PendingRun.finish`. Leaving the block stops a kubeconform still running
    (an error or Ctrl-C in the caller's work) and removes its files."""
    with tempfile.TemporaryDirectory(prefix="capzgen-kubeconform-") as tmp:
        pending = PendingRun(Path(tmp), options)
        try:
            pending.start(documents, store)
            yield pending
        finally:
            pending.stop()


class PendingRun:
    """One kubeconform run: its input written, the process started, its report read at the end.

    kubeconform's output goes to files, so it never waits on a full pipe while capzgen is busy."""

    def __init__(self, root: Path, options: KubeconformOptions) -> None:
        self.root = root
        self.options = options
        self.result = KubeconformResult()
        self.process: subprocess.Popen[bytes] | None = None
        self.started = 0.0
        self.sent: list[Sent] = []
        self.inputs: tuple[set[tuple[str, str, str]], dict[tuple[str, str, str], int]] | None = None

    def start(self, documents: Sequence[Document], store: SchemaLookup | None) -> None:
        """Write the input and start kubeconform (or note why it cannot run)."""
        binary = find_binary(self.options)
        if binary is None:
            self.result.notes.append(
                NOT_FOUND
                if self.options.binary is None
                else f"kubeconform ({self.options.binary}) not found; {INSTALL_HINT}"
            )
            return
        self.sent = list(_objects(documents))
        if not self.sent:
            return
        self.inputs = _write_inputs(self.root, self.sent, store, self.result)
        if self.inputs is not None:
            self.process = start_process(
                binary, self.root, len(self.sent), self.options, self.result
            )
            self.started = time.monotonic()

    def finish(self) -> KubeconformResult:
        """Wait for kubeconform (within the time limit, counted from its start) and turn its
        report into findings."""
        if self.process is None or self.inputs is None:
            return self.result
        left = max(0.0, self.options.timeout - (time.monotonic() - self.started))
        try:
            returncode: int | None = self.process.wait(timeout=left)
        except subprocess.TimeoutExpired:
            _kill_group(self.process)
            returncode = None
        self.process = None
        completed = Completed(returncode, _output(self.root / OUT), _output(self.root / ERR))
        written, names = self.inputs
        _read_report(completed, self.sent, written, names, self.options, self.result)
        return self.result

    def stop(self) -> None:
        """Stop a kubeconform still running (its whole process group)."""
        if self.process is not None and self.process.poll() is None:
            _kill_group(self.process)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=5)
        self.process = None


OUT, ERR = "kubeconform.out", "kubeconform.err"
MAX_OUTPUT = 64 << 20  # bytes of kubeconform's report read at most


def _output(path: Path) -> str:
    try:
        with open(path, "rb") as handle:
            return _text(handle.read(MAX_OUTPUT))
    except OSError:
        return ""


def _write_inputs(
    root: Path, sent: Sequence[Sent], store: SchemaLookup | None, result: KubeconformResult
) -> tuple[set[tuple[str, str, str]], dict[tuple[str, str, str], int]] | None:
    """Schemas and the one stream of objects under ``root``, with the (kind, apiVersion, name)
    each object was sent as; None (and a note) when that fails."""
    try:
        written = _write_schemas(root / "schemas", sent, store)
        names: dict[tuple[str, str, str], int] = {}
        with open(root / STREAM, "w", encoding="utf-8") as stream:
            for index, item in enumerate(sent):
                obj, key = _unique(item, names, index)
                names[key] = index
                stream.write("---\n")
                stream.write(json.dumps(obj, ensure_ascii=True, default=str))
                stream.write("\n")
    except OSError as error:
        result.notes.append(
            f"kubeconform was not run: its input could not be written to {root}: "
            f"{error.strerror or error}"
        )
        return None
    return written, names


STREAM = "objects.yaml"


def write_input(root: Path, documents: Sequence[Document], store: SchemaLookup | None) -> Path:
    """What ``--kubeconform`` gives kubeconform, written under ``root``: the stream file (its
    schemas beside it in ``root / "schemas"``). For measuring kubeconform on the same input."""
    result = KubeconformResult()
    if _write_inputs(root, list(_objects(documents)), store, result) is None:
        raise OSError(result.notes[0])
    return root / STREAM


def _unique(
    item: Sent, taken: dict[tuple[str, str, str], int], index: int
) -> tuple[dict[str, Any], tuple[str, str, str]]:
    """The object as sent, and the (kind, apiVersion, name) kubeconform will report it under."""
    meta = item.obj.get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    name = name if isinstance(name, str) else ""
    key = (item.gvk.kind, item.obj.get("apiVersion", ""), name)
    if key not in taken:
        return item.obj, key
    unique = f"{name}.capzgen-{index}" if name else f"capzgen-{index}"
    obj = {**item.obj, "metadata": {**(meta if isinstance(meta, dict) else {}), "name": unique}}
    return obj, (key[0], key[1], unique)


def start_process(
    binary: str, root: Path, count: int, options: KubeconformOptions, result: KubeconformResult
) -> subprocess.Popen[bytes] | None:
    """Start kubeconform on the stream in ``root`` (output to files there), or note why not."""
    argv = [
        binary,
        "-strict",
        "-summary",
        "-output",
        "json",
        "-schema-location",
        schema_location(root / "schemas"),
        str(root / STREAM),
    ]
    log.info("running %s on %d objects", binary, count)
    try:
        with open(root / OUT, "wb") as out, open(root / ERR, "wb") as err:
            return subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                env=dict(options.environ),
                start_new_session=True,
            )
    except OSError as error:
        result.notes.append(
            f"kubeconform ({binary}) could not be started: {error.strerror or error}; "
            f"{INSTALL_HINT}"
        )
        return None


def _read_report(
    completed: Completed,
    sent: Sequence[Sent],
    written: set[tuple[str, str, str]],
    names: dict[tuple[str, str, str], int],
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
        result.notes.append(failure(completed))
        return
    result.ran = True
    for entry in report:
        key = (
            str(entry.get("kind", "")),
            str(entry.get("version", "")),
            str(entry.get("name", "")),
        )
        index = names.get(key)
        merge_entry(entry, None if index is None else sent[index], written, result)
    if completed.returncode not in (0, 1):  # 1 means "some object is invalid or unchecked"
        problem = first_line(completed.stderr)
        result.notes.append(
            f"kubeconform exited with status {completed.returncode}"
            + (f": {problem}" if problem else "")
        )


def _objects(documents: Sequence[Document]) -> Iterator[Sent]:
    """Every mapping document and every ASO resource embedded in one, as sent to kubeconform."""
    for document in documents:
        obj = document.obj
        if not isinstance(obj, dict):
            continue
        kind = obj.get("kind")
        kind = kind if isinstance(kind, str) else ""
        meta = obj.get("metadata")
        name = meta.get("name") if isinstance(meta, dict) else None
        subject = Subject(
            file=document.source,
            document=document.index,
            kind=kind or None,
            name=name if isinstance(name, str) else None,
        )
        in_template = kind in kinds.TEMPLATE_KINDS
        gvk = _gvk(obj)
        if gvk is not None:
            yield Sent(subject, (), obj, gvk, in_template)
        prefix, items = embedded_items(obj, kind)
        for index, item in enumerate(items or ()):
            gvk = _gvk(item) if isinstance(item, dict) else None
            if gvk is not None:
                path = (*prefix, index)
                yield Sent(subject.embedded(path, item), path, item, gvk, in_template)


def _gvk(obj: dict[str, Any]) -> GroupVersionKind | None:
    """Objects without a usable apiVersion/kind are left out: the structure check reports them."""
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str) or not kind:
        return None
    if not valid_api_version(api_version):
        return None
    return GroupVersionKind.from_api_version(api_version, kind)


def _write_schemas(
    root: Path, sent: Sequence[Sent], store: SchemaLookup | None
) -> set[tuple[str, str, str]]:
    """Schemas of the kinds present; returns the (group, version, lower kind) keys written."""
    written: set[tuple[str, str, str]] = set()
    tried: set[tuple[str, str, str]] = set()
    root.mkdir(parents=True, exist_ok=True)
    for item in sent:
        key = schema_key(item.gvk)
        if key in tried or store is None:
            continue
        tried.add(key)
        handle = store.lookup(item.gvk.api_version, item.gvk.kind)
        schema = getattr(handle, "schema", None) if handle is not None else None
        if isinstance(schema, Mapping):
            write_schema(root, item.gvk, schema)
            written.add(key)
    return written


@contextlib.contextmanager
def store_layout(store: Any) -> Iterator[Path]:
    """A temporary folder holding every schema of ``store`` in kubeconform's layout."""
    with tempfile.TemporaryDirectory(prefix="capzgen-kubeconform-") as tmp:
        root = Path(tmp) / "schemas"
        count = write_store_layout(store, root)
        log.info("wrote %d schemas for kubeconform to %s", count, root)
        yield root
