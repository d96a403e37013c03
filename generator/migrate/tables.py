"""The legacy -> ASO mapping as data (reference §5.1-§5.6, CAPZ v1.26.0 CRDs and ASO schemas).

Paths are dotted (``a.b[0].c``). Legacy paths are relative to the legacy object's ``spec``; ASO
paths to the generated resource's ``spec``. Anything a table does not list is handled by a
converter function (one module per target object, see :mod:`generator.migrate`), or reported as
unmapped.
"""

from __future__ import annotations

from typing import Final

# Moved to generator.capzbuild.tables (shared with the validator); re-exported for the converters.
from generator.capzbuild.tables import AUTOSCALER_DEFAULTS as AUTOSCALER_DEFAULTS
from generator.capzbuild.tables import AUTOSCALER_KEYS as AUTOSCALER_KEYS
from generator.capzbuild.tables import CONTAINER_SERVICE_API as CONTAINER_SERVICE_API
from generator.capzbuild.tables import (
    CONTAINER_SERVICE_PREVIEW_API as CONTAINER_SERVICE_PREVIEW_API,
)
from generator.capzbuild.tables import CONTROL_PLANE_COPIES as CONTROL_PLANE_COPIES
from generator.capzbuild.tables import CONTROL_PLANE_DROPPED as CONTROL_PLANE_DROPPED
from generator.capzbuild.tables import CREDENTIAL_ANNOTATION as CREDENTIAL_ANNOTATION
from generator.capzbuild.tables import DEFAULT_ADMIN_USERNAME as DEFAULT_ADMIN_USERNAME
from generator.capzbuild.tables import MACHINE_POOL_COPIES as MACHINE_POOL_COPIES
from generator.capzbuild.tables import MACHINE_POOL_DEFAULTS as MACHINE_POOL_DEFAULTS
from generator.capzbuild.tables import MACHINE_POOL_DROPPED as MACHINE_POOL_DROPPED
from generator.capzbuild.tables import SKU_TIERS as SKU_TIERS
from generator.capzbuild.tables import SYSCTL_NAMES as SYSCTL_NAMES
from generator.capzbuild.tables import SYSCTL_RENAMES as SYSCTL_RENAMES

CAPZ_GROUP: Final = "infrastructure.cluster.x-k8s.io"
CAPZ_V1BETA1: Final = f"{CAPZ_GROUP}/v1beta1"
CAPZ_V1ALPHA1: Final = f"{CAPZ_GROUP}/v1alpha1"

# ASO apiVersions of the generated resources: the ones CAPZ v1.26.0's released templates embed, and
# for kinds they do not embed the ones CAPZ v1.26.0 itself compiles against (reference §0).
RESOURCE_GROUP_API: Final = "resources.azure.com/v1api20200601"
FLEETS_MEMBER_API: Final = "containerservice.azure.com/v1api20250301"
EXTENSION_API: Final = "kubernetesconfiguration.azure.com/v1api20230501"
NETWORK_API: Final = "network.azure.com/v1api20201101"  # VirtualNetwork, VirtualNetworksSubnet
PRIVATE_ENDPOINT_API: Final = "network.azure.com/v1api20220701"

REPLICAS_MANAGED_BY: Final = "cluster.x-k8s.io/replicas-managed-by"
ADOPT_ANNOTATION: Final = "sigs.k8s.io/cluster-api-provider-azure-adopt"

LEGACY_CONTROL_PLANE: Final = "AzureManagedControlPlane"
LEGACY_CLUSTER: Final = "AzureManagedCluster"
LEGACY_MACHINE_POOL: Final = "AzureManagedMachinePool"
LEGACY_IDENTITY: Final = "AzureClusterIdentity"
LEGACY_TEMPLATES: Final = frozenset(
    {
        "AzureManagedControlPlaneTemplate",
        "AzureManagedClusterTemplate",
        "AzureManagedMachinePoolTemplate",
    }
)
ASO_CLUSTER: Final = "AzureASOManagedCluster"
ASO_CONTROL_PLANE: Final = "AzureASOManagedControlPlane"
ASO_MACHINE_POOL: Final = "AzureASOManagedMachinePool"
# Kinds whose v1alpha1 is rewritten to v1beta1 (reference §5.1), with every reference to them.
ASO_KINDS: Final = frozenset(
    {
        ASO_CLUSTER,
        ASO_CONTROL_PLANE,
        ASO_MACHINE_POOL,
        f"{ASO_CLUSTER}Template",
        f"{ASO_CONTROL_PLANE}Template",
        f"{ASO_MACHINE_POOL}Template",
    }
)
LEGACY_TO_ASO_KIND: Final = {
    LEGACY_CLUSTER: ASO_CLUSTER,
    LEGACY_CONTROL_PLANE: ASO_CONTROL_PLANE,
    LEGACY_MACHINE_POOL: ASO_MACHINE_POOL,
}

# Server-populated metadata dropped from objects the migration rewrites (input may come from
# `kubectl get -o yaml`).
SERVER_METADATA: Final = (
    "creationTimestamp",
    "deletionGracePeriodSeconds",
    "deletionTimestamp",
    "finalizers",
    "generation",
    "managedFields",
    "ownerReferences",
    "resourceVersion",
    "selfLink",
    "uid",
)
# Annotations that CAPI/CAPZ/kubectl write on live objects; never carried to new objects.
CONTROLLER_ANNOTATIONS: Final = frozenset(
    {
        "clusterctl.cluster.x-k8s.io/block-move",
        "kubectl.kubernetes.io/last-applied-configuration",
        "sigs.k8s.io/cluster-api-provider-azure-owned-aso-kinds",
    }
)


# Legacy defaults (internal/api/v1beta1/azuremanagedcontrolplane_default.go, CRD defaults).
DEFAULT_VNET_CIDR: Final = "10.0.0.0/8"
DEFAULT_SUBNET_CIDR: Final = "10.240.0.0/16"
DEFAULT_OVERLAY_VNET_CIDR: Final = "10.224.0.0/12"
DEFAULT_OVERLAY_SUBNET_CIDR: Final = "10.224.0.0/16"
DEFAULT_FLEET_GROUP: Final = "default"


# --- AzureClusterIdentity -> ASO credential Secret (reference §5.6) ------------------------------

IDENTITY_AUTH_MODES: Final = {
    "WorkloadIdentity": "workloadidentity",
    "UserAssignedMSI": "podidentity",
}

# --- Embedded ASO resources on versions ASO v2.18.0 no longer serves (reference O8, §5.1) --------

# (group, kind, removed version) -> steps converting the spec to the target version (the target
# versions are the validator's, generator.checks.rules.versions.REMOVED_VERSIONS). Steps:
#   ("rename", path, new name)            rename the last key of path (same parent)
#   ("drop", path, reason)                remove a field the target version lacks
#   ("values", path, {old: new or ""})    map enum values; "" = no equivalent (field dropped)
#   ("arm_id", path, new name)            a string ARM ID becomes a {armId: ...} reference
# "[]" in a path means every item of that list. Derived from a diff of the ASO JSON schemas in
# shared/schemas against v1api20240901 (reference §5.1 for 20231001).
Step = tuple[str, str, str | dict[str, str]]

_MC_20231102PREVIEW_ONLY = (
    "aiToolchainOperatorProfile",
    "apiServerAccessProfile.enableVnetIntegration",
    "apiServerAccessProfile.subnetId",
    "azureMonitorProfile.logs",
    "azureMonitorProfile.metrics.appMonitoringOpenTelemetryMetrics",
    "creationData",
    "enableNamespaceResources",
    "networkProfile.kubeProxyConfig",
    "networkProfile.monitoring",
    "nodeProvisioningProfile",
    "safeguardsProfile",
    "securityProfile.customCATrustCertificates",
    "securityProfile.imageIntegrity",
    "securityProfile.nodeRestriction",
    "storageProfile.diskCSIDriver.version",
    "workloadAutoScalerProfile.verticalPodAutoscaler.addonAutoscaling",
)
_AP_20231102PREVIEW_ONLY = (
    "artifactStreamingProfile",
    "enableCustomCATrust",
    "gpuProfile",
    "messageOfTheDay",
    "nodeInitializationTaints",
    "securityProfile.sshAccess",
    "virtualMachineNodesStatus",
    "virtualMachinesProfile",
)
_PREVIEW_REASON = "preview-only field, not in v1api20240901"


def _pool_20210501(prefix: str) -> tuple[Step, ...]:
    return (
        ("rename", f"{prefix}nodePublicIPPrefixIDReference", "nodePublicIPPrefixReference"),
        ("rename", f"{prefix}podSubnetIDReference", "podSubnetReference"),
        ("rename", f"{prefix}vnetSubnetIDReference", "vnetSubnetReference"),
        ("arm_id", f"{prefix}proximityPlacementGroupID", "proximityPlacementGroupReference"),
    )


_DOCKER_BRIDGE: Step = (
    "drop",
    "networkProfile.dockerBridgeCidr",
    "removed from the AKS API (the docker bridge is no longer used)",
)
_EGRESS_NODE_SELECTOR: Step = (
    "drop",
    "serviceMeshProfile.istio.components.egressGateways[].nodeSelector",
    "not in v1api20240901",
)
_CS = "containerservice.azure.com"

CONVERSIONS: Final[dict[tuple[str, str, str], tuple[Step, ...]]] = {
    (_CS, "ManagedCluster", "v1api20210501"): (
        ("rename", "diskEncryptionSetIDReference", "diskEncryptionSetReference"),
        _DOCKER_BRIDGE,
        ("values", "sku.name", {"Basic": "Base"}),
        ("values", "sku.tier", {"Paid": "Standard"}),
        *_pool_20210501("agentPoolProfiles[]."),
    ),
    # operatorSpec.configMaps.principalId carries over: ASO v2.16 added it to v1api20240901.
    (_CS, "ManagedCluster", "v1api20230201"): (_DOCKER_BRIDGE,),
    (_CS, "ManagedCluster", "v1api20231001"): (_EGRESS_NODE_SELECTOR,),
    (_CS, "ManagedCluster", "v1api20231102preview"): (
        *(("drop", path, _PREVIEW_REASON) for path in _MC_20231102PREVIEW_ONLY),
        _EGRESS_NODE_SELECTOR,
        ("values", "publicNetworkAccess", {"SecuredByPerimeter": ""}),
    ),
    (_CS, "ManagedClustersAgentPool", "v1api20210501"): _pool_20210501(""),
    (_CS, "ManagedClustersAgentPool", "v1api20230201"): (),
    (_CS, "ManagedClustersAgentPool", "v1api20231001"): (),
    (_CS, "ManagedClustersAgentPool", "v1api20231102preview"): (
        *(("drop", path, _PREVIEW_REASON) for path in _AP_20231102PREVIEW_ONLY),
        ("values", "osSKU", {"Mariner": "", "WindowsAnnual": ""}),
        ("values", "type", {"VirtualMachines": ""}),
        ("values", "workloadRuntime", {"KataMshvVmIsolation": ""}),
    ),
    # FleetsMember: the spec fields of v1api20250301 are those of v1api20230315preview
    # (azureName, clusterResourceReference, group, owner, operatorSpec); only the version moves.
    (_CS, "FleetsMember", "v1api20230315preview"): (),
}
