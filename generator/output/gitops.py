"""GitOps output: one file per object plus a ``kustomization.yaml``, written safely into a folder.

Layout of ``DIR`` (``generate cluster --output-dir DIR``, and each ``DIR/<name>/`` of a fleet):

* ``<kind>-<name>.yaml`` (lower-case) per object, in the same serialisation as stdout. When two
  objects would share a name (same kind and name in different namespaces) both get their
  namespace: ``<kind>-<namespace>-<name>.yaml``; characters other than ``a-z 0-9 . _ -`` become
  ``_``; any remaining clash gets ``-2``, ``-3``... in output order.
* ``kustomization.yaml`` listing those files in output (= apply) order with
  ``sortOptions: {order: fifo}``, so ``kubectl kustomize DIR`` prints exactly what stdout would.
* ``flux-kustomization.yaml`` (``--layout flux``): a Flux ``Kustomization`` pointing at the folder;
  it is not listed in ``kustomization.yaml``.
* ``.capzgen-manifest.json``, written last: every file capzgen wrote here and its SHA-256.

Writing is planned first and done only if the plan has no conflict (see :func:`plan_directory`):
unchanged files are not touched, files capzgen did not write are never deleted, and a file a
person edited is overwritten only with ``force``. The changes of one command (a fleet: of all its
folders) are switched in all at once, or not at all (:mod:`generator.output.staging`).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from generator.errors import InputOutputError, Location, OutputConflict, UsageError, YamlError
from generator.jsontypes import Json, JsonObject
from generator.output.staging import FolderTransaction, open_transaction
from generator.yamlio.emit import dump_documents
from generator.yamlio.load import load_json, read_source

log = logging.getLogger(__name__)

MANIFEST_NAME = ".capzgen-manifest.json"
KUSTOMIZATION_NAME = "kustomization.yaml"
FLUX_KUSTOMIZATION_NAME = "flux-kustomization.yaml"
RESERVED_NAMES = frozenset({MANIFEST_NAME, KUSTOMIZATION_NAME, FLUX_KUSTOMIZATION_NAME})
MANIFEST_VERSION = 1
_UNSAFE = re.compile(r"[^a-z0-9._-]")
_MAX_STEM = 200
FLUX_SOURCE_KINDS = ("GitRepository", "OCIRepository", "Bucket")


# --- what to write -------------------------------------------------------------------------------


@dataclass(frozen=True)
class FluxOptions:
    """The Flux ``Kustomization`` written by ``--layout flux``."""

    name: str  # metadata.name (the cluster's name)
    path: str  # spec.path, relative to the source's root ("./clusters/demo")
    source_kind: str = "GitRepository"
    source_name: str = "flux-system"
    source_namespace: str | None = None
    namespace: str = "flux-system"
    interval: str = "10m"
    timeout: str = "30m"

    def manifest(self) -> JsonObject:
        """The Flux ``Kustomization``: prune and wait on, applying ``path`` of the source."""
        source: JsonObject = {"kind": self.source_kind, "name": self.source_name}
        if self.source_namespace:
            source["namespace"] = self.source_namespace
        return {
            "apiVersion": "kustomize.toolkit.fluxcd.io/v1",
            "kind": "Kustomization",
            "metadata": {"name": self.name, "namespace": self.namespace},
            "spec": {
                "interval": self.interval,
                "path": self.path,
                "prune": True,
                "sourceRef": source,
                "timeout": self.timeout,
                "wait": True,
            },
        }


def parse_flux_source(text: str) -> tuple[str, str | None, str]:
    """``--flux-source [KIND/][NAMESPACE/]NAME`` -> (kind, namespace, name)."""
    parts = text.split("/")
    if not all(parts) or len(parts) > 3:
        msg = (
            f"invalid --flux-source {text!r}: expected [KIND/][NAMESPACE/]NAME, "
            "e.g. flux-system or GitRepository/flux-system/fleet-infra"
        )
        raise UsageError(msg)
    kind = parts[0] if len(parts) > 1 else "GitRepository"
    if kind not in FLUX_SOURCE_KINDS:
        msg = f"invalid --flux-source kind {kind!r}: one of {', '.join(FLUX_SOURCE_KINDS)}"
        raise UsageError(msg)
    namespace = parts[1] if len(parts) == 3 else None
    return kind, namespace, parts[-1]


def default_flux_path(directory: Path, *, cwd: Path | None = None) -> str:
    """Flux's ``spec.path`` for ``directory`` (never with ``..``; symbolic links and ``..`` in the
    argument are resolved first):

    * inside a Git work tree: relative to its root (Flux reads paths from the source's root);
    * else, below the current directory: relative to it (a repository not initialised yet);
    * else: relative to the folder's parent, i.e. ``./<folder name>``, with a warning, since the
      root of the Flux source cannot be known; ``--flux-path`` says it exactly.
    """
    target = directory.expanduser().resolve()
    here = (cwd or Path.cwd()).resolve()
    for candidate in (target, *target.parents):
        if (candidate / ".git").exists():
            return _dot_path(target.relative_to(candidate))
    if target == here or here in target.parents:
        return _dot_path(target.relative_to(here))
    path = _dot_path(PurePosixPath(target.name))
    log.warning(
        "%s is neither in a Git work tree nor below the current directory: the Flux "
        "Kustomization's spec.path is %s, relative to %s; pass --flux-path to choose",
        directory,
        path,
        target.parent,
    )
    return path


def normalise_flux_path(text: str) -> str:
    """``--flux-path`` as Flux's ``./a/b``; raises UsageError if absolute or containing ``..``."""
    path = PurePosixPath(text.replace("\\", "/"))
    if path.is_absolute() or ".." in path.parts:
        msg = f"invalid --flux-path {text!r}: must be relative to the source's root, without '..'"
        raise UsageError(msg)
    return _dot_path(path)


def _dot_path(path: PurePosixPath | Path) -> str:
    text = PurePosixPath(*path.parts).as_posix() if path.parts else "."
    return "./" if text == "." else f"./{text}"


def object_file_names(objects: Sequence[Json]) -> list[str]:
    """File name per object (module docstring), unique, in object order."""
    bases = [_stem(_field(o, "kind") or "object", _field(o, "name") or "unnamed") for o in objects]
    counts: dict[str, int] = {}
    for base in bases:
        counts[base] = counts.get(base, 0) + 1
    stems = []
    for obj, base in zip(objects, bases, strict=True):
        namespace = _field(obj, "namespace")
        if counts[base] > 1 and namespace:
            stems.append(
                _stem(_field(obj, "kind") or "object", f"{namespace}-{_field(obj, 'name') or ''}")
            )
        else:
            stems.append(base)
    taken = set(RESERVED_NAMES)
    names = []
    for stem in stems:
        name, number = f"{stem}.yaml", 1
        while name in taken:
            number += 1
            name = f"{stem}-{number}.yaml"
        taken.add(name)
        names.append(name)
    return names


def _field(obj: Json, name: str) -> str | None:
    """``kind``, or ``name``/``namespace`` from metadata, when it is a non-empty string."""
    if not isinstance(obj, dict):
        return None
    holder = obj if name == "kind" else obj.get("metadata")
    value = holder.get(name) if isinstance(holder, dict) else None
    return value if isinstance(value, str) and value else None


def _stem(kind: str, name: str) -> str:
    stem = _UNSAFE.sub("_", f"{kind}-{name}".lower()).lstrip(".") or "object"
    if len(stem) > _MAX_STEM:
        digest = hashlib.sha256(stem.encode("utf-8")).hexdigest()[:12]
        stem = f"{stem[: _MAX_STEM - 13]}-{digest}"
    return stem


def render_files(
    objects: Sequence[Json],
    *,
    flux: FluxOptions | None = None,
    texts: Sequence[str] | None = None,
) -> dict[str, str]:
    """File name -> content of the folder's files (objects in order, then the kustomizations).
    ``texts``: each object already written as YAML (:func:`generator.yamlio.emit.object_texts`), to write it once."""
    names = object_file_names(objects)
    if texts is None or len(texts) != len(objects):
        texts = [dump_documents([obj]) for obj in objects]
    files = dict(zip(names, texts, strict=True))
    kustomization = {
        "apiVersion": "kustomize.config.k8s.io/v1beta1",
        "kind": "Kustomization",
        "resources": names,
        "sortOptions": {"order": "fifo"},
    }
    files[KUSTOMIZATION_NAME] = dump_documents([kustomization])
    if flux is not None:
        files[FLUX_KUSTOMIZATION_NAME] = dump_documents([flux.manifest()])
    return files


# --- planning and writing ------------------------------------------------------------------------


def digest(text: str | bytes) -> str:
    """``sha256:<hex>`` of the text's UTF-8 bytes, as capzgen's manifest records files."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    return "sha256:" + hashlib.sha256(data).hexdigest()


@dataclass
class WritePlan:
    """What writing ``files`` into ``directory`` would do; :func:`apply_plan` carries it out."""

    directory: Path
    writes: dict[str, str] = field(default_factory=dict)  # new or changed files
    unchanged: list[str] = field(default_factory=list)
    deletes: list[str] = field(default_factory=list)  # stale files capzgen wrote earlier
    manifest: str | None = None  # new manifest text, None when it is already current
    conflicts: list[str] = field(default_factory=list)
    # capzgen's own bookkeeping beside the manifest (a fleet's input record): written with the
    # files, never counted or listed in the manifest
    bookkeeping: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class WriteSummary:
    """File counts of one or more writes; summaries add up with ``+`` (a fleet sums its folders)."""

    written: int = 0
    unchanged: int = 0
    removed: int = 0

    def __add__(self, other: WriteSummary) -> WriteSummary:
        return WriteSummary(
            self.written + other.written,
            self.unchanged + other.unchanged,
            self.removed + other.removed,
        )

    def describe(self) -> str:
        """``N files written, U unchanged, R removed``, for the closing message of a command."""
        return (
            f"{self.written} file{'s' if self.written != 1 else ''} written, "
            f"{self.unchanged} unchanged, {self.removed} removed"
        )


def read_manifest(directory: Path, *, force: bool) -> dict[str, str]:
    """File -> digest of what capzgen wrote into ``directory`` earlier (empty when none)."""
    path = directory / MANIFEST_NAME
    if not path.exists():
        return {}
    try:
        data = load_json(read_source(str(path)), source=str(path))  # bounded: the user's folder
        files = data["files"]
        if not isinstance(files, dict) or not all(
            isinstance(k, str) and isinstance(v, str) and _plain_name(k) for k, v in files.items()
        ):
            msg = "files must map plain file names to digests"
            raise ValueError(msg)
    except (ValueError, KeyError, TypeError, YamlError) as exc:
        if force:
            return {}
        msg = f"capzgen's manifest is damaged ({exc})"
        raise OutputConflict(
            msg,
            location=Location(file=str(path)),
            hint="restore it from version control, or use --force to rebuild it",
        ) from None
    return dict(files)


def _plain_name(name: str) -> bool:
    return name not in ("", ".", "..") and "/" not in name and "\\" not in name


def manifest_text(files: Mapping[str, str]) -> str:
    """``.capzgen-manifest.json`` for ``files`` (name -> content), as sorted, stable JSON."""
    data = {
        "comment": "Files capzgen generated in this folder and their digests; do not edit.",
        "files": {name: digest(text) for name, text in sorted(files.items())},
        "version": MANIFEST_VERSION,
    }
    return json.dumps(data, indent=2, sort_keys=True) + "\n"


def plan_directory(directory: Path, files: Mapping[str, str], *, force: bool) -> WritePlan:
    """Compare ``files`` with ``directory`` and capzgen's manifest there; nothing is written.

    Conflicts (reported all at once, each ignored with ``force``):

    * a file capzgen wrote earlier was edited since (its digest differs from the manifest) and
      would now be overwritten or deleted;
    * a file capzgen is about to create exists but capzgen did not write it.

    A file whose content already equals the new content is never a conflict. Files that are not
    in the manifest and not about to be written are never looked at.
    """
    plan = WritePlan(directory=directory)
    if directory.exists() and not directory.is_dir():
        msg = "output folder is a file"
        raise InputOutputError(msg, location=Location(file=str(directory)))
    previous = read_manifest(directory, force=force) if directory.is_dir() else {}
    _plan_writes(plan, files, previous)
    _plan_deletes(plan, files, previous)
    if force:
        plan.conflicts.clear()
    new_manifest = manifest_text(files)
    if _read_bytes(directory / MANIFEST_NAME) != new_manifest.encode("utf-8"):
        plan.manifest = new_manifest
    return plan


def _plan_writes(plan: WritePlan, files: Mapping[str, str], previous: Mapping[str, str]) -> None:
    """Each file to write, unless its content is already there; a conflict when it would overwrite
    a file capzgen did not write or one edited since."""
    for name, text in files.items():
        path = plan.directory / name
        current = _read_bytes(path)
        if current is None:
            plan.writes[name] = text
            continue
        if current == text.encode("utf-8"):
            plan.unchanged.append(name)
            continue
        recorded = previous.get(name)
        if recorded is None:
            plan.conflicts.append(f"{path}: exists and was not written by capzgen")
        elif recorded != digest(current):
            plan.conflicts.append(f"{path}: edited since capzgen wrote it")
        plan.writes[name] = text


def _plan_deletes(plan: WritePlan, files: Mapping[str, str], previous: Mapping[str, str]) -> None:
    """Files capzgen wrote earlier and no longer generates; a conflict when one was edited since."""
    for name in sorted(set(previous) - set(files)):
        path = plan.directory / name
        current = _read_bytes(path)
        if current is None:
            continue
        if digest(current) != previous[name]:
            plan.conflicts.append(f"{path}: no longer generated, but edited since capzgen wrote it")
        plan.deletes.append(name)


def _read_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        msg = "cannot write: a folder is in the way"
        raise InputOutputError(msg, location=Location(file=str(path))) from None
    except OSError as exc:
        msg = f"cannot read: {exc.strerror or exc}"
        raise InputOutputError(msg, location=Location(file=str(path))) from exc


def raise_conflicts(plans: Sequence[WritePlan]) -> None:
    """Raise :class:`OutputConflict` listing every conflict of every plan, if there is any."""
    conflicts = [c for plan in plans for c in plan.conflicts]
    if conflicts:
        msg = (
            f"refusing to overwrite or delete {len(conflicts)} file"
            f"{'s' if len(conflicts) != 1 else ''} capzgen did not write or that were edited; "
            "nothing was written"
        )
        raise OutputConflict(
            msg,
            details=conflicts,
            hint="move your changes into a --patch file (or the flavor's values), or use --force",
        )


def apply_plans(plans: Sequence[WritePlan], transaction: FolderTransaction) -> WriteSummary:
    """Carry out conflict-free plans all at once: every changed file, deletion and manifest goes
    into ``transaction``, which switches them in together (:mod:`generator.output.staging`)."""
    raise_conflicts(plans)
    total = WriteSummary()
    for plan in plans:
        for name, text in plan.writes.items():
            transaction.write(plan.directory / name, text)
        for name in plan.deletes:
            transaction.delete(plan.directory / name)
        if plan.manifest is not None:
            transaction.write(plan.directory / MANIFEST_NAME, plan.manifest)
        for name, text in plan.bookkeeping.items():
            if _read_bytes(plan.directory / name) != text.encode("utf-8"):
                transaction.write(plan.directory / name, text)
        total = total + WriteSummary(len(plan.writes), len(plan.unchanged), len(plan.deletes))
    transaction.commit()
    return total


def write_directory(directory: Path, files: Mapping[str, str], *, force: bool) -> WriteSummary:
    """Finish an interrupted earlier write, plan, refuse on conflicts (nothing written), then
    switch every change in at once."""
    with open_transaction(directory) as transaction:
        plan = plan_directory(directory, files, force=force)
        return apply_plans([plan], transaction)
