"""The legacy -> ASO mapping as data (reference §5.1-§5.6, CAPZ v1.26.0 CRDs and ASO schemas).

Paths are dotted (``a.b[0].c``). Legacy paths are relative to the legacy object's ``spec``; ASO
paths to the generated resource's ``spec``. Anything a table does not list is handled by a
converter function (one module per target object, see :mod:`generator.migrate`), or reported as
unmapped.
"""

from __future__ import annotations

from typing import Final

CAPZ_GROUP: Final = "infrastructure.cluster.x-k8s.io"
CAPZ_V1BETA1: Final = f"{CAPZ_GROUP}/v1beta1"
CAPZ_V1ALPHA1: Final = f"{CAPZ_GROUP}/v1alpha1"

# ASO apiVersions of the generated resources: the ones CAPZ v1.26.0's released templates embed, and
# for kinds they do not embed the ones CAPZ v1.26.0 itself compiles against (reference §0).
RESOURCE_GROUP_API: Final = "resources.azure.com/v1api20200601"
CONTAINER_SERVICE_API: Final = "containerservice.azure.com/v1api20240901"
# enablePreviewFeatures: the preview version CAPZ v1.26.0 uses (no local schema exists for it).
CONTAINER_SERVICE_PREVIEW_API: Final = "containerservice.azure.com/v20251002preview"
FLEETS_MEMBER_API: Final = "containerservice.azure.com/v1api20250301"
EXTENSION_API: Final = "kubernetesconfiguration.azure.com/v1api20230501"
NETWORK_API: Final = "network.azure.com/v1api20201101"  # VirtualNetwork, VirtualNetworksSubnet
PRIVATE_ENDPOINT_API: Final = "network.azure.com/v1api20220701"

CREDENTIAL_ANNOTATION: Final = "serviceoperator.azure.com/credential-from"
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

# --- AzureManagedControlPlane -> ManagedCluster (reference §5.3) ---------------------------------

# Plain copies: legacy spec path -> ManagedCluster spec path.
CONTROL_PLANE_COPIES: Final = (
    ("nodeResourceGroupName", "nodeResourceGroup"),
    ("dnsPrefix", "dnsPrefix"),
    ("networkPlugin", "networkProfile.networkPlugin"),
    ("networkPluginMode", "networkProfile.networkPluginMode"),
    ("networkPolicy", "networkProfile.networkPolicy"),
    ("networkDataplane", "networkProfile.networkDataplane"),
    ("outboundType", "networkProfile.outboundType"),
    (
        "loadBalancerProfile.managedOutboundIPs",
        "networkProfile.loadBalancerProfile.managedOutboundIPs.count",
    ),
    (
        "loadBalancerProfile.allocatedOutboundPorts",
        "networkProfile.loadBalancerProfile.allocatedOutboundPorts",
    ),
    (
        "loadBalancerProfile.idleTimeoutInMinutes",
        "networkProfile.loadBalancerProfile.idleTimeoutInMinutes",
    ),
    ("aadProfile.adminGroupObjectIDs", "aadProfile.adminGroupObjectIDs"),
    ("apiServerAccessProfile.authorizedIPRanges", "apiServerAccessProfile.authorizedIPRanges"),
    ("apiServerAccessProfile.enablePrivateCluster", "apiServerAccessProfile.enablePrivateCluster"),
    ("apiServerAccessProfile.privateDNSZone", "apiServerAccessProfile.privateDNSZone"),
    (
        "apiServerAccessProfile.enablePrivateClusterPublicFQDN",
        "apiServerAccessProfile.enablePrivateClusterPublicFQDN",
    ),
    (
        "identity.userAssignedIdentityResourceID",
        "identity.userAssignedIdentities[0].reference.armId",
    ),
    ("kubeletUserAssignedIdentity", "identityProfile.kubeletidentity.resourceReference.armId"),
    ("httpProxyConfig.httpProxy", "httpProxyConfig.httpProxy"),
    ("httpProxyConfig.httpsProxy", "httpProxyConfig.httpsProxy"),
    ("httpProxyConfig.noProxy", "httpProxyConfig.noProxy"),
    ("httpProxyConfig.trustedCa", "httpProxyConfig.trustedCa"),
    ("oidcIssuerProfile.enabled", "oidcIssuerProfile.enabled"),
    ("autoUpgradeProfile.upgradeChannel", "autoUpgradeProfile.upgradeChannel"),
    ("securityProfile.azureKeyVaultKms.enabled", "securityProfile.azureKeyVaultKms.enabled"),
    ("securityProfile.azureKeyVaultKms.keyID", "securityProfile.azureKeyVaultKms.keyId"),
    (
        "securityProfile.azureKeyVaultKms.keyVaultNetworkAccess",
        "securityProfile.azureKeyVaultKms.keyVaultNetworkAccess",
    ),
    (
        "securityProfile.azureKeyVaultKms.keyVaultResourceID",
        "securityProfile.azureKeyVaultKms.keyVaultResourceReference.armId",
    ),
    (
        "securityProfile.defender.logAnalyticsWorkspaceResourceID",
        "securityProfile.defender.logAnalyticsWorkspaceResourceReference.armId",
    ),
    (
        "securityProfile.defender.securityMonitoring.enabled",
        "securityProfile.defender.securityMonitoring.enabled",
    ),
    ("securityProfile.imageCleaner.enabled", "securityProfile.imageCleaner.enabled"),
    ("securityProfile.imageCleaner.intervalHours", "securityProfile.imageCleaner.intervalHours"),
    ("securityProfile.workloadIdentity.enabled", "securityProfile.workloadIdentity.enabled"),
)

# autoscalerProfile (camelCase, legacy CRD) -> autoScalerProfile (AKS kebab-case keys), with the
# legacy CRD defaults that apply once the profile object exists (reference §5.3, K25).
AUTOSCALER_KEYS: Final = {
    "balanceSimilarNodeGroups": "balance-similar-node-groups",
    "expander": "expander",
    "maxEmptyBulkDelete": "max-empty-bulk-delete",
    "maxGracefulTerminationSec": "max-graceful-termination-sec",
    "maxNodeProvisionTime": "max-node-provision-time",
    "maxTotalUnreadyPercentage": "max-total-unready-percentage",
    "newPodScaleUpDelay": "new-pod-scale-up-delay",
    "okTotalUnreadyCount": "ok-total-unready-count",
    "scanInterval": "scan-interval",
    "scaleDownDelayAfterAdd": "scale-down-delay-after-add",
    "scaleDownDelayAfterDelete": "scale-down-delay-after-delete",
    "scaleDownDelayAfterFailure": "scale-down-delay-after-failure",
    "scaleDownUnneededTime": "scale-down-unneeded-time",
    "scaleDownUnreadyTime": "scale-down-unready-time",
    "scaleDownUtilizationThreshold": "scale-down-utilization-threshold",
    "skipNodesWithLocalStorage": "skip-nodes-with-local-storage",
    "skipNodesWithSystemPods": "skip-nodes-with-system-pods",
}
AUTOSCALER_DEFAULTS: Final = {
    "balanceSimilarNodeGroups": "false",
    "expander": "random",
    "maxEmptyBulkDelete": "10",
    "maxGracefulTerminationSec": "600",
    "maxNodeProvisionTime": "15m",
    "maxTotalUnreadyPercentage": "45",
    "newPodScaleUpDelay": "0s",
    "okTotalUnreadyCount": "3",
    "scaleDownDelayAfterAdd": "10m",
    "scaleDownDelayAfterDelete": "10s",
    "scaleDownDelayAfterFailure": "3m",
    "scaleDownUnneededTime": "10m",
    "scaleDownUnreadyTime": "20m",
    "scaleDownUtilizationThreshold": "0.5",
    "scanInterval": "10s",
    "skipNodesWithLocalStorage": "false",
    "skipNodesWithSystemPods": "true",
}

SKU_TIERS: Final = {
    "Free": "Free",
    "Paid": "Standard",
    "Standard": "Standard",
    "Premium": "Premium",
}

# Legacy defaults (internal/api/v1beta1/azuremanagedcontrolplane_default.go, CRD defaults).
DEFAULT_VNET_CIDR: Final = "10.0.0.0/8"
DEFAULT_SUBNET_CIDR: Final = "10.240.0.0/16"
DEFAULT_OVERLAY_VNET_CIDR: Final = "10.224.0.0/12"
DEFAULT_OVERLAY_SUBNET_CIDR: Final = "10.224.0.0/16"
DEFAULT_ADMIN_USERNAME: Final = "azureuser"
DEFAULT_FLEET_GROUP: Final = "default"

# Fields with no per-resource equivalent, or CAPZ-managed ones dropped without a note.
CONTROL_PLANE_DROPPED: Final = ("controlPlaneEndpoint", "machineTemplate")

# --- AzureManagedMachinePool -> ManagedClustersAgentPool (reference §5.4) -------------------------

MACHINE_POOL_COPIES: Final = (
    ("mode", "mode"),
    ("sku", "vmSize"),
    ("osType", "osType"),
    ("osDiskType", "osDiskType"),
    ("availabilityZones", "availabilityZones"),
    ("nodeLabels", "nodeLabels"),
    ("maxPods", "maxPods"),
    ("enableUltraSSD", "enableUltraSSD"),
    ("enableNodePublicIP", "enableNodePublicIP"),
    ("enableFIPS", "enableFIPS"),
    ("enableEncryptionAtHost", "enableEncryptionAtHost"),
    ("nodePublicIPPrefixID", "nodePublicIPPrefixReference.armId"),
    ("scaleSetPriority", "scaleSetPriority"),
    ("scaleDownMode", "scaleDownMode"),
    ("kubeletDiskType", "kubeletDiskType"),
    ("additionalTags", "tags"),
    *(
        (f"kubeletConfig.{name}", f"kubeletConfig.{name}")
        for name in (
            "cpuManagerPolicy",
            "cpuCfsQuota",
            "cpuCfsQuotaPeriod",
            "imageGcHighThreshold",
            "imageGcLowThreshold",
            "topologyManagerPolicy",
            "allowedUnsafeSysctls",
            "failSwapOn",
            "containerLogMaxSizeMB",
            "containerLogMaxFiles",
            "podMaxPids",
        )
    ),
    *(
        (f"linuxOSConfig.{name}", f"linuxOSConfig.{name}")
        for name in ("swapFileSizeMB", "transparentHugePageEnabled", "transparentHugePageDefrag")
    ),
)
# Legacy webhook / CRD defaults materialized on the agent pool (reference §5.4).
MACHINE_POOL_DEFAULTS: Final = (
    ("osType", "Linux"),
    ("osDiskType", "Managed"),
    ("scaleDownMode", "Delete"),
)

# linuxOSConfig.sysctls: same names except these (legacy CRD -> ASO schema).
SYSCTL_RENAMES: Final = {
    "netIpv4IPLocalPortRange": "netIpv4IpLocalPortRange",
    "netIpv4TCPFinTimeout": "netIpv4TcpFinTimeout",
    "netIpv4TCPKeepaliveProbes": "netIpv4TcpKeepaliveProbes",
    "netIpv4TCPKeepaliveTime": "netIpv4TcpKeepaliveTime",
    "netIpv4TCPMaxSynBacklog": "netIpv4TcpMaxSynBacklog",
    "netIpv4TCPMaxTwBuckets": "netIpv4TcpMaxTwBuckets",
    "netIpv4TCPTwReuse": "netIpv4TcpTwReuse",
    "netIpv4TCPkeepaliveIntvl": "netIpv4TcpkeepaliveIntvl",
}
SYSCTL_NAMES: Final = frozenset(
    {
        "fsAioMaxNr",
        "fsFileMax",
        "fsInotifyMaxUserWatches",
        "fsNrOpen",
        "kernelThreadsMax",
        "netCoreNetdevMaxBacklog",
        "netCoreOptmemMax",
        "netCoreRmemDefault",
        "netCoreRmemMax",
        "netCoreSomaxconn",
        "netCoreWmemDefault",
        "netCoreWmemMax",
        "netIpv4NeighDefaultGcThresh1",
        "netIpv4NeighDefaultGcThresh2",
        "netIpv4NeighDefaultGcThresh3",
        "netNetfilterNfConntrackBuckets",
        "netNetfilterNfConntrackMax",
        "vmMaxMapCount",
        "vmSwappiness",
        "vmVfsCachePressure",
        *SYSCTL_RENAMES,
    }
)
MACHINE_POOL_DROPPED: Final = ("providerIDList",)

# --- AzureClusterIdentity -> ASO credential Secret (reference §5.6) ------------------------------

IDENTITY_AUTH_MODES: Final = {
    "WorkloadIdentity": "workloadidentity",
    "UserAssignedMSI": "podidentity",
}

# --- Embedded ASO resources on versions ASO v2.18.0 no longer serves (reference O8, §5.1) --------

# (group, kind, removed version) -> steps converting the spec to the target version (the target
# versions are the validator's, generator.validate.rules.versions.REMOVED_VERSIONS). Steps:
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
_PRINCIPAL_ID: Step = (
    "drop",
    "operatorSpec.configMaps.principalId",
    "not exported by v1api20240901 (read the identity's principal ID from Azure instead)",
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
    (_CS, "ManagedCluster", "v1api20230201"): (_DOCKER_BRIDGE, _PRINCIPAL_ID),
    (_CS, "ManagedCluster", "v1api20231001"): (_PRINCIPAL_ID, _EGRESS_NODE_SELECTOR),
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
