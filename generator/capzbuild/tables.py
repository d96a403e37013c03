"""The legacy -> ASO mapping tables for the ManagedCluster and its agent pools (reference §5.3,
§5.4, CAPZ v1.26.0 CRDs and ASO schemas), shared by ``capzgen migrate`` and the validator's
option-7 patch rules.

Paths are dotted (``a.b[0].c``). Legacy paths are relative to the legacy object's ``spec``; ASO
paths to the generated resource's ``spec``.
"""

from __future__ import annotations

from typing import Final

# The containerservice apiVersion of the ManagedCluster and its agent pools: the one CAPZ v1.26.0's
# released templates embed (reference §0), and the one the bundled schemas have.
CONTAINER_SERVICE_API: Final = "containerservice.azure.com/v1api20240901"
# enablePreviewFeatures: the preview version CAPZ v1.26.0 uses (no local schema exists for it).
CONTAINER_SERVICE_PREVIEW_API: Final = "containerservice.azure.com/v20251002preview"

CREDENTIAL_ANNOTATION: Final = "serviceoperator.azure.com/credential-from"

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

# The admin user of the nodes' Linux profile (legacy default).
DEFAULT_ADMIN_USERNAME: Final = "azureuser"

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
