"""Which files of a folder ``capzgen validate`` reads: a ``kustomization.yaml`` decides.

capzgen's own ``--output-dir`` folders (and most GitOps repositories) hold a kustomize
``kustomization.yaml`` next to the manifests. It is not a Kubernetes object, so it is never
validated as one; instead its ``resources`` list (and the deprecated ``bases``) says what the
folder applies, the way ``kubectl kustomize`` reads it:

* a file entry is validated; a folder entry is followed through that folder's own kustomization
  file (kustomize requires one), recursively, each kustomization once;
* files next to a kustomization file that it does not list are not validated (capzgen's Flux
  ``flux-kustomization.yaml`` is such a file: name it explicitly to check it);
* nothing is fetched and nothing outside the folder the user named is read (kustomize's default
  load restrictor, ``LoadRestrictionsRootOnly``, with the folder named as the root): an entry that
  is a remote URL, or that names a path outside that folder, is an error finding on the
  kustomization file, as is an entry that does not exist; a symbolic link that leads outside (a
  linked ``kustomization.yaml``, a linked file in a plain folder or a linked entry) is refused
  unread, with an error naming the link and its target that makes the run fail with exit 2.
  ``InputRules(load_restrictor=LoadRestrictor.NONE)`` (``--load-restrictor
  LoadRestrictionsNone``) lifts both;
* fields that would change the objects (``patches``, ``namePrefix``, generators...) are not
  applied: one warning says so, and the listed resources are validated as written.

A folder without a kustomization file is walked as before (``*.yaml``, ``*.yml``, ``*.json``,
hidden entries skipped, folder symlinks not followed), except that each sub-folder holding a
kustomization file is read through it, so a fleet's top folder works too. Naming a kustomization
file itself means its folder.

Every walk is bounded (:class:`InputRules`): folders and kustomizations are followed with an
explicit stack at most 64 levels deep, a kustomization list holds at most 10,000 entries, and a
run reads at most 100,000 files; past a bound, one clear error.
"""

from __future__ import annotations

import enum
import logging
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from generator.errors import InputOutputError, Location, YamlError
from generator.findings import Finding, JsonPath, Severity, Subject
from generator.jsontypes import Json, JsonObject
from generator.validate.globs import Globs
from generator.yamlio.load import load_value, read_source
from generator.yamlio.locate import LineLocator
from generator.yamlio.source import YAML_SUFFIXES
from generator.yamlio.walk import MAX_FOLDER_DEPTH, too_deep

log = logging.getLogger(__name__)

KUSTOMIZATION_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
# Its findings keep the default gate, admission: `kubectl apply -k` builds the kustomization
# before anything is sent, so an entry it cannot build stops the apply as the API server would.
# The warnings (entries capzgen does not follow) stand for that same build.
RULE = "kustomization"
LIST_FIELDS = ("resources", "bases")
# Fields that say nothing about the objects themselves.
_NEUTRAL_FIELDS = frozenset({"apiVersion", "kind", "metadata", "sortOptions", *LIST_FIELDS})
_REMOTE = re.compile(r"^(?:[a-z][a-z0-9+.-]*://|git@|git::)", re.IGNORECASE)
_HOST_LIKE = re.compile(r"^[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}/", re.IGNORECASE)


class LoadRestrictor(enum.Enum):
    """Which files a folder argument may reach, as kustomize's ``--load-restrictor`` says it."""

    ROOT_ONLY = "LoadRestrictionsRootOnly"  # nothing outside the folder named (the default)
    NONE = "LoadRestrictionsNone"  # links and entries may lead anywhere


@dataclass(frozen=True, slots=True)
class InputRules:
    """What one validate run may read: the load restrictor, how deep a folder tree, how many
    entries one kustomization list and how many files the whole run, and which paths are
    excluded (carried here so that every way of reaching a file honours them)."""

    load_restrictor: LoadRestrictor = LoadRestrictor.ROOT_ONLY
    max_depth: int = MAX_FOLDER_DEPTH
    max_entries: int = 10_000
    max_files: int = 100_000
    exclude: tuple[Globs, ...] = ()  # files and folders not read (``--exclude``)
    include: tuple[Globs, ...] = ()  # if any: the only files a folder walk takes

    def excluded(self, path: str) -> bool:
        """Whether ``path`` (a file or folder) is kept out of the run, unread."""
        return any(globs.match(path) for globs in self.exclude)

    def walk_takes(self, path: str) -> bool:
        """Whether a file found by walking a folder is validated: not excluded, and matched by
        an include pattern when there are any (a named file or a listed resource is explicit:
        include patterns do not apply to it)."""
        if self.excluded(path):
            return False
        patterns = [globs for globs in self.include if globs.patterns]
        return not patterns or any(globs.match(path) for globs in patterns)


DEFAULT_RULES = InputRules()


@dataclass
class FolderInputs:
    """The files to validate for one folder argument, and problems met while choosing them
    (``refused``: files the load restrictor kept out, which make the run fail with exit 2)."""

    rules: InputRules = DEFAULT_RULES
    files: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    refused: list[Finding] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)  # real paths of files and kustomizations taken
    max_files: int = DEFAULT_RULES.max_files  # files this argument may still add

    def add_file(self, path: str) -> None:
        """Take ``path`` once, however many times it is reached."""
        real = os.path.realpath(path)
        if real not in self.seen:
            if len(self.files) >= self.max_files:
                raise too_many_files(path, self.rules.max_files)
            self.seen.add(real)
            self.files.append(path)


class TooManyFiles(InputOutputError):
    """A run's inputs hold more files than :attr:`InputRules.max_files`: the whole run stops."""


def too_many_files(path: str, limit: int) -> TooManyFiles:
    """The error for a run whose inputs hold more than ``limit`` files (``path``: the first over)."""
    msg = f"more than {limit} files to validate; not validated"
    return TooManyFiles(
        msg,
        location=Location(file=path),
        hint=f"capzgen validates at most {limit} files in one run; validate the folders in parts",
    )


@dataclass(frozen=True, slots=True)
class _Frame:
    """One folder or kustomization file being read: its place, and the frames it leads to."""

    place: str
    steps: Iterator[_Frame]


def is_kustomization_file(path: str) -> bool:
    """Whether ``path`` is named like a kustomization file (and is not a folder)."""
    return os.path.basename(path) in KUSTOMIZATION_FILES and not os.path.isdir(path)


def kustomization_in(folder: str) -> str | None:
    """The kustomization file of ``folder``, in kustomize's order of names, if there is one."""
    for name in KUSTOMIZATION_FILES:
        candidate = os.path.join(folder, name)
        if os.path.isfile(candidate):
            return candidate
    return None


def collect_inputs(
    path: str, rules: InputRules = DEFAULT_RULES, *, max_files: int | None = None
) -> FolderInputs:
    """Files to validate for ``path``: a folder, or a kustomization file standing for its folder
    (at most ``max_files`` of them, ``rules.max_files`` if not given).

    The folders and kustomizations are read depth-first with an explicit stack (no recursion),
    at most ``rules.max_depth`` levels down: deeper is an InputOutputError naming the folder.
    """
    inputs = FolderInputs(rules, max_files=rules.max_files if max_files is None else max_files)
    if is_kustomization_file(path):
        folder = os.path.dirname(path) or "."
        first = _Frame(path, _follow(path, os.path.realpath(folder), inputs))
    else:
        first = _folder_frame(path, os.path.realpath(path), inputs)
    stack = [first]
    while stack:
        child = next(stack[-1].steps, None)
        if child is None:
            stack.pop()
            continue
        if len(stack) > rules.max_depth:
            raise too_deep(child.place, rules.max_depth)
        stack.append(child)
    return inputs


def _folder_frame(folder: str, root: str, inputs: FolderInputs) -> _Frame:
    """A folder is read through its kustomization file if it has one, else walked."""
    found = kustomization_in(folder)
    if found is not None:
        return _Frame(found, _follow(found, root, inputs))
    return _Frame(folder, _walk(folder, root, inputs))


def _outside(real: str, root: str) -> bool:
    return real != root and not real.startswith(root.rstrip(os.sep) + os.sep)


def _refuse_link(path: str, real: str, root: str, inputs: FolderInputs) -> bool:
    """Whether ``path`` leads (through a symbolic link) outside ``root`` and is refused; a refused
    file gets an error finding naming the link and its target, and is never read."""
    if inputs.rules.load_restrictor is LoadRestrictor.NONE or not _outside(real, root):
        return False
    if not os.path.exists(real):
        return False  # a dangling link reads nothing: it is reported as unreadable
    inputs.refused.append(
        Finding(
            severity=Severity.ERROR,
            rule="yaml",
            message=_link_message(path, real, root),
            subject=Subject(file=path),
        )
    )
    return True


def _link_message(path: str, real: str, root: str) -> str:
    return (
        f"{path} is a symbolic link to {real}, outside the folder being validated ({root}); "
        "not read (--load-restrictor LoadRestrictionsNone allows it)"
    )


def _walk(folder: str, root: str, inputs: FolderInputs) -> Iterator[_Frame]:
    """Walk ``folder`` in sorted order, switching to a kustomization file wherever one is."""
    try:
        with os.scandir(folder) as listing:
            entries = sorted(listing, key=lambda entry: entry.name)
    except OSError as error:
        msg = f"cannot list {folder}: {error.strerror or error}"
        raise InputOutputError(msg, location=Location(file=folder)) from None
    for entry in entries:
        if entry.name.startswith("."):
            continue
        full = os.path.join(folder, entry.name)
        if entry.is_dir():
            if not entry.is_symlink() and not inputs.rules.excluded(full):  # no link cycles
                yield _folder_frame(full, root, inputs)
        elif not entry.name.lower().endswith(YAML_SUFFIXES) or not inputs.rules.walk_takes(full):
            continue
        elif not _refuse_link(full, os.path.realpath(full), root, inputs):
            inputs.add_file(full)


def _follow(path: str, root: str, inputs: FolderInputs) -> Iterator[_Frame]:
    """Take the resources one kustomization file lists (each kustomization file once)."""
    real = os.path.realpath(path)
    if real in inputs.seen or _refuse_link(path, real, root, inputs):
        return
    inputs.seen.add(real)
    document = _KustomizationText.read(path, inputs)
    if document is None:
        return
    ignored = sorted(str(key) for key in document.data if key not in _NEUTRAL_FIELDS)
    if ignored:
        document.warn(
            (str(ignored[0]),),
            f"not applied by capzgen validate: {', '.join(ignored)}; the listed resources are "
            "validated as written",
        )
    listed: set[str] = set()
    for key in LIST_FIELDS:
        for index, entry in enumerate(_entries(document, key, inputs.rules.max_entries)):
            target, nested = _resource(document, (key, index), entry, root, inputs)
            if nested is not None:
                yield nested
            if target is not None:
                listed.add(os.path.realpath(target))
    _log_unlisted(path, listed)


def _entries(document: _KustomizationText, key: str, limit: int) -> list[Json]:
    """The entries of list field ``key`` (none after a finding: not a list, or too long)."""
    entries = document.data.get(key)
    if entries is None:
        return []
    if not isinstance(entries, list):
        document.error((key,), "must be a list of file or folder paths")
        return []
    if len(entries) > limit:
        document.error(
            (key,),
            f"lists {len(entries)} entries; capzgen reads at most {limit} per list (none of "
            "them read)",
        )
        return []
    return entries


def _resource(
    document: _KustomizationText, where: JsonPath, entry: Json, root: str, inputs: FolderInputs
) -> tuple[str | None, _Frame | None]:
    """Take one ``resources`` entry: the local path it names (None after a finding), and the
    frame of the kustomization a folder entry leads to."""
    if not isinstance(entry, str) or not entry.strip():
        document.error(where, "must be a file or folder path")
        return None, None
    if _REMOTE.match(entry):
        document.error(where, f"{entry}: remote resources are not fetched; validate a local copy")
        return None, None
    base = os.path.dirname(document.path)
    target = os.path.normpath(os.path.join(base, entry))
    real = os.path.realpath(target)
    if not os.path.exists(real):
        remote = _HOST_LIKE.match(entry) is not None
        document.error(
            where,
            f"{entry}: remote resources are not fetched; validate a local copy"
            if remote
            else f"{entry}: no such file or folder",
        )
        return None, None
    if inputs.rules.load_restrictor is LoadRestrictor.ROOT_ONLY and _outside(real, root):
        written = os.path.normpath(os.path.join(os.path.realpath(base), entry))
        if _outside(written, root):  # the entry itself says "outside": a mistake in the file
            document.error(where, f"{entry}: outside the folder being validated ({root}); not read")
        else:  # a link inside the folder leads out: refused like any such link
            document.refuse(where, _link_message(target, real, root))
        return None, None
    if os.path.isdir(real):
        nested = kustomization_in(target)
        if nested is None:
            document.error(where, f"{entry}: a folder resource needs its own kustomization.yaml")
            return None, None
        return target, _Frame(nested, _follow(nested, root, inputs))
    inputs.add_file(target)
    return target, None


def _log_unlisted(path: str, listed: set[str]) -> None:
    """Say (at info level) which manifests beside ``path`` it does not list."""
    folder = os.path.dirname(path) or "."
    unlisted = sorted(
        name
        for name in os.listdir(folder)
        if not name.startswith(".")
        and name not in KUSTOMIZATION_FILES
        and name.lower().endswith(YAML_SUFFIXES)
        and os.path.realpath(os.path.join(folder, name)) not in listed
    )
    if unlisted:
        log.info("%s does not list %s; not validated", path, ", ".join(unlisted))


@dataclass
class _KustomizationText:
    """One kustomization file being read: its data, and findings placed on its lines."""

    path: str
    data: JsonObject
    locator: LineLocator
    inputs: FolderInputs

    @classmethod
    def read(cls, path: str, inputs: FolderInputs) -> _KustomizationText | None:
        """The parsed file, or None after a finding (unreadable, not YAML, not a mapping)."""
        try:
            text = read_source(path)
            data = load_value(text, source=path)
        except (YamlError, InputOutputError) as error:
            loc = error.location
            inputs.findings.append(
                Finding(
                    severity=Severity.ERROR,
                    rule="yaml",
                    message=error.message,
                    subject=Subject(file=path),
                    line=loc.line if loc else None,
                )
            )
            return None
        document = cls(path, data if isinstance(data, dict) else {}, LineLocator(text), inputs)
        if not isinstance(data, dict):
            document.error((), "a kustomization file must be a mapping")
            return None
        return document

    def error(self, path: JsonPath, message: str) -> None:
        """An error finding at ``path`` of this file."""
        self._add(Severity.ERROR, path, message)

    def warn(self, path: JsonPath, message: str) -> None:
        """A warning finding at ``path`` of this file."""
        self._add(Severity.WARNING, path, message)

    def refuse(self, path: JsonPath, message: str) -> None:
        """An error finding at ``path`` for an entry the load restrictor refused (exit 2)."""
        self._add(Severity.ERROR, path, message, into=self.inputs.refused)

    def _add(
        self, severity: Severity, path: JsonPath, message: str, into: list[Finding] | None = None
    ) -> None:
        (self.inputs.findings if into is None else into).append(
            Finding(
                severity=severity,
                rule=RULE,
                message=message,
                subject=Subject(file=self.path, document=0, kind="Kustomization"),
                path=path,
                line=self.locator.line_of(0, path),
            )
        )
