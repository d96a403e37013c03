"""What one plan starts from: a Cluster with ``spec.topology``, its ClusterClass and the templates
the class references, found among the documents the user named.

CAPI's topology controller reads the same three things from the management cluster (its
``ClusterBlueprint``); a plan reads them from files, so anything missing is the user's input
mistake and is named at its file and line (:class:`~generator.errors.TopologyError`). Both API
versions are read: a v1beta1 class (``ref``, ``namingStrategy``, ``template.metadata``) and a
v1beta2 class (``templateRef``, ``naming``, ``metadata``); a v1beta1 Cluster names its class with
``class``/``classNamespace``, a v1beta2 Cluster with ``classRef``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from generator.documents import Document
from generator.errors import Location, TopologyError
from generator.jsontypes import Json, JsonObject, dig
from generator.model import kinds
from generator.model.manifests import Ref
from generator.model.values import as_dict, as_list, as_str

DEFAULT_NAMESPACE = "default"  # where kubectl applies an object that names none

TemplateKey = tuple[str, str]  # (kind, name) in the class's namespace


def name_of(obj: Json) -> str | None:
    """``metadata.name``, if it is a string."""
    return as_str(dig(obj, "metadata", "name"))


def namespace_of(obj: Json) -> str:
    """``metadata.namespace``, else the namespace kubectl would apply the object to."""
    return as_str(dig(obj, "metadata", "namespace")) or DEFAULT_NAMESPACE


def where(document: Document, path: str | None = None) -> Location:
    """The file, line and object of ``document`` for an error message."""
    return Location(
        file=document.source,
        line=document.start_line,
        document=document.index,
        kind=document.kind,
        name=name_of(document.obj),
        path=path,
    )


@dataclass(frozen=True, slots=True)
class WorkerClass:
    """One ``workers.machinePools[]`` class: its templates, naming template and metadata."""

    name: str
    bootstrap: Ref
    infrastructure: Ref
    naming: str | None
    metadata: JsonObject


@dataclass(frozen=True, slots=True)
class ClassView:
    """The parts of a ClusterClass a plan reads, whichever its API version."""

    document: Document
    name: str
    namespace: str
    infrastructure: Ref
    infrastructure_naming: str | None
    control_plane: Ref
    control_plane_naming: str | None
    control_plane_metadata: JsonObject
    machine_infrastructure: Ref | None
    machine_pools: Mapping[str, WorkerClass]
    machine_deployments: frozenset[str]

    @property
    def obj(self) -> JsonObject:
        """The ClusterClass object (a mapping: only mappings have a kind)."""
        assert isinstance(self.document.obj, dict)
        return self.document.obj


@dataclass(frozen=True, slots=True)
class Blueprint:
    """A Cluster with a topology, its class, and the class's templates by (kind, name)."""

    cluster: Document
    cluster_class: ClassView
    templates: Mapping[TemplateKey, JsonObject]

    @property
    def cluster_obj(self) -> JsonObject:
        """The Cluster object (a mapping: only mappings have a kind)."""
        assert isinstance(self.cluster.obj, dict)
        return self.cluster.obj

    def template(self, ref: Ref) -> JsonObject:
        """The template ``ref`` names (every reference was checked when reading)."""
        found = self.templates.get((ref.kind, ref.name))
        assert found is not None  # blueprints() checked every reference
        return found


def _ref(section: Json, document: Document, path: str, *, required: bool = True) -> Ref | None:
    """The template reference of a class section: v1beta2 ``templateRef``, else v1beta1 ``ref``."""
    for field in ("templateRef", "ref"):
        ref = Ref.parse(dig(section, field), ())
        if ref is not None:
            return ref
    if not required:
        return None
    msg = f"the ClusterClass has no template reference at {path} (ref or templateRef)"
    raise TopologyError(msg, location=where(document, path))


def _naming(section: Json, legacy: Json) -> str | None:
    """A naming template: v1beta2 ``naming.template``, else the v1beta1 strategy ``legacy``."""
    return as_str(dig(section, "naming", "template")) or as_str(dig(legacy, "template"))


def _metadata(value: Json) -> JsonObject:
    meta = as_dict(value) or {}
    return {key: meta[key] for key in ("labels", "annotations") if as_dict(meta.get(key))}


def _worker(item: Json, document: Document, index: int) -> WorkerClass:
    path = f"spec.workers.machinePools[{index}]"
    name = as_str(dig(item, "class"))
    if not name:
        msg = "a machine pool class has no name"
        raise TopologyError(msg, location=where(document, path))
    parts = {}
    for part in ("bootstrap", "infrastructure"):
        section = dig(item, part) if dig(item, part) is not None else dig(item, "template", part)
        parts[part] = _ref(section, document, f"{path}.{part}")
    metadata = dig(item, "metadata") or dig(item, "template", "metadata")
    return WorkerClass(
        name=name,
        bootstrap=_required(parts["bootstrap"]),
        infrastructure=_required(parts["infrastructure"]),
        naming=_naming(item, dig(item, "namingStrategy")),
        metadata=_metadata(metadata),
    )


def _required(ref: Ref | None) -> Ref:
    assert ref is not None
    return ref


def read_class(document: Document) -> ClassView:
    """The plan's view of a ClusterClass document."""
    obj = document.obj
    spec = dig(obj, "spec")
    control_plane = dig(spec, "controlPlane")
    pools: dict[str, WorkerClass] = {}
    for index, item in enumerate(as_list(dig(spec, "workers", "machinePools")) or ()):
        worker = _worker(item, document, index)
        pools.setdefault(worker.name, worker)
    deployments = as_list(dig(spec, "workers", "machineDeployments")) or ()
    return ClassView(
        document=document,
        name=name_of(obj) or "",
        namespace=namespace_of(obj),
        infrastructure=_required(
            _ref(dig(spec, "infrastructure"), document, "spec.infrastructure")
        ),
        infrastructure_naming=_naming(
            dig(spec, "infrastructure"), dig(spec, "infrastructureNamingStrategy")
        ),
        control_plane=_required(_ref(control_plane, document, "spec.controlPlane")),
        control_plane_naming=_naming(control_plane, dig(control_plane, "namingStrategy")),
        control_plane_metadata=_metadata(dig(control_plane, "metadata")),
        machine_infrastructure=_ref(
            dig(control_plane, "machineInfrastructure"), document, "", required=False
        ),
        machine_pools=pools,
        machine_deployments=frozenset(
            name for item in deployments if (name := as_str(dig(item, "class")))
        ),
    )


def class_key(cluster: Document) -> tuple[str, str]:
    """(name, namespace) of the ClusterClass a Cluster's topology names."""
    topology = dig(cluster.obj, "spec", "topology")
    name = as_str(dig(topology, "classRef", "name")) or as_str(dig(topology, "class"))
    if not name:
        msg = "the Cluster's topology names no ClusterClass (spec.topology.class or classRef.name)"
        raise TopologyError(msg, location=where(cluster, "spec.topology"))
    namespace = as_str(dig(topology, "classRef", "namespace")) or as_str(
        dig(topology, "classNamespace")
    )
    return name, namespace or namespace_of(cluster.obj)


def _class_refs(view: ClassView) -> list[Ref]:
    refs = [view.infrastructure, view.control_plane]
    if view.machine_infrastructure is not None:
        refs.append(view.machine_infrastructure)
    for worker in view.machine_pools.values():
        refs.extend((worker.bootstrap, worker.infrastructure))
    return refs


def _templates(view: ClassView, documents: Sequence[Document]) -> dict[TemplateKey, JsonObject]:
    """Every template the class references, from ``documents`` in the class's namespace."""
    found: dict[TemplateKey, JsonObject] = {}
    for document in documents:
        obj = document.obj
        name = name_of(obj)
        if isinstance(obj, dict) and document.kind and name and namespace_of(obj) == view.namespace:
            found.setdefault((document.kind, name), obj)
    for ref in _class_refs(view):
        template = found.get((ref.kind, ref.name))
        group = (as_str(dig(template, "apiVersion")) or "").rpartition("/")[0]
        if template is None or (ref.group is not None and group != ref.group):
            msg = (
                f"the ClusterClass references {ref.kind}/{ref.name} ({ref.api_version}), "
                f"which is not among the inputs in namespace {view.namespace}"
            )
            raise TopologyError(msg, location=where(view.document), hint=_HINT)
    return found


_HINT = "name the files (or folders) holding the ClusterClass and every template it references"


def topology_clusters(documents: Sequence[Document]) -> list[Document]:
    """The Clusters with a ``spec.topology``, in input order."""
    return [
        document
        for document in documents
        if document.kind == kinds.CLUSTER
        and isinstance(dig(document.obj, "spec", "topology"), dict)
    ]


def blueprints(documents: Sequence[Document]) -> list[Blueprint]:
    """One blueprint per Cluster with a topology among ``documents``; raises TopologyError for
    a Cluster whose class or templates are missing, or when there is no such Cluster."""
    clusters = topology_clusters(documents)
    if not clusters:
        msg = "no Cluster with spec.topology among the inputs: nothing to plan"
        raise TopologyError(msg, hint=_HINT)
    classes = {
        (name_of(d.obj), namespace_of(d.obj)): d
        for d in reversed(documents)
        if d.kind == kinds.CLUSTER_CLASS
    }
    found: list[Blueprint] = []
    for cluster in clusters:
        key = class_key(cluster)
        class_document = classes.get(key)
        if class_document is None:
            msg = f"the Cluster's topology names ClusterClass {key[1]}/{key[0]}, which is not among the inputs"
            raise TopologyError(msg, location=where(cluster, "spec.topology"), hint=_HINT)
        view = read_class(class_document)
        found.append(Blueprint(cluster, view, _templates(view, documents)))
    return found
