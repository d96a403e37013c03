"""The objects CAPI's topology controller makes from a Cluster's topology, before the patches.

This follows ``exp/topology/desiredstate`` of CAPI v1.13: the infrastructure cluster and the
control plane are cloned from the class's templates (``templateToObject``: ``spec.template`` of
the template becomes the object, its kind loses ``Template``, the cluster-name and
topology-owned labels and the cloned-from annotations are added); the control plane gets the
topology's version (and replicas when the topology sets them) and the merged topology and class
metadata; each machine pool of the topology gets a MachinePool and, cloned from its class's
templates, a bootstrap config and an infrastructure machine pool carrying the pool-name label.
Names come from :mod:`.naming`.

The CAPI objects (Cluster, MachinePool) are written in the API version of the input Cluster, so
references are v1beta1 ``apiVersion`` or v1beta2 ``apiGroup`` references alike. Not planned (the
plan says so instead of guessing): machine deployments, a control plane with
``machineInfrastructure``, machine health checks, and the timeouts, taints and
``minReadySeconds`` of machine pool classes.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass

from generator.checks.clusterclass.placeholders import Role
from generator.checks.clusterclass.targets import Target
from generator.errors import Location, TopologyError
from generator.jsontypes import Json, JsonObject, dig
from generator.model.kinds import CLUSTER_NAME_LABEL
from generator.model.manifests import Ref
from generator.model.values import as_dict, as_list, as_str
from generator.topology import naming
from generator.topology.blueprint import Blueprint, WorkerClass, name_of, namespace_of, where
from generator.topology.variables import (
    cluster_builtins,
    control_plane_builtins,
    machine_pool_builtins,
    overrides,
)

OWNED_LABEL = "topology.cluster.x-k8s.io/owned"
POOL_NAME_LABEL = "topology.cluster.x-k8s.io/pool-name"
CLONED_FROM_NAME = "cluster.x-k8s.io/cloned-from-name"
CLONED_FROM_GROUP_KIND = "cluster.x-k8s.io/cloned-from-groupkind"
UPGRADE_STEP = "topology.internal.cluster.x-k8s.io/upgrade-step"


@dataclass(frozen=True, slots=True)
class PlanItem:
    """One class template of this Cluster and the object CAPI makes from it: the patches select
    ``target``, change ``template`` and the result becomes ``obj``'s spec."""

    target: Target
    template: JsonObject
    obj: JsonObject
    builtins: JsonObject
    overrides: JsonObject


@dataclass(frozen=True, slots=True)
class PoolPlan:
    """One machine pool of the topology: the MachinePool and the two objects it references."""

    pool: JsonObject
    bootstrap: PlanItem
    infrastructure: PlanItem


@dataclass(frozen=True, slots=True)
class Desired:
    """Everything the topology controller would create or change for one Cluster."""

    cluster: JsonObject
    infrastructure: PlanItem
    control_plane: PlanItem
    pools: tuple[PoolPlan, ...]

    def items(self) -> Iterator[PlanItem]:
        """The templates in CAPI's patch request order."""
        yield self.infrastructure
        yield self.control_plane
        for pool in self.pools:
            yield pool.bootstrap
            yield pool.infrastructure


def group_kind(ref: Ref) -> str:
    """Kubernetes' ``GroupKind.String()``: ``Kind.group``."""
    return f"{ref.kind}.{ref.group}" if ref.group else ref.kind


def _merged(*maps: Json) -> JsonObject:
    """CAPI's ``util.MergeMap``: the first map that has a key wins."""
    merged: JsonObject = {}
    for value in maps:
        for key, item in (as_dict(value) or {}).items():
            merged.setdefault(key, item)
    return merged


def clone(
    template: JsonObject,
    ref: Ref,
    cluster: JsonObject,
    name: str,
    labels: JsonObject,
    annotations: JsonObject | None = None,
) -> JsonObject:
    """CAPI's ``templateToObject``: the object ``template`` stands for, named ``name``."""
    obj = copy.deepcopy(as_dict(dig(template, "spec", "template")) or {})
    metadata = as_dict(obj.get("metadata")) or {}
    kept: JsonObject = {key: metadata[key] for key in ("labels", "annotations") if key in metadata}
    meta: JsonObject = {"name": name, "namespace": namespace_of(cluster), **kept}
    meta["annotations"] = {
        **(as_dict(meta.get("annotations")) or {}),
        **(annotations or {}),
        CLONED_FROM_NAME: ref.name,
        CLONED_FROM_GROUP_KIND: group_kind(ref),
    }
    meta["labels"] = {
        **(as_dict(meta.get("labels")) or {}),
        **labels,
        CLUSTER_NAME_LABEL: name_of(cluster),
        OWNED_LABEL: "",
    }
    kind = as_str(template.get("kind")) or ""
    head: JsonObject = {
        "apiVersion": template.get("apiVersion"),
        "kind": kind.removesuffix("Template"),
        "metadata": meta,
    }
    return {**head, **{k: v for k, v in obj.items() if k != "metadata"}}


def reference(obj: JsonObject, capi_version: str) -> JsonObject:
    """A reference to ``obj`` as the Cluster's API version writes it."""
    api_version = as_str(obj.get("apiVersion")) or ""
    if capi_version.endswith("/v1beta1"):
        return {"apiVersion": api_version, "kind": obj.get("kind"), "name": name_of(obj)}
    group = api_version.rpartition("/")[0]
    return {"apiGroup": group, "kind": obj.get("kind"), "name": name_of(obj)}


def _control_plane(blueprint: Blueprint, cluster: JsonObject) -> PlanItem:
    view = blueprint.cluster_class
    topology = dig(cluster, "spec", "topology", "controlPlane")
    name = naming.from_template(
        view.control_plane_naming or naming.DEFAULT_TEMPLATE,
        name_of(cluster) or "",
        where(view.document, "spec.controlPlane"),
    )
    meta = dig(topology, "metadata")
    labels = _merged(dig(meta, "labels"), view.control_plane_metadata.get("labels"))
    annotations = _merged(dig(meta, "annotations"), view.control_plane_metadata.get("annotations"))
    template = blueprint.template(view.control_plane)
    obj = clone(template, view.control_plane, cluster, name, labels, annotations)
    spec = as_dict(obj.setdefault("spec", {}))
    assert spec is not None
    spec["version"] = dig(cluster, "spec", "topology", "version")
    replicas = dig(topology, "replicas")
    if replicas is not None:
        spec["replicas"] = replicas
    target = Target(Role("controlPlane"), view.control_plane)
    return PlanItem(target, template, obj, control_plane_builtins(obj, topology), {})


def _infrastructure(blueprint: Blueprint, cluster: JsonObject) -> PlanItem:
    view = blueprint.cluster_class
    name = naming.from_template(
        view.infrastructure_naming or naming.DEFAULT_TEMPLATE,
        name_of(cluster) or "",
        where(view.document, "spec.infrastructure"),
    )
    template = blueprint.template(view.infrastructure)
    obj = clone(template, view.infrastructure, cluster, name, {})
    return PlanItem(
        Target(Role("infrastructureCluster"), view.infrastructure), template, obj, {}, {}
    )


def _worker_class(blueprint: Blueprint, topology: Json, index: int) -> WorkerClass:
    class_name = as_str(dig(topology, "class")) or ""
    worker = blueprint.cluster_class.machine_pools.get(class_name)
    if worker is None or not as_str(dig(topology, "name")):
        path = f"spec.topology.workers.machinePools[{index}]"
        msg = (
            f"machine pool class {class_name!r} is not a machinePools class of ClusterClass "
            f"{blueprint.cluster_class.name}"
            if worker is None
            else "the machine pool topology has no name"
        )
        raise TopologyError(msg, location=where(blueprint.cluster, path))
    return worker


def _pool_object(
    cluster: JsonObject,
    topology: Json,
    worker: WorkerClass,
    refs: tuple[JsonObject, JsonObject],
    location: Location,
) -> JsonObject:
    """The MachinePool of one topology item (CAPI's ``computeMachinePool``); ``location`` is the
    class's pool, where a naming template that fails is."""
    cluster_name, topology_name = name_of(cluster) or "", as_str(dig(topology, "name")) or ""
    name = naming.from_template(
        worker.naming or naming.DEFAULT_POOL_TEMPLATE, cluster_name, location, topology_name
    )
    labels = {
        **_merged(dig(topology, "metadata", "labels"), worker.metadata.get("labels")),
        CLUSTER_NAME_LABEL: cluster_name,
        OWNED_LABEL: "",
        POOL_NAME_LABEL: topology_name,
    }
    annotations = _merged(
        dig(topology, "metadata", "annotations"), worker.metadata.get("annotations")
    )
    meta: JsonObject = {"name": name, "namespace": namespace_of(cluster), "labels": labels}
    template_meta: JsonObject = {"labels": dict(labels)}
    if annotations:
        meta["annotations"] = annotations
        template_meta["annotations"] = dict(annotations)
    spec: JsonObject = {"clusterName": cluster_name}
    failure_domains = dig(topology, "failureDomains")
    if isinstance(failure_domains, list):
        spec["failureDomains"] = failure_domains
    if dig(topology, "replicas") is not None:
        spec["replicas"] = dig(topology, "replicas")
    spec["template"] = {
        "metadata": template_meta,
        "spec": {
            "clusterName": cluster_name,
            "version": dig(cluster, "spec", "topology", "version"),
            "bootstrap": {"configRef": refs[0]},
            "infrastructureRef": refs[1],
        },
    }
    return {
        "apiVersion": cluster.get("apiVersion"),
        "kind": "MachinePool",
        "metadata": meta,
        "spec": spec,
    }


def _pool(blueprint: Blueprint, cluster: JsonObject, topology: Json, index: int) -> PoolPlan:
    worker = _worker_class(blueprint, topology, index)
    cluster_name, topology_name = name_of(cluster) or "", as_str(dig(topology, "name")) or ""
    prefix = f"{cluster_name}-{topology_name}-"
    labels = {POOL_NAME_LABEL: topology_name}
    role = Role("machinePool", worker.name, index)
    made = []
    for ref in (worker.bootstrap, worker.infrastructure):
        template = blueprint.template(ref)
        made.append((ref, template, clone(template, ref, cluster, naming.prefixed(prefix), labels)))
    version = as_str(cluster.get("apiVersion")) or ""
    refs = (reference(made[0][2], version), reference(made[1][2], version))
    location = where(blueprint.cluster_class.document, f"spec.workers.machinePools ({worker.name})")
    pool = _pool_object(cluster, topology, worker, refs, location)
    builtins = machine_pool_builtins(pool, topology, made[0][2], made[1][2])
    values = overrides(topology)
    bootstrap, infrastructure = (
        PlanItem(Target(role, ref), template, obj, builtins, values) for ref, template, obj in made
    )
    return PoolPlan(pool, bootstrap, infrastructure)


def _cluster(
    blueprint: Blueprint, infrastructure: JsonObject, control_plane: JsonObject
) -> JsonObject:
    """CAPI's ``computeCluster``: the input Cluster with its labels and references set."""
    cluster = copy.deepcopy(blueprint.cluster_obj)
    version = as_str(cluster.get("apiVersion")) or ""
    meta = as_dict(cluster.setdefault("metadata", {}))
    assert meta is not None
    meta["labels"] = {
        **(as_dict(meta.get("labels")) or {}),
        CLUSTER_NAME_LABEL: name_of(cluster),
        OWNED_LABEL: "",
    }
    meta["annotations"] = {**(as_dict(meta.get("annotations")) or {}), UPGRADE_STEP: ""}
    spec = as_dict(cluster.get("spec"))
    assert spec is not None
    spec["infrastructureRef"] = reference(infrastructure, version)
    spec["controlPlaneRef"] = reference(control_plane, version)
    return cluster


def _unplanned(blueprint: Blueprint) -> None:
    topology = dig(blueprint.cluster_obj, "spec", "topology")
    if as_list(dig(topology, "workers", "machineDeployments")):
        msg = "machine deployment topologies are not planned (only machine pools)"
        raise TopologyError(msg, location=where(blueprint.cluster, "spec.topology.workers"))
    if blueprint.cluster_class.machine_infrastructure is not None:
        msg = "a control plane with machineInfrastructure is not planned"
        raise TopologyError(
            msg, location=where(blueprint.cluster_class.document, "spec.controlPlane")
        )


def _unique_pool_names(blueprint: Blueprint) -> None:
    """CAPI's Cluster webhook refuses two machine pools of one name (their objects would too)."""
    seen: set[str] = set()
    pools = dig(blueprint.cluster_obj, "spec", "topology", "workers", "machinePools")
    for index, topology in enumerate(as_list(pools) or ()):
        name = as_str(dig(topology, "name"))
        if name is not None and name in seen:
            msg = f"machine pool name {name!r} is used twice in the topology"
            path = f"spec.topology.workers.machinePools[{index}].name"
            raise TopologyError(msg, location=where(blueprint.cluster, path))
        if name is not None:
            seen.add(name)


def desired_state(blueprint: Blueprint) -> Desired:
    """The desired objects of one Cluster, before the class's patches."""
    _unplanned(blueprint)
    _unique_pool_names(blueprint)
    base = blueprint.cluster_obj
    infrastructure = _infrastructure(blueprint, base)
    control_plane = _control_plane(blueprint, base)
    cluster = _cluster(blueprint, infrastructure.obj, control_plane.obj)
    shared = cluster_builtins(cluster, blueprint)
    pools = tuple(
        _pool(blueprint, cluster, topology, index)
        for index, topology in enumerate(
            as_list(dig(cluster, "spec", "topology", "workers", "machinePools")) or ()
        )
    )
    infrastructure = _with_cluster(infrastructure, shared)
    control_plane = _with_cluster(control_plane, shared)
    pools = tuple(
        PoolPlan(
            p.pool, _with_cluster(p.bootstrap, shared), _with_cluster(p.infrastructure, shared)
        )
        for p in pools
    )
    return Desired(cluster, infrastructure, control_plane, pools)


def _with_cluster(item: PlanItem, shared: JsonObject) -> PlanItem:
    return PlanItem(
        item.target, item.template, item.obj, {**shared, **item.builtins}, item.overrides
    )
