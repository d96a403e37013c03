"""What one legacy cluster's conversion shares: its input objects, the notes made while
converting, and the plan every converter reads and fills in.

One :class:`ClusterPlan` per AzureManagedControlPlane holds what every other conversion of that
cluster needs (names, subscription, subnet, credential Secret); the AzureManagedCluster and the
AzureManagedMachinePools are converted against it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from generator.findings import PathPart, format_path
from generator.jsontypes import JsonObject
from generator.migrate import tables as t
from generator.migrate.model import NOTE, UNMAPPED, Note, Origin


@dataclass
class Item:
    """One input object and where it came from."""

    obj: JsonObject
    origin: Origin

    @property
    def kind(self) -> str:
        """The input's ``kind``."""
        return self.origin.kind

    @property
    def name(self) -> str:
        """The input's ``metadata.name``."""
        return self.origin.name

    @property
    def namespace(self) -> str | None:
        """``metadata.namespace``, None when it is unset or empty."""
        metadata = self.obj.get("metadata")
        value = metadata.get("namespace") if isinstance(metadata, dict) else None
        return value if isinstance(value, str) and value else None

    def spec(self) -> JsonObject:
        """``spec``, ``{}`` when absent; raises :class:`MigrationError` if not a mapping."""
        spec = self.obj.get("spec")
        if spec is None:
            return {}
        if not isinstance(spec, dict):
            msg = "spec is not a mapping"
            raise self.origin.error(msg, ["spec"])
        return spec


@dataclass
class Notes:
    """The notes collected while converting, in the order they were made."""

    items: list[Note] = field(default_factory=list)

    def unmapped(self, item: Item, path: str | list[PathPart], reason: str) -> None:
        """A field of ``item`` that was not carried over, and why."""
        self.add(UNMAPPED, item.kind, item.name, path, reason)

    def note(self, item: Item, path: str | list[PathPart], reason: str) -> None:
        """A remark on ``item`` for the user: a default made explicit, a behaviour change."""
        self.add(NOTE, item.kind, item.name, path, reason)

    def add(
        self, category: str, kind: str, name: str, path: str | list[PathPart], reason: str
    ) -> None:
        """A note of any category; ``path`` as text or as parts (empty parts: the object)."""
        self.items.append(Note(category, kind, name, _path(path), reason))


def _path(path: str | list[PathPart]) -> str:
    return path if isinstance(path, str) else (format_path(path) or "(object)")


@dataclass
class ClusterPlan:
    """One legacy cluster's conversion: its inputs, the Azure names and IDs derived from them, and
    the outputs collected so far.

    Built from the AzureManagedControlPlane; the AzureManagedCluster (``cluster``, None when the
    input has none) and the pools are converted against it.
    """

    control_plane: Item
    cluster: Item | None
    cluster_name: str
    credential_secret: str
    subscription: str | None = None
    location: str = ""
    preview: bool = False
    mc_name: str = ""
    resource_group: str = ""  # Azure name of the cluster's resource group
    vnet_name: str = ""
    vnet_resource_group: str = ""
    subnet_name: str = ""
    subnet_ref: JsonObject = field(default_factory=dict)
    aso_control_plane: JsonObject = field(default_factory=dict)
    infra_resources: list[JsonObject] = field(default_factory=list)
    # (kind, metadata.name) of the ASO objects legacy CAPZ created for this cluster (checklist).
    legacy_aso_objects: list[tuple[str, str]] = field(default_factory=list)
    pools: list[PoolPlan] = field(default_factory=list)
    aso_cluster_name: str | None = None
    legacy_infra_name: str | None = None  # the AzureManagedCluster, when the input has one
    machine_pool_names: list[str] = field(default_factory=list)
    # agent pool object name -> its MachinePool's spec.replicas (the adoption's profile count)
    pool_replicas: dict[str, int] = field(default_factory=dict)

    @property
    def namespace(self) -> str | None:
        """The cluster's namespace: the AzureManagedCluster's, else the control plane's."""
        if self.cluster is not None and self.cluster.namespace:
            return self.cluster.namespace
        return self.control_plane.namespace

    @property
    def container_service_api(self) -> str:
        """containerservice apiVersion of the ASO objects: preview with
        ``enablePreviewFeatures``."""
        return t.CONTAINER_SERVICE_PREVIEW_API if self.preview else t.CONTAINER_SERVICE_API


@dataclass
class PoolPlan:
    """One converted pool: the legacy item, its Azure and object names, whether it autoscales, and
    the AzureASOManagedMachinePool that replaces it."""

    item: Item
    azure_name: str
    object_name: str
    autoscaled: bool
    converted: JsonObject
