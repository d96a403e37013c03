"""Which files of a folder ``capzgen validate`` reads: a ``kustomization.yaml`` decides.

capzgen's own ``--output-dir`` folders (and most GitOps repositories) hold a kustomize
``kustomization.yaml`` next to the manifests. It is not a Kubernetes object, so it is never
validated as one; instead its ``resources`` list (and the deprecated ``bases``) says what the
folder applies, the way ``kubectl kustomize`` reads it:

* a file entry is validated; a folder entry is followed through that folder's own kustomization
  file (kustomize requires one), recursively, each kustomization once;
* files next to a kustomization file that it does not list are not validated (capzgen's Flux
  ``flux-kustomization.yaml`` is such a file: name it explicitly to check it);
* nothing is fetched and nothing outside the folder the user named is read: an entry that is a
  remote URL, or that resolves (symbolic links included) outside that folder, is an error finding
  on the kustomization file, as is an entry that does not exist;
* fields that would change the objects (``patches``, ``namePrefix``, generators...) are not
  applied: one warning says so, and the listed resources are validated as written.

A folder without a kustomization file is walked as before (``*.yaml``, ``*.yml``, ``*.json``,
hidden entries skipped, folder symlinks not followed), except that each sub-folder holding a
kustomization file is read through it, so a fleet's top folder works too. Naming a kustomization
file itself means its folder.
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass, field

from generator.errors import InputOutputError, Location, YamlError
from generator.findings import Finding, JsonPath, Severity, Subject
from generator.jsontypes import Json, JsonObject
from generator.yamlio.load import load_value, read_source
from generator.yamlio.locate import LineLocator
from generator.yamlio.source import YAML_SUFFIXES

log = logging.getLogger(__name__)

KUSTOMIZATION_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
RULE = "kustomization"
LIST_FIELDS = ("resources", "bases")
# Fields that say nothing about the objects themselves.
_NEUTRAL_FIELDS = frozenset({"apiVersion", "kind", "metadata", "sortOptions", *LIST_FIELDS})
_REMOTE = re.compile(r"^(?:[a-z][a-z0-9+.-]*://|git@|git::)", re.IGNORECASE)
_HOST_LIKE = re.compile(r"^[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}/", re.IGNORECASE)


@dataclass
class FolderInputs:
    """The files to validate for one folder argument, and problems met while choosing them."""

    files: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)  # real paths of files and kustomizations taken

    def add_file(self, path: str) -> None:
        """Take ``path`` once, however many times it is reached."""
        real = os.path.realpath(path)
        if real not in self.seen:
            self.seen.add(real)
            self.files.append(path)


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


def collect_inputs(path: str) -> FolderInputs:
    """Files to validate for ``path``: a folder, or a kustomization file standing for its folder."""
    inputs = FolderInputs()
    if is_kustomization_file(path):
        folder = os.path.dirname(path) or "."
        _follow(path, os.path.realpath(folder), inputs)
    else:
        _walk(path, os.path.realpath(path), inputs)
    return inputs


def _walk(folder: str, root: str, inputs: FolderInputs) -> None:
    """Walk ``folder`` in sorted order, switching to a kustomization file wherever one is."""
    found = kustomization_in(folder)
    if found is not None:
        _follow(found, root, inputs)
        return
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except OSError as error:
        msg = f"cannot list {folder}: {error.strerror or error}"
        raise InputOutputError(msg, location=Location(file=folder)) from None
    for entry in entries:
        if entry.name.startswith("."):
            continue
        full = os.path.join(folder, entry.name)
        if entry.is_dir():
            if not entry.is_symlink():  # no cycles through folder links
                _walk(full, root, inputs)
        elif entry.name.lower().endswith(YAML_SUFFIXES):
            inputs.add_file(full)


def _follow(path: str, root: str, inputs: FolderInputs) -> None:
    """Take the resources one kustomization file lists (each kustomization file once)."""
    real = os.path.realpath(path)
    if real in inputs.seen:
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
        entries = document.data.get(key)
        if entries is None:
            continue
        if not isinstance(entries, list):
            document.error((key,), "must be a list of file or folder paths")
            continue
        for index, entry in enumerate(entries):
            target = _resource(document, (key, index), entry, root, inputs)
            if target is not None:
                listed.add(os.path.realpath(target))
    _log_unlisted(path, listed)


def _resource(
    document: _KustomizationText, where: JsonPath, entry: Json, root: str, inputs: FolderInputs
) -> str | None:
    """Take one ``resources`` entry; the local path it names, or None after a finding."""
    if not isinstance(entry, str) or not entry.strip():
        document.error(where, "must be a file or folder path")
        return None
    if _REMOTE.match(entry):
        document.error(where, f"{entry}: remote resources are not fetched; validate a local copy")
        return None
    target = os.path.normpath(os.path.join(os.path.dirname(document.path), entry))
    real = os.path.realpath(target)
    if not os.path.exists(real):
        remote = _HOST_LIKE.match(entry) is not None
        document.error(
            where,
            f"{entry}: remote resources are not fetched; validate a local copy"
            if remote
            else f"{entry}: no such file or folder",
        )
        return None
    if real != root and not real.startswith(root.rstrip(os.sep) + os.sep):
        document.error(where, f"{entry}: outside the folder being validated ({root}); not read")
        return None
    if os.path.isdir(real):
        nested = kustomization_in(target)
        if nested is None:
            document.error(where, f"{entry}: a folder resource needs its own kustomization.yaml")
            return None
        _follow(nested, root, inputs)
        return target
    inputs.add_file(target)
    return target


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

    def _add(self, severity: Severity, path: JsonPath, message: str) -> None:
        self.inputs.findings.append(
            Finding(
                severity=severity,
                rule=RULE,
                message=message,
                subject=Subject(file=self.path, document=0, kind="Kustomization"),
                path=path,
                line=self.locator.line_of(0, path),
            )
        )
