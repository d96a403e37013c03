"""A second opinion from kubeconform, the validator GitOps pipelines already run.

:func:`run_kubeconform` hands kubeconform objects capzgen holds (``generate --kubeconform``: the
output before it is written), offline and with capzgen's own schemas, and turns its JSON report
into findings (``origin="kubeconform"``). ``validate --kubeconform`` gives kubeconform the user's
files themselves instead (:mod:`generator.kubeconform.files`), with the pieces below.

* every top-level object *and* every ASO resource embedded in a CAPZ object (``spec.resources``,
  which the CAPZ CRDs leave unchecked) is written as a document of its own into ONE multi-document
  stream in block YAML (one file: kubeconform splits it and validates on its own goroutines).
  kubeconform names each result by kind, apiVersion and ``metadata.name``, so an object whose
  triple repeats an earlier one is sent under a unique name (``<name>.capzgen-<n>``; the schemas
  never constrain ``metadata.name``), and every result maps back to exactly one
  :class:`~generator.findings.Subject` and its JSON pointer to an absolute path in the original
  document (line numbers are added by the caller);
* the schema of every apiVersion/kind present is written from the store in kubeconform's template
  layout ``<dir>/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json`` (``ResourceKind`` is
  lower-cased by kubeconform; for core kinds ``Group`` is the version, e.g. ``v1/secret_v1.json``),
  and that folder is the *only* ``-schema-location``: kubeconform never goes to the network;
* kubeconform runs as ``kubeconform -strict -summary -output json -schema-location <layout>
  <files>`` in its own process group, killed as a whole when it exceeds the timeout.

Whatever goes wrong with kubeconform itself (not installed, cannot start, crashes, times out,
prints something that is not its JSON report) becomes one line in :attr:`KubeconformResult.notes`
and never an exception: capzgen's own findings are always kept, and the exit status is decided by
the findings alone. How its report becomes findings is :mod:`generator.kubeconform.report`.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from generator import children
from generator.documents import Document
from generator.errors import Location, SchemaStoreError
from generator.jsontypes import Json, JsonObject
from generator.kubeconform.report import (
    Completed,
    KubeconformResult,
    Sent,
    failure,
    first_line,
    merge_entry,
    parse_report,
    schema_key,
)
from generator.kubeconform.sent import sent_objects
from generator.kubeconform.stream import STREAM, signature, write_stream
from generator.schemastore.compiler import RE2_PATTERN
from generator.schemastore.handle import CompiledSchema
from generator.schemastore.paths import confined, gvk_path_problem
from generator.schemastore.types import GroupVersionKind, SchemaCatalog, SchemaLookup

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


def schema_for_kubeconform(schema: Json) -> Json:
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


def write_schema(root: Path, gvk: GroupVersionKind, schema: Mapping[str, Json]) -> None:
    """Write ``schema`` where kubeconform looks for ``gvk`` in ``root``, RE2 patterns restored."""
    data = json.dumps(schema_for_kubeconform(dict(schema)), separators=(",", ":"))
    for relative in layout_paths(gvk):
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        # a kubeconform already running may look for it: it sees the whole file or none
        partial = target.with_name(f".{target.name}.partial")
        partial.write_text(data, encoding="utf-8")
        os.replace(partial, target)


def schema_location(root: Path) -> str:
    """The ``-schema-location`` argument for a folder laid out by :func:`write_schema`."""
    return f"{root}{os.sep}{SCHEMA_TEMPLATE}"


def write_store_layout(store: SchemaCatalog, root: Path) -> int:
    """Every schema of a catalog (first source of a GVK wins) in kubeconform's layout."""
    count = 0
    for gvk, source, schema in store.effective_schemas():
        # A GVK becomes <group>/<kind>_<version>.json: one that would climb out of the layout
        # (a tampered cache index, say) is refused, and every file checked to stay below root.
        problem = gvk_path_problem(gvk)
        if problem is not None:
            msg = f"the schema of {gvk} cannot be laid out for kubeconform: {problem}"
            raise SchemaStoreError(msg, location=Location(file=source))
        for relative in layout_paths(gvk):
            confined(root, relative)
        write_schema(root, gvk, schema)
        count += 1
    return count


# --- running -----------------------------------------------------------------------------------


def find_binary(options: KubeconformOptions) -> str | None:
    """The binary, looked up on the PATH of the environment capzgen was given."""
    return shutil.which(options.binary or BINARY, path=options.environ.get("PATH", os.defpath))


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
            pending.start(list(sent_objects(documents)), store)
            yield pending
        finally:
            pending.stop()


class Process:
    """One kubeconform process, its output going to two files beside its input (so it never
    waits on a full pipe while capzgen is busy), and how it ended."""

    def __init__(self, popen: subprocess.Popen[bytes], out: Path, err: Path) -> None:
        self.popen: subprocess.Popen[bytes] | None = popen
        self.out = out
        self.err = err

    def wait(self, deadline: float) -> Completed:
        """Wait until ``deadline`` (monotonic seconds), killing the process group then."""
        popen, self.popen = self.popen, None
        returncode: int | None = None
        if popen is not None:
            try:
                returncode = children.wait(popen, deadline - time.monotonic())
            except subprocess.TimeoutExpired:
                children.kill_group(popen, 5)
            except BaseException:  # Ctrl-C, SIGTERM: it is no longer this object's to stop
                children.kill_group(popen, 5)
                raise
        return Completed(returncode, _output(self.out), _output(self.err))

    def stop(self) -> None:
        """Stop the process if it still runs (its whole process group)."""
        popen, self.popen = self.popen, None
        if popen is not None and popen.poll() is None:
            children.kill_group(popen, 5)


class PendingRun:
    """One kubeconform run over objects capzgen holds: the stream written, the process started,
    its report read at the end."""

    def __init__(self, root: Path, options: KubeconformOptions) -> None:
        self.root = root
        self.options = options
        self.result = KubeconformResult()
        self.process: Process | None = None
        self.deadline = 0.0
        self.sent: list[Sent] = []
        self.written: set[tuple[str, str, str]] = set()
        self.names: dict[tuple[str, str, str], int] = {}

    def start(self, sent: list[Sent], store: SchemaLookup | None) -> None:
        """Write the stream of ``sent`` and start kubeconform on it (or note why it cannot run)."""
        binary = find_binary(self.options)
        if binary is None:
            self.result.notes.append(not_found(self.options))
            return
        self.sent = sent
        if not sent:
            return
        try:
            self.written = write_schemas(self.root / "schemas", (s.gvk for s in sent), store)
            self.names = write_stream(self.root / STREAM, sent)
        except OSError as error:
            self.result.notes.append(not_written(self.root, error))
            return
        self.deadline = time.monotonic() + self.options.timeout
        self.process = start_process(
            binary, self.root, [str(self.root / STREAM)], "objects", self.options, self.result
        )

    def finish(self) -> KubeconformResult:
        """Wait for kubeconform (within the time limit, counted from its start) and turn its
        report into findings."""
        if self.process is None:
            return self.result
        completed = self.process.wait(self.deadline)
        self.process = None
        for entry in read_report(completed, self.options, self.result):
            index = self.names.get(signature(entry))
            merge_entry(
                entry, None if index is None else self.sent[index], self.written, self.result
            )
        return self.result

    def stop(self) -> None:
        """Stop a kubeconform still running."""
        if self.process is not None:
            self.process.stop()
        self.process = None


MAX_OUTPUT = 64 << 20  # bytes of kubeconform's report read at most


def not_found(options: KubeconformOptions) -> str:
    """The note for a kubeconform that is not on the PATH capzgen was given."""
    if options.binary is None:
        return NOT_FOUND
    return f"kubeconform ({options.binary}) not found; {INSTALL_HINT}"


def not_written(root: Path, error: OSError) -> str:
    """The note for kubeconform's input that could not be written."""
    return (
        f"kubeconform was not run: its input could not be written to {root}: "
        f"{error.strerror or error}"
    )


def _output(path: Path) -> str:
    try:
        with open(path, "rb") as handle:
            return _text(handle.read(MAX_OUTPUT))
    except OSError:
        return ""


def beside_environ(environ: Mapping[str, str]) -> dict[str, str]:
    """What kubeconform runs with beside capzgen's validation: ``environ``, with GOMAXPROCS=1
    and GOGC=400 unless it sets them. capzgen's workers already use every core, and the Go
    runtime's threads competing with them cost more than they give: ``validate --kubeconform``
    on the 1,000-cluster fleet took 1.58 s with kubeconform's default and 1.39 s with one
    thread per kubeconform process (it runs two: the files, and the embedded resources). Its
    collector, left to run less often, takes 10% less CPU on the fleet (0.54 -> 0.49 s; the
    embedded resources 0.27 -> 0.24 s), for a peak of 42-50 MB instead of 21-28."""
    return {"GOMAXPROCS": "1", "GOGC": "400", **environ}


def start_process(
    binary: str,
    root: Path,
    targets: Sequence[str],
    tag: str,
    options: KubeconformOptions,
    result: KubeconformResult,
    *,
    niceness: int = 0,
) -> Process | None:
    """Start kubeconform on ``targets`` (files), its output to ``<tag>.out``/``.err`` in
    ``root``, at a lower priority when ``niceness`` is positive (:func:`lower_priority`); None
    (and a note) when it cannot start."""
    argv = [
        binary,
        "-strict",
        "-summary",
        "-output",
        "json",
        "-schema-location",
        schema_location(root / "schemas"),
        *targets,
    ]
    log.info("running %s on %d files", binary, len(targets))
    out, err = root / f"{tag}.out", root / f"{tag}.err"
    try:
        with open(out, "wb") as out_file, open(err, "wb") as err_file:
            popen = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=out_file,
                stderr=err_file,
                env=beside_environ(options.environ),
                start_new_session=True,
            )
    except OSError as error:
        result.notes.append(
            f"kubeconform ({binary}) could not be started: {error.strerror or error}; "
            f"{INSTALL_HINT}"
        )
        return None
    if niceness > 0:
        lower_priority(popen.pid, niceness)
    return Process(popen, out, err)


def lower_priority(pid: int, niceness: int) -> None:
    """Best effort: let the process ``pid`` (a kubeconform capzgen started) yield the CPU to the
    others of the run, with ``niceness`` (1-19) given to its session's scheduling group.

    kubeconform runs in a session of its own (so that a time-out ends all of it), and where
    Linux schedules by session (``/proc/sys/kernel/sched_autogroup_enabled``), each session
    gets an equal share of the cores whatever its number of processes: beside capzgen's
    validation and the files' kubeconform, the embedded resources' kubeconform had a third of
    two cores, and capzgen's own parent and workers together the same third. Only the group's
    own niceness changes that (``/proc/<pid>/autogroup``, which the process's owner may raise;
    a process's niceness counts only within its group). A process already gone, or a system
    without such groups, is left as it is. The process is not waited for yet: its number
    cannot have passed to another."""
    path = f"/proc/{pid}/autogroup"
    with contextlib.suppress(OSError), open(path, "w", encoding="ascii") as group:
        group.write(f"{niceness}\n")


def read_report(
    completed: Completed, options: KubeconformOptions, result: KubeconformResult
) -> list[JsonObject]:
    """The entries of kubeconform's JSON report; notes for a timeout or a failed run."""
    if completed.returncode is None:
        result.notes.append(
            f"kubeconform did not finish within {options.timeout:g}s and was stopped; "
            "its findings are missing (raise --kubeconform-timeout)"
        )
        return []
    report = parse_report(completed.stdout)
    if report is None:
        result.notes.append(failure(completed))
        return []
    result.ran = True
    if completed.returncode not in (0, 1):  # 1 means "some object is invalid or unchecked"
        problem = first_line(completed.stderr)
        result.notes.append(
            f"kubeconform exited with status {completed.returncode}"
            + (f": {problem}" if problem else "")
        )
    return report


def write_schemas(
    root: Path, gvks: Iterable[GroupVersionKind], store: SchemaLookup | None
) -> set[tuple[str, str, str]]:
    """Schemas of ``gvks`` the store has, in kubeconform's layout under ``root``; returns the
    (group, version, lower kind) keys written."""
    written: set[tuple[str, str, str]] = set()
    tried: set[tuple[str, str, str]] = set()
    root.mkdir(parents=True, exist_ok=True)
    for gvk in gvks:
        key = schema_key(gvk)
        if key in tried or store is None:
            continue
        tried.add(key)
        schema = _document(store, gvk)
        if schema is not None:
            write_schema(root, gvk, schema)
            written.add(key)
    return written


def _document(store: SchemaLookup, gvk: GroupVersionKind) -> Mapping[str, Json] | None:
    """The schema of ``gvk``: a catalog's document as it stands, not compiled (nothing in this
    process validates with it); a bare lookup's handle's (a test's fakes keep none)."""
    if isinstance(store, SchemaCatalog):
        return store.document(gvk.api_version, gvk.kind)
    handle = store.lookup(gvk.api_version, gvk.kind)
    return handle.schema if isinstance(handle, CompiledSchema) else None


@contextlib.contextmanager
def store_layout(store: SchemaCatalog) -> Iterator[Path]:
    """A temporary folder holding every schema of ``store`` in kubeconform's layout."""
    with tempfile.TemporaryDirectory(prefix="capzgen-kubeconform-") as tmp:
        root = Path(tmp) / "schemas"
        count = write_store_layout(store, root)
        log.info("wrote %d schemas for kubeconform to %s", count, root)
        yield root
