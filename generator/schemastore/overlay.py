"""Schema overlays: documented additions to pinned upstream schemas that are older than the release
capzgen targets.

The ASO JSON Schemas come from a catalog snapshot, and the catalog lags ASO: CAPZ v1.26 runs ASO
v2.18, which accepts fields the snapshot does not know (a RoleAssignment's
``roleDefinitionReference.wellKnownName``, a UserAssignedIdentity's
``operatorSpec.secrets.subscriptionId``). Rejecting what the operator accepts is a false finding,
and hand-editing a pinned copy would break its digest, so the difference is kept in an overlay
file next to the sources list (``schemas/overlays/*.yaml``), listed under ``overlays:`` there:

.. code-block:: yaml

    name: aso-v2.18
    project: Azure/azure-service-operator
    release: v2.18.0
    additions:
      - target: authorization.azure.com/roleassignment_v1api20220401.json  # a pin's target
        pointer: /properties/spec/properties/roleDefinitionReference/properties/wellKnownName
        since: v2.16.0                  # the upstream release that added it
        upstream: https://github.com/...  # where upstream defines it
        schema: {type: string}

Each addition inserts ``schema`` at ``pointer`` (RFC 6901) of the pinned file's JSON Schema before
it is converted. Additions only add: the parent must exist and be an object, and the key must be
absent, so a newer upstream file that already has the field fails the build loudly (drop the
addition then) instead of being overwritten. The bundle build and ``schemas sync`` apply the same
overlays, and the bundle manifest records each overlay's name and sha256.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from generator.errors import InputOutputError, Location, SchemaStoreError, YamlError
from generator.jsontypes import Json, JsonObject
from generator.yamlio.load import load_value, read_source

_FIELDS = ("target", "pointer", "since", "upstream")


@dataclass(frozen=True)
class Addition:
    """One field added to one pinned schema, with the upstream release and source that justify it."""

    target: str  # the pin's target, <group>/<kind>_<version>.json
    pointer: str  # RFC 6901 pointer of the new key
    schema: JsonObject
    since: str
    upstream: str


@dataclass(frozen=True)
class Overlay:
    """One overlay file: its additions and the digest the bundle manifest records."""

    name: str
    path: str  # relative to the sources list's folder
    sha256: str
    additions: tuple[Addition, ...]

    def to_json(self) -> dict[str, str]:
        """How ``manifest.json`` records the overlay."""
        return {"name": self.name, "path": self.path, "sha256": self.sha256}


def load_overlays(sources_file: Path, relative_paths: Sequence[str]) -> list[Overlay]:
    """The overlay files a sources list names (paths relative to its folder), checked."""
    overlays = [_load_overlay(sources_file.parent, relative) for relative in relative_paths]
    names = [overlay.name for overlay in overlays]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        msg = f"overlay name(s) used twice: {', '.join(duplicates)}"
        raise SchemaStoreError(msg, location=Location(file=str(sources_file)))
    return overlays


def _load_overlay(folder: Path, relative: str) -> Overlay:
    path = folder / relative
    location = Location(file=str(path))
    try:
        text = read_source(str(path))
        data = load_value(text, source=str(path))
    except (InputOutputError, YamlError) as error:
        msg = f"cannot read the schema overlay: {error.message}"
        raise SchemaStoreError(msg, location=error.location or location) from error
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        msg = "a schema overlay is a mapping with a `name` and an `additions` list"
        raise SchemaStoreError(msg, location=location)
    entries = data.get("additions")
    if not isinstance(entries, list) or not entries:
        msg = "expected a non-empty `additions:` list"
        raise SchemaStoreError(msg, location=location)
    additions = tuple(_addition(entry, index, location) for index, entry in enumerate(entries))
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return Overlay(data["name"], relative, digest, additions)


def _addition(entry: Json, index: int, location: Location) -> Addition:
    where = f"additions[{index}]"
    if not isinstance(entry, dict):
        msg = f"{where}: expected a mapping"
        raise SchemaStoreError(msg, location=location)
    missing = [f for f in _FIELDS if not isinstance(entry.get(f), str) or not entry.get(f)]
    if missing or not isinstance(entry.get("schema"), dict):
        fields = [*missing, *([] if isinstance(entry.get("schema"), dict) else ["schema"])]
        msg = f"{where}: missing or invalid {', '.join(fields)}"
        raise SchemaStoreError(msg, location=location)
    if not entry["pointer"].startswith("/"):
        msg = f"{where}: pointer must start with '/'"
        raise SchemaStoreError(msg, location=location)
    return Addition(
        target=entry["target"],
        pointer=entry["pointer"],
        schema=dict(entry["schema"]),
        since=entry["since"],
        upstream=entry["upstream"],
    )


def additions_for(overlays: Sequence[Overlay], target: str | None) -> list[Addition]:
    """Every addition of ``overlays`` to the pinned schema whose target is ``target``."""
    return [a for overlay in overlays for a in overlay.additions if a.target == target]


def unmatched_targets(overlays: Sequence[Overlay], targets: Sequence[str | None]) -> list[str]:
    """Targets of additions no pin has: an overlay left behind after a pin changed."""
    known = set(targets)
    return sorted({a.target for o in overlays for a in o.additions if a.target not in known})


def apply_additions(schema: JsonObject, additions: Sequence[Addition], source: str) -> None:
    """Insert each addition into ``schema`` in place; refuses to replace or to guess a parent."""
    for addition in additions:
        *parents, key = [_unescape(part) for part in addition.pointer[1:].split("/")]
        node: Json = schema
        for part in parents:
            node = node.get(part) if isinstance(node, dict) else None
        if not isinstance(node, dict):
            msg = f"overlay addition {addition.pointer}: the parent is not an object in {source}"
            raise SchemaStoreError(
                msg,
                location=Location(file=source),
                hint="the pinned file changed shape; update the overlay",
            )
        if key in node:
            msg = f"overlay addition {addition.pointer}: {source} already defines it"
            raise SchemaStoreError(
                msg,
                location=Location(file=source),
                hint="upstream caught up: remove this addition from the overlay",
            )
        node[key] = dict(addition.schema)


def _unescape(part: str) -> str:
    return part.replace("~1", "/").replace("~0", "~")
