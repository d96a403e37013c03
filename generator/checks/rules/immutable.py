"""Immutable fields of CAPZ's kinds on update, as one table: which field, how it may change, and
where upstream says so.

CAPZ v1.26.0's ``ValidateUpdate`` webhooks (``internal/webhooks/*_webhook.go``) compare most
fields with ``webhookutils.ValidateImmutable`` (``util/webhook/validator.go``): a field may not be
set, unset or changed once the object exists. A few are checked only when the old object had a
value (``err != nil && old != nil``), one allows unsetting (``ValidateZeroTransition``), zone lists
are compared as sets (``EnsureStringSlicesAreEquivalent``), and a few are compared with ``!=``.
Go's zero value counts as unset: a missing field, and for a field that is not a pointer in CAPZ's
Go types (``plain``) also ``""``, ``0`` and ``false``. Both objects are compared after the create
defaults and CAPZ's mutating webhook (the stored object was defaulted when it was created).

Each row names the webhook function it mirrors, so the table is checked against upstream by
reading it, and the tests carry upstream's ``TestValidateUpdate`` tables as cases
(``tests/validate/update_cases/``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum

from generator.checks.changes import Change
from generator.checks.rules.base import Rule
from generator.findings import Finding, Gate, JsonPath, Operation, Severity
from generator.jsontypes import Json, dig
from generator.model import kinds

SPEC = kinds.SPEC
TEMPLATE = kinds.TEMPLATE_SPEC
MCP, MCP_T = kinds.LEGACY_CONTROL_PLANE, kinds.LEGACY_CONTROL_PLANE_TEMPLATE
POOL, POOL_T = kinds.LEGACY_MACHINE_POOL, kinds.LEGACY_MACHINE_POOL_TEMPLATE
AZURE_CLUSTER, AZURE_MACHINE = "AzureCluster", "AzureMachine"


class Mode(StrEnum):
    """How a field may change on update."""

    IMMUTABLE = "immutable"  # ValidateImmutable: not set, unset or changed
    ONCE_SET = "once-set"  # ValidateImmutable, reported only when the old value was set
    ZERO_TRANSITION = "zero-transition"  # ValidateZeroTransition: unsetting is allowed
    SAME_SET = "same-set"  # EnsureStringSlicesAreEquivalent: the same items in any order
    EQUAL = "equal"  # compared with != (a plain Go value): any difference


@dataclass(frozen=True)
class Immutable:
    """One row: the kinds, the field below the kind's spec (``spec`` or ``spec.template.spec``),
    how it may change, whether it is a plain Go value, and the upstream function."""

    kinds: frozenset[str]
    field: JsonPath
    mode: Mode
    source: str
    plain: bool = False
    default: Json = None  # what an unset value stands for (upstream defaults the old object)


def _rows(
    kinds_: tuple[str, ...], source: str, mode: Mode, *fields: str, plain: bool = False
) -> tuple[Immutable, ...]:
    return tuple(
        Immutable(frozenset(kinds_), tuple(name.split(".")), mode, source, plain) for name in fields
    )


_MCP_SRC = "internal/webhooks/azuremanagedcontrolplane_webhook.go:ValidateUpdate"
_MCP_T_SRC = "internal/webhooks/azuremanagedcontrolplanetemplate_webhook.go:ValidateUpdate"
_VNET_SRC = (
    "azuremanagedcontrolplane_validation.go:validateAzureManagedControlPlaneVirtualNetworkUpdate"
)
_POOL_SRC = "internal/webhooks/azuremanagedmachinepool_webhook.go:ValidateUpdate"
_POOL_T_SRC = "internal/webhooks/azuremanagedmachinepooltemplate_webhook.go:ValidateUpdate"
_CLUSTER_SRC = "internal/webhooks/azurecluster_webhook.go:ValidateUpdate"
_MACHINE_SRC = "internal/webhooks/azuremachine_webhook.go:ValidateUpdate"
_I, _O = Mode.IMMUTABLE, Mode.ONCE_SET

CONTROL_PLANE_FIELDS: tuple[Immutable, ...] = (
    *_rows((MCP, MCP_T), f"{_MCP_SRC}, {_MCP_T_SRC}", _I, "subscriptionID", "location", plain=True),
    *_rows((MCP,), _MCP_SRC, _I, "resourceGroupName", "nodeResourceGroupName", plain=True),
    *_rows((MCP,), _MCP_SRC, _I, "azureEnvironment", plain=True),
    *_rows((MCP,), _MCP_SRC, _I, "sshPublicKey", "httpProxyConfig"),
    *_rows(
        (MCP, MCP_T),
        f"{_MCP_SRC}, {_MCP_T_SRC}",
        _I,
        "dnsServiceIP",
        "networkPlugin",
        "networkPolicy",
        "networkDataplane",
        "loadBalancerSKU",
        "outboundType",
    ),
    *_rows((MCP,), _VNET_SRC, Mode.EQUAL, "virtualNetwork.name", "virtualNetwork.resourceGroup"),
    *_rows(
        (MCP, MCP_T),
        f"{_VNET_SRC}, validateAzureManagedControlPlaneTemplateVirtualNetworkTemplateUpdate",
        Mode.EQUAL,
        "virtualNetwork.cidrBlock",
        "virtualNetwork.subnet.name",
        "virtualNetwork.subnet.cidrBlock",
    ),
    *_rows(
        (MCP,),
        "validateAzureManagedControlPlaneAADProfileUpdateAndLocalAccounts",
        _O,
        "disableLocalAccounts",
    ),
)

POOL_FIELDS: tuple[Immutable, ...] = (
    *_rows((POOL, POOL_T), f"{_POOL_SRC}, {_POOL_T_SRC}", _I, "sku", plain=True),
    *_rows(
        (POOL, POOL_T),
        f"{_POOL_SRC}, {_POOL_T_SRC}",
        _I,
        "name",
        "osType",
        "osDiskSizeGB",
        "maxPods",
        "osDiskType",
        "scaleSetPriority",
        "enableUltraSSD",
        "enableNodePublicIP",
        "nodePublicIPPrefixID",
        "kubeletConfig",
        "kubeletDiskType",
        "linuxOSConfig",
    ),
    *_rows((POOL, POOL_T), f"{_POOL_SRC}, {_POOL_T_SRC}", _O, "subnetName", "enableFIPS"),
    *_rows((POOL,), _POOL_SRC, _O, "enableEncryptionAtHost"),
    *_rows((POOL, POOL_T), f"{_POOL_SRC}, {_POOL_T_SRC}", Mode.SAME_SET, "availabilityZones"),
)

CLUSTER_FIELDS: tuple[Immutable, ...] = (
    *_rows((AZURE_CLUSTER,), _CLUSTER_SRC, _I, "resourceGroup", "subscriptionID", plain=True),
    *_rows((AZURE_CLUSTER,), _CLUSTER_SRC, _I, "location", plain=True),
    *_rows(
        (AZURE_CLUSTER,),
        _CLUSTER_SRC,
        _I,
        "networkSpec.privateDNSZoneName",
        "networkSpec.privateDNSZoneResourceGroup",
        "networkSpec.privateDNSZone",
        "networkSpec.controlPlaneOutboundLB",
    ),
    Immutable(
        frozenset({AZURE_CLUSTER}),
        ("azureEnvironment",),
        Mode.EQUAL,
        _CLUSTER_SRC,
        default="AzurePublicCloud",
    ),
    *_rows(
        (AZURE_CLUSTER,),
        _CLUSTER_SRC,
        _O,
        "controlPlaneEndpoint.host",
        "controlPlaneEndpoint.port",
        "bastionSpec.azureBastion",
    ),
)

MACHINE_FIELDS: tuple[Immutable, ...] = (
    *_rows(
        (AZURE_MACHINE,),
        _MACHINE_SRC,
        _I,
        "image",
        "identity",
        "systemAssignedIdentityRole",
        "userAssignedIdentities",
        "roleAssignmentName",
        "osDisk",
        "dataDisks",
        "spotVMOptions",
        "securityProfile",
        "capacityReservationGroupID",
    ),
    *_rows((AZURE_MACHINE,), _MACHINE_SRC, _I, "sshPublicKey", plain=True),
    *_rows(
        (AZURE_MACHINE,),
        _MACHINE_SRC,
        _I,
        "allocatePublicIP",
        "enableIPForwarding",
        "disableExtensionOperations",
        plain=True,
    ),
    *_rows((AZURE_MACHINE,), _MACHINE_SRC, Mode.ZERO_TRANSITION, "acceleratedNetworking"),
    *_rows((AZURE_MACHINE,), _MACHINE_SRC, _O, "diagnostics", "disableVMBootstrapExtension"),
)

IDENTITY_FIELDS: tuple[Immutable, ...] = _rows(
    (kinds.CLUSTER_IDENTITY,),
    "internal/webhooks/azureclusteridentity_webhook.go:ValidateUpdate",
    _I,
    "type",
    plain=True,
)

WHOLE_TEMPLATES: tuple[Immutable, ...] = (
    Immutable(
        frozenset({"AzureClusterTemplate"}),
        (),
        Mode.EQUAL,
        "internal/webhooks/azureclustertemplate_webhook.go:ValidateUpdate",
    ),
    Immutable(
        frozenset({"AzureMachineTemplate"}),
        (),
        Mode.EQUAL,
        "internal/webhooks/azuremachinetemplate_webhook.go:ValidateUpdate",
    ),
)


def is_zero(value: Json, plain: bool) -> bool:
    """Whether Go sees the zero value: absent (a nil pointer, slice or map) or, for a plain
    value, its zero (``""``, ``0``, ``false``, an empty struct)."""
    if value is None:
        return True
    return plain and value in ("", 0, False, {})


def _items(value: Json) -> list[str]:
    return sorted(str(item) for item in value) if isinstance(value, list) else []


def violation(row: Immutable, old: Json, new: Json) -> str | None:
    """What is wrong with changing ``old`` to ``new`` under ``row``, or None."""
    old_zero, new_zero = is_zero(old, row.plain), is_zero(new, row.plain)
    if row.mode is Mode.SAME_SET:
        return None if _items(old) == _items(new) else "immutable: the zones cannot change"
    if row.mode is Mode.EQUAL:
        same = old == new or (old_zero and new_zero)
        return None if same else "immutable: it cannot change once the object exists"
    if row.mode is Mode.ONCE_SET and old_zero:
        return None
    if row.mode is Mode.ZERO_TRANSITION and new_zero:
        return None
    if not old_zero:
        if new_zero:
            return "immutable: a value once set cannot be removed"
        return None if old == new else "immutable: it cannot change once the object exists"
    return None if new_zero else "immutable: a value cannot be added once the object exists"


WHOLE_TEMPLATE_KINDS = frozenset({"AzureClusterTemplate", "AzureMachineTemplate"})


def spec_base(kind: str) -> JsonPath:
    """Where a kind's fields sit: ``spec``, or ``spec.template.spec`` for a template."""
    templated = kind in kinds.LEGACY_TEMPLATE_KINDS or kind in WHOLE_TEMPLATE_KINDS
    return TEMPLATE if templated else SPEC


def changed_fields(rule: Rule, table: tuple[Immutable, ...], change: Change) -> Iterator[Finding]:
    """The findings of ``rule`` for every row of ``table`` that ``change`` breaks."""
    kind = change.new.kind
    base = spec_base(kind)
    for row in table:
        if kind not in row.kinds:
            continue
        path = (*base, *row.field)
        old, new = dig(change.old.obj, *path), dig(change.new.obj, *path)
        if row.default is not None:
            old = row.default if is_zero(old, True) else old
            new = row.default if is_zero(new, True) else new
        problem = violation(row, old, new)
        if problem is not None:
            yield rule.at(change, path, f"{problem} (was {_show(old)}, now {_show(new)})")


def _show(value: Json) -> str:
    text = "unset" if value is None else repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _rule(rule_id: str, what: str, source: str) -> Rule:
    return Rule(
        rule_id,
        f"on update: {what} ({source})",
        Severity.ERROR,
        Gate.ADMISSION,
        operation=Operation.UPDATE,
    )


MCP_IMMUTABLE = _rule(
    "CAPZ-UPDATE-MCP-IMMUTABLE",
    "AzureManagedControlPlane and its Template: fields that cannot change: subscriptionID, resource "
    "groups, location, sshPublicKey, dnsServiceIP, network plugin/policy/dataplane, "
    "loadBalancerSKU, httpProxyConfig, azureEnvironment, outboundType, virtualNetwork, "
    "disableLocalAccounts once set",
    "CAPZ azuremanagedcontrolplane_webhook.go, azuremanagedcontrolplanetemplate_webhook.go:ValidateUpdate",
)


@MCP_IMMUTABLE.checks_update
def _check_mcp(change: Change) -> Iterator[Finding]:
    yield from changed_fields(MCP_IMMUTABLE, CONTROL_PLANE_FIELDS, change)


POOL_IMMUTABLE = _rule(
    "CAPZ-UPDATE-POOL-IMMUTABLE",
    "AzureManagedMachinePool and its Template: fields that cannot change: name, osType, sku, OS disk, "
    "subnetName, FIPS, encryption at host, zones, maxPods, scaleSetPriority, ultra SSD, node "
    "public IP, kubelet and Linux OS config",
    "CAPZ azuremanagedmachinepool_webhook.go, azuremanagedmachinepooltemplate_webhook.go:ValidateUpdate",
)


@POOL_IMMUTABLE.checks_update
def _check_pool(change: Change) -> Iterator[Finding]:
    yield from changed_fields(POOL_IMMUTABLE, POOL_FIELDS, change)


CLUSTER_IMMUTABLE = _rule(
    "CAPZ-UPDATE-AZURECLUSTER-IMMUTABLE",
    "AzureCluster fields that cannot change (resource group, subscription, location, endpoint, "
    "private DNS zone, outbound LB, environment, bastion once set); AzureClusterTemplate's spec",
    "CAPZ azurecluster_webhook.go, azureclustertemplate_webhook.go:ValidateUpdate",
)


@CLUSTER_IMMUTABLE.checks_update
def _check_cluster(change: Change) -> Iterator[Finding]:
    yield from changed_fields(CLUSTER_IMMUTABLE, CLUSTER_FIELDS, change)
    yield from changed_fields(CLUSTER_IMMUTABLE, WHOLE_TEMPLATES[:1], change)
    if change.new.kind == AZURE_CLUSTER:
        for path, message in _network_changes(change.old.obj, change.new.obj, change.old.name):
            yield CLUSTER_IMMUTABLE.at(change, path, message)


_LBS = ("apiServerLB", "nodeOutboundLB", "controlPlaneOutboundLB")
_OWNED_TAG = "sigs.k8s.io_cluster-api-provider-azure_cluster_{}"


def _network_changes(old: Json, new: Json, name: str | None) -> Iterator[tuple[JsonPath, str]]:
    """AzureCluster's load balancer zones (when both revisions have the load balancer) and the
    subnets kept by name (azurecluster_validation.go:validateAzureClusterSubnetUpdate)."""
    network: JsonPath = ("spec", "networkSpec")
    for lb in _LBS:
        before, after = dig(old, *network, lb), dig(new, *network, lb)
        if (
            isinstance(before, dict)
            and isinstance(after, dict)
            and _items(before.get("availabilityZones")) != _items(after.get("availabilityZones"))
        ):
            yield (*network, lb, "availabilityZones"), "immutable: the zones cannot change"
    owned = dig(old, *network, "vnet", "tags", _OWNED_TAG.format(name)) == "owned"
    subnets = {dig(item, "name"): item for item in dig(old, *network, "subnets") or []}
    for index, item in enumerate(dig(new, *network, "subnets") or []):
        was = subnets.get(dig(item, "name"))
        if was is None:
            continue
        at: JsonPath = (*network, "subnets", index)
        if owned and dig(was, "cidrBlocks") != dig(item, "cidrBlocks"):
            yield (*at, "cidrBlocks"), "immutable: an owned vnet's subnet keeps its CIDR blocks"
        for part in ("routeTable", "natGateway"):
            before = dig(was, part, "name")
            if before and before != dig(item, part, "name"):
                yield (*at, part, "name"), f"immutable: the {part} name cannot change once set"
        if dig(was, "securityGroup", "name") != dig(item, "securityGroup", "name"):
            yield (*at, "securityGroup", "name"), "immutable: the security group name cannot change"


MACHINE_IMMUTABLE = _rule(
    "CAPZ-UPDATE-AZUREMACHINE-IMMUTABLE",
    "AzureMachine fields that cannot change (image, identities, disks, SSH key, public IP, "
    "spot, security profile, ...); AzureMachineTemplate's spec",
    "CAPZ azuremachine_webhook.go, azuremachinetemplate_webhook.go:ValidateUpdate",
)


@MACHINE_IMMUTABLE.checks_update
def _check_machine(change: Change) -> Iterator[Finding]:
    yield from changed_fields(MACHINE_IMMUTABLE, MACHINE_FIELDS, change)
    yield from changed_fields(MACHINE_IMMUTABLE, WHOLE_TEMPLATES[1:], change)


IDENTITY_IMMUTABLE = _rule(
    "CAPZ-UPDATE-IDENTITY-TYPE",
    "AzureClusterIdentity's type cannot change",
    "CAPZ azureclusteridentity_webhook.go:ValidateUpdate",
)


@IDENTITY_IMMUTABLE.checks_update
def _check_identity(change: Change) -> Iterator[Finding]:
    yield from changed_fields(IDENTITY_IMMUTABLE, IDENTITY_FIELDS, change)
