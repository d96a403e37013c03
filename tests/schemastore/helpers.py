"""Builders for small CRDs and objects used across the schema store tests."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from generator.findings import format_path
from generator.schemastore.store import SchemaStore

Crd = dict[str, Any]


def make_crd(
    schema: dict[str, Any] | None = None,
    *,
    group: str = "example.com",
    kind: str = "Widget",
    versions: Sequence[tuple[str, bool]] = (("v1", True),),
    schemas: dict[str, dict[str, Any]] | None = None,
) -> Crd:
    """A minimal apiextensions.k8s.io/v1 CRD; ``schema`` is the openAPIV3Schema of every version
    unless ``schemas`` gives one per version name."""
    plural = kind.lower() + "s"
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{group}"},
        "spec": {
            "group": group,
            "names": {"kind": kind, "plural": plural, "singular": kind.lower()},
            "scope": "Namespaced",
            "versions": [
                {
                    "name": name,
                    "served": served,
                    "storage": index == 0,
                    "schema": {
                        "openAPIV3Schema": (schemas or {}).get(name) or schema or {"type": "object"}
                    },
                }
                for index, (name, served) in enumerate(versions)
            ],
        },
    }


def spec_schema(spec: dict[str, Any], **root: Any) -> dict[str, Any]:
    """A root openAPIV3Schema with apiVersion/kind/metadata and the given ``spec`` schema."""
    return {
        "type": "object",
        "properties": {
            "apiVersion": {"type": "string"},
            "kind": {"type": "string"},
            "metadata": {"type": "object"},
            "spec": spec,
        },
        **root,
    }


def write_yaml(path: Path, *docs: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump_all(docs, sort_keys=False), encoding="utf-8")
    return path


def widget(spec: Any = None, **extra: Any) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w", "namespace": "default"},
    }
    if spec is not None:
        obj["spec"] = spec
    obj.update(extra)
    return obj


def messages(store: SchemaStore, obj: dict[str, Any]) -> list[tuple[str, str]]:
    """(dotted path, message) of every violation of ``obj``."""
    handle = store.lookup(obj["apiVersion"], obj["kind"])
    assert handle is not None, f"no schema for {obj['apiVersion']} {obj['kind']}"
    return [(format_path(v.path), v.message) for v in handle.iter_violations(obj)]
