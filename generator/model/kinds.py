"""Names of the kinds and groups the validator knows, and where each CAPZ kind embeds resources.

Kept in one place so that rules and the model agree on spelling (reference §1.2, §4.0, §6.1).
"""

from __future__ import annotations

from generator.findings import JsonPath

CAPI_GROUP = "cluster.x-k8s.io"
CAPZ_GROUP = "infrastructure.cluster.x-k8s.io"
CAPZ_API_VERSION = f"{CAPZ_GROUP}/v1beta1"

CLUSTER = "Cluster"
MACHINE_POOL = "MachinePool"
CLUSTER_CLASS = "ClusterClass"
SECRET = "Secret"

ASO_CLUSTER = "AzureASOManagedCluster"
ASO_CONTROL_PLANE = "AzureASOManagedControlPlane"
ASO_MACHINE_POOL = "AzureASOManagedMachinePool"
ASO_CLUSTER_TEMPLATE = "AzureASOManagedClusterTemplate"
ASO_CONTROL_PLANE_TEMPLATE = "AzureASOManagedControlPlaneTemplate"
ASO_MACHINE_POOL_TEMPLATE = "AzureASOManagedMachinePoolTemplate"

# The legacy API (CAPZ turns these into ASO resources itself, reference §5.2).
LEGACY_CLUSTER = "AzureManagedCluster"
LEGACY_CONTROL_PLANE = "AzureManagedControlPlane"
LEGACY_MACHINE_POOL = "AzureManagedMachinePool"
CLUSTER_IDENTITY = "AzureClusterIdentity"
# Their ClusterClass templates: ``spec.template.spec`` holds the non-template kind's class spec,
# which the topology controller copies into every Cluster's object (reference §6.1).
LEGACY_CLUSTER_TEMPLATE = "AzureManagedClusterTemplate"
LEGACY_CONTROL_PLANE_TEMPLATE = "AzureManagedControlPlaneTemplate"
LEGACY_MACHINE_POOL_TEMPLATE = "AzureManagedMachinePoolTemplate"
LEGACY_TEMPLATE_KINDS = frozenset(
    {LEGACY_CLUSTER_TEMPLATE, LEGACY_CONTROL_PLANE_TEMPLATE, LEGACY_MACHINE_POOL_TEMPLATE}
)
# Where a legacy kind keeps its spec: its own ``spec``, a template's ``spec.template.spec``.
SPEC: tuple[str, ...] = ("spec",)
TEMPLATE_SPEC: tuple[str, ...] = ("spec", "template", "spec")
LEGACY_TEMPLATE_OF = {
    LEGACY_CLUSTER: LEGACY_CLUSTER_TEMPLATE,
    LEGACY_CONTROL_PLANE: LEGACY_CONTROL_PLANE_TEMPLATE,
    LEGACY_MACHINE_POOL: LEGACY_MACHINE_POOL_TEMPLATE,
}

# CAPZ kind -> path of its embedded ASO resources (§1.2, §6.1).
_RESOURCES: JsonPath = ("spec", "resources")
_TEMPLATE_RESOURCES: JsonPath = ("spec", "template", "spec", "resources")
EMBEDDING_KINDS: dict[str, JsonPath] = {
    ASO_CLUSTER: _RESOURCES,
    ASO_CONTROL_PLANE: _RESOURCES,
    ASO_MACHINE_POOL: _RESOURCES,
    ASO_CLUSTER_TEMPLATE: _TEMPLATE_RESOURCES,
    ASO_CONTROL_PLANE_TEMPLATE: _TEMPLATE_RESOURCES,
    ASO_MACHINE_POOL_TEMPLATE: _TEMPLATE_RESOURCES,
}
TEMPLATE_KINDS = frozenset(
    {ASO_CLUSTER_TEMPLATE, ASO_CONTROL_PLANE_TEMPLATE, ASO_MACHINE_POOL_TEMPLATE}
)
CONTROL_PLANE_KINDS = frozenset({ASO_CONTROL_PLANE, ASO_CONTROL_PLANE_TEMPLATE})
MACHINE_POOL_KINDS = frozenset({ASO_MACHINE_POOL, ASO_MACHINE_POOL_TEMPLATE})

# ASO groups and kinds.
CONTAINERSERVICE = "containerservice.azure.com"
RESOURCES = "resources.azure.com"
NETWORK = "network.azure.com"
MANAGEDIDENTITY = "managedidentity.azure.com"
KUBERNETESCONFIGURATION = "kubernetesconfiguration.azure.com"
OPERATIONALINSIGHTS = "operationalinsights.azure.com"
AUTHORIZATION = "authorization.azure.com"

GroupKind = tuple[str, str]
RESOURCE_GROUP: GroupKind = (RESOURCES, "ResourceGroup")
MANAGED_CLUSTER: GroupKind = (CONTAINERSERVICE, "ManagedCluster")
AGENT_POOL: GroupKind = (CONTAINERSERVICE, "ManagedClustersAgentPool")
MAINTENANCE_CONFIGURATION: GroupKind = (CONTAINERSERVICE, "MaintenanceConfiguration")
FLEETS_MEMBER: GroupKind = (CONTAINERSERVICE, "FleetsMember")
EXTENSION: GroupKind = (KUBERNETESCONFIGURATION, "Extension")
VIRTUAL_NETWORK: GroupKind = (NETWORK, "VirtualNetwork")
SUBNET: GroupKind = (NETWORK, "VirtualNetworksSubnet")
USER_ASSIGNED_IDENTITY: GroupKind = (MANAGEDIDENTITY, "UserAssignedIdentity")
FEDERATED_IDENTITY_CREDENTIAL: GroupKind = (MANAGEDIDENTITY, "FederatedIdentityCredential")


def is_aso_group(group: str) -> bool:
    """ASO groups all end in ``.azure.com`` (``serviceoperator.azure.com`` is annotations only)."""
    return group.endswith(".azure.com")


def split_api_version(api_version: str) -> tuple[str, str]:
    """``containerservice.azure.com/v1api20240901`` -> ``("containerservice.azure.com", "v1api20240901")``."""
    group, _, version = api_version.rpartition("/")
    return group, version


def _rg(*kinds: GroupKind) -> dict[GroupKind, GroupKind]:
    return dict.fromkeys(kinds, RESOURCE_GROUP)


# Kind -> the kind its ``spec.owner.name`` must name (R6, R7, R9, R13 and the schema descriptions
# "Owner is expected to be a reference to ..."). Kinds with an arbitrary owner (Extension,
# RoleAssignment) carry ``group``/``kind`` in the owner and are resolved from those instead.
OWNER_KINDS: dict[GroupKind, GroupKind] = {
    **_rg(
        MANAGED_CLUSTER,
        VIRTUAL_NETWORK,
        USER_ASSIGNED_IDENTITY,
        (CONTAINERSERVICE, "Fleet"),
        (NETWORK, "NatGateway"),
        (NETWORK, "PrivateEndpoint"),
        (NETWORK, "BastionHost"),
        (NETWORK, "PublicIPAddress"),
        (NETWORK, "PublicIPPrefix"),
        (NETWORK, "RouteTable"),
        (NETWORK, "NetworkSecurityGroup"),
        (NETWORK, "PrivateDnsZone"),
        (NETWORK, "DnsZone"),
        (NETWORK, "LoadBalancer"),
        (NETWORK, "ApplicationGateway"),
        (NETWORK, "ApplicationSecurityGroup"),
        (NETWORK, "NetworkInterface"),
        (OPERATIONALINSIGHTS, "Workspace"),
    ),
    AGENT_POOL: MANAGED_CLUSTER,
    MAINTENANCE_CONFIGURATION: MANAGED_CLUSTER,
    (CONTAINERSERVICE, "TrustedAccessRoleBinding"): MANAGED_CLUSTER,
    FLEETS_MEMBER: (CONTAINERSERVICE, "Fleet"),
    (CONTAINERSERVICE, "FleetsUpdateRun"): (CONTAINERSERVICE, "Fleet"),
    SUBNET: VIRTUAL_NETWORK,
    (NETWORK, "VirtualNetworksVirtualNetworkPeering"): VIRTUAL_NETWORK,
    (NETWORK, "RouteTablesRoute"): (NETWORK, "RouteTable"),
    (NETWORK, "NetworkSecurityGroupsSecurityRule"): (NETWORK, "NetworkSecurityGroup"),
    (NETWORK, "PrivateDnsZonesVirtualNetworkLink"): (NETWORK, "PrivateDnsZone"),
    (NETWORK, "LoadBalancersInboundNatRule"): (NETWORK, "LoadBalancer"),
    (NETWORK, "PrivateEndpointsPrivateDnsZoneGroup"): (NETWORK, "PrivateEndpoint"),
    FEDERATED_IDENTITY_CREDENTIAL: USER_ASSIGNED_IDENTITY,
}

# Kinds whose owner is an ``ArbitraryOwnerReference``: any kind, named by ``group``/``kind``/``name``
# or by ``armId`` (extension resources, R10).
ARBITRARY_OWNER_KINDS: frozenset[GroupKind] = frozenset(
    {
        EXTENSION,
        (KUBERNETESCONFIGURATION, "FluxConfiguration"),
        (AUTHORIZATION, "RoleAssignment"),
        (AUTHORIZATION, "RoleDefinition"),
    }
)

# ARM resource type of every owner kind of OWNER_KINDS: what an owner given by ``armId`` must be.
ARM_TYPES: dict[GroupKind, str] = {
    RESOURCE_GROUP: "Microsoft.Resources/resourceGroups",
    MANAGED_CLUSTER: "Microsoft.ContainerService/managedClusters",
    (CONTAINERSERVICE, "Fleet"): "Microsoft.ContainerService/fleets",
    VIRTUAL_NETWORK: "Microsoft.Network/virtualNetworks",
    (NETWORK, "RouteTable"): "Microsoft.Network/routeTables",
    (NETWORK, "NetworkSecurityGroup"): "Microsoft.Network/networkSecurityGroups",
    (NETWORK, "PrivateDnsZone"): "Microsoft.Network/privateDnsZones",
    (NETWORK, "LoadBalancer"): "Microsoft.Network/loadBalancers",
    (NETWORK, "PrivateEndpoint"): "Microsoft.Network/privateEndpoints",
    USER_ASSIGNED_IDENTITY: "Microsoft.ManagedIdentity/userAssignedIdentities",
}

# Kinds CAPZ installs CRDs for and may manage without extra set-up (§4.0, C20, C21).
DEFAULT_ASO_KINDS: frozenset[GroupKind] = frozenset(
    {
        FLEETS_MEMBER,
        MAINTENANCE_CONFIGURATION,
        MANAGED_CLUSTER,
        AGENT_POOL,
        EXTENSION,
        (NETWORK, "BastionHost"),
        (NETWORK, "NatGateway"),
        (NETWORK, "PrivateEndpoint"),
        VIRTUAL_NETWORK,
        SUBNET,
        RESOURCE_GROUP,
    }
)

CREDENTIAL_ANNOTATION = "serviceoperator.azure.com/credential-from"
RECONCILE_POLICY_ANNOTATION = "serviceoperator.azure.com/reconcile-policy"
REPLICAS_MANAGED_BY_ANNOTATION = "cluster.x-k8s.io/replicas-managed-by"
PAUSED_ANNOTATION = "cluster.x-k8s.io/paused"
# CAPI labels a cluster's objects with its name; CAPZ's webhooks and defaults read the Cluster by it.
CLUSTER_NAME_LABEL = "cluster.x-k8s.io/cluster-name"
DEFAULT_CREDENTIAL_SECRET = "aso-credential"

# Kinds clusterctl never namespaces (matched by kind only, like clusterctl).
CLUSTER_SCOPED_KINDS = frozenset(
    {
        "Namespace",
        "Node",
        "PersistentVolume",
        "PodSecurityPolicy",
        "CertificateSigningRequest",
        "ClusterRoleBinding",
        "ClusterRole",
        "VolumeAttachment",
        "StorageClass",
        "CSIDriver",
        "CSINode",
        "ValidatingWebhookConfiguration",
        "MutatingWebhookConfiguration",
        "CustomResourceDefinition",
        "PriorityClass",
        "RuntimeClass",
    }
)
