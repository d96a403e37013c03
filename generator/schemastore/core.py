"""Core Kubernetes kinds (Secret, ConfigMap, Namespace, apps/v1, rbac ...) from ``kubernetes_validate``.

The package ships JSON Schemas per Kubernetes release (``v<X>-local-strict``); every file refers to
``/api/_definitions.json#/$defs/...``, a 1.8 MB file with all definitions. Its
``x-kubernetes-group-version-kind`` annotations tell which definitions are top-level kinds. For one
kind we bundle the definition and the closure of what it references into a self-contained schema
(``#/$defs/...`` references), so jsonschema-rs needs no registry. Both the kind index and each
bundle are memoised in the cache because parsing the definitions costs more than everything else a
typical lookup does.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from generator.errors import CapzgenError, Location, SchemaStoreError
from generator.jsontypes import Json, JsonObject
from generator.schemastore.cache import atomic_write, dump_json
from generator.schemastore.structural import GVK_MARKER, JSON_SCHEMA_DIALECT
from generator.schemastore.types import GroupVersionKind

log = logging.getLogger(__name__)

# Inside _definitions.json references are local; the per-kind files use the absolute form.
_REF_PREFIXES = ("#/$defs/", "/api/_definitions.json#/$defs/")
_DIR_NAME = re.compile(r"^v(\d+)\.(\d+)\.(\d+)-local-strict$")
_MEMO_FORMAT = "1"  # bumped when bundles change, so stale memo entries are ignored


def find_schema_dir() -> Path | None:
    """The newest ``v<X>-local-strict`` folder of the installed ``kubernetes_validate``."""
    spec = importlib.util.find_spec("kubernetes_validate")
    if spec is None or spec.origin is None:
        return None
    base = Path(spec.origin).parent / "kubernetes-json-schema"
    candidates = []
    try:
        for child in base.iterdir():
            match = _DIR_NAME.match(child.name)
            if match and (child / "_definitions.json").is_file():
                candidates.append((tuple(int(g) for g in match.groups()), child))
    except OSError:
        return None
    return max(candidates)[1] if candidates else None


@dataclass
class CoreKinds:
    """Index and bundles for one ``kubernetes_validate`` schema folder."""

    schema_dir: Path
    memo_dir: Path | None  # cache folder for the index and bundles; None: no memo
    _index: dict[GroupVersionKind, str] | None = field(default=None, init=False, repr=False)
    _definitions: JsonObject | None = field(default=None, init=False, repr=False)

    def __reduce__(self) -> tuple[type[CoreKinds], tuple[Path, Path | None]]:
        """Pickled as where it reads from, not what it read (see ``SchemaStore.__reduce__``)."""
        return (CoreKinds, (self.schema_dir, self.memo_dir))

    @property
    def label(self) -> str:
        """How ``schemas list`` and messages name this source."""
        return f"kubernetes-validate ({self.schema_dir.name})"

    def index(self) -> dict[GroupVersionKind, str]:
        """GVK -> definition name, memoised."""
        if self._index is None:
            self._index = self._load_index()
        return self._index

    def bundle(self, gvk: GroupVersionKind) -> JsonObject | None:
        """Self-contained JSON Schema for ``gvk``; None if it is not a core kind."""
        name = self.index().get(gvk)
        if name is None:
            return None
        memo = self._memo_path(gvk)
        if memo is not None:
            try:
                cached: JsonObject = json.loads(memo.read_bytes())
                return cached
            except (OSError, ValueError):
                pass
        schema = self._build_bundle(gvk, name)
        if memo is not None:
            self._memoise(memo, schema)
        return schema

    def _memo_path(self, gvk: GroupVersionKind) -> Path | None:
        if self.memo_dir is None:
            return None
        return self._memo_root() / (gvk.group or "core") / f"{gvk.kind}_{gvk.version}.json"

    def _memo_root(self) -> Path:
        assert self.memo_dir is not None
        return self.memo_dir / f"v{_MEMO_FORMAT}"

    def _memoise(self, path: Path, value: Json) -> None:
        try:
            atomic_write(path, dump_json(value))
        except CapzgenError as error:  # only speed is lost
            log.warning("cannot memoise %s: %s", path, error)

    def _load_index(self) -> dict[GroupVersionKind, str]:
        memo = self._memo_root() / "index.json" if self.memo_dir else None
        if memo is not None:
            try:
                rows = json.loads(memo.read_bytes())
                return {GroupVersionKind(g, v, k): name for g, v, k, name in rows}
            except (OSError, ValueError, TypeError):
                pass
        index: dict[GroupVersionKind, str] = {}
        for name, definition in self._defs().items():
            gvks = definition.get("x-kubernetes-group-version-kind")
            # Definitions shared by many groups (DeleteOptions, WatchEvent) are not objects one
            # writes into a manifest.
            if isinstance(gvks, list) and len(gvks) == 1 and isinstance(gvks[0], dict):
                entry = gvks[0]
                index[GroupVersionKind(entry["group"], entry["version"], entry["kind"])] = name
        if memo is not None:
            rows_out = [[g.group, g.version, g.kind, n] for g, n in sorted(index.items(), key=str)]
            self._memoise(memo, rows_out)
        return index

    def _defs(self) -> JsonObject:
        if self._definitions is None:
            path = self.schema_dir / "_definitions.json"
            try:
                data = json.loads(path.read_bytes())
                self._definitions = data["$defs"]
            except (OSError, ValueError, KeyError, TypeError) as error:
                msg = f"cannot load the core Kubernetes definitions: {error}"
                raise SchemaStoreError(
                    msg,
                    location=Location(file=str(path)),
                ) from error
        return self._definitions

    def _build_bundle(self, gvk: GroupVersionKind, name: str) -> JsonObject:
        defs = self._defs()
        needed: JsonObject = {}
        pending = [name]
        while pending:
            current = pending.pop()
            if current in needed or current not in defs:
                continue
            needed[current] = _rewrite_refs(defs[current])
            pending.extend(_refs(defs[current]))
        root = dict(needed.pop(name))
        root.pop("x-kubernetes-group-version-kind", None)
        properties = dict(root.get("properties") or {})
        properties["apiVersion"] = {"type": "string", "enum": [gvk.api_version]}
        properties["kind"] = {"type": "string", "enum": [gvk.kind]}
        root["properties"] = properties
        required = [r for r in root.get("required", []) if r not in ("apiVersion", "kind")]
        root["required"] = ["apiVersion", "kind", *required]
        root["type"] = "object"
        marker = {"group": gvk.group, "kind": gvk.kind, "version": gvk.version}
        return {GVK_MARKER: [marker], "$schema": JSON_SCHEMA_DIALECT, **root, "$defs": needed}


def _ref_target(ref: Json) -> str | None:
    if isinstance(ref, str):
        for prefix in _REF_PREFIXES:
            if ref.startswith(prefix):
                return ref[len(prefix) :]
    return None


def _refs(node: Json) -> Iterator[str]:
    if isinstance(node, dict):
        name = _ref_target(node.get("$ref"))
        if name is not None:
            yield name
        for value in node.values():
            yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


def _rewrite_refs(node: Json) -> Json:
    if isinstance(node, dict):
        # Documentation strings go; a property *named* description (a schema object) stays.
        out = {
            k: _rewrite_refs(v)
            for k, v in node.items()
            if not (k == "description" and isinstance(v, str))
        }
        name = _ref_target(out.get("$ref"))
        if name is not None:
            out["$ref"] = "#/$defs/" + name
        return out
    if isinstance(node, list):
        return [_rewrite_refs(v) for v in node]
    return node
