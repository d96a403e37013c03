"""Building blocks of the converted objects: metadata carried over from the legacy object, patches,
leftover reports, and (re-exported from :mod:`generator.capzbuild.objects`) embedded ASO resources
and the small spec helpers every converter uses."""

from __future__ import annotations

import copy

from generator.capzbuild.objects import embedded as embedded
from generator.capzbuild.objects import name_if_different as name_if_different
from generator.capzbuild.objects import set_if as set_if
from generator.capzbuild.reader import SpecReader
from generator.errors import YamlError
from generator.jsonpatch import merge_patch
from generator.jsontypes import Json, JsonObject
from generator.migrate import tables as t
from generator.migrate.plan import Item, Notes
from generator.yamlio.load import load_manifest_value


def carried_metadata(item: Item) -> JsonObject:
    """name, namespace, labels and user annotations of a legacy object, for its replacement."""
    source = item.obj.get("metadata")
    source = source if isinstance(source, dict) else {}
    metadata: JsonObject = {"name": item.name}
    if item.namespace:
        metadata["namespace"] = item.namespace
    labels = source.get("labels")
    if isinstance(labels, dict) and labels:
        metadata["labels"] = copy.deepcopy(labels)
    annotations = source.get("annotations")
    if isinstance(annotations, dict):
        kept = {k: v for k, v in annotations.items() if k not in t.CONTROLLER_ANNOTATIONS}
        if kept:
            metadata["annotations"] = copy.deepcopy(kept)
    return metadata


def strip_server_fields(obj: JsonObject) -> None:
    """Drop what the API server and controllers wrote (input from ``kubectl get -o yaml``)."""
    obj.pop("status", None)
    metadata = obj.get("metadata")
    if isinstance(metadata, dict):
        for key in t.SERVER_METADATA:
            metadata.pop(key, None)
        annotations = metadata.get("annotations")
        if isinstance(annotations, dict):
            for key in t.CONTROLLER_ANNOTATIONS:
                annotations.pop(key, None)
            if not annotations:
                metadata.pop("annotations")


def named_item(r: SpecReader, where: str, raw: Json, cp: Item, what: str) -> tuple[SpecReader, str]:
    """A list item of the legacy spec that must be a mapping with a ``name`` (``what`` names it
    in the error): its reader and its name."""
    if not isinstance(raw, dict):
        msg = f"{what} must be a mapping"
        raise cp.origin.error(msg, r.where(where))
    reader = SpecReader(raw, cp.origin, r.where(where))
    name = reader.text("name")
    if name is None:
        msg = f"{what} needs a name"
        raise cp.origin.error(msg, r.where(f"{where}.name"))
    return reader, name


def report_leftovers(reader: SpecReader, item: Item, notes: Notes) -> None:
    """One ``unmapped`` note for every field of ``item`` that ``reader`` never read."""
    for path in reader.leftovers():
        notes.unmapped(
            item, path, f"no ASO equivalent known (not a field of CAPZ v1.26.0's {item.kind})"
        )


def apply_patches(
    obj: JsonObject, patches: list[Json], reader: SpecReader, path: str
) -> JsonObject:
    """Apply CAPZ's JSON merge patches (strings of YAML/JSON) in order to a generated object."""
    for index, text in enumerate(patches):
        where = reader.where(f"{path}[{index}]")
        if not isinstance(text, str):
            msg = "a patch must be a string holding a JSON object"
            raise reader.origin.error(msg, where)
        try:  # JSON or YAML, read as CAPZ reads it (sigs.k8s.io/yaml: go-yaml semantics)
            patch = load_manifest_value(text, source=f"{path}[{index}]")
        except YamlError as exc:
            position = exc.location
            at = f" (line {position.line} of the patch)" if position and position.line else ""
            msg = f"patch is not valid JSON or YAML: {exc.message}{at}"
            raise reader.origin.error(msg, where) from None
        if not isinstance(patch, dict):
            msg = 'a patch must be a JSON object ({"spec": {...}})'
            raise reader.origin.error(msg, where)
        obj = merge_patch(obj, patch)
    return obj
