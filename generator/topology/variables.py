"""The values a Cluster's patches are rendered with: its variables and CAPI's ``builtin`` values.

A ClusterClass variable takes the Cluster's value (``spec.topology.variables``), else its
schema's top-level ``default`` (CAPI's Cluster webhook writes defaults into the Cluster before
the topology controller reads it); a required variable with neither is refused by that webhook,
so the plan refuses it too. A machine pool's ``variables.overrides`` replace the Cluster's values
for that pool's templates. Defaults nested inside an object's properties are not applied.

The ``builtin`` groups follow CAPI's ``patches/variables`` package: ``cluster`` for every
template (name, namespace, metadata, topology version and class, the network CIDRs when the
Cluster sets them; no ``uid``: the Cluster has none before it is created), ``controlPlane`` for
the control plane's templates, ``machinePool`` for a pool's. Numbers go through Go's JSON round
trip (:func:`~generator.checks.clusterclass.placeholders.go_numbers`).
"""

from __future__ import annotations

from generator.checks.clusterclass.placeholders import go_numbers
from generator.errors import TopologyError
from generator.jsontypes import Json, JsonObject, dig
from generator.model.values import as_dict, as_list, as_str
from generator.topology.blueprint import Blueprint, name_of, namespace_of, where


def _given(items: Json) -> JsonObject:
    values: JsonObject = {}
    for item in as_list(items) or ():
        name = as_str(dig(item, "name"))
        if name and isinstance(item, dict) and "value" in item:
            values.setdefault(name, item["value"])
    return values


def cluster_variables(blueprint: Blueprint) -> JsonObject:
    """Every class variable's value for this Cluster (Go's view of numbers)."""
    given = _given(dig(blueprint.cluster_obj, "spec", "topology", "variables"))
    values: JsonObject = {}
    for entry in as_list(dig(blueprint.cluster_class.obj, "spec", "variables")) or ():
        name = as_str(dig(entry, "name"))
        if not name or name == "builtin":
            continue
        schema = as_dict(dig(entry, "schema", "openAPIV3Schema")) or {}
        if name in given:
            values[name] = go_numbers(given[name])
        elif "default" in schema:
            values[name] = go_numbers(schema["default"])
        elif dig(entry, "required") is True:
            msg = f"ClusterClass variable {name!r} is required and the Cluster gives no value (CAPI's webhook refuses it)"
            raise TopologyError(msg, location=where(blueprint.cluster, "spec.topology.variables"))
    return values


def overrides(topology: Json) -> JsonObject:
    """A machine pool topology's ``variables.overrides``."""
    return {
        name: go_numbers(value)
        for name, value in _given(dig(topology, "variables", "overrides")).items()
    }


def _metadata(obj: Json) -> JsonObject | None:
    labels, annotations = dig(obj, "metadata", "labels"), dig(obj, "metadata", "annotations")
    if labels is None and annotations is None:
        return None
    meta: JsonObject = {}
    if isinstance(labels, dict):
        meta["labels"] = labels
    if isinstance(annotations, dict):
        meta["annotations"] = {
            key: value
            for key, value in annotations.items()
            if key != "kubectl.kubernetes.io/last-applied-configuration"
        }
    return meta


def _network(cluster: JsonObject) -> JsonObject | None:
    network = dig(cluster, "spec", "clusterNetwork")
    found: JsonObject = {}
    if as_str(dig(network, "serviceDomain")):
        found["serviceDomain"] = dig(network, "serviceDomain")
    for key in ("services", "pods"):
        blocks = dig(network, key, "cidrBlocks")
        if isinstance(blocks, list):
            found[key] = blocks
    return found or None


def cluster_builtins(cluster: JsonObject, blueprint: Blueprint) -> JsonObject:
    """``builtin.cluster`` of the desired Cluster."""
    view = blueprint.cluster_class
    version = dig(cluster, "spec", "topology", "version")
    group: JsonObject = {
        "name": name_of(cluster),
        "namespace": namespace_of(cluster),
        "topology": {
            "version": version,
            "class": view.name,
            "classNamespace": view.namespace,
            "classRef": {"name": view.name, "namespace": view.namespace},
        },
    }
    metadata, network = _metadata(cluster), _network(cluster)
    if metadata is not None:
        group["metadata"] = metadata
    if network is not None:
        group["network"] = network
    return {"cluster": group}


def control_plane_builtins(control_plane: JsonObject, topology: Json) -> JsonObject:
    """``builtin.controlPlane`` of the desired control plane."""
    group: JsonObject = {
        "name": name_of(control_plane),
        "version": dig(control_plane, "spec", "version"),
    }
    replicas = dig(topology, "replicas")
    if isinstance(replicas, int) and not isinstance(replicas, bool):
        group["replicas"] = float(replicas)
    metadata = _metadata(control_plane)
    if metadata is not None:
        group["metadata"] = metadata
    return {"controlPlane": group}  # no machineTemplate: machineInfrastructure is not planned


def machine_pool_builtins(
    pool: JsonObject, topology: Json, bootstrap: JsonObject, infrastructure: JsonObject
) -> JsonObject:
    """``builtin.machinePool`` of one desired MachinePool and the objects it references."""
    group: JsonObject = {
        "version": dig(pool, "spec", "template", "spec", "version"),
        "class": dig(topology, "class"),
        "name": name_of(pool),
        "topologyName": dig(topology, "name"),
        "bootstrap": {"configRef": {"name": name_of(bootstrap)}},
        "infrastructureRef": {"name": name_of(infrastructure)},
    }
    replicas = dig(pool, "spec", "replicas")
    if isinstance(replicas, int) and not isinstance(replicas, bool):
        group["replicas"] = float(replicas)
    metadata = _metadata(pool)
    if metadata is not None:
        group["metadata"] = metadata
    return {"machinePool": group}
