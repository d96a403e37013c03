"""ManagedCluster constraints AKS enforces at create time (K10, K11, K13–K18, K20, K24, K25, §4.3).

These come from the legacy CAPZ webhooks, which encoded AKS behaviour, and from ASO schema
descriptions. For the ASO API nothing checks them before Azure does.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from generator.findings import Finding, JsonPath, Severity
from generator.validate import kinds
from generator.validate.model import AsoResource, ManifestSet
from generator.validate.rules.base import Rule
from generator.validate.values import (
    as_dict,
    as_list,
    dig,
    is_templated,
    known_str,
    parse_ip_network,
    parse_ipv4,
    parse_ipv4_network,
)

_DNS_PREFIX = re.compile(r"^[a-zA-Z0-9][a-zA-Z0-9-]{0,52}[a-zA-Z0-9]$")
_RESERVED_WORDS = ("microsoft", "windows")


def _clusters(ms: ManifestSet) -> Iterator[tuple[AsoResource, dict[str, Any]]]:
    for res in ms.resources_of(kinds.MANAGED_CLUSTER):
        spec = res.spec
        if spec is not None:
            yield res, spec


def _check_dns_prefix(ms: ManifestSet) -> Iterator[Finding]:
    for res, spec in _clusters(ms):
        value = known_str(spec.get("dnsPrefix"))
        if value is not None and not _DNS_PREFIX.match(value):
            yield DNS_PREFIX.at(
                res,
                ("spec", "dnsPrefix"),
                f"{value!r} must be 2-54 letters, digits or '-', starting and ending with a letter or digit",
            )


def _check_name(ms: ManifestSet) -> Iterator[Finding]:
    for res, spec in _clusters(ms):
        path: JsonPath = (
            ("spec", "azureName") if spec.get("azureName") is not None else ("metadata", "name")
        )
        value = known_str(dig(res.obj, *path))
        if value is None:
            continue
        for word in _RESERVED_WORDS:
            if word in value.lower():
                yield NAME.at(res, path, f"AKS cluster name {value!r} must not contain {word!r}")


def _check_cluster_cidrs(ms: ManifestSet) -> Iterator[Finding]:
    for group in ms.clusters:
        if not group.is_aso:
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


def _service_cidr(ms: ManifestSet, res: AsoResource, spec: dict[str, Any]) -> str | None:
    own = known_str(dig(spec, "networkProfile", "serviceCidr"))
    if own is not None:
        return own
    group = ms.cluster_of.get(res.top)
    blocks = (
        as_list(dig(group.cluster.obj, "spec", "clusterNetwork", "services", "cidrBlocks"))
        if group
        else None
    )
    return known_str(blocks[0]) if blocks else None


def _check_dns_service_ip(ms: ManifestSet) -> Iterator[Finding]:
    for res, spec in _clusters(ms):
        address = parse_ipv4(dig(spec, "networkProfile", "dnsServiceIP"))
        network = parse_ipv4_network(_service_cidr(ms, res, spec))
        if address is not None and network is not None and address not in network:
            yield DNS_SERVICE_IP.at(
                res,
                ("spec", "networkProfile", "dnsServiceIP"),
                f"{address} is outside the service CIDR {network}",
            )


_OUTBOUND = ("managedOutboundIPs", "outboundIPs", "outboundIPPrefixes")


def _check_load_balancer(ms: ManifestSet) -> Iterator[Finding]:
    for res, spec in _clusters(ms):
        profile = as_dict(dig(spec, "networkProfile", "loadBalancerProfile"))
        if profile is None:
            continue
        present = [key for key in _OUTBOUND if profile.get(key) is not None]
        if len(present) > 1:
            yield LOAD_BALANCER.at(
                res,
                ("spec", "networkProfile", "loadBalancerProfile", present[1]),
                f"only one of {', '.join(_OUTBOUND)} may be set (found {', '.join(present)})",
            )


_ZONE_NAME = r"(?:[A-Za-z0-9-]{1,32}\.)?(?:private|privatelink)\.LOCATION\.azmk8s\.io"
_ZONE_ID = re.compile(
    r"^/subscriptions/[^/]+/resourceGroups/[^/]+/providers/Microsoft\.Network/privateDnsZones/(?P<zone>[^/]+)$",
    re.IGNORECASE,
)


def _api_access_problems(spec: dict[str, Any]) -> Iterator[tuple[JsonPath, str]]:
    profile = as_dict(spec.get("apiServerAccessProfile")) or {}
    base: JsonPath = ("spec", "apiServerAccessProfile")
    for index, item in enumerate(as_list(profile.get("authorizedIPRanges")) or ()):
        text = known_str(item)
        if text is not None and parse_ip_network(text) is None:
            yield (*base, "authorizedIPRanges", index), f"{text!r} is not a CIDR"
    zone = known_str(profile.get("privateDNSZone"))
    if zone is None or zone.lower() in ("system", "none"):
        return
    if profile.get("enablePrivateCluster") is not True:
        yield (
            (*base, "privateDNSZone"),
            "a custom private DNS zone requires enablePrivateCluster: true",
        )
    match = _ZONE_ID.match(zone)
    location = known_str(spec.get("location"))
    pattern = _ZONE_NAME.replace(
        "LOCATION", re.escape(location.lower()) if location else "[a-z0-9]+"
    )
    if match is None or not re.fullmatch(pattern, match.group("zone"), re.IGNORECASE):
        yield (
            (*base, "privateDNSZone"),
            f"{zone!r} must be system, none or the ID of a private DNS zone named "
            "[<subzone>.]private|privatelink.<location>.azmk8s.io",
        )


def _check_api_access(ms: ManifestSet) -> Iterator[Finding]:
    for res, spec in _clusters(ms):
        for path, message in _api_access_problems(spec):
            yield API_ACCESS.at(res, path, message)


def _private_cluster_problems(profile: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """Settings AKS ignores on a public cluster (§4.3). A custom zone is CAPZ-MC-APISERVER's (K15);
    ``system`` is AKS's default, so writing it changes nothing (migrated legacy specs carry it)."""
    private = profile.get("enablePrivateCluster")
    if private is True or is_templated(private):
        return
    zone = known_str(profile.get("privateDNSZone"))
    if zone is not None and zone.lower() == "none":
        yield (
            "privateDNSZone",
            f"{zone!r} is ignored without enablePrivateCluster: true (a private DNS zone is only "
            "used by a private cluster)",
        )
    if profile.get("enablePrivateClusterPublicFQDN") is True:
        yield (
            "enablePrivateClusterPublicFQDN",
            "is ignored without enablePrivateCluster: true (the public FQDN is an addition to a "
            "private cluster)",
        )


def _check_private_cluster(ms: ManifestSet) -> Iterator[Finding]:
    for res, spec in _clusters(ms):
        profile = as_dict(spec.get("apiServerAccessProfile"))
        for key, message in _private_cluster_problems(profile or {}):
            yield PRIVATE_DNS.at(res, ("spec", "apiServerAccessProfile", key), message)


def _network_plugin_problems(profile: dict[str, Any]) -> Iterator[tuple[str, str]]:
    plugin, mode = profile.get("networkPlugin"), profile.get("networkPluginMode")
    policy, dataplane = profile.get("networkPolicy"), profile.get("networkDataplane")
    if mode == "overlay" and plugin == "kubenet":
        yield "networkPluginMode", "overlay cannot be combined with networkPlugin: kubenet"
    if dataplane == "cilium" and (mode != "overlay" or policy != "cilium"):
        yield (
            "networkDataplane",
            "cilium requires networkPluginMode: overlay and networkPolicy: cilium",
        )
    if policy == "cilium" and dataplane is not None and dataplane != "cilium":
        yield "networkPolicy", f"cilium requires networkDataplane: cilium, not {dataplane}"


def _check_network_plugin(ms: ManifestSet) -> Iterator[Finding]:
    for res, spec in _clusters(ms):
        profile = as_dict(spec.get("networkProfile"))
        for key, message in _network_plugin_problems(profile or {}):
            yield NETWORK_PLUGIN.at(res, ("spec", "networkProfile", key), message)


def _check_workload_identity(ms: ManifestSet) -> Iterator[Finding]:
    for res, spec in _clusters(ms):
        enabled = dig(spec, "securityProfile", "workloadIdentity", "enabled") is True
        if enabled and dig(spec, "oidcIssuerProfile", "enabled") is not True:
            yield WORKLOAD_IDENTITY.at(
                res,
                ("spec", "securityProfile", "workloadIdentity", "enabled"),
                "workload identity requires oidcIssuerProfile.enabled: true",
            )


def _check_local_accounts(ms: ManifestSet) -> Iterator[Finding]:
    for res, spec in _clusters(ms):
        if (
            spec.get("disableLocalAccounts") is True
            and dig(spec, "aadProfile", "managed") is not True
        ):
            yield LOCAL_ACCOUNTS.at(
                res,
                ("spec", "disableLocalAccounts"),
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
    "ManagedCluster dnsPrefix is 2-54 letters, digits or '-', alphanumeric at both ends (K10)",
    Severity.ERROR,
    _check_dns_prefix,
)
NAME = Rule(
    "CAPZ-MC-NAME",
    "The AKS cluster name (azureName, else metadata.name) does not contain 'microsoft' or 'windows' (K11)",
    Severity.ERROR,
    _check_name,
)
CLUSTER_CIDRS = Rule(
    "CAPZ-CLUSTER-CIDRS",
    "An ASO Cluster's clusterNetwork has at most one services and one pods CIDR (K13)",
    Severity.ERROR,
    _check_cluster_cidrs,
)
DNS_SERVICE_IP = Rule(
    "CAPZ-MC-DNSSERVICEIP",
    "networkProfile.dnsServiceIP lies inside the service CIDR (own serviceCidr or the Cluster's) (K13)",
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
    "overlay not with kubenet; cilium dataplane needs overlay and cilium policy; cilium policy needs "
    "cilium dataplane (K16)",
    Severity.ERROR,
    _check_network_plugin,
)
WORKLOAD_IDENTITY = Rule(
    "CAPZ-MC-WORKLOAD-IDENTITY",
    "securityProfile.workloadIdentity requires oidcIssuerProfile.enabled: true (K17)",
    Severity.ERROR,
    _check_workload_identity,
)
LOCAL_ACCOUNTS = Rule(
    "CAPZ-MC-LOCAL-ACCOUNTS",
    "disableLocalAccounts: true requires aadProfile.managed: true (K18)",
    Severity.ERROR,
    _check_local_accounts,
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
    KMS,
    IDENTITY_PROFILE,
    AUTOSCALER_PROFILE,
)
