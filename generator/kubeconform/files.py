"""``validate --kubeconform``: kubeconform reads the user's files itself.

What a user compares ``--kubeconform`` with is kubeconform run alone on the same files. Writing
every object out again costs capzgen a parse of everything and kubeconform a slower read, so a
run here is two kubeconform processes started at once, beside capzgen's own validation:

* **files**: kubeconform reads every input file itself, through a folder of links to them (a
  regular file named ``*.yaml``, ``*.yml`` or ``*.json``) and copies of the rest (standard input,
  other names: kubeconform would skip them);
* **embedded**: the ASO resources inside CAPZ objects (``spec.resources``, which kubeconform
  cannot see into) go to the second process as one block-YAML stream, each under a unique name.
  Only documents whose text holds ``resources`` (or an escape that could spell it) are parsed for
  it (:mod:`generator.kubeconform.spans`).

With the result cache on, documents kubeconform found clean before are left out
(:mod:`generator.validate.cache.verdicts`): a file with none left is not sent, a file with some left
is sent as a copy of those, and the embedded resources of those alone are streamed.

Schemas: the apiVersions and kinds named anywhere in the texts (a quick scan that may find too
many, never a problem) are written from the store before kubeconform starts.

kubeconform's report names an object by file, kind, apiVersion and name, not by document. A file
is parsed again only when kubeconform reported something on it, and each entry is matched to its
document by that signature. Two documents of one file under the same signature, or a "could not
find schema" for a kind the store has and the scan missed, are checked again in a third run over
just those documents, sent under unique names (:class:`generator.kubeconform.process.PendingRun`).
Entries for what capzgen reports itself (a file it cannot parse, an object without a usable
apiVersion or kind) are dropped.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import NamedTuple, Protocol

from generator.errors import InputOutputError, YamlError
from generator.findings import JsonPath
from generator.jsontypes import JsonObject
from generator.kubeconform.process import (
    KubeconformOptions,
    PendingRun,
    Process,
    find_binary,
    not_found,
    not_written,
    read_report,
    start_process,
    write_schemas,
)
from generator.kubeconform.report import (
    NOT_FOUND_MESSAGE,
    KubeconformResult,
    Sent,
    merge_entry,
    says_something,
    schema_key,
)
from generator.kubeconform.sent import embedded_in
from generator.kubeconform.spans import FileObjects, joined_spans, parse_spans
from generator.kubeconform.stream import block_yaml, signature, unique_object
from generator.names import valid_api_version
from generator.schemastore.types import GroupVersionKind, SchemaCatalog, SchemaLookup
from generator.yamlio.chunks import spans_of
from generator.yamlio.gcpause import gc_paused
from generator.yamlio.source import STDIN, YAML_SUFFIXES

EMBEDDED_NICENESS = 5  # the embedded resources' kubeconform: a third of the weight of a group

# one embedded resource of a file: its span, its document's number in the span, its path in the
# document, the resource, its apiVersion and kind
Embedded = tuple[int, int, JsonPath, JsonObject, str, str]

# path ("-": standard input) -> its text; raises YamlError or InputOutputError
Reader = Callable[[str], str]

# Patterns that start with their literal word: re then skips along the text ~15x faster than
# with a leading \b (which would only keep out names like "subkind", harmless here).
_KIND = re.compile(r"""kind["']?[ \t]*:[ \t]*["']?([A-Za-z][A-Za-z0-9]*)""")
_API_VERSION = re.compile(r"""apiVersion["']?[ \t]*:[ \t]*["']?([A-Za-z0-9][A-Za-z0-9./-]*)""")
MAX_GUESSED_PAIRS = 1024  # apiVersion x kind pairs looked up one by one; more: the store's index


@dataclass(frozen=True)
class InputFile:
    """One input: how findings name it, and its path (``-`` for standard input)."""

    label: str
    path: str


def _direct(path: str) -> bool:
    """Whether kubeconform can be given ``path`` itself: it opens only regular files named
    ``*.yaml``, ``*.yml`` or ``*.json``."""
    return path != STDIN and path.lower().endswith(YAML_SUFFIXES) and os.path.isfile(path)


def may_embed(text: str, start: int = 0, end: int | None = None) -> bool:
    """Whether ``text[start:end]`` can hold ``resources`` keys: spelled out, or through an
    escape (looked for in place: a slice per document copied the whole fleet again)."""
    return text.find("resources", start, end) >= 0 or text.find("\\", start, end) >= 0


class NamedKinds:
    """The apiVersions and kinds named anywhere in the texts seen (a quick scan that may find
    too many: only schemas get written for them)."""

    def __init__(self) -> None:
        self.kinds: set[str] = set()
        self.versions: set[str] = set()

    def scan(self, text: str) -> None:
        """Add what ``text`` names."""
        self.kinds.update(_KIND.findall(text))
        self.versions.update(v for v in _API_VERSION.findall(text) if valid_api_version(v))

    def gvks(self, store: SchemaLookup | None) -> list[GroupVersionKind]:
        """Every apiVersion paired with every kind; past :data:`MAX_GUESSED_PAIRS` pairs (a
        hostile file naming thousands), the pairs the store's index has (none when the store is
        only a lookup, without an index)."""
        if len(self.kinds) * len(self.versions) <= MAX_GUESSED_PAIRS:
            return [
                GroupVersionKind.from_api_version(version, kind)
                for version in sorted(self.versions)
                for kind in sorted(self.kinds)
            ]
        if not isinstance(store, SchemaCatalog):
            return []
        return [
            info.gvk
            for info in store.entries()
            if info.gvk.api_version in self.versions and info.gvk.kind in self.kinds
        ]


class _Place(NamedTuple):
    """Where an embedded resource sent to kubeconform came from (a named tuple: one is made for
    each of a fleet's thousands, and a frozen dataclass's constructor costs several times a
    tuple's)."""

    label: str
    span: int  # which text between ``---`` lines of the file
    number: int  # which document of that text (nearly always 0)
    prefix: JsonPath


class VerdictMemory(Protocol):
    """Where kubeconform's clean verdicts outlive a run. The validate run's result cache is one
    (:mod:`generator.validate.cache.verdicts`); kubeconform only needs these four answers, so it
    does not depend on how the run keeps them."""

    def salt(self, binary: str) -> bytes:
        """What every key of a run with ``binary`` starts from."""
        ...

    def key(self, salt: bytes, text: str) -> bytes:
        """The key of kubeconform's verdict on ``text`` (a document, or a whole file)."""
        ...

    def clean(self, keys: Sequence[bytes]) -> set[bytes]:
        """Which of ``keys`` kubeconform found clean before."""
        ...

    def remember(self, keys: Iterable[bytes]) -> None:
        """Remember ``keys`` as clean."""
        ...


@contextlib.contextmanager
def start_on_files(
    files: Sequence[InputFile],
    store: SchemaLookup | None,
    options: KubeconformOptions,
    read: Reader,
    verdicts: VerdictMemory | None = None,
) -> Iterator[FilesRun]:
    """kubeconform started on ``files`` in the background (see the module doc); the caller does
    its own work and then calls :meth:`FilesRun.finish`. Leaving the block stops what still runs
    and removes the run's folder. With ``verdicts``, files kubeconform found clean before are
    not sent again, and the files it finds clean now are remembered."""
    with tempfile.TemporaryDirectory(prefix="capzgen-kubeconform-") as tmp:
        run = FilesRun(Path(tmp), store, options, read, verdicts)
        try:
            run.start(files)
            yield run
        finally:
            run.stop()


class FilesRun:
    """The two kubeconform processes of one ``validate --kubeconform``, and their findings."""

    def __init__(
        self,
        root: Path,
        store: SchemaLookup | None,
        options: KubeconformOptions,
        read: Reader,
        verdicts: VerdictMemory | None = None,
    ) -> None:
        self.root = root
        self.verdicts = verdicts
        self.keys: dict[str, list[bytes]] = {}  # label -> verdict keys of the documents sent
        self.fresh: dict[str, set[int] | None] = {}  # label -> spans sent (None: all)
        self.store = store
        self.options = options
        self.read = read
        self.result = KubeconformResult()
        self.deadline = 0.0
        self.processes: dict[str, Process] = {}
        self.labels: dict[str, str] = {}  # what kubeconform reports as filename -> label
        self.paths: dict[str, str] = {}  # label -> path to read it again
        self.sent: set[str] = set()  # labels of the files given to kubeconform
        self.remembered = 0  # files not given to it: it found them clean before
        self.written: set[tuple[str, str, str]] = set()
        self.places: dict[tuple[str, str, str], _Place] = {}  # embedded stream
        self.texts: dict[str, str] = {}  # texts of the files parsed for findings (their lines)

    # --- starting ------------------------------------------------------------------------------

    def start(self, files: Sequence[InputFile]) -> None:
        """Write schemas, start kubeconform on the files, then on their embedded resources."""
        binary = find_binary(self.options)
        if binary is None:
            self.result.notes.append(not_found(self.options))
            return
        self.deadline = time.monotonic() + self.options.timeout
        try:
            named = NamedKinds()
            targets = self._targets(files, binary, named)
            self.written = write_schemas(self.root / "schemas", named.gvks(self.store), self.store)
            if targets:
                self._start(binary, [str(self.root / "inputs")], "files")
            elif self.remembered:
                self.result.ran = True  # every file was found clean before: that verdict stands
            if self._write_embedded(files):
                self._start(binary, [str(self.root / "embedded.yaml")], "embedded")
        except OSError as error:
            self.result.notes.append(not_written(self.root, error))
            self.stop()

    def _targets(self, files: Sequence[InputFile], binary: str, named: NamedKinds) -> list[str]:
        """What kubeconform is given: every readable file (copied where it cannot be given by
        name), without the documents it found clean before (:mod:`generator.validate.cache.verdicts`;
        a file left with some of them is given as a copy of those)."""
        keys = self._scan(files, binary, named)
        known: set[bytes] = set()
        if self.verdicts is not None:
            known = self.verdicts.clean([k for ks in keys.values() for k in ks if k is not None])
        targets: list[str] = []
        for number, item in enumerate(files):
            if item.label not in self.paths or item.label in self.sent:
                continue
            fresh: set[int] | None = None  # the spans to send; None: the whole file
            if item.label in keys:
                fresh = self._fresh(item.label, keys[item.label], known)
                if fresh is not None and not fresh:
                    self.remembered += 1
                    continue
            target = self._target(item, number, fresh)
            if target is not None and target not in self.labels:
                self.labels[target] = item.label
                self.sent.add(item.label)
                self.fresh[item.label] = fresh
                targets.append(target)
        return targets

    def _scan(
        self, files: Sequence[InputFile], binary: str, named: NamedKinds
    ) -> dict[str, list[bytes | None]]:
        """Read every file once (one at a time, none kept: a fleet can be large) for the kinds
        it names and, with verdicts, the key of each of its documents."""
        keys: dict[str, list[bytes | None]] = {}
        salt = b"" if self.verdicts is None else self.verdicts.salt(binary)
        for item in files:
            try:
                text = self.read(item.path)
            except (YamlError, InputOutputError):
                continue  # capzgen reports it; kubeconform gets the other files
            self.paths.setdefault(item.label, item.path)
            named.scan(text)
            if self.verdicts is not None:
                keys[item.label] = _span_keys(self.verdicts, salt, text, item.label)
        return keys

    def _fresh(self, label: str, keys: list[bytes | None], known: set[bytes]) -> set[int] | None:
        """The spans of ``label`` kubeconform has no clean verdict on (empty: none; None: all),
        their keys noted to be remembered."""
        fresh = {n: key for n, key in enumerate(keys) if key is not None and key not in known}
        self.keys[label] = list(fresh.values())
        if len(fresh) == sum(key is not None for key in keys):
            return None
        return set(fresh)

    def _target(self, item: InputFile, number: int, fresh: set[int] | None) -> str | None:
        """Where kubeconform reads ``item`` (only its ``fresh`` spans, unless None): a link to it
        in the run's ``inputs`` folder, or a copy there (standard input, a name kubeconform would
        skip, part of a file, no links here). kubeconform is given that one folder: a fleet of
        50,000 files would not fit on its command line."""
        link = self.root / "inputs" / f"{number}.yaml"
        link.parent.mkdir(exist_ok=True)
        if fresh is None and _direct(item.path):
            with contextlib.suppress(OSError):
                link.symlink_to(os.path.abspath(item.path))
                return str(link)
        try:
            text = self.read(item.path)
            if fresh is not None:
                spans = spans_of(text, item.label)
                text, _ = joined_spans(text, [spans[n] for n in sorted(fresh)])
        except (YamlError, InputOutputError):
            return None
        link.write_text(text, encoding="utf-8")
        return str(link)

    def _write_embedded(self, files: Sequence[InputFile]) -> bool:
        """The embedded ASO resources of every file as one stream; True if there is any.

        The collector waits meanwhile: what is made here has no cycles and is dropped file by
        file, and its collections took a fifth of this (the fleet: ~87 ms paused, 100-137 not)."""
        taken: dict[tuple[str, str, str], int] = {}
        named: dict[tuple[str, str], None] = {}  # apiVersion and kind, in order
        seen: set[str] = set()
        path = self.root / "embedded.yaml"
        with gc_paused(), open(path, "w", encoding="utf-8") as stream:
            for item in files:
                if item.label in seen or item.label not in self.sent:
                    continue
                seen.add(item.label)
                for span, number, prefix, resource, api_version, kind in self._embedded_of(item):
                    obj, key = unique_object(resource, taken, len(taken))
                    taken[key] = len(taken)
                    self.places[key] = _Place(item.label, span, number, prefix)
                    named[api_version, kind] = None
                    stream.write(block_yaml(obj))
        gvks = [GroupVersionKind.from_api_version(*pair) for pair in named]
        missing = [gvk for gvk in gvks if schema_key(gvk) not in self.written]
        self.written |= write_schemas(self.root / "schemas", missing, self.store)
        return bool(taken)

    def _embedded_of(self, item: InputFile) -> list[Embedded]:
        """The embedded resources of one file, each with its span, its document's number in the
        span, and what :func:`~generator.kubeconform.sent.embedded_in` tells of it."""
        try:
            text = self.read(item.path)
            if not may_embed(text):
                return []
            spans = spans_of(text, item.label)
            fresh = self.fresh.get(item.label)
            chosen = [
                n
                for n, (start, end, _) in enumerate(spans)
                if (fresh is None or n in fresh) and may_embed(text, start, end)
            ]
            parsed = parse_spans(text, item.label, spans, chosen)
        except (YamlError, InputOutputError):
            return []  # capzgen reports it
        return [
            (span, number, *found)
            for span, documents in parsed
            for number, document in enumerate(documents)
            for found in embedded_in(document)
        ]

    def _start(self, binary: str, targets: list[str], tag: str) -> None:
        # The embedded resources' run is the shorter one (0.23 of the fleet's 0.7 CPU-s): it
        # yields to the files' run and to capzgen's own validation (see lower_priority), which
        # ended --kubeconform on the fleet 3% sooner (docs/performance.md).
        niceness = EMBEDDED_NICENESS if tag == "embedded" else 0
        process = start_process(
            binary, self.root, targets, tag, self.options, self.result, niceness=niceness
        )
        if process is not None:
            self.processes[tag] = process

    # --- finishing -----------------------------------------------------------------------------

    def finish(self) -> KubeconformResult:
        """Wait for kubeconform (within the time limit, counted from its start) and turn its
        reports into findings."""
        files: list[JsonObject] = []
        embedded: list[JsonObject] = []
        for tag, process in list(self.processes.items()):
            entries = read_report(process.wait(self.deadline), self.options, self.result)
            (files if tag == "files" else embedded).extend(e for e in entries if says_something(e))
        self.processes.clear()
        parsed: dict[str, FileObjects | None] = {}
        again: list[Sent] = []
        for entry in embedded:
            place = self.places.get(signature(entry))
            if place is None:
                merge_entry(entry, None, self.written, self.result)  # a note: not ours
                continue
            found = self._parsed(place.label, parsed)
            if found is None:
                continue  # the file no longer parses: capzgen reports that
            sent = found.at(place.span, place.number, place.prefix)
            merge_entry(entry, sent, self.written, self.result)
        for entry in files:
            again.extend(self._merge_file_entry(entry, parsed))
        if again:
            self._check_again(again)
        self._remember_clean(files, embedded, again)
        return self.result

    def _remember_clean(
        self, files: list[JsonObject], embedded: list[JsonObject], again: list[Sent]
    ) -> None:
        """Remember the files kubeconform reported nothing on, when every run went through."""
        if self.verdicts is None or not self.keys or self.result.notes:
            return
        reported = {self.labels.get(str(entry.get("filename", ""))) for entry in files}
        reported |= {getattr(self.places.get(signature(e)), "label", None) for e in embedded}
        reported |= {sent.subject.file for sent in again}
        if None in reported:
            return  # an entry capzgen cannot place: remember nothing
        self.verdicts.remember(
            key for label, keys in self.keys.items() if label not in reported for key in keys
        )

    def _merge_file_entry(
        self, entry: JsonObject, parsed: dict[str, FileObjects | None]
    ) -> list[Sent]:
        """Merge one entry of the files run; returns the documents to check again instead."""
        kind, api_version, _ = key = signature(entry)
        if not kind or not valid_api_version(api_version):
            return []  # an object without a usable apiVersion/kind: capzgen's structure check
        label = self.labels.get(str(entry.get("filename", "")))
        found = None if label is None else self._parsed(label, parsed)
        if label is not None and found is None:
            return []  # a file capzgen cannot parse: capzgen reports that
        candidates = [] if found is None else found.top.get(key, [])
        if len(candidates) > 1:
            return candidates  # the report cannot tell them apart
        sent = candidates[0] if candidates else None
        if sent is not None and self._schema_missed(entry, sent):
            return [sent]
        merge_entry(entry, sent, self.written, self.result)
        return []

    def _schema_missed(self, entry: JsonObject, sent: Sent) -> bool:
        """A "could not find schema" for a kind whose schema the store has but was not written."""
        message = entry.get("msg")
        if not isinstance(message, str) or NOT_FOUND_MESSAGE not in message:
            return False
        if schema_key(sent.gvk) in self.written or self.store is None:
            return False
        return self.store.lookup(sent.gvk.api_version, sent.gvk.kind) is not None

    def _parsed(self, label: str, parsed: dict[str, FileObjects | None]) -> FileObjects | None:
        """The documents of ``label`` (None when it cannot be read or parsed), parsed once."""
        if label not in parsed:
            try:
                text = self.read(self.paths[label])
                parsed[label] = FileObjects(text, label)
                self.texts[label] = text
            except (YamlError, InputOutputError, KeyError):
                parsed[label] = None
        return parsed[label]

    def _check_again(self, again: list[Sent]) -> None:
        """The documents the files run could not answer for, sent one by one by name."""
        unique = list({id(sent): sent for sent in again}.values())
        left = self.deadline - time.monotonic()
        with tempfile.TemporaryDirectory(dir=self.root, prefix="again-") as tmp:
            pending = PendingRun(Path(tmp), replace(self.options, timeout=max(left, 0.0)))
            try:
                pending.start(unique, self.store)
                result = pending.finish()
            finally:
                pending.stop()
        self.result.findings.extend(result.findings)
        self.result.notes.extend(n for n in result.notes if n not in self.result.notes)

    def stop(self) -> None:
        """Stop every kubeconform still running."""
        for process in self.processes.values():
            process.stop()
        self.processes.clear()


def _span_keys(memory: VerdictMemory, salt: bytes, text: str, label: str) -> list[bytes | None]:
    """The verdict key of each span of ``text`` (None for a blank one); one key for the whole
    text when its ``---`` lines cannot be cut (capzgen reports why)."""
    try:
        spans = spans_of(text, label)
    except YamlError:
        return [memory.key(salt, text)]
    return [
        memory.key(salt, text[start:end]) if text[start:end].strip() else None
        for start, end, _ in spans
    ]
