"""The names a document declares and refers to, as keys for :mod:`generator.validate.partition`.

Only names that rules use to relate objects count: CAPI references (``{kind, name}``,
``clusterName``, the cluster-name label, ``topology.class``), ASO ``owner`` and resource
references, the ``credential-from`` annotation, Secret and ConfigMap references, and ARM IDs of
owners (subnets of one VNet are compared). Keys carry the namespace a reference resolves in.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

from generator.jsontypes import Json, JsonObject
from generator.model import kinds
from generator.model.kinds import CLUSTER_NAME_LABEL

Key = tuple[str, ...]

_CREDENTIAL_FROM = "serviceoperator.azure.com/credential-from"


@dataclass(slots=True)
class DocumentKeys:
    """What one document declares and refers to, as partition keys.

    Documents declaring the same key are joined (they are duplicates, or must be compared, such
    as subnets of one VNet given by ARM ID); a document referring to a key is joined with its
    declarers.
    """

    declares: list[Key] = field(default_factory=list)
    refers: list[Key] = field(default_factory=list)
    kind: str | None = None  # the object's kind (None: not an object with a string kind)
    namespaced: bool | None = None  # whether metadata.namespace is set (None: not an object)

    def __reduce__(
        self,
    ) -> tuple[type[DocumentKeys], tuple[list[Key], list[Key], str | None, bool | None]]:
        """Pickled as its four fields: workers send every document's keys back in pass 1, and
        the default for a slotted dataclass (a state mapping per object) took twice as long to
        write and to read."""
        return DocumentKeys, (self.declares, self.refers, self.kind, self.namespaced)


# Keys of these kinds ignore namespaces (cluster-scoped, or referred to across namespaces).
_ANY_NAMESPACE = frozenset({"Namespace", kinds.CLUSTER_CLASS})


def obj_key(namespace: str, kind: str, name: str) -> Key:
    """The key of a top-level object; references resolve in the referrer's namespace."""
    return ("obj", "" if kind in _ANY_NAMESPACE else namespace, kind, name)


# ASO kinds that never own other resources and whose names repeat from cluster to cluster
# ("default", "pool0"): they declare no ``owner`` key, so equal names do not join clusters.
_LEAF_KINDS = frozenset(
    {
        "MaintenanceConfiguration",
        "ManagedClustersAgentPool",
        "FederatedIdentityCredential",
        "RoleAssignment",
        "TrustedAccessRoleBinding",
        "Extension",
        "FleetsMember",
        "VirtualNetworksSubnet",
        "PrivateEndpoint",
    }
)


def _mapping(value: Json) -> JsonObject:
    return value if isinstance(value, dict) else {}


def _text(value: Json) -> str | None:
    return value if isinstance(value, str) and value else None


def document_keys(obj: Json) -> DocumentKeys:
    """The keys of one parsed document (anything but a mapping has none)."""
    keys = DocumentKeys()
    if not isinstance(obj, dict):
        return keys
    kind = _text(obj.get("kind")) or ""
    group = (_text(obj.get("apiVersion")) or "").rpartition("/")[0]
    meta = _mapping(obj.get("metadata"))
    name = _text(meta.get("name"))
    namespace = _text(meta.get("namespace")) or ""
    keys.kind = kind or None
    keys.namespaced = bool(namespace)
    if name is not None:
        keys.declares.append(obj_key(namespace, kind, name))
        if kinds.is_aso_group(group):
            _aso_declares(namespace, group, kind, name, keys)
    if namespace:
        keys.refers.append(obj_key("", "Namespace", namespace))
    _metadata_refs(meta, namespace, keys)
    if kind not in kinds.TEMPLATE_KINDS:  # CAPI names template copies per Cluster
        for item in _embedded(obj, kind):
            _embedded_keys(item, namespace, keys)
    _walk(obj, namespace, keys)
    return keys


def _aso_declares(namespace: str, group: str, kind: str, name: str, keys: DocumentKeys) -> None:
    keys.declares.append(("id", namespace, group, kind, name))
    if kind not in _LEAF_KINDS:
        keys.declares.append(("owner", name))


def _embedded(obj: JsonObject, kind: str) -> list[JsonObject]:
    node: Json = obj
    for part in kinds.EMBEDDING_KINDS.get(kind, ()):
        node = node.get(part) if isinstance(node, dict) else None
    return [item for item in node if isinstance(item, dict)] if isinstance(node, list) else []


def _embedded_keys(item: JsonObject, namespace: str, keys: DocumentKeys) -> None:
    meta = _mapping(item.get("metadata"))
    name = _text(meta.get("name"))
    if name is not None:
        group = (_text(item.get("apiVersion")) or "").rpartition("/")[0]
        _aso_declares(namespace, group, _text(item.get("kind")) or "", name, keys)
    _metadata_refs(meta, namespace, keys)


def _metadata_refs(meta: JsonObject, namespace: str, keys: DocumentKeys) -> None:
    labels = meta.get("labels")
    if isinstance(labels, dict) and (cluster := _text(labels.get(CLUSTER_NAME_LABEL))):
        keys.refers.append(obj_key(namespace, kinds.CLUSTER, cluster))
    annotations = meta.get("annotations")
    if isinstance(annotations, dict) and (secret := _text(annotations.get(_CREDENTIAL_FROM))):
        keys.refers.append(obj_key(namespace, kinds.SECRET, secret))


def _walk(root: JsonObject, namespace: str, keys: DocumentKeys) -> None:
    """Reference-shaped values anywhere below the root, in document order. Recursive: the
    loader bounds the depth (``MAX_DEPTH``), and on a fleet's documents one call per mapping
    is cheaper than a stack of (node, key) pairs for every value."""
    for key, value in root.items():
        if isinstance(value, dict):
            _walk_mapping(value, key, namespace, keys)
        elif isinstance(value, list):
            _walk_list(value, key, namespace, keys)


def _walk_mapping(node: JsonObject, parent: str, namespace: str, keys: DocumentKeys) -> None:
    """``node``, found at key ``parent``: a reference itself, and the references below it."""
    if "name" in node or "armId" in node:
        _reference(node, parent, namespace, keys)
    for key, value in node.items():
        if isinstance(value, dict):
            _walk_mapping(value, key, namespace, keys)
        elif isinstance(value, list):
            _walk_list(value, key, namespace, keys)
        elif key in _NAMED and isinstance(value, str) and value:
            keys.refers.append(obj_key(namespace, _NAMED[key], value))


def _walk_list(items: list[Json], parent: str, namespace: str, keys: DocumentKeys) -> None:
    """The items of a list found at key ``parent``: each stands where the list stands."""
    for item in items:
        if isinstance(item, dict):
            _walk_mapping(item, parent, namespace, keys)
        elif isinstance(item, list):
            _walk_list(item, parent, namespace, keys)


_NAMED = {"clusterName": kinds.CLUSTER, "class": kinds.CLUSTER_CLASS}


def _reference(node: JsonObject, parent: str | None, namespace: str, keys: DocumentKeys) -> None:
    name = _text(node.get("name"))
    kind = _text(node.get("kind"))
    where = _text(node.get("namespace")) or namespace
    if name is not None and kind is not None:
        keys.refers.append(obj_key(where, kind, name))
        if group := _text(node.get("group")):  # ASO references stay in their namespace
            keys.refers.append(("id", namespace, group, kind, name))
    if parent == "owner":
        if name is not None:
            keys.refers.append(("owner", name))
        if arm_id := _text(node.get("armId")):
            keys.declares.append(("arm", arm_id.lower()))
    elif name is not None and parent is not None:
        lowered = parent.lower()
        if "secret" in lowered:
            keys.refers.append(obj_key(where, kinds.SECRET, name))
        elif "configmap" in lowered:
            keys.refers.append(obj_key(where, "ConfigMap", name))


def anywhere(key: Key) -> Key | None:
    """The namespace-free form of a namespaced key."""
    return ("any", *key[2:]) if key[0] in ("obj", "id") else None


# Shareable kinds: one object many clusters refer to (see generator.validate.partition).
HUB_KINDS = frozenset(
    {"Secret", "ConfigMap", "Namespace", kinds.CLUSTER_IDENTITY, kinds.CLUSTER_CLASS}
)


class PackedKeys(NamedTuple):
    """Documents' keys as the partitioner uses them: hashes, one flat array for many documents.

    The partitioner never needs a key's text, only its hash (a collision can only join more),
    whether a reference is to a shareable kind, and the hash of its namespace-free form. A
    ``-j N`` worker computes these and sends them back as one array of integers per piece:
    the keys themselves (tuples of strings) were 1.5 MB of pickles for the 1,000-cluster fleet,
    77 ms to read in the parent, whose partition waited on them. A forked worker hashes with the
    parent's hash secret, so the codes are the ones the parent would compute.

    Per document, in order: the index of its kind in ``kinds`` (-1: none), whether it is
    namespaced (-1: not an object, 0, 1), the number of keys it declares and for each its hash,
    whether it has a namespace-free form (0, 1) and that form's hash (0 if none); then the
    number of keys it refers to and for each its hash, flags (1: a shareable kind, 2: has a
    namespace-free form) and that form's hash.
    """

    kinds: tuple[str, ...]
    codes: array[int]


class KeyPacker:
    """Packs documents' keys one after another (:class:`PackedKeys`)."""

    def __init__(self) -> None:
        self.codes: array[int] = array("q")
        self._kinds: dict[str, int] = {}

    def add(self, keys: DocumentKeys) -> None:
        """Append one document's keys."""
        codes = self.codes
        kind = keys.kind
        codes.append(-1 if kind is None else self._kinds.setdefault(kind, len(self._kinds)))
        codes.append(-1 if keys.namespaced is None else int(keys.namespaced))
        codes.append(len(keys.declares))
        for key in keys.declares:
            namefree = anywhere(key)
            codes.append(hash(key))
            codes.append(0 if namefree is None else 1)
            codes.append(0 if namefree is None else hash(namefree))
        codes.append(len(keys.refers))
        for key in keys.refers:
            namefree = anywhere(key)
            hub = key[0] == "obj" and key[2] in HUB_KINDS
            codes.append(hash(key))
            codes.append((1 if hub else 0) | (0 if namefree is None else 2))
            codes.append(0 if namefree is None else hash(namefree))

    def packed(self) -> PackedKeys:
        """Everything added so far."""
        return PackedKeys(tuple(self._kinds), self.codes)


def pack_keys(documents: Iterable[DocumentKeys]) -> PackedKeys:
    """The keys of ``documents``, packed."""
    packer = KeyPacker()
    for keys in documents:
        packer.add(keys)
    return packer.packed()
