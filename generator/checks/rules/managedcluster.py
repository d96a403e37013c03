"""AKS cluster constraints AKS enforces at create time: naming, address ranges, load balancer and
network plugin (K10, K11, K13, K14, K20, §4.3, §4.4), add-on names (§4.15) and the cluster
autoscaler profile. Who may reach and act on the cluster (API server access, identities, local
accounts, KMS) is :mod:`generator.checks.rules.access`.

These come from the legacy CAPZ webhooks, which encoded AKS behaviour, and from ASO schema
descriptions. Most run on :class:`~generator.checks.views.ControlPlane`, so they hold for the
ManagedCluster of the ASO API and the AzureManagedControlPlane of the legacy API alike; for the
ASO API nothing checks them before Azure does, and for the legacy API only its webhooks did
(§5.5). The autoscaler profile is read in both spellings: the ManagedCluster's kebab-case keys and
the legacy CRD's camelCase ones (whose schema checks some of them, CAPZ's webhook all).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from generator.checks.fields import Owner
from generator.checks.rules.base import LEGACY_CONTROL_PLANES, Rule
from generator.checks.views import Api, ControlPlane, is_aks_cluster, legacy_specs, views_of
from generator.findings import Finding, Gate, JsonPath, Severity, format_path
from generator.jsontypes import JsonObject, dig
from generator.model import kinds
from generator.model.manifests import AsoResource, ManifestSet, TopObject
from generator.model.values import (
    as_dict,
    as_list,
    is_templated,
    known_str,
    parse_ipv4,
    parse_ipv4_network,
)

_DNS_PREFIX = re.compile(r"^[a-zA-Z0-9][a-zA-Z0-9-]{0,52}[a-zA-Z0-9]$")
_RESERVED_WORDS = ("microsoft", "windows")


def managed_clusters(ms: ManifestSet) -> Iterator[tuple[AsoResource, JsonObject]]:
    """Every ManagedCluster with a spec (for the checks of ASO-only fields)."""
    for res in ms.resources_of(kinds.MANAGED_CLUSTER):
        spec = res.spec
        if spec is not None:
            yield res, spec


DNS_PREFIX = Rule(
    "CAPZ-MC-DNSPREFIX",
    "The AKS DNS prefix (ManagedCluster or AzureManagedControlPlane dnsPrefix) is 2-54 letters, "
    "digits or '-', alphanumeric at both ends (K10)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="AKS refuses the DNS prefix",
    webhook_kinds=LEGACY_CONTROL_PLANES,
)


@DNS_PREFIX.checks
def _check_dns_prefix(ms: ManifestSet) -> Iterator[Finding]:
    for cp in views_of(ms).control_planes:
        value = cp.dns_prefix.value
        if value is not None and not _DNS_PREFIX.match(value):
            yield DNS_PREFIX.at(
                cp.dns_prefix,
                (),
                f"{value!r} must be 2-54 letters, digits or '-', starting and ending with a letter or digit",
            )


NAME = Rule(
    "CAPZ-MC-NAME",
    "The AKS cluster name (azureName, else metadata.name; legacy: the control plane's name) does not "
    "contain 'microsoft' or 'windows' (K11)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="AKS refuses the cluster name",
    webhook_kinds=LEGACY_CONTROL_PLANES,
)


@NAME.checks
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


CLUSTER_CIDRS = Rule(
    "CAPZ-CLUSTER-CIDRS",
    "An AKS Cluster's clusterNetwork has at most one services and one pods CIDR; an "
    "AzureManagedControlPlane is refused for its Cluster's (the one its cluster-name label names) "
    "(K13; CAPZ validateManagedClusterNetwork)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="AKS gets one services and one pods CIDR; CAPZ's controller drops the rest",
    split="Admission on an AzureManagedControlPlane with the cluster.x-k8s.io/cluster-name label: CAPZ's webhook refuses it",
)

_CIDR_BLOCKS = ("services", "pods")


def _too_many_cidrs(cluster: TopObject) -> Iterator[tuple[str, JsonPath, int]]:
    """(block, path, count) for each CIDR list of the Cluster with more than one entry."""
    for block in _CIDR_BLOCKS:
        path: JsonPath = ("spec", "clusterNetwork", block, "cidrBlocks")
        blocks = as_list(dig(cluster.obj, *path))
        if blocks is not None and len(blocks) > 1:
            yield block, path, len(blocks)


def _legacy_cluster(ms: ManifestSet, obj: TopObject) -> TopObject | None:
    """The Cluster CAPZ's AzureManagedControlPlane webhook reads: the one its cluster-name label
    names (in its namespace). Without the label the webhook skips the check at create time, but
    CAPI labels the control plane with its Cluster's name and the update is checked alike, so the
    Cluster whose controlPlaneRef names it stands in."""
    labels = as_dict(dig(obj.obj, "metadata", "labels")) or {}
    if kinds.CLUSTER_NAME_LABEL in labels:
        name = known_str(labels[kinds.CLUSTER_NAME_LABEL])
        return None if name is None else ms.find(kinds.CLUSTER, name, obj.namespace)
    group = ms.cluster_of.get(obj)
    return group.cluster if group is not None and group.control_plane is obj else None


@CLUSTER_CIDRS.checks
def _check_cluster_cidrs(ms: ManifestSet) -> Iterator[Finding]:
    """CAPZ's validateManagedClusterNetwork refuses the AzureManagedControlPlane, not the Cluster,
    so the legacy finding is on the control plane. AzureASOManagedControlPlane's webhook checks
    nothing (CAPZ's ASO mutator copies the first CIDR only), so the ASO finding stays on the
    Cluster, as it does when a legacy Cluster's control plane is not in the set."""
    for obj in ms.objects_of(kinds.LEGACY_CONTROL_PLANE):
        cluster = _legacy_cluster(ms, obj)
        if cluster is None:
            continue
        for block, path, count in _too_many_cidrs(cluster):
            yield CLUSTER_CIDRS.at(
                obj,
                (),
                f"{cluster.ref()} {format_path(path)} has {count} CIDRs: CAPZ's "
                f"AzureManagedControlPlane webhook refuses this control plane (AKS takes one "
                f"{block} CIDR)",
                hint=f"keep one CIDR in {cluster.ref()} {format_path(path)}",
                gate=_cidrs_gate(obj),
            )
    for group in ms.clusters:
        if not is_aks_cluster(group):
            continue
        if (
            group.control_plane is not None
            and group.control_plane.kind == kinds.LEGACY_CONTROL_PLANE
        ):
            continue  # reported on the control plane above
        for block, path, count in _too_many_cidrs(group.cluster):
            yield CLUSTER_CIDRS.at(
                group.cluster,
                path,
                f"has {count} CIDRs; CAPZ uses one {block} CIDR for AKS",
            )


def _cidrs_gate(control_plane: TopObject) -> Gate | None:
    """Admission when the AzureManagedControlPlane is labelled with its cluster's name: CAPZ's
    webhook then reads that Cluster and refuses the control plane on create. Without the label
    the create is admitted (the update after CAPI labels it is not). None: the rule's own
    gate."""
    return Gate.ADMISSION if _labelled_with_its_cluster(control_plane) else None


def _labelled_with_its_cluster(obj: TopObject) -> bool:
    """Whether ``obj`` carries CAPI's cluster-name label: the one way CAPZ's
    AzureManagedControlPlane webhook finds the Cluster its network checks read."""
    labels = dig(obj.obj, "metadata", "labels")
    return isinstance(labels, dict) and isinstance(labels.get(kinds.CLUSTER_NAME_LABEL), str)


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


def network_gate(cp: ControlPlane) -> Gate | None:
    """The gate of a network finding on ``cp``: CAPZ's AzureManagedControlPlane webhook runs
    validateManagedClusterNetwork only when the control plane carries the
    ``cluster.x-k8s.io/cluster-name`` label (it reads the Cluster by it): without the label the
    API server admits what capzgen still finds, and AKS is the first to refuse it. None: the
    rule's own gate."""
    top = cp.owner
    if cp.api is not Api.LEGACY or not isinstance(top, TopObject):
        return None
    return None if _labelled_with_its_cluster(top) else Gate.PROVISIONING


def _legacy_dns_service_ip(cp: ControlPlane) -> Iterator[Finding]:
    """CAPZ's validateManagedClusterNetwork on the legacy shape: an IP address ending in .10.
    Not on a template: that function starts from the Cluster named by the object's cluster-name
    label, which a template shared by many Clusters does not carry, so CAPZ's template webhook
    checks none of it (each copy is checked when the topology controller creates it)."""
    text = cp.dns_service_ip.value
    if cp.api is not Api.LEGACY or cp.in_template or text is None:
        return
    address = parse_ipv4(text)
    gate = network_gate(cp)
    if address is None:
        yield DNS_SERVICE_IP.at(
            cp.dns_service_ip,
            (),
            f"{text!r} is not an IPv4 address",
            gate=gate,
            why="AKS refuses a DNS service IP that is not an address",
        )
    elif not str(address).endswith(".10"):
        yield DNS_SERVICE_IP.at(
            cp.dns_service_ip,
            (),
            f"{address} must end with .10 (CAPZ's AzureManagedControlPlane)",
            gate=gate,
            why="admitted without the cluster-name label; only CAPZ's webhook wants .10",
        )


DNS_SERVICE_IP = Rule(
    "CAPZ-MC-DNSSERVICEIP",
    "dnsServiceIP lies inside the service CIDR (own serviceCidr or the Cluster's), which must be "
    "set when the Cluster is in the set; legacy: an IP address ending in .10 (K13; CAPZ "
    "validateManagedClusterNetwork)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="AKS refuses a DNS service IP outside the service CIDR",
    webhook_kinds=LEGACY_CONTROL_PLANES,
    split="not without the cluster.x-k8s.io/cluster-name label, when it skips its network checks",
)


@DNS_SERVICE_IP.checks
def _check_dns_service_ip(ms: ManifestSet) -> Iterator[Finding]:
    for cp in views_of(ms).control_planes:
        yield from _legacy_dns_service_ip(cp)
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
                gate=network_gate(cp),
            )
            continue
        network = parse_ipv4_network(cluster_service_cidr(cp))
        if network is not None and address not in network:
            yield DNS_SERVICE_IP.at(
                cp.dns_service_ip,
                (),
                f"{address} is outside the service CIDR {network}",
                gate=network_gate(cp),
            )


_OUTBOUND = ("managedOutboundIPs", "outboundIPs", "outboundIPPrefixes")


LOAD_BALANCER = Rule(
    "CAPZ-MC-LOADBALANCER",
    "loadBalancerProfile sets at most one of managedOutboundIPs, outboundIPs, outboundIPPrefixes (K14)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="AKS refuses more than one kind of outbound IP",
    webhook_kinds=LEGACY_CONTROL_PLANES,
)


@LOAD_BALANCER.checks
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


NETWORK_PLUGIN = Rule(
    "CAPZ-MC-NETWORK-PLUGIN",
    "overlay and network policy azure need network plugin azure; cilium dataplane needs overlay "
    "and cilium policy; cilium policy needs cilium dataplane (K16, §4.4)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="AKS refuses the network plugin combination",
    webhook_kinds=LEGACY_CONTROL_PLANES,
    split="not networkPolicy azure with another plugin, which it admits",
)


@NETWORK_PLUGIN.checks
def _check_network_plugin(ms: ManifestSet) -> Iterator[Finding]:
    for cp in views_of(ms).control_planes:
        plugin, mode = cp.network_plugin.value, cp.network_plugin_mode.value
        policy, dataplane = cp.network_policy.value, cp.network_dataplane.value
        if mode == "overlay" and plugin not in (None, "azure"):
            yield NETWORK_PLUGIN.at(
                cp.network_plugin_mode,
                (),
                f"overlay requires networkPlugin: azure, not {plugin}",
                # the template webhook does not run this check (checked with capz-oracle)
                gate=Gate.PROVISIONING if cp.in_template else None,
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
                gate=Gate.PROVISIONING,  # CAPZ's webhook admits it (checked with capz-oracle)
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


def _kebab(key: str) -> str:
    """The AKS spelling of a legacy autoscalerProfile key (``scanInterval`` -> ``scan-interval``)."""
    return re.sub(r"(?<!^)(?=[A-Z])", "-", key).lower()


AUTOSCALER_PROFILE = Rule(
    "CAPZ-MC-AUTOSCALER-PROFILE",
    "Cluster-autoscaler profile values have the formats AKS accepts (durations, ranges, booleans) (K25)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="AKS refuses the autoscaler profile value",
    webhook_kinds=LEGACY_CONTROL_PLANES,
)


@AUTOSCALER_PROFILE.checks
def _check_autoscaler_profile(ms: ManifestSet) -> Iterator[Finding]:
    profiles: list[tuple[Owner, JsonPath, Callable[[str], str]]] = [
        (res, ("spec", "autoScalerProfile"), str) for res, _ in managed_clusters(ms)
    ]
    # CAPZ's validateAutoScalerProfile runs on the legacy AzureManagedControlPlane and its
    # template, whose CRDs spell the same settings in camelCase under autoscalerProfile.
    profiles += [
        (obj, (*base, "autoscalerProfile"), _kebab)
        for obj, base in legacy_specs(ms, kinds.LEGACY_CONTROL_PLANE)
    ]
    for where, base, spelling in profiles:
        for key, value in (as_dict(dig(where.obj, *base)) or {}).items():
            text = known_str(value)
            problem = _autoscaler_problem(spelling(key), text) if text is not None else None
            if problem is not None:
                yield AUTOSCALER_PROFILE.at(where, (*base, key), problem)


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


ADDONS = Rule(
    "CAPZ-MC-ADDONS",
    "addonProfiles names are AKS add-on names, spelled with their case (ASO map keys; legacy "
    "addonProfiles[].name) (§4.15)",
    Severity.WARNING,
    Gate.PROVISIONING,
    why="AKS refuses or ignores an unknown add-on name",
)


@ADDONS.checks
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
