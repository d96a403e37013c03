"""The data a patch template is rendered with: ``builtin`` values and ClusterClass variables.

There is no Cluster at validation time, so every value is a placeholder of the right type and a
plausible shape: names are short DNS labels (they pass the ASO schemas' name patterns), versions
are semantic versions, and the machine pool topology names (``pool0``, ``pool1`` ...) are valid
AKS agent pool names. Which ``builtin`` groups are set follows CAPI
(``exp/runtime/hooks/api/v1alpha1`` ``Builtins``): ``cluster`` always, ``controlPlane`` for the
control plane's templates, ``machinePool`` / ``machineDeployment`` for a worker class's templates.

A ClusterClass variable takes its schema's ``default``, else its ``example``, else a placeholder
built from the schema (``enum``'s first value, ``minimum``, the properties of an object, one item
of a list). Numbers become floats, as the JSON round trip CAPI makes turns them into Go
``float64``.
"""

from __future__ import annotations

from dataclasses import dataclass

from generator.jsontypes import Json, JsonObject
from generator.model.values import as_dict, as_list, as_str

CLUSTER_NAME = "my-cluster"
NAMESPACE = "default"
VERSION = "v1.31.1"
MAX_SCHEMA_DEPTH = 16  # placeholder objects stop nesting here


@dataclass(frozen=True, slots=True)
class Role:
    """Where a template is referenced from: ``infrastructureCluster``, ``controlPlane``,
    ``machinePool`` or ``machineDeployment``; ``worker_class`` and ``index`` for workers."""

    kind: str
    worker_class: str | None = None
    index: int = 0


def _metadata() -> JsonObject:
    return {"labels": {}, "annotations": {}}


def builtins(role: Role, class_name: str | None) -> JsonObject:
    """The ``builtin`` value CAPI passes for a template in ``role``."""
    data: JsonObject = {
        "cluster": {
            "name": CLUSTER_NAME,
            "namespace": NAMESPACE,
            "uid": "00000000-0000-0000-0000-000000000000",
            "metadata": _metadata(),
            "topology": {
                "version": VERSION,
                "class": class_name or "my-class",
                "classNamespace": NAMESPACE,
            },
            "network": {"services": ["10.0.0.0/16"], "pods": ["192.168.0.0/16"]},
        }
    }
    if role.kind == "controlPlane":
        data["controlPlane"] = {
            "version": VERSION,
            "metadata": _metadata(),
            "name": f"{CLUSTER_NAME}-control-plane",
            "replicas": 1.0,
        }
    elif role.kind in ("machinePool", "machineDeployment"):
        topology = f"pool{role.index}"
        data[role.kind] = {
            "version": VERSION,
            "metadata": _metadata(),
            "class": role.worker_class or "",
            "name": f"{CLUSTER_NAME}-{topology}",
            "topologyName": topology,
            "replicas": 1.0,
            "bootstrap": {"configRef": {"name": f"{CLUSTER_NAME}-{topology}-bootstrap"}},
            "infrastructureRef": {"name": f"{CLUSTER_NAME}-{topology}"},
        }
    return data


def _float(value: int | float) -> float:
    try:
        return float(value)
    except OverflowError:  # an integer beyond float64: Go's JSON decoder refuses it too
        return float("inf") if value > 0 else float("-inf")


def go_numbers(value: Json) -> Json:
    """Numbers as Go sees them after a JSON round trip: all ``float64``."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return _float(value)
    if isinstance(value, list):
        return [go_numbers(item) for item in value]
    if isinstance(value, dict):
        return {key: go_numbers(item) for key, item in value.items()}
    return value


def _from_type(schema: JsonObject, depth: int) -> Json:
    kind = as_str(schema.get("type"))
    if kind == "object" or "properties" in schema:
        properties = as_dict(schema.get("properties")) or {}
        return {
            name: placeholder(as_dict(sub) or {}, depth + 1)
            for name, sub in properties.items()
            if isinstance(name, str)
        }
    if kind == "array":
        items = as_dict(schema.get("items"))
        return [placeholder(items, depth + 1)] if items is not None else []
    if kind in ("integer", "number"):
        low = schema.get("minimum")
        return _float(low) if isinstance(low, int | float) and not isinstance(low, bool) else 1.0
    if kind == "boolean":
        return True  # the branch a feature flag guards is the one worth checking
    return "placeholder" if schema.get("x-kubernetes-int-or-string") is not True else 1.0


def placeholder(schema: JsonObject, depth: int = 0) -> Json:
    """A value for ``schema``: its default, its example, its first enum value, or one built
    from its type."""
    if depth > MAX_SCHEMA_DEPTH:
        return None
    for key in ("default", "example"):
        if key in schema:
            return go_numbers(schema[key])
    enum = as_list(schema.get("enum"))
    if enum:
        return go_numbers(enum[0])
    return go_numbers(_from_type(schema, depth))


def variables(class_obj: JsonObject) -> JsonObject:
    """The ClusterClass's own variables (``spec.variables``, v1beta1 and v1beta2 alike)."""
    found: JsonObject = {}
    spec = as_dict(class_obj.get("spec")) or {}
    for entry in as_list(spec.get("variables")) or ():
        item = as_dict(entry) or {}
        name = as_str(item.get("name"))
        schema = as_dict((as_dict(item.get("schema")) or {}).get("openAPIV3Schema"))
        if name and name != "builtin":
            found[name] = placeholder(schema or {})
    return found
