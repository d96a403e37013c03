"""Step 2 of the create admission chain: CAPZ v1.26.0's mutating webhooks, as data.

Each :class:`Mutation` is one assignment a webhook's ``Default()`` makes, in the webhook's order
(later rows see what earlier rows set): the kind, the JSON path (``*`` is every item of a list),
a pure function of the object and the field's current value (:data:`KEEP` leaves it alone), and
the upstream file and function it comes from. Paths under ``spec.template.spec`` are the template
kinds'.

The webhook decodes the object into CAPZ's Go types and answers with the JSON patch between the
request and the re-encoded object, so a field of a Go struct that has no ``omitempty`` comes back
as its zero value even when the user did not write it (``resourceGroupName: ""`` of an
AzureManagedControlPlaneTemplate, a taint's ``value: ""``). Those rows name ``Go JSON encoding``
as their source; a row whose path has a parent that is a Go pointer (``aadProfile``, a list item)
applies only where that parent exists (``within``), while non-pointer structs are created.

Not modelled: the SSH key AzureManagedControlPlane's webhook generates for ``sshPublicKey: ""``
(a random key), zero values that encode as ``null`` (a nil pointer or slice without
``omitempty``, such as a missing ``identityRef``: the API server drops nulls of non-nullable
fields), and the webhooks of non-AKS kinds (AzureCluster, AzureMachine and their templates).
The AzureASOManaged* kinds have validating webhooks only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, NamedTuple

from generator.checks.admission.defaults import Applied
from generator.jsontypes import Json, JsonObject, dig
from generator.model.kinds import CLUSTER_NAME_LABEL
from generator.model.values import is_templated
from generator.names import with_v_prefix

KEEP: Final = object()  # the function's answer for "leave the field as it is"
AGENT_POOL_MODE_LABEL = "azuremanagedmachinepool.infrastructure.cluster.x-k8s.io/agentpoolmode"
_SPEC = ("spec",)
_NAME = ("metadata", "name")
_CLUSTER_LABEL = ("metadata", "labels", CLUSTER_NAME_LABEL)
_TSPEC = ("spec", "template", "spec")

_CP = "internal/webhooks/azuremanagedcontrolplane_webhook.go:Default"
_CP_DEF = "internal/api/v1beta1/azuremanagedcontrolplane_default.go"
_CPT_DEF = "internal/api/v1beta1/azuremanagedcontrolplanetemplate_default.go"
_UTIL = "internal/api/v1beta1/util.go"
_MP = "internal/webhooks/azuremanagedmachinepool_webhook.go:Default"
_MPT = "internal/webhooks/azuremanagedmachinepooltemplate_webhook.go:Default"
_GO = "Go JSON encoding of api/v1beta1"

# (object, the mapping holding the field or None, current value or None) -> new value | KEEP
Compute = Callable[[JsonObject, JsonObject | None, object], object]


class Mutation(NamedTuple):
    """One assignment of a CAPZ mutating webhook (see the module docstring)."""

    kind: str
    path: tuple[str, ...]
    compute: Compute
    source: str
    within: int = 0  # how many leading path parts must already exist (0: parents are created)
    origin: tuple[str, ...] | None = None  # the field the value is copied from, if any


def _name(obj: JsonObject) -> str:
    value = dig(obj, "metadata", "name")
    return value if isinstance(value, str) else ""


def _text(obj: JsonObject, *path: str | int) -> str:
    value = dig(obj, *path)
    return value if isinstance(value, str) else ""


def _label(obj: JsonObject, key: str) -> str | None:
    labels = dig(obj, "metadata", "labels")
    value = labels.get(key) if isinstance(labels, dict) else None
    return value if isinstance(value, str) else None


def _empty(current: object) -> bool:
    return current is None or current == ""


def zero(value: Json) -> Compute:
    """The Go zero value ``value`` where the field is missing."""
    return lambda _obj, _parent, current: value if current is None else KEEP


def when_missing(value: Json) -> Compute:
    """``value`` where a Go pointer field is nil (missing); an explicit ``""`` stays."""
    return zero(value)


def when_empty(value: Json) -> Compute:
    """``value`` where a Go string field is empty or missing."""
    return lambda _obj, _parent, current: value if _empty(current) else KEEP


def _normalize_version(_obj: JsonObject, _parent: JsonObject | None, current: object) -> object:
    if isinstance(current, str) and with_v_prefix(current) != current:
        return with_v_prefix(current)
    return KEEP


def _sku(_obj: JsonObject, _parent: JsonObject | None, current: object) -> object:
    return {"tier": "Free"} if current is None else KEEP


def _sku_tier(_obj: JsonObject, _parent: JsonObject | None, current: object) -> object:
    return "Standard" if current == "Paid" else KEEP


def _from_cluster_label(obj: JsonObject, _parent: JsonObject | None, current: object) -> object:
    label = _label(obj, CLUSTER_NAME_LABEL)
    return label if _empty(current) and label is not None else KEEP


def _node_resource_group(obj: JsonObject, _parent: JsonObject | None, current: object) -> object:
    if not _empty(current):
        return KEEP
    group, location = _text(obj, *_SPEC, "resourceGroupName"), _text(obj, *_SPEC, "location")
    return f"MC_{group}_{_name(obj)}_{location}"


def _object_name(obj: JsonObject, _parent: JsonObject | None, current: object) -> object:
    return _name(obj) if _empty(current) else KEEP


def _dns_prefix(obj: JsonObject, _parent: JsonObject | None, current: object) -> object:
    return _name(obj) if current is None else KEEP


def _overlay(obj: JsonObject) -> bool:
    return bool(dig(obj, *_SPEC, "networkPluginMode") == "overlay")


def _vnet_cidr(obj: JsonObject, _parent: JsonObject | None, current: object) -> object:
    if not _empty(current):
        return KEEP
    return "10.224.0.0/12" if _overlay(obj) else "10.0.0.0/8"


def _subnet_cidr(obj: JsonObject, _parent: JsonObject | None, current: object) -> object:
    if not _empty(current):
        return KEEP
    return "10.224.0.0/16" if _overlay(obj) else "10.240.0.0/16"


def _vnet_group(obj: JsonObject, _parent: JsonObject | None, current: object) -> object:
    return _text(obj, *_SPEC, "resourceGroupName") if _empty(current) else KEEP


def _extension_plan_name(obj: JsonObject, parent: JsonObject | None, current: object) -> object:
    if not _empty(current) or parent is None:
        return KEEP
    product = parent.get("product")
    return f"{_name(obj)}-{product if isinstance(product, str) else ''}"


def _pool_mode(spec: tuple[str, ...]) -> Compute:
    return lambda obj, _parent, _current: _text(obj, *spec, "mode")


def _class_zero_fills(kind: str, spec: tuple[str, ...]) -> list[Mutation]:
    """The zero values of AzureManagedControlPlaneClassSpec's fields without ``omitempty``
    (api/v1beta1/types_class.go, azuremanagedcontrolplane_types.go) that a re-encoded control
    plane or control plane template carries."""
    n = len(spec)
    return [
        Mutation(kind, (*spec, "resourceGroupName"), zero(""), f"{_GO}/types_class.go"),
        Mutation(kind, (*spec, "version"), zero(""), f"{_GO}/types_class.go"),
        Mutation(kind, (*spec, "location"), zero(""), f"{_GO}/types_class.go"),
        Mutation(kind, (*spec, "virtualNetwork", "name"), zero(""), _GO),
        Mutation(kind, (*spec, "aadProfile", "managed"), zero(False), _GO, n + 1),
        Mutation(kind, (*spec, "addonProfiles", "*", "name"), zero(""), _GO, n + 2),
        Mutation(kind, (*spec, "addonProfiles", "*", "enabled"), zero(False), _GO, n + 2),
        Mutation(kind, (*spec, "extensions", "*", "name"), zero(""), _GO, n + 2),
        Mutation(kind, (*spec, "fleetsMember", "managerName"), zero(""), _GO, n + 1),
        Mutation(kind, (*spec, "fleetsMember", "managerResourceGroup"), zero(""), _GO, n + 1),
        Mutation(
            kind,
            (*spec, "securityProfile", "defender", "logAnalyticsWorkspaceResourceID"),
            zero(""),
            _GO,
            n + 2,
        ),
        Mutation(
            kind,
            (*spec, "securityProfile", "defender", "securityMonitoring", "enabled"),
            zero(False),
            _GO,
            n + 2,
        ),
        Mutation(
            kind, (*spec, "securityProfile", "imageCleaner", "enabled"), zero(False), _GO, n + 2
        ),
        Mutation(
            kind, (*spec, "securityProfile", "workloadIdentity", "enabled"), zero(False), _GO, n + 2
        ),
        Mutation(
            kind, (*spec, "securityProfile", "azureKeyVaultKms", "enabled"), zero(False), _GO, n + 2
        ),
        Mutation(
            kind, (*spec, "securityProfile", "azureKeyVaultKms", "keyID"), zero(""), _GO, n + 2
        ),
    ]


def _pool_rows(kind: str, spec: tuple[str, ...], source: str) -> list[Mutation]:
    n = len(spec)
    return [
        Mutation(
            kind,
            ("metadata", "labels", AGENT_POOL_MODE_LABEL),
            _pool_mode(spec),
            source,
            origin=(*spec, "mode"),
        ),
        Mutation(kind, (*spec, "name"), _object_name, source, origin=_NAME),
        Mutation(kind, (*spec, "osType"), when_missing("Linux"), source),
        Mutation(kind, (*spec, "mode"), zero(""), f"{_GO}/types_class.go"),
        Mutation(kind, (*spec, "sku"), zero(""), f"{_GO}/types_class.go"),
        Mutation(kind, (*spec, "taints", "*", "effect"), zero(""), _GO, n + 2),
        Mutation(kind, (*spec, "taints", "*", "key"), zero(""), _GO, n + 2),
        Mutation(kind, (*spec, "taints", "*", "value"), zero(""), _GO, n + 2),
    ]


_ACP = "AzureManagedControlPlane"
_ACPT = "AzureManagedControlPlaneTemplate"

MUTATIONS: tuple[Mutation, ...] = (
    Mutation(_ACP, (*_SPEC, "version"), _normalize_version, f"{_UTIL}:NormalizeVersion"),
    Mutation(_ACP, (*_SPEC, "sku"), _sku, f"{_CP_DEF}:DefaultSku"),
    Mutation(_ACP, (*_SPEC, "sku", "tier"), _sku_tier, f"{_CP_DEF}:DefaultSku", 2),
    Mutation(
        _ACP,
        (*_SPEC, "fleetsMember", "name"),
        _from_cluster_label,
        f"{_CP_DEF}:DefaultFleetsMember",
        2,
        _CLUSTER_LABEL,
    ),
    Mutation(
        _ACP,
        (*_SPEC, "resourceGroupName"),
        _from_cluster_label,
        f"{_CP_DEF}:SetDefaultAzureManagedControlPlaneResourceGroupName",
        origin=_CLUSTER_LABEL,
    ),
    Mutation(
        _ACP,
        (*_SPEC, "nodeResourceGroupName"),
        _node_resource_group,
        f"{_CP_DEF}:SetDefaultAzureManagedControlPlaneNodeResourceGroupName",
    ),
    Mutation(
        _ACP,
        (*_SPEC, "virtualNetwork", "name"),
        _object_name,
        f"{_CP_DEF}:SetDefaultAzureManagedControlPlaneVirtualNetwork",
        origin=_NAME,
    ),
    Mutation(
        _ACP,
        (*_SPEC, "virtualNetwork", "cidrBlock"),
        _vnet_cidr,
        f"{_CP_DEF}:SetDefaultAzureManagedControlPlaneVirtualNetwork",
    ),
    Mutation(
        _ACP,
        (*_SPEC, "virtualNetwork", "resourceGroup"),
        _vnet_group,
        f"{_CP_DEF}:SetDefaultAzureManagedControlPlaneVirtualNetwork",
        origin=(*_SPEC, "resourceGroupName"),
    ),
    Mutation(
        _ACP,
        (*_SPEC, "virtualNetwork", "subnet", "name"),
        _object_name,
        f"{_CP_DEF}:SetDefaultAzureManagedControlPlaneSubnet",
        origin=_NAME,
    ),
    Mutation(
        _ACP,
        (*_SPEC, "virtualNetwork", "subnet", "cidrBlock"),
        _subnet_cidr,
        f"{_CP_DEF}:SetDefaultAzureManagedControlPlaneSubnet",
    ),
    Mutation(
        _ACP,
        (*_SPEC, "oidcIssuerProfile"),
        when_missing({}),
        f"{_CP_DEF}:SetDefaultAzureManagedControlPlaneOIDCIssuerProfile",
    ),
    Mutation(
        _ACP,
        (*_SPEC, "dnsPrefix"),
        _dns_prefix,
        f"{_CP_DEF}:SetDefaultAzureManagedControlPlaneDNSPrefix",
        origin=_NAME,
    ),
    Mutation(
        _ACP,
        (*_SPEC, "extensions", "*", "plan", "name"),
        _extension_plan_name,
        f"{_CP_DEF}:SetDefaultAzureManagedControlPlaneAKSExtensions",
        4,
    ),
    Mutation(_ACP, (*_SPEC, "controlPlaneEndpoint", "host"), zero(""), f"{_GO} (CAPI APIEndpoint)"),
    Mutation(_ACP, (*_SPEC, "controlPlaneEndpoint", "port"), zero(0), f"{_GO} (CAPI APIEndpoint)"),
    *_class_zero_fills(_ACP, _SPEC),
    Mutation(
        _ACPT,
        (*_TSPEC, "networkPlugin"),
        when_missing("azure"),
        f"{_CPT_DEF}:SetDefaultsAzureManagedControlPlaneTemplate",
    ),
    Mutation(
        _ACPT,
        (*_TSPEC, "loadBalancerSKU"),
        when_missing("Standard"),
        f"{_CPT_DEF}:SetDefaultsAzureManagedControlPlaneTemplate",
    ),
    Mutation(
        _ACPT,
        (*_TSPEC, "enablePreviewFeatures"),
        when_missing(False),
        f"{_CPT_DEF}:SetDefaultsAzureManagedControlPlaneTemplate",
    ),
    Mutation(_ACPT, (*_TSPEC, "version"), _normalize_version, f"{_UTIL}:NormalizeVersion"),
    Mutation(
        _ACPT,
        (*_TSPEC, "virtualNetwork", "cidrBlock"),
        when_empty("10.0.0.0/8"),
        f"{_CPT_DEF}:setDefaultAzureManagedControlPlaneTemplateVirtualNetwork",
    ),
    Mutation(
        _ACPT,
        (*_TSPEC, "virtualNetwork", "subnet", "name"),
        _object_name,
        f"{_CPT_DEF}:setDefaultAzureManagedControlPlaneTemplateSubnet",
        origin=_NAME,
    ),
    Mutation(
        _ACPT,
        (*_TSPEC, "virtualNetwork", "subnet", "cidrBlock"),
        when_empty("10.240.0.0/16"),
        f"{_CPT_DEF}:setDefaultAzureManagedControlPlaneTemplateSubnet",
    ),
    Mutation(_ACPT, (*_TSPEC, "sku"), _sku, f"{_CP_DEF}:DefaultSku"),
    Mutation(_ACPT, (*_TSPEC, "sku", "tier"), _sku_tier, f"{_CP_DEF}:DefaultSku", 4),
    *_class_zero_fills(_ACPT, _TSPEC),
    *_pool_rows("AzureManagedMachinePool", _SPEC, _MP),
    *_pool_rows("AzureManagedMachinePoolTemplate", _TSPEC, _MPT),
)

BY_KIND: dict[str, tuple[Mutation, ...]] = {}
for _row in MUTATIONS:
    BY_KIND[_row.kind] = (*BY_KIND.get(_row.kind, ()), _row)


def mutated_kinds() -> frozenset[str]:
    """The kinds CAPZ v1.26.0 registers a mutating webhook for that capzgen models."""
    return frozenset(BY_KIND)


def _set(node: Json, path: tuple[str | int, ...], value: Json) -> Json:
    """``node`` with ``path`` set to ``value``, copying only the containers on the path and
    creating missing mappings."""
    key = path[0]
    if isinstance(node, list) and isinstance(key, int):
        out_list = list(node)
        out_list[key] = value if len(path) == 1 else _set(node[key], path[1:], value)
        return out_list
    out: JsonObject = dict(node) if isinstance(node, dict) else {}
    if len(path) == 1:
        out[str(key)] = value
    else:
        out[str(key)] = _set(out.get(str(key)), path[1:], value)
    return out


def _places(
    obj: Json, pattern: tuple[str, ...], within: int
) -> list[tuple[tuple[str | int, ...], JsonObject | None]]:
    """The concrete paths ``pattern`` stands for in ``obj``, each with the mapping that holds
    its last part (None when it is to be created): ``*`` expands to every index of an existing
    list; the first ``within`` parts must exist; a present value that is not a container stops
    the row (the API server refuses its type anyway)."""
    found: list[tuple[tuple[str | int, ...], Json]] = [((), obj)]
    for depth, part in enumerate(pattern[:-1]):
        nxt: list[tuple[tuple[str | int, ...], Json]] = []
        for prefix, node in found:
            if part == "*":
                if isinstance(node, list):
                    nxt.extend(((*prefix, i), item) for i, item in enumerate(node))
                continue
            child = node.get(part) if isinstance(node, dict) else None
            if child is None:
                if depth + 1 > within:
                    nxt.append(((*prefix, part), None))
            elif isinstance(child, dict | list):
                nxt.append(((*prefix, part), child))
        found = nxt
    return [
        ((*prefix, pattern[-1]), node)
        for prefix, node in found
        if node is None or isinstance(node, dict)
    ]


def apply_mutations(obj: JsonObject, applied: list[Applied]) -> JsonObject:
    """``obj`` after CAPZ's mutating webhook for its kind (``obj`` itself when nothing changed),
    each value set appended to ``applied``."""
    kind = obj.get("kind")
    rows = BY_KIND.get(kind) if isinstance(kind, str) else None
    if rows is None:
        return obj
    out: Json = obj
    for row in rows:
        for place, parent in _places(out, row.path, row.within):
            current = parent.get(str(place[-1])) if parent is not None else None
            if is_templated(current):
                continue  # a placeholder is substituted before the object is created
            assert isinstance(out, dict)
            value = row.compute(out, parent, current)
            if value is KEEP or value == current:
                continue
            new: Json = value  # a compute function returns JSON
            out = _set(out, place, new)
            applied.append(Applied(place, new, row.source, row.origin))
    assert isinstance(out, dict)
    return out
