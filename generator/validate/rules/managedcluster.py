"""AKS cluster constraints AKS enforces at create time (K10, K11, K13–K18, K20, K24, K25, §4.3,
§4.4, §4.6), add-on names (§4.15) and the access left without local accounts (§4.2).

These come from the legacy CAPZ webhooks, which encoded AKS behaviour, and from ASO schema
descriptions. Most run on :class:`~generator.validate.views.ControlPlane`, so they hold for the
ManagedCluster of the ASO API and the AzureManagedControlPlane of the legacy API alike; for the
ASO API nothing checks them before Azure does, and for the legacy API only its webhooks did
(§5.5). KMS, identityProfile and the autoscaler profile are checked on the ManagedCluster only:
the legacy CRD spells them differently and its own schema validates them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from generator.findings import Finding, Severity
from generator.model import kinds
from generator.model.manifests import AsoResource, ManifestSet
from generator.model.values import (
    as_dict,
    as_list,
    dig,
    is_templated,
    known_str,
    parse_ip_network,
    parse_ipv4,
    parse_ipv4_network,
)
from generator.validate.rules.base import Rule
from generator.validate.views import Api, ControlPlane, is_aks_cluster, views_of

_DNS_PREFIX = re.compile(r"^[a-zA-Z0-9][a-zA-Z0-9-]{0,52}[a-zA-Z0-9]$")
_RESERVED_WORDS = ("microsoft", "windows")


def _clusters(ms: ManifestSet) -> Iterator[tuple[AsoResource, dict[str, Any]]]:
    """Every ManagedCluster with a spec (for the checks of ASO-only fields)."""
    for res in ms.resources_of(kinds.MANAGED_CLUSTER):
        spec = res.spec
        if spec is not None:
            yield res, spec


def _check_dns_prefix(ms: ManifestSet) -> Iterator[Finding]:
    for cp in views_of(ms).control_planes:
        value = cp.dns_prefix.value
        if value is not None and not _DNS_PREFIX.match(value):
            yield DNS_PREFIX.at(
                cp.dns_prefix,
                (),
                f"{value!r} must be 2-54 letters, digits or '-', starting and ending with a letter or digit",
            )


def _check_name(ms: ManifestSet) -> Iterator[Finding]:
    for cp in views_of(ms).control_planes:
        value = cp.aks_name.value
        if value is None:
            continue
        for word in _RESERVED_WORDS:
            if word in value.lower():
                yield NAME.at(
                    cp.aks_name, (), f"AKS cluster name {value!r} must not contain {word!r}"
                )


def _check_cluster_cidrs(ms: ManifestSet) -> Iterator[Finding]:
    for group in ms.clusters:
        if not is_aks_cluster(group):
            continue
        for block in ("services", "pods"):
            path = ("spec", "clusterNetwork", block, "cidrBlocks")
            blocks = as_list(dig(group.cluster.obj, *path))
            if blocks is not None and len(blocks) > 1:
                yield CLUSTER_CIDRS.at(
                    group.cluster,
                    path,
                    f"has {len(blocks)} CIDRs; CAPZ uses one {block} CIDR for AKS",
                )


def cluster_service_cidr(cp: ControlPlane) -> str | None:
    """The service CIDR in effect: the control plane's own (ASO serviceCidr) or the Cluster's
    first services CIDR, which CAPZ copies there (C7)."""
    for field in cp.service_cidrs[:1]:
        own = known_str(field.raw)
        if own is not None:
            return own
    if cp.group is None:
        return None
    blocks = as_list(dig(cp.group.cluster.obj, "spec", "clusterNetwork", "services", "cidrBlocks"))
    return known_str(blocks[0]) if blocks else None


def _has_service_range(cp: ControlPlane) -> bool:
    if any(field.is_set for field in cp.service_cidrs) or cp.group is None:
        return True  # without the Cluster in the set, its CIDRs are unknown
    services = dig(cp.group.cluster.obj, "spec", "clusterNetwork", "services", "cidrBlocks")
    return services is not None


def _check_dns_service_ip(ms: ManifestSet) -> Iterator[Finding]:
    for cp in views_of(ms).control_planes:
        address = parse_ipv4(cp.dns_service_ip.value)
        if address is None:
            continue
        if not _has_service_range(cp):
            assert cp.group is not None
            yield DNS_SERVICE_IP.at(
                cp.dns_service_ip,
                (),
                f"{address} must lie inside the service CIDR, but Cluster "
                f"{cp.group.cluster.name!r} sets none: set spec.clusterNetwork.services.cidrBlocks "
                "too (CAPZ copies it to the AKS cluster)",
            )
            continue
        network = parse_ipv4_network(cluster_service_cidr(cp))
        if network is not None and address not in network:
            yield DNS_SERVICE_IP.at(
                cp.dns_service_ip, (), f"{address} is outside the service CIDR {network}"
            )


_OUTBOUND = ("managedOutboundIPs", "outboundIPs", "outboundIPPrefixes")


def _check_load_balancer(ms: ManifestSet) -> Iterator[Finding]:
    for cp in views_of(ms).control_planes:
        profile = cp.load_balancer.value
        if profile is None:
            continue
        present = [key for key in _OUTBOUND if profile.get(key) is not None]
        if len(present) > 1:
            yield LOAD_BALANCER.at(
                cp.load_balancer,
                (present[1],),
                f"only one of {', '.join(_OUTBOUND)} may be set (found {', '.join(present)})",
            )


_ZONE_NAME = r"(?:[A-Za-z0-9-]{1,32}\.)?(?:private|privatelink)\.LOCATION\.azmk8s\.io"
_ZONE_ID = re.compile(
    r"^/subscriptions/[^/]+/resourceGroups/[^/]+/providers/Microsoft\.Network/privateDnsZones/(?P<zone>[^/]+)$",
    re.IGNORECASE,
)


def _custom_zone(cp: ControlPlane) -> str | None:
    """The private DNS zone when it is a custom one (not AKS's ``system`` or ``none``)."""
    zone = cp.private_dns_zone.value
    return None if zone is None or zone.lower() in ("system", "none") else zone


def _check_api_access(ms: ManifestSet) -> Iterator[Finding]:
    for cp in views_of(ms).control_planes:
        for index, item in enumerate(cp.authorized_ip_ranges.value or ()):
            text = known_str(item)
            if text is not None and parse_ip_network(text) is None:
                yield API_ACCESS.at(cp.authorized_ip_ranges, (index,), f"{text!r} is not a CIDR")
        zone = _custom_zone(cp)
        if zone is None:
            continue
        if cp.private_cluster.raw is not True and not cp.private_cluster.unknown:
            yield API_ACCESS.at(
                cp.private_dns_zone,
                (),
                "a custom private DNS zone requires enablePrivateCluster: true",
            )
        match = _ZONE_ID.match(zone)
        location = cp.location.value
        pattern = _ZONE_NAME.replace(
            "LOCATION", re.escape(location.lower()) if location else "[a-z0-9]+"
        )
        if match is None or not re.fullmatch(pattern, match.group("zone"), re.IGNORECASE):
            yield API_ACCESS.at(
                cp.private_dns_zone,
                (),
                f"{zone!r} must be system, none or the ID of a private DNS zone named "
                f"[<subzone>.]private|privatelink.{location.lower() if location else '<location>'}"
                ".azmk8s.io",
            )


def _check_zone_identity(ms: ManifestSet) -> Iterator[Finding]:
    for cp in views_of(ms).control_planes:
        if _custom_zone(cp) is None or cp.identity_type.unknown:
            continue
        identity = cp.identity_type.value
        if identity != "UserAssigned":
            yield ZONE_IDENTITY.at(
                cp.private_dns_zone,
                (),
                "a custom private DNS zone needs a user-assigned control-plane identity "
                "(identity type UserAssigned, with Private DNS Zone Contributor on the zone); the "
                f"identity is {identity or 'SystemAssigned (the default)'}",
            )


def _check_private_cluster(ms: ManifestSet) -> Iterator[Finding]:
    """Settings AKS ignores on a public cluster (§4.3). A custom zone is CAPZ-MC-APISERVER's (K15);
    ``system`` is AKS's default, so writing it changes nothing (migrated legacy specs carry it)."""
    for cp in views_of(ms).control_planes:
        if cp.private_cluster.raw is True or cp.private_cluster.unknown:
            continue
        zone = cp.private_dns_zone.value
        if zone is not None and zone.lower() == "none":
            yield PRIVATE_DNS.at(
                cp.private_dns_zone,
                (),
                f"{zone!r} is ignored without enablePrivateCluster: true (a private DNS zone is only "
                "used by a private cluster)",
            )
        if cp.private_fqdn.raw is True:
            yield PRIVATE_DNS.at(
                cp.private_fqdn,
                (),
                "is ignored without enablePrivateCluster: true (the public FQDN is an addition to a "
                "private cluster)",
            )


def _check_network_plugin(ms: ManifestSet) -> Iterator[Finding]:
    for cp in views_of(ms).control_planes:
        plugin, mode = cp.network_plugin.value, cp.network_plugin_mode.value
        policy, dataplane = cp.network_policy.value, cp.network_dataplane.value
        if mode == "overlay" and plugin not in (None, "azure"):
            yield NETWORK_PLUGIN.at(
                cp.network_plugin_mode, (), f"overlay requires networkPlugin: azure, not {plugin}"
            )
        if dataplane == "cilium" and (mode != "overlay" or policy != "cilium"):
            yield NETWORK_PLUGIN.at(
                cp.network_dataplane,
                (),
                "cilium requires networkPluginMode: overlay and networkPolicy: cilium",
            )
        if policy == "cilium" and dataplane is not None and dataplane != "cilium":
            yield NETWORK_PLUGIN.at(
                cp.network_policy, (), f"cilium requires networkDataplane: cilium, not {dataplane}"
            )
        if policy == "azure" and plugin not in (None, "azure"):
            yield NETWORK_PLUGIN.at(
                cp.network_policy,
                (),
                f"azure (Azure Network Policy Manager) requires networkPlugin: azure, not {plugin}",
            )


def _check_workload_identity(ms: ManifestSet) -> Iterator[Finding]:
    for cp in views_of(ms).control_planes:
        if cp.workload_identity.raw is True and cp.oidc_issuer.raw is not True:
            yield WORKLOAD_IDENTITY.at(
                cp.workload_identity,
                (),
                "workload identity requires oidcIssuerProfile.enabled: true",
            )


def _check_federation(ms: ManifestSet) -> Iterator[Finding]:
    views = views_of(ms)
    for group in ms.clusters:
        cp = views.control_plane_of(group)
        if cp is None or cp.api is not Api.ASO:
            continue
        for res in group.resources():
            config = as_dict(dig(res.spec, "issuerFromConfig"))
            if res.group_kind != kinds.FEDERATED_IDENTITY_CREDENTIAL or config is None:
                continue
            if cp.workload_identity.unknown or cp.workload_identity.raw is not True:
                if not cp.workload_identity.unknown:
                    yield FEDERATION.at(
                        res,
                        ("spec", "issuerFromConfig"),
                        f"trusts the OIDC issuer of {cp.ref()}, which does not enable workload "
                        "identity (securityProfile.workloadIdentity.enabled: true), so no pod can "
                        "use the identity",
                    )
                continue
            name = config.get("name")
            written = dig(cp.owner.obj, "spec", "operatorSpec", "configMaps", "oidcIssuerProfile")
            target = known_str(dig(written, "name"))
            if known_str(name) is not None and name != target:
                yield FEDERATION.at(
                    res,
                    ("spec", "issuerFromConfig", "name"),
                    f"{name!r} is not the ConfigMap {cp.ref()} writes its OIDC issuer URL to "
                    f"({repr(target) if target else 'none: set operatorSpec.configMaps.oidcIssuerProfile'})",
                )


def _check_local_accounts(ms: ManifestSet) -> Iterator[Finding]:
    for cp in views_of(ms).control_planes:
        if cp.disable_local_accounts.raw is True and cp.aad_managed.raw is not True:
            yield LOCAL_ACCOUNTS.at(
                cp.disable_local_accounts,
                (),
                "requires AKS-managed Entra ID (aadProfile.managed: true)",
            )


def _check_kms(ms: ManifestSet) -> Iterator[Finding]:
    for res, spec in _clusters(ms):
        kms = as_dict(dig(spec, "securityProfile", "azureKeyVaultKms"))
        if kms is None or kms.get("enabled") is False:
            continue
        base = ("spec", "securityProfile", "azureKeyVaultKms")
        identity = dig(spec, "identity", "type")
        if known_str(identity) is not None and identity != "UserAssigned":
            yield KMS.at(
                res,
                ("spec", "identity", "type"),
                f"KMS requires identity type UserAssigned, not {identity}",
            )
        access = kms.get("keyVaultNetworkAccess")
        reference = kms.get("keyVaultResourceReference")
        if access == "Private" and reference is None:
            yield KMS.at(
                res,
                (*base, "keyVaultResourceReference"),
                "is required with keyVaultNetworkAccess: Private",
            )
        if access == "Public" and reference is not None:
            yield KMS.at(
                res,
                (*base, "keyVaultResourceReference"),
                "must not be set with keyVaultNetworkAccess: Public",
            )


def _check_identity_profile(ms: ManifestSet) -> Iterator[Finding]:
    for res, spec in _clusters(ms):
        for key in as_dict(spec.get("identityProfile")) or {}:
            if key != "kubeletidentity":
                yield IDENTITY_PROFILE.at(
                    res,
                    ("spec", "identityProfile", key),
                    "only the key kubeletidentity is accepted",
                )


# Add-on names of ManagedCluster addonProfiles as the AKS API spells them (Azure CLI acs _consts
# *_ADDON_NAME, CAPZ managed/managedcluster.md). aciConnectorLinux is the key the CLI writes for
# the virtual node add-on; CAPZ's table lists aciConnector.
KNOWN_ADDONS = (
    "ACCSGXDevicePlugin",
    "aciConnector",
    "aciConnectorLinux",
    "azureKeyvaultSecretsProvider",
    "azurepolicy",
    "gitops",
    "httpApplicationRouting",
    "ingressApplicationGateway",
    "kubeDashboard",
    "omsagent",
    "openServiceMesh",
)
_ADDONS_BY_LOWER = {name.lower(): name for name in KNOWN_ADDONS}


def _addon_names(cp: ControlPlane) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """(path inside addonProfiles, name): the keys of the ASO map, the names of the legacy list."""
    profiles = cp.addon_profiles.raw
    if isinstance(profiles, dict):
        for key in profiles:
            if isinstance(key, str):
                yield (key,), key
    for index, item in enumerate(as_list(profiles) or ()):
        name = known_str(dig(item, "name"))
        if name is not None:
            yield (index, "name"), name


def _check_addons(ms: ManifestSet) -> Iterator[Finding]:
    for cp in views_of(ms).control_planes:
        for rel, name in _addon_names(cp):
            if name in KNOWN_ADDONS or is_templated(name):
                continue
            known = _ADDONS_BY_LOWER.get(name.lower())
            yield ADDONS.at(
                cp.addon_profiles,
                rel,
                f"{name!r} is not an AKS add-on name"
                + (
                    f"; add-on names are case-sensitive: {known!r}"
                    if known is not None
                    else f" ({', '.join(KNOWN_ADDONS)})"
                ),
                hint="web application routing is ingressProfile.webAppRouting, not an add-on"
                if name.lower() in ("webapprouting", "web_application_routing")
                else None,
            )


def _check_local_accounts_rbac(ms: ManifestSet) -> Iterator[Finding]:
    for cp in views_of(ms).control_planes:
        local_off = cp.disable_local_accounts.raw is True and cp.aad_managed.raw is True
        if local_off and cp.azure_rbac.raw is not True and not cp.azure_rbac.unknown:
            yield LOCAL_ACCOUNTS_RBAC.at(
                cp.disable_local_accounts,
                (),
                "without aadProfile.enableAzureRBAC: true only Kubernetes RBAC grants access: "
                "the Entra identity CAPZ fetches the kubeconfig with (ASO's) needs to be in an "
                "aadProfile.adminGroupObjectIDs group or bound in the cluster",
                hint="set aadProfile.enableAzureRBAC: true and give the identity the role Azure "
                "Kubernetes Service RBAC Cluster Admin",
            )


_MINUTES = re.compile(r"^\d+m$")
_SECONDS = re.compile(r"^\d+s$")
_DURATION = re.compile(r"^(?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))+$|^0$")
_AUTOSCALER_PATTERNS: dict[str, tuple[re.Pattern[str], str]] = {
    **dict.fromkeys(
        (
            "max-node-provision-time",
            "scale-down-delay-after-add",
            "scale-down-delay-after-failure",
            "scale-down-unneeded-time",
            "scale-down-unready-time",
        ),
        (_MINUTES, "minutes like '10m'"),
    ),
    **dict.fromkeys(
        ("scan-interval", "scale-down-delay-after-delete"), (_SECONDS, "seconds like '10s'")
    ),
    "new-pod-scale-up-delay": (_DURATION, "a duration like '0s' or '1m30s'"),
    **dict.fromkeys(
        ("max-empty-bulk-delete", "max-graceful-termination-sec", "ok-total-unready-count"),
        (re.compile(r"^\d+$"), "a whole number >= 0"),
    ),
    **dict.fromkeys(
        (
            "balance-similar-node-groups",
            "skip-nodes-with-local-storage",
            "skip-nodes-with-system-pods",
        ),
        (re.compile(r"^(true|false)$"), "'true' or 'false'"),
    ),
}


def _autoscaler_problem(key: str, text: str) -> str | None:
    if key in _AUTOSCALER_PATTERNS:
        pattern, wanted = _AUTOSCALER_PATTERNS[key]
        return None if pattern.match(text) else f"{text!r} must be {wanted}"
    if key in ("max-total-unready-percentage", "scale-down-utilization-threshold"):
        high = 100.0 if key == "max-total-unready-percentage" else 1.0
        try:
            number = float(text)
        except ValueError:
            number = -1.0
        return None if 0.0 <= number <= high else f"{text!r} must be a number from 0 to {high:g}"
    return None


def _check_autoscaler_profile(ms: ManifestSet) -> Iterator[Finding]:
    for res, spec in _clusters(ms):
        for key, value in (as_dict(spec.get("autoScalerProfile")) or {}).items():
            text = known_str(value)
            problem = _autoscaler_problem(key, text) if text is not None else None
            if problem is not None:
                yield AUTOSCALER_PROFILE.at(res, ("spec", "autoScalerProfile", key), problem)


DNS_PREFIX = Rule(
    "CAPZ-MC-DNSPREFIX",
    "The AKS DNS prefix (ManagedCluster or AzureManagedControlPlane dnsPrefix) is 2-54 letters, "
    "digits or '-', alphanumeric at both ends (K10)",
    Severity.ERROR,
    _check_dns_prefix,
)
NAME = Rule(
    "CAPZ-MC-NAME",
    "The AKS cluster name (azureName, else metadata.name; legacy: the control plane's name) does not "
    "contain 'microsoft' or 'windows' (K11)",
    Severity.ERROR,
    _check_name,
)
CLUSTER_CIDRS = Rule(
    "CAPZ-CLUSTER-CIDRS",
    "An AKS Cluster's clusterNetwork has at most one services and one pods CIDR (K13)",
    Severity.ERROR,
    _check_cluster_cidrs,
)
DNS_SERVICE_IP = Rule(
    "CAPZ-MC-DNSSERVICEIP",
    "dnsServiceIP lies inside the service CIDR (own serviceCidr or the Cluster's), which must be "
    "set when the Cluster is in the set (K13)",
    Severity.ERROR,
    _check_dns_service_ip,
)
LOAD_BALANCER = Rule(
    "CAPZ-MC-LOADBALANCER",
    "loadBalancerProfile sets at most one of managedOutboundIPs, outboundIPs, outboundIPPrefixes (K14)",
    Severity.ERROR,
    _check_load_balancer,
)
API_ACCESS = Rule(
    "CAPZ-MC-APISERVER",
    "authorizedIPRanges are CIDRs; a custom privateDNSZone is a private DNS zone ID named "
    "[sub.]private|privatelink.<location>.azmk8s.io and requires enablePrivateCluster (K15)",
    Severity.ERROR,
    _check_api_access,
)
PRIVATE_DNS = Rule(
    "CAPZ-MC-PRIVATE-DNS",
    "privateDNSZone none and enablePrivateClusterPublicFQDN: true are ignored without "
    "enablePrivateCluster: true (custom zones: CAPZ-MC-APISERVER; system is the default) (K15, §4.3)",
    Severity.WARNING,
    _check_private_cluster,
)
NETWORK_PLUGIN = Rule(
    "CAPZ-MC-NETWORK-PLUGIN",
    "overlay and network policy azure need network plugin azure; cilium dataplane needs overlay "
    "and cilium policy; cilium policy needs cilium dataplane (K16, §4.4)",
    Severity.ERROR,
    _check_network_plugin,
)
ZONE_IDENTITY = Rule(
    "CAPZ-MC-PRIVATE-DNS-IDENTITY",
    "A custom private DNS zone needs a user-assigned control-plane identity (identity type "
    "UserAssigned) (K15, §4.3, §4.7)",
    Severity.ERROR,
    _check_zone_identity,
)
WORKLOAD_IDENTITY = Rule(
    "CAPZ-MC-WORKLOAD-IDENTITY",
    "securityProfile.workloadIdentity requires oidcIssuerProfile.enabled: true (K17)",
    Severity.ERROR,
    _check_workload_identity,
)
FEDERATION = Rule(
    "CAPZ-MC-FEDERATION",
    "A FederatedIdentityCredential among a Cluster's resources trusts the issuer of a ManagedCluster "
    "with workload identity enabled, read from the ConfigMap that ManagedCluster writes it to "
    "(K17, §4.6)",
    Severity.ERROR,
    _check_federation,
)
LOCAL_ACCOUNTS = Rule(
    "CAPZ-MC-LOCAL-ACCOUNTS",
    "disableLocalAccounts: true requires aadProfile.managed: true (K18)",
    Severity.ERROR,
    _check_local_accounts,
)
LOCAL_ACCOUNTS_RBAC = Rule(
    "CAPZ-MC-LOCAL-ACCOUNTS-RBAC",
    "disableLocalAccounts: true with managed Entra ID but without aadProfile.enableAzureRBAC: "
    "true leaves access to Kubernetes RBAC alone (legacy: CAPZ enables Azure RBAC with managed) "
    "(C17, §4.1, §4.2)",
    Severity.WARNING,
    _check_local_accounts_rbac,
)
ADDONS = Rule(
    "CAPZ-MC-ADDONS",
    "addonProfiles names are AKS add-on names, spelled with their case (ASO map keys; legacy "
    "addonProfiles[].name) (§4.15)",
    Severity.WARNING,
    _check_addons,
)
KMS = Rule(
    "CAPZ-MC-KMS",
    "Key Vault KMS requires identity type UserAssigned; Private network access needs "
    "keyVaultResourceReference, Public forbids it (K20)",
    Severity.ERROR,
    _check_kms,
)
IDENTITY_PROFILE = Rule(
    "CAPZ-MC-IDENTITY-PROFILE",
    "identityProfile has only the key kubeletidentity (K24)",
    Severity.ERROR,
    _check_identity_profile,
)
AUTOSCALER_PROFILE = Rule(
    "CAPZ-MC-AUTOSCALER-PROFILE",
    "Cluster-autoscaler profile values have the formats AKS accepts (durations, ranges, booleans) (K25)",
    Severity.ERROR,
    _check_autoscaler_profile,
)

RULES = (
    DNS_PREFIX,
    NAME,
    CLUSTER_CIDRS,
    DNS_SERVICE_IP,
    LOAD_BALANCER,
    API_ACCESS,
    PRIVATE_DNS,
    NETWORK_PLUGIN,
    WORKLOAD_IDENTITY,
    LOCAL_ACCOUNTS,
    LOCAL_ACCOUNTS_RBAC,
    ZONE_IDENTITY,
    FEDERATION,
    KMS,
    IDENTITY_PROFILE,
    AUTOSCALER_PROFILE,
    ADDONS,
)
