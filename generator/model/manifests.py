"""Views over a list of parsed documents, indexed once so that every rule runs in linear time.

The validator's rules ask graph questions (which Cluster does this agent pool belong to, does this
owner name resolve, what is the control plane's version). :class:`ManifestSet` answers them from
indexes built in a single pass instead of letting each rule scan the whole set, which keeps a
7,000-document input fast. Values every rule reads (group, spec, annotations, the first
ManagedCluster of a control plane ...) are computed once here; subjects, needed only when a
finding is made, are computed on demand.

Namespaces: an object without ``metadata.namespace`` lands in whatever namespace it is applied to
(``kubectl -n``, ``clusterctl --target-namespace``), so for reference resolution a missing namespace
is compatible with any namespace; an exact match is preferred. Whether a cluster's objects really
share one namespace is judged by the namespace rules.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Final, TypeVar, final

from generator.documents import Document
from generator.findings import JsonPath, Subject
from generator.jsontypes import Json, JsonObject, dig
from generator.model import kinds
from generator.model.values import as_dict, as_list, as_str, known_str


def embedded_items(obj: Json, kind: str | None) -> tuple[JsonPath, list[Json] | None]:
    """Where a CAPZ kind keeps its ASO resources, and the list found there (``None`` if absent).

    A non-list value is returned as ``None`` too; the schema check reports the wrong type.
    """
    prefix = kinds.EMBEDDING_KINDS.get(kind or "")
    if prefix is None:
        return (), None
    return prefix, as_list(dig(obj, *prefix))


def _metadata(obj: JsonObject) -> JsonObject:
    """``metadata``, or an empty mapping when it is missing or not a mapping (read only)."""
    meta = obj.get("metadata")
    return meta if isinstance(meta, dict) else _NO_METADATA


_NO_METADATA: JsonObject = {}


def _annotations(meta: JsonObject) -> JsonObject:
    annotations = meta.get("annotations")
    return annotations if isinstance(annotations, dict) else {}


class TopObject:
    """A top-level document that is a mapping. Identity-hashed so it can key dictionaries.

    This module's records are plain classes, not dataclasses: compiled, each is a native class
    made at import for nothing, where ``dataclasses`` spent ~0.4 ms per class generating
    methods in every worker (see docs/performance.md)."""

    document: Document
    obj: JsonObject
    api_version: str  # "" when missing or not a string (reported by the structure check)
    kind: str
    group: str
    name: str | None
    namespace: str | None
    spec: JsonObject | None
    annotations: JsonObject
    items_path: JsonPath  # where embedded resources live (CAPZ kinds only)
    items: list[Json] | None  # the raw ``resources`` list, non-mappings included
    resources: list[AsoResource]  # its mapping items
    path: JsonPath  # rule paths are relative to the document root

    def __init__(
        self,
        document: Document,
        obj: JsonObject,
        api_version: str,
        kind: str,
        group: str,
        name: str | None,
        namespace: str | None,
        spec: JsonObject | None,
        annotations: JsonObject,
        items_path: JsonPath = (),
        items: list[Json] | None = None,
    ) -> None:
        self.document, self.obj, self.api_version = document, obj, api_version
        self.kind, self.group, self.name, self.namespace = kind, group, name, namespace
        self.spec, self.annotations = spec, annotations
        self.items_path, self.items = items_path, items
        self.resources = []
        self.path = ()

    @property
    def subject(self) -> Subject:
        """The object as findings name it (built on demand: most objects never get a finding)."""
        return Subject(
            file=self.document.source,
            document=self.document.index,
            kind=self.kind or None,
            name=self.name,
        )

    def ref(self) -> str:
        """``Kind/name`` for messages, ``?`` for a missing name."""
        return f"{self.kind}/{self.name or '?'}"


class AsoResource:
    """An ASO resource: embedded in a CAPZ object (``parent`` set) or a top-level document."""

    obj: JsonObject
    api_version: str
    group: str
    version: str
    kind: str
    group_kind: kinds.GroupKind
    name: str | None
    path: JsonPath  # absolute path of the resource inside its document ("" for a top-level one)
    top: TopObject  # the document it lives in
    parent: TopObject | None  # the CAPZ object embedding it; None for a top-level ASO document
    spec: JsonObject | None
    annotations: JsonObject

    def __init__(self, top: TopObject, obj: JsonObject, path: JsonPath, embedded: bool) -> None:
        """The view of ``obj`` at ``path`` in ``top``; ``embedded`` makes ``top`` its parent."""
        api_version = as_str(obj.get("apiVersion")) or ""
        group, _, version = api_version.rpartition("/")
        kind = as_str(obj.get("kind")) or ""
        meta = _metadata(obj)
        self.obj, self.api_version, self.group, self.version = obj, api_version, group, version
        self.kind, self.group_kind, self.name = kind, (group, kind), as_str(meta.get("name"))
        self.path, self.top, self.parent = path, top, top if embedded else None
        self.spec, self.annotations = as_dict(obj.get("spec")), _annotations(meta)

    @property
    def subject(self) -> Subject:
        """The resource as findings name it: its document, plus the resource when embedded."""
        subject = self.top.subject
        return subject if self.parent is None else subject.embedded(self.path, self.obj)

    @property
    def namespace(self) -> str | None:
        """The namespace the resource ends up in: CAPZ forces the owning object's (§1.5)."""
        return self.top.namespace

    def ref(self) -> str:
        """``Kind/name`` for messages, ``?`` for a missing name."""
        return f"{self.kind}/{self.name or '?'}"


@final
class Ref:
    """A CAPI object reference (v1beta1 ``apiVersion`` or v1beta2 ``apiGroup``); equal to
    another with the same fields."""

    kind: Final[str]
    name: Final[str]
    group: Final[str | None]
    api_version: Final[str | None]
    path: Final[JsonPath]

    def __init__(
        self, kind: str, name: str, group: str | None, api_version: str | None, path: JsonPath
    ) -> None:
        self.kind, self.name, self.group, self.api_version, self.path = (
            kind,
            name,
            group,
            api_version,
            path,
        )

    def _key(self) -> tuple[str, str, str | None, str | None, JsonPath]:
        return self.kind, self.name, self.group, self.api_version, self.path

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Ref) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Ref{self._key()!r}"

    @classmethod
    def parse(cls, value: Json, path: JsonPath) -> Ref | None:
        """The reference ``value`` holds; None without a non-empty ``kind`` and ``name``.

        ``group`` comes from ``apiGroup``, else from the group part of ``apiVersion``.
        """
        if not isinstance(value, dict):
            return None
        kind, name = value.get("kind"), value.get("name")
        if not isinstance(kind, str) or not isinstance(name, str) or not kind or not name:
            return None
        api_version = as_str(value.get("apiVersion"))
        group = as_str(value.get("apiGroup"))
        if group is None and api_version is not None:
            group = api_version.rpartition("/")[0]
        return cls(kind=kind, name=name, group=group, api_version=api_version, path=path)


def _names_aso_kind(ref: Ref | None) -> bool:
    """Whether ``ref`` names an AzureASOManaged* kind (the ASO API of CAPZ)."""
    return ref is not None and ref.kind.startswith("AzureASOManaged")


def _first_of(obj: TopObject | None, group_kind: kinds.GroupKind) -> AsoResource | None:
    if obj is not None:
        for res in obj.resources:
            if res.group_kind == group_kind:
                return res
    return None


class PoolView:
    """A MachinePool with its AzureASOManagedMachinePool (when the ref resolves)."""

    machine_pool: TopObject
    infra_ref: Ref | None
    infra: TopObject | None
    agent_pool: AsoResource | None  # the first agent pool: the one CAPZ uses (C10)

    def __init__(
        self, machine_pool: TopObject, infra_ref: Ref | None, infra: TopObject | None
    ) -> None:
        self.machine_pool, self.infra_ref, self.infra = machine_pool, infra_ref, infra
        self.agent_pool = _first_of(infra, kinds.AGENT_POOL)


class ClusterGroup:
    """A Cluster and the objects reachable from it through refs and ``clusterName``."""

    cluster: TopObject
    control_plane_ref: Ref | None
    infra_ref: Ref | None
    control_plane: TopObject | None
    infra: TopObject | None
    is_aso: bool  # either ref names an AzureASOManaged* kind
    managed_cluster: AsoResource | None  # the control plane's first one: "the" AKS cluster (C4)
    pools: list[PoolView]

    def __init__(
        self,
        cluster: TopObject,
        control_plane_ref: Ref | None,
        infra_ref: Ref | None,
        control_plane: TopObject | None,
        infra: TopObject | None,
        is_aso: bool,
    ) -> None:
        self.cluster, self.control_plane_ref, self.infra_ref = cluster, control_plane_ref, infra_ref
        self.control_plane, self.infra, self.is_aso = control_plane, infra, is_aso
        self.managed_cluster = _first_of(control_plane, kinds.MANAGED_CLUSTER)
        self.pools = []

    def members(self) -> Iterator[TopObject]:
        """The Cluster, its control plane and infra cluster, then each MachinePool and its infra."""
        yield self.cluster
        if self.control_plane is not None:
            yield self.control_plane
        if self.infra is not None:
            yield self.infra
        for pool in self.pools:
            yield pool.machine_pool
            if pool.infra is not None:
                yield pool.infra

    def resources(self) -> Iterator[AsoResource]:
        """The ASO resources embedded in any of :meth:`members`."""
        for member in self.members():
            yield from member.resources


_T = TypeVar("_T", TopObject, AsoResource)
MACHINE_POOL_INFRA_REF: JsonPath = ("spec", "template", "spec", "infrastructureRef")


class ManifestSet:
    """Every mapping document of a validation run with the indexes rules need."""

    def __init__(
        self, documents: Sequence[Document], *, present_kinds: frozenset[str] | None = None
    ) -> None:
        """Index ``documents``. ``present_kinds``: the kinds of the whole input when these
        documents are one batch of it (``validate.partition``), for the rules that ask whether
        the input has a Cluster at all; by default the kinds of ``documents``."""
        self.documents = documents
        self.objects: list[TopObject] = []
        self.by_kind: dict[str, list[TopObject]] = {}
        self.resources: list[AsoResource] = []
        self.resources_by_kind: dict[kinds.GroupKind, list[AsoResource]] = {}
        self._by_kind_name: dict[tuple[str, str], list[TopObject]] = {}
        self._res_by_name: dict[tuple[str, str, str], list[AsoResource]] = {}
        for document in documents:
            if isinstance(document.obj, dict):
                self._add(document, document.obj)
        # A later definition of an identity already defined (see :meth:`_index_duplicates`) ->
        # the first definition. Lookups resolve to first definitions; the Cluster graph leaves
        # later copies out, so a file validated twice reads as one cluster defined twice.
        self.duplicate_of: dict[TopObject | AsoResource, TopObject | AsoResource] = {}
        self._index_duplicates()
        self.clusters: list[ClusterGroup] = []
        self.cluster_of: dict[TopObject, ClusterGroup] = {}
        self.pools: list[PoolView] = []
        self.pool_of: dict[TopObject, PoolView] = {}  # MachinePool and its infra -> view
        self._group_clusters()
        # A set with a Cluster or ClusterClass is a whole cluster definition; one without is a
        # fragment (say, one extra pool for a running cluster) whose names may point outside it.
        self.present_kinds = frozenset(self.by_kind) if present_kinds is None else present_kinds
        self.complete = self.has_kind(kinds.CLUSTER) or self.has_kind(kinds.CLUSTER_CLASS)
        # What the checks derive from this set once and share (their views), kept with the set so
        # it lives exactly as long; a weak-keyed cache would do, but compiled (mypyc) classes
        # cannot be weakly referenced.
        self.derived: dict[str, object] = {}

    # -- indexing ---------------------------------------------------------------------------
    def _add(self, document: Document, obj: JsonObject) -> None:
        api_version = as_str(obj.get("apiVersion")) or ""
        kind = as_str(obj.get("kind")) or ""
        meta = _metadata(obj)
        name = as_str(meta.get("name"))
        prefix, items = embedded_items(obj, kind)
        top = TopObject(
            document=document,
            obj=obj,
            api_version=api_version,
            kind=kind,
            group=api_version.rpartition("/")[0],
            name=name,
            namespace=as_str(meta.get("namespace")),
            spec=as_dict(obj.get("spec")),
            annotations=_annotations(meta),
            items_path=prefix,
            items=items,
        )
        self.objects.append(top)
        self.by_kind.setdefault(kind, []).append(top)
        if name is not None:
            self._by_kind_name.setdefault((kind, name), []).append(top)
        if kinds.is_aso_group(top.group):
            self._add_resource(AsoResource(top, obj, (), embedded=False))
        if items:
            for index, item in enumerate(items):
                if isinstance(item, dict):
                    res = AsoResource(top, item, (*prefix, index), embedded=True)
                    top.resources.append(res)
                    self._add_resource(res)

    def _add_resource(self, res: AsoResource) -> None:
        self.resources.append(res)
        self.resources_by_kind.setdefault(res.group_kind, []).append(res)
        if res.name is not None:
            self._res_by_name.setdefault((res.group, res.kind, res.name), []).append(res)

    def _index_duplicates(self) -> None:
        """Objects are identified by namespace, group, kind and name: for the API server
        (``kubectl apply`` keeps one definition) and, for embedded ASO resources, for CAPZ and ASO
        (§1.8). Top-level objects come first, then embedded resources, each in document order.
        Resources embedded in ClusterClass templates are left out: CAPI names their copies per
        Cluster."""
        first: dict[tuple[str | None, str, str, str], TopObject | AsoResource] = {}
        candidates: list[TopObject | AsoResource] = [*self.objects]
        candidates += (
            res
            for res in self.resources
            if res.parent is not None and res.parent.kind not in kinds.TEMPLATE_KINDS
        )
        for obj in candidates:
            name = known_str(obj.name)
            if name is None or not obj.kind:
                continue
            key = (obj.namespace, obj.group, obj.kind, name)
            if key in first:
                self.duplicate_of[obj] = first[key]
            else:
                first[key] = obj

    def is_copy(self, obj: TopObject | AsoResource) -> bool:
        """Whether ``obj`` is a later definition of an identity defined before, or is embedded in
        one: rules that relate objects to each other skip these (CAPZ-RES-DUPLICATE reports
        them), or a copy would be related to its own original."""
        if obj in self.duplicate_of:
            return True
        return isinstance(obj, AsoResource) and obj.top in self.duplicate_of

    def _group_clusters(self) -> None:
        for cluster in self.by_kind.get(kinds.CLUSTER, ()):
            if cluster in self.duplicate_of:
                continue  # its objects would resolve to the first definition's
            spec = cluster.spec or {}
            cp_ref = Ref.parse(spec.get("controlPlaneRef"), ("spec", "controlPlaneRef"))
            infra_ref = Ref.parse(spec.get("infrastructureRef"), ("spec", "infrastructureRef"))
            group = ClusterGroup(
                cluster=cluster,
                control_plane_ref=cp_ref,
                infra_ref=infra_ref,
                control_plane=self.resolve(cp_ref, cluster.namespace),
                infra=self.resolve(infra_ref, cluster.namespace),
                is_aso=_names_aso_kind(cp_ref) or _names_aso_kind(infra_ref),
            )
            self.clusters.append(group)
            for member in (cluster, group.control_plane, group.infra):
                if member is not None:
                    self.cluster_of.setdefault(member, group)
        for mp in self.by_kind.get(kinds.MACHINE_POOL, ()):
            if mp in self.duplicate_of:
                continue  # the same pool as the first definition, not a second one
            ref = Ref.parse(
                dig(mp.spec, "template", "spec", "infrastructureRef"), MACHINE_POOL_INFRA_REF
            )
            view = PoolView(mp, ref, self.resolve(ref, mp.namespace))
            self.pools.append(view)
            self.pool_of[mp] = view
            if view.infra is not None:
                self.pool_of.setdefault(view.infra, view)
            owner = self._cluster_named_by(mp)
            if owner is not None:
                owner.pools.append(view)
                self.cluster_of.setdefault(mp, owner)
                if view.infra is not None:
                    self.cluster_of.setdefault(view.infra, owner)

    def _cluster_named_by(self, mp: TopObject) -> ClusterGroup | None:
        name = as_str(dig(mp.spec, "clusterName"))
        cluster = None if name is None else self.find(kinds.CLUSTER, name, mp.namespace)
        return None if cluster is None else self.cluster_of.get(cluster)

    # -- lookups ----------------------------------------------------------------------------
    def has_kind(self, kind: str) -> bool:
        """Whether the input (the whole input, for a batch of one) has an object of ``kind``."""
        return kind in self.present_kinds

    def find(self, kind: str, name: str, namespace: str | None) -> TopObject | None:
        """The object of ``kind``/``name`` in ``namespace`` (exact namespace preferred)."""
        return _pick(self._by_kind_name.get((kind, name)), namespace)

    def find_any_namespace(self, kind: str, name: str) -> list[TopObject]:
        """Every object of ``kind``/``name``, whatever its namespace, in document order."""
        return list(self._by_kind_name.get((kind, name), ()))

    def resolve(self, ref: Ref | None, namespace: str | None) -> TopObject | None:
        """The object ``ref`` names, seen from ``namespace`` (see :meth:`find`); None for no ref."""
        return None if ref is None else self.find(ref.kind, ref.name, namespace)

    def find_resource(
        self, group_kind: kinds.GroupKind, name: str, namespace: str | None
    ) -> AsoResource | None:
        """The ASO resource ``group_kind``/``name`` in ``namespace`` (exact namespace preferred)."""
        return _pick(self._res_by_name.get((*group_kind, name)), namespace)

    def find_resource_any_namespace(
        self, group_kind: kinds.GroupKind, name: str
    ) -> list[AsoResource]:
        """Every ASO resource ``group_kind``/``name`` in any namespace, in document order."""
        return list(self._res_by_name.get((*group_kind, name), ()))

    def resources_of(self, *group_kinds: kinds.GroupKind) -> Iterator[AsoResource]:
        """The ASO resources (embedded or top-level) of the given group/kinds, kind by kind."""
        for group_kind in group_kinds:
            yield from self.resources_by_kind.get(group_kind, ())

    def objects_of(self, *kind_names: str) -> Iterator[TopObject]:
        """The top-level objects of the given kinds, kind by kind, each in document order."""
        for kind in kind_names:
            yield from self.by_kind.get(kind, ())


def _pick(candidates: list[_T] | None, namespace: str | None) -> _T | None:
    """The candidate in ``namespace``, else one whose namespace is compatible (either unset)."""
    if not candidates:
        return None
    for candidate in candidates:
        if candidate.namespace == namespace:
            return candidate
    for candidate in candidates:
        if candidate.namespace is None or namespace is None:
            return candidate
    return None
