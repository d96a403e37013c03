"""Who may reach and act on an AKS cluster, as AKS enforces it at create time: API server access
and private clusters (K15, K16, §4.3), workload identity and federated credentials (K17, §4.6),
local accounts (§4.2), KMS and the kubelet identity profile.

Most run on :class:`~generator.checks.views.ControlPlane`, so they hold for the ManagedCluster of
the ASO API and the AzureManagedControlPlane of the legacy API alike. KMS and identityProfile are
checked on the ManagedCluster only: the legacy CRD spells them differently and its own schema
validates them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from generator.checks.rules.base import LEGACY_CONTROL_PLANES, Rule
from generator.checks.rules.managedcluster import managed_clusters
from generator.checks.views import Api, ControlPlane, legacy_specs, views_of
from generator.findings import Finding, Gate, Severity
from generator.jsontypes import dig
from generator.model import kinds
from generator.model.manifests import ManifestSet
from generator.model.values import (
    as_dict,
    is_templated,
    known_str,
    parse_go_cidr,
    parse_ip_network,
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


API_ACCESS = Rule(
    "CAPZ-MC-APISERVER",
    "authorizedIPRanges are CIDRs (an AzureManagedControlPlane's as Go's net.ParseCIDR reads them, "
    "so not a bare IP; AKS takes a bare IP as /32); a custom privateDNSZone is a private DNS zone ID named "
    "[sub.]private|privatelink.<location>.azmk8s.io and requires enablePrivateCluster (K15)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="AKS refuses the API server access profile",
    webhook_kinds=LEGACY_CONTROL_PLANES,
    split="not a private DNS zone of another region than the cluster's, which it admits",
)


@API_ACCESS.checks
def _check_api_access(ms: ManifestSet) -> Iterator[Finding]:
    for cp in views_of(ms).control_planes:
        for index, item in enumerate(cp.authorized_ip_ranges.value or ()):
            text = known_str(item)
            if text is None:
                continue
            if cp.api is Api.LEGACY and parse_go_cidr(text) is None:
                # CAPZ's validateAPIServerAccessProfile uses Go's net.ParseCIDR: "1.2.3.4" fails.
                yield API_ACCESS.at(
                    cp.authorized_ip_ranges,
                    (index,),
                    f"{text!r} is not a CIDR: CAPZ's AzureManagedControlPlane webhook refuses it "
                    "(net.ParseCIDR needs address/prefix-length, e.g. 1.2.3.4/32)",
                )
            elif cp.api is Api.ASO and parse_ip_network(text) is None:
                # AKS also takes a single address and stores it as address/32 (Azure/AKS#4085).
                yield API_ACCESS.at(
                    cp.authorized_ip_ranges,
                    (index,),
                    f"{text!r} is not a CIDR or an IP address: AKS refuses it",
                )
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
            # CAPZ's webhook checks the zone's form for any region: a zone of another region
            # than the cluster's it admits, and AKS refuses it.
            other_region = match is not None and re.fullmatch(
                _ZONE_NAME.replace("LOCATION", "[a-z0-9]+"), match.group("zone"), re.IGNORECASE
            )
            yield API_ACCESS.at(
                cp.private_dns_zone,
                (),
                f"{zone!r} must be system, none or the ID of a private DNS zone named "
                f"[<subzone>.]private|privatelink.{location.lower() if location else '<location>'}"
                ".azmk8s.io",
                gate=Gate.PROVISIONING if other_region else None,
            )


PRIVATE_DNS = Rule(
    "CAPZ-MC-PRIVATE-DNS",
    "privateDNSZone none and enablePrivateClusterPublicFQDN: true are ignored without "
    "enablePrivateCluster: true (custom zones: CAPZ-MC-APISERVER; system is the default) (K15, §4.3)",
    Severity.WARNING,
    Gate.PROVISIONING,
    why="AKS ignores the setting without a private cluster",
)


@PRIVATE_DNS.checks
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


ZONE_IDENTITY = Rule(
    "CAPZ-MC-PRIVATE-DNS-IDENTITY",
    "A custom private DNS zone needs a user-assigned control-plane identity (identity type "
    "UserAssigned) (K15, §4.3, §4.7)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="AKS refuses a custom private DNS zone without a user-assigned identity",
)


@ZONE_IDENTITY.checks
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


WORKLOAD_IDENTITY = Rule(
    "CAPZ-MC-WORKLOAD-IDENTITY",
    "securityProfile.workloadIdentity requires oidcIssuerProfile.enabled: true (K17)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="AKS refuses workload identity without the OIDC issuer",
    webhook_kinds=LEGACY_CONTROL_PLANES,
)


@WORKLOAD_IDENTITY.checks
def _check_workload_identity(ms: ManifestSet) -> Iterator[Finding]:
    for cp in views_of(ms).control_planes:
        if cp.workload_identity.raw is True and cp.oidc_issuer.raw is not True:
            yield WORKLOAD_IDENTITY.at(
                cp.workload_identity,
                (),
                "workload identity requires oidcIssuerProfile.enabled: true",
            )


FEDERATION = Rule(
    "CAPZ-MC-FEDERATION",
    "A FederatedIdentityCredential among a Cluster's resources trusts the issuer of a ManagedCluster "
    "with workload identity enabled, read from the ConfigMap that ManagedCluster writes it to "
    "(K17, §4.6)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="Entra ID refuses the workloads' tokens: the credential trusts another issuer",
)


@FEDERATION.checks
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


LOCAL_ACCOUNTS = Rule(
    "CAPZ-MC-LOCAL-ACCOUNTS",
    "disableLocalAccounts: true requires aadProfile.managed: true; an AzureManagedControlPlane sets "
    "it at all only with aadProfile (K18)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="AKS refuses disabling local accounts without managed Entra ID",
    webhook_kinds=LEGACY_CONTROL_PLANES,
    split="not with an aadProfile whose managed is false, which it admits",
)


@LOCAL_ACCOUNTS.checks
def _check_local_accounts(ms: ManifestSet) -> Iterator[Finding]:
    for cp in views_of(ms).control_planes:
        if cp.disable_local_accounts.raw is True and cp.aad_managed.raw is not True:
            # CAPZ's webhook refuses it only without any aadProfile: with managed: false it
            # admits it, and AKS refuses it.
            without_aad = dig(cp.owner.obj, "spec", "aadProfile") is None
            yield LOCAL_ACCOUNTS.at(
                cp.disable_local_accounts,
                (),
                "requires AKS-managed Entra ID (aadProfile.managed: true)",
                # and its template webhook does not run the check at all (capz-oracle)
                gate=Gate.PROVISIONING
                if cp.api is Api.LEGACY and (cp.in_template or not without_aad)
                else None,
            )
        elif (
            cp.api is Api.LEGACY
            and not cp.in_template
            and cp.disable_local_accounts.raw is False
            and dig(cp.owner.obj, "spec", "aadProfile") is None
        ):
            # CAPZ's validateAzureManagedControlPlaneDisableLocalAccounts refuses any value there;
            # its template webhook does not run it.
            yield LOCAL_ACCOUNTS.at(
                cp.disable_local_accounts,
                (),
                "can be set only with aadProfile on an AzureManagedControlPlane; leave it out",
            )


LOCAL_ACCOUNTS_RBAC = Rule(
    "CAPZ-MC-LOCAL-ACCOUNTS-RBAC",
    "disableLocalAccounts: true with managed Entra ID but without aadProfile.enableAzureRBAC: "
    "true leaves access to Kubernetes RBAC alone (legacy: CAPZ enables Azure RBAC with managed) "
    "(C17, §4.1, §4.2)",
    Severity.WARNING,
    Gate.PROVISIONING,
    why="admitted; access is left to Kubernetes RBAC alone",
)


@LOCAL_ACCOUNTS_RBAC.checks
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


def _check_aso_kms(ms: ManifestSet) -> Iterator[Finding]:
    for res, spec in managed_clusters(ms):
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


def _check_legacy_kms(ms: ManifestSet) -> Iterator[Finding]:
    """CAPZ's validateAzureManagedControlPlaneClassSpecAzureKeyVaultKms on the legacy shape: KMS
    needs identity type UserAssigned (an absent identity is SystemAssigned), a Private key vault
    its keyVaultResourceID, a Public one (the default) none. The template webhook runs it too."""
    for obj, spec_path in legacy_specs(ms, kinds.LEGACY_CONTROL_PLANE):
        spec = dig(obj.obj, *spec_path)
        kms = as_dict(dig(spec, "securityProfile", "azureKeyVaultKms"))
        if kms is None:
            continue
        base = (*spec_path, "securityProfile", "azureKeyVaultKms", "keyVaultResourceID")
        identity = dig(spec, "identity", "type")
        if is_templated(identity):
            continue
        if identity != "UserAssigned":
            yield KMS.at(obj, base, f"KMS requires identity.type UserAssigned, not {identity}")
            continue
        access = known_str(kms.get("keyVaultNetworkAccess")) or "Public"
        resource_id = kms.get("keyVaultResourceID")
        if access == "Private" and not resource_id:
            yield KMS.at(obj, base, "is required with keyVaultNetworkAccess: Private")
        if access == "Public" and resource_id:
            yield KMS.at(
                obj, base, "must be empty with keyVaultNetworkAccess: Public (the default)"
            )


KMS = Rule(
    "CAPZ-MC-KMS",
    "Key Vault KMS requires identity type UserAssigned; Private network access needs "
    "keyVaultResourceReference (legacy keyVaultResourceID), Public forbids it (K20; CAPZ "
    "validateAzureManagedControlPlaneClassSpecAzureKeyVaultKms)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="AKS refuses the Key Vault KMS settings",
    webhook_kinds=LEGACY_CONTROL_PLANES,
)


@KMS.checks
def _check_kms(ms: ManifestSet) -> Iterator[Finding]:
    yield from _check_aso_kms(ms)
    yield from _check_legacy_kms(ms)


IDENTITY_PROFILE = Rule(
    "CAPZ-MC-IDENTITY-PROFILE",
    "identityProfile has only the key kubeletidentity (K24)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="AKS refuses identityProfile keys other than kubeletidentity",
)


@IDENTITY_PROFILE.checks
def _check_identity_profile(ms: ManifestSet) -> Iterator[Finding]:
    for res, spec in managed_clusters(ms):
        for key in as_dict(spec.get("identityProfile")) or {}:
            if key != "kubeletidentity":
                yield IDENTITY_PROFILE.at(
                    res,
                    ("spec", "identityProfile", key),
                    "only the key kubeletidentity is accepted",
                )
