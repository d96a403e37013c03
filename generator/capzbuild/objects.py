"""The shapes every builder shares: an embedded ASO resource, the remarks a build makes about
fields it could not carry over, and the small spec helpers."""

from __future__ import annotations

from dataclasses import dataclass, field

from generator.capzbuild.tables import CREDENTIAL_ANNOTATION
from generator.capzbuild.values import set_path
from generator.jsontypes import Json, JsonObject

UNMAPPED = "unmapped"  # a legacy field with no ASO equivalent (or one that could not be filled in)
NOTE = "note"  # something a user should know: a default made explicit, a behaviour change


@dataclass(frozen=True)
class Remark:
    """A remark about one field of the legacy object (``spec.sshPublicKey``): ``migrate`` turns
    each into a note on stderr; the validator has no use for them."""

    category: str  # UNMAPPED or NOTE
    path: str
    reason: str


@dataclass
class Built:
    """An ASO object built from a legacy spec, with the remarks made while building it."""

    obj: JsonObject
    remarks: list[Remark] = field(default_factory=list)


def embedded(
    api_version: str, kind: str, name: str, credential: str, spec: JsonObject
) -> JsonObject:
    """An embedded ASO resource whose Azure credentials come from the ``credential`` Secret."""
    return {
        "apiVersion": api_version,
        "kind": kind,
        "metadata": {"annotations": {CREDENTIAL_ANNOTATION: credential}, "name": name},
        "spec": spec,
    }


def set_if(spec: JsonObject, path: str, value: Json) -> None:
    """Set ``value`` at the dotted ``path`` of ``spec``, unless it is None (absent)."""
    if value is not None:
        set_path(spec, path, value)


def name_if_different(spec: JsonObject, object_name: str, azure_name: str) -> None:
    """Set ``azureName`` only when it differs from the object's name (ASO's default)."""
    if azure_name != object_name:
        spec["azureName"] = azure_name
