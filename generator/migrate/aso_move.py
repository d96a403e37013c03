"""``capzgen migrate --aso-version``: ASO resources moved between API versions of their kind.

The resources moved are the ones ``validate`` checks as ASO resources: those embedded in
AzureASOManagedCluster / ControlPlane / MachinePool ``spec.resources`` (and their *Template kinds'
``spec.template.spec.resources``) and standalone ASO documents. Each goes through
:func:`generator.migrate.schema_move.move_fields` between the schemas of its old and new version;
every rename and removal becomes a note, and a file with nothing to move keeps its text exactly.
A file with a moved resource is written again the way ``migrate`` writes (keys sorted, comments
not kept), which the report says, so nobody is surprised by the diff.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from generator.errors import Location, MigrationError
from generator.findings import PathPart, format_path
from generator.jsontypes import Json, JsonObject, dig
from generator.migrate.aso_target import (
    AsoTarget,
    Catalog,
    catalog_of,
    check_everywhere,
    check_kinds,
    target_version,
)
from generator.migrate.schema_move import REMOVED, move_fields
from generator.model.kinds import EMBEDDING_KINDS, is_aso_group, split_api_version
from generator.model.values import is_templated
from generator.schemastore.store import SchemaStore
from generator.yamlio.emit import dump_documents
from generator.yamlio.load import load_documents

MOVED = "moved"
RENAMED_NOTE = "renamed"
REMOVED_NOTE = "removed"
REWRITTEN = "rewritten"
UNCHANGED_NOTE = "unchanged"
_API_VERSION = re.compile(r"\b([a-z0-9.-]+\.azure\.com)/(v[a-z0-9]+)\b")


@dataclass(frozen=True)
class VersionNote:
    """One line of the report: what happened where (file, top-level object, path inside it)."""

    category: str  # MOVED, RENAMED_NOTE, REMOVED_NOTE or REWRITTEN
    file: str
    kind: str
    name: str
    path: str
    detail: str

    def to_text(self) -> str:
        """``category: file: Kind/name: path: detail`` (``category: file: detail`` for a file)."""
        if not self.kind:
            return f"{self.category}: {self.file}: {self.detail}"
        return f"{self.category}: {self.file}: {self.kind}/{self.name}: {self.path}: {self.detail}"

    def to_data(self) -> JsonObject:
        """The note for ``--output json``."""
        return {
            "category": self.category,
            "file": self.file,
            "kind": self.kind,
            "name": self.name,
            "path": self.path,
            "detail": self.detail,
        }


@dataclass(frozen=True)
class MovedFile:
    """One input file: its text as read and its objects after the move."""

    name: str
    original: str
    objects: tuple[Json, ...]
    changed: bool

    def output(self) -> str:
        """The file's new text: the original unless a resource in it moved."""
        return str(dump_documents(list(self.objects))) if self.changed else self.original


@dataclass(frozen=True)
class AsoMigration:
    """Every file after the move, and the report."""

    files: tuple[MovedFile, ...]
    notes: tuple[VersionNote, ...]
    moved: int

    @property
    def dropped(self) -> tuple[VersionNote, ...]:
        """Fields the user set that the target version has no place for (status aside: ASO
        writes it again)."""
        return tuple(
            n for n in self.notes if n.category == REMOVED_NOTE and not n.path.endswith("status")
        )

    def text(self) -> str:
        """All objects of all files as one stream (stdout)."""
        return str(dump_documents([obj for f in self.files for obj in f.objects]))

    def report(self) -> str:
        """The summary line and every note, for stderr."""
        changed = sum(1 for f in self.files if f.changed)
        removed = sum(1 for n in self.notes if n.category == REMOVED_NOTE)
        renamed = sum(1 for n in self.notes if n.category == RENAMED_NOTE)
        head = (
            f"migrate --aso-version: {self.moved} resource{'s' if self.moved != 1 else ''} moved "
            f"in {changed} of {len(self.files)} file{'s' if len(self.files) != 1 else ''}; "
            f"{renamed} field{'s' if renamed != 1 else ''} renamed, {removed} removed"
        )
        return "".join(f"{line}\n" for line in [head, *(n.to_text() for n in self.notes)])

    def report_data(self) -> JsonObject:
        """:meth:`report` as data (``--output json``)."""
        return {
            "moved": self.moved,
            "files": [{"file": f.name, "changed": f.changed} for f in self.files],
            "notes": [n.to_data() for n in self.notes],
        }


def store_catalog(store: SchemaStore) -> Catalog:
    """The ASO kinds the store has schemas for, and their versions."""
    return catalog_of((e.gvk.group, e.gvk.version, e.gvk.kind) for e in store.entries())


def move_versions(
    sources: Sequence[tuple[str, str]], target: AsoTarget, store: SchemaStore
) -> AsoMigration:
    """Move the ASO resources of ``(file name, text)`` sources as ``target`` says. Raises
    UsageError for a version the store lacks, YamlError for a file that does not parse."""
    catalog = store_catalog(store)
    check_kinds(target, catalog)  # before any file is parsed
    mover = _Mover(target, store, catalog)
    files = tuple(mover.move_file(name, text) for name, text in sources)
    check_everywhere(target, catalog, mover.present)
    return AsoMigration(files, tuple(mover.notes), mover.moved)


class _Mover:
    """Walks the documents, moving resources and collecting notes."""

    def __init__(self, target: AsoTarget, store: SchemaStore, catalog: Catalog) -> None:
        self.target = target
        self.store = store
        self.catalog = catalog
        self.notes: list[VersionNote] = []
        self.moved = 0
        self.present: set[tuple[str, str]] = set()  # the ASO kinds of the input

    def move_file(self, name: str, text: str) -> MovedFile:
        objects: list[Json] = []
        changed = False
        for document in load_documents(text, source=name):
            if document.obj is None:
                continue
            obj = copy.deepcopy(document.obj)
            objects.append(obj)
            if not isinstance(obj, dict):
                continue
            where = Location(file=name, line=document.start_line, document=document.index)
            for resource, path in _resources(obj):
                changed = self._move(resource, path, obj, where) or changed
            if obj.get("kind") == "ClusterClass":
                self._note_patches(obj, where)
        if changed:
            self.notes.append(
                VersionNote(
                    REWRITTEN,
                    name,
                    "",
                    "",
                    "",
                    "written again from its objects (comments and formatting are not kept)",
                )
            )
        return MovedFile(name, text, tuple(objects), changed)

    def _note_patches(self, obj: JsonObject, where: Location) -> None:
        """ClusterClass patches are not rewritten: name each ASO apiVersion they mention that the
        target would move, so the patches are not left behind unnoticed."""
        patches = dig(obj, "spec", "patches")
        text = json.dumps(patches) if isinstance(patches, list) else ""
        for group, version in sorted(set(_API_VERSION.findall(text))):
            targets = {
                target_version(self.target, group, kind, version, self.catalog)
                for (known, kind) in self.catalog
                if known == group and version in self.catalog[(known, kind)]
            } - {None}
            if targets:
                detail = (
                    f"mentions {group}/{version}, which --aso-version moves; ClusterClass patches "
                    "are not rewritten: update them by hand"
                )
                self._note(UNCHANGED_NOTE, obj, "spec.patches", detail, where)

    def _move(
        self, resource: JsonObject, path: tuple[PathPart, ...], top: JsonObject, where: Location
    ) -> bool:
        api_version, kind = resource.get("apiVersion"), resource.get("kind")
        if not isinstance(api_version, str) or not isinstance(kind, str) or "/" not in api_version:
            return False
        if is_templated(api_version):
            detail = f"{api_version} is a ${{VAR}} template: left as written"
            self._note(UNCHANGED_NOTE, top, format_path([*path, "apiVersion"]), detail, where)
            return False
        group, version = split_api_version(api_version)
        self.present.add((group, kind))
        new = target_version(self.target, group, kind, version, self.catalog)
        if new is None:
            return False
        target = self.store.lookup(f"{group}/{new}", kind)
        if target is None:  # pragma: no cover - the catalog came from the same store
            msg = f"no schema for {group}/{new} {kind}"
            raise MigrationError(msg, location=where)
        source = self.store.lookup(api_version, kind)
        had_status = resource.pop("status", None) is not None
        result = move_fields(resource, None if source is None else source.schema, target.schema)
        resource["apiVersion"] = f"{group}/{new}"
        self.moved += 1
        self._report(top, path, f"{api_version} {kind} -> {new}", result.carried, where)
        if had_status:
            detail = f"what ASO reported for {version}: dropped (ASO writes it again)"
            self._note(REMOVED_NOTE, top, format_path([*path, "status"]), detail, where)
        for move in result.moves:
            full = format_path([*path, *move.path])
            if move.action == REMOVED:
                detail = f"not in the {new} {kind} schema: dropped"
                self._note(REMOVED_NOTE, top, full, detail, where)
            else:
                self._note(
                    RENAMED_NOTE,
                    top,
                    full,
                    f"-> {move.new_name} (the schemas show the rename)",
                    where,
                )
        return True

    def _report(
        self, top: JsonObject, path: tuple[PathPart, ...], what: str, carried: int, where: Location
    ) -> None:
        detail = f"{what}; {carried} value{'s' if carried != 1 else ''} carried over by name"
        self._note(MOVED, top, format_path([*path, "apiVersion"]), detail, where)

    def _note(
        self, category: str, top: JsonObject, path: str, detail: str, where: Location
    ) -> None:
        kind = top.get("kind")
        name = dig(top, "metadata", "name")
        self.notes.append(
            VersionNote(
                category,
                where.file or "-",
                kind if isinstance(kind, str) else "?",
                name if isinstance(name, str) else "?",
                path,
                detail,
            )
        )


def _resources(obj: JsonObject) -> Iterator[tuple[JsonObject, tuple[PathPart, ...]]]:
    """The ASO resources of a top-level object: itself, or the ones a CAPZ kind embeds."""
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if isinstance(api_version, str) and is_aso_group(split_api_version(api_version)[0]):
        yield obj, ()
        return
    path = EMBEDDING_KINDS.get(kind) if isinstance(kind, str) else None
    if path is None:
        return
    items = dig(obj, *path)
    for index, item in enumerate(items if isinstance(items, list) else []):
        if isinstance(item, dict):
            yield item, (*path, index)
