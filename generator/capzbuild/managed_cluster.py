"""AzureManagedControlPlane spec -> the ManagedCluster CAPZ builds from it (reference §5.3),
following CAPZ's legacy ``azure/services/managedclusters/spec.go`` with the legacy defaults made
explicit, so the ManagedCluster describes the AKS cluster legacy CAPZ created.

The option-7 patches (``asoManagedClusterPatches``) are not applied here: the caller applies them
to the object built (``migrate`` raising on a bad one, the validator reporting each).
"""

from __future__ import annotations

import base64
import copy
from dataclasses import dataclass
from typing import Protocol

from generator.capzbuild import tables as t
from generator.capzbuild.objects import (
    NOTE,
    UNMAPPED,
    Built,
    Remark,
    embedded,
    name_if_different,
    set_if,
)
from generator.capzbuild.reader import SpecReader
from generator.capzbuild.values import dns_service_ip, normalized_name, set_path
from generator.jsontypes import Json, JsonObject

MANAGED_CLUSTER_KIND = "ManagedCluster"


@dataclass(frozen=True)
class ControlPlaneBasics:
    """The names and settings every object built for one legacy cluster derives from its control
    plane: subscription, location, preview API, resource group, ManagedCluster object name."""

    subscription: str | None
    location: str
    preview: bool
    resource_group: str  # Azure name of the cluster's resource group
    mc_name: str


def read_basics(r: SpecReader, cp_name: str, cluster_name: str) -> ControlPlaneBasics:
    """The basics of a control plane named ``cp_name`` in Cluster ``cluster_name``; raises the
    reader's error when ``spec.location`` (required by the legacy CRD) is missing."""
    subscription = r.text("subscriptionID")
    r.take("identityRef")  # becomes the credential Secret (migrate: credentials.py)
    location = r.text("location")
    if location is None:
        msg = "spec.location is required"
        raise r.origin.error(msg, r.where("location"))
    return ControlPlaneBasics(
        subscription=subscription,
        location=location,
        preview=bool(r.boolean("enablePreviewFeatures")),
        resource_group=r.text("resourceGroupName") or cluster_name,
        mc_name=normalized_name(cp_name),
    )


class ClusterSettings(Protocol):
    """What building the ManagedCluster needs from the cluster around it (``migrate``'s
    ``ClusterPlan`` has these attributes)."""

    @property
    def cluster_name(self) -> str:
        """The CAPI Cluster's name."""
        ...

    @property
    def location(self) -> str:
        """The Azure region."""
        ...

    @property
    def resource_group(self) -> str:
        """The Azure name of the cluster's resource group."""
        ...

    @property
    def mc_name(self) -> str:
        """The ManagedCluster's object name."""
        ...

    @property
    def credential_secret(self) -> str:
        """The Secret the ASO objects take their Azure credentials from."""
        ...

    @property
    def preview(self) -> bool:
        """``enablePreviewFeatures``."""
        ...

    @property
    def container_service_api(self) -> str:
        """The containerservice apiVersion (the preview one with ``enablePreviewFeatures``)."""
        ...


def build_managed_cluster(
    r: SpecReader,
    cluster: ClusterSettings,
    cp_name: str,
    service_cidrs: list[Json],
    tags: JsonObject | None,
) -> Built:
    """The embedded ManagedCluster of control plane ``cp_name`` (patches not applied).

    ``service_cidrs`` are the CAPI Cluster's ``clusterNetwork.services.cidrBlocks`` (legacy CAPZ
    derived the DNS service IP from them).
    """
    remarks: list[Remark] = []
    mc: JsonObject = {
        "location": cluster.location,
        "owner": {"name": normalized_name(cluster.resource_group)},
    }
    name_if_different(mc, cluster.mc_name, cp_name)
    for legacy, target in t.CONTROL_PLANE_COPIES:
        set_if(mc, target, r.take(legacy))
    _control_plane_defaults(mc, r, cluster, cp_name)
    _network(mc, r, service_cidrs)
    _aad_and_accounts(mc, r, cluster)
    _addons_sku_autoscaler(mc, r)
    _ssh_key(mc, r, remarks)
    if tags:
        mc["tags"] = copy.deepcopy(tags)
    environment = r.text("azureEnvironment")
    if environment is not None and environment != "AzurePublicCloud":
        remarks.append(
            Remark(
                UNMAPPED,
                "spec.azureEnvironment",
                f"{environment}: no per-resource setting; set AZURE_AUTHORITY_HOST, "
                "AZURE_RESOURCE_MANAGER_ENDPOINT and AZURE_RESOURCE_MANAGER_AUDIENCE in ASO's "
                "aso-controller-settings Secret",
            )
        )
    for dropped in t.CONTROL_PLANE_DROPPED:
        r.take(dropped)  # CAPZ-managed or unused by AKS
    if cluster.preview:
        remarks.append(
            Remark(
                NOTE,
                "spec.enablePreviewFeatures",
                f"the ManagedCluster and its agent pools use {t.CONTAINER_SERVICE_PREVIEW_API} (CAPZ "
                "v1.26.0's preview API); capzgen has no schema for it: validate with "
                "--ignore-missing-schemas or import the ASO CRD",
            )
        )
    obj = embedded(
        cluster.container_service_api,
        MANAGED_CLUSTER_KIND,
        cluster.mc_name,
        cluster.credential_secret,
        mc,
    )
    return Built(obj, remarks)


def _control_plane_defaults(
    mc: JsonObject, r: SpecReader, cluster: ClusterSettings, cp_name: str
) -> None:
    """What legacy CAPZ always sent or defaulted (reference §5.3 "materialized first")."""
    mc.setdefault("dnsPrefix", cp_name)
    mc.setdefault("nodeResourceGroup", f"MC_{cluster.resource_group}_{cp_name}_{cluster.location}")
    mc["enableRBAC"] = True
    mc["servicePrincipalProfile"] = {"clientId": "msi"}
    identity_type = r.text("identity.type") or "SystemAssigned"
    set_path(mc, "identity.type", identity_type)


def _network(mc: JsonObject, r: SpecReader, services: list[Json]) -> None:
    set_path(
        mc,
        "networkProfile.networkPlugin",
        mc.get("networkProfile", {}).get("networkPlugin") or "azure",
    )
    sku = r.text("loadBalancerSKU") or "Standard"
    set_path(mc, "networkProfile.loadBalancerSku", sku.lower())
    for legacy, target, item_key in (
        ("loadBalancerProfile.outboundIPs", "outboundIPs", "publicIPs"),
        ("loadBalancerProfile.outboundIPPrefixes", "outboundIPPrefixes", "publicIPPrefixes"),
    ):
        ids = r.sequence(legacy)
        if ids:
            set_path(
                mc,
                f"networkProfile.loadBalancerProfile.{target}.{item_key}",
                [{"reference": {"armId": value}} for value in ids],
            )
    dns_ip = r.text("dnsServiceIP")
    if dns_ip is None and len(services) == 1 and isinstance(services[0], str):
        dns_ip = dns_service_ip(services[0])
    set_if(mc, "networkProfile.dnsServiceIP", dns_ip)


def _aad_and_accounts(mc: JsonObject, r: SpecReader, cluster: ClusterSettings) -> None:
    managed = r.boolean("aadProfile.managed")
    if managed is not None:
        set_path(mc, "aadProfile.managed", managed)
        set_path(mc, "aadProfile.enableAzureRBAC", managed)  # legacy: enableAzureRBAC = managed
    disabled = r.boolean("disableLocalAccounts")
    if disabled is not None:
        mc["disableLocalAccounts"] = disabled
    if disabled:
        # ASO cannot read admin credentials with local accounts disabled; CAPZ must not find its
        # own <cluster>-kubeconfig there (C17, reference §4.2).
        set_path(
            mc,
            "operatorSpec.secrets.userCredentials",
            {"key": "value", "name": f"{cluster.cluster_name}-user-kubeconfig"},
        )
    if mc.get("oidcIssuerProfile", {}).get("enabled") is True:
        # Legacy CAPZ exported the issuer URL to this ConfigMap; keep it for its consumers.
        set_path(
            mc,
            "operatorSpec.configMaps.oidcIssuerProfile",
            {
                "key": "oidc-issuer-profile-url",
                "name": f"{cluster.cluster_name}-aso-oidc-issuer-profile",
            },
        )


def _addons_sku_autoscaler(mc: JsonObject, r: SpecReader) -> None:
    addons: JsonObject = {}
    for index, addon in enumerate(r.sequence("addonProfiles")):
        where = r.where(f"addonProfiles[{index}]")
        if not isinstance(addon, dict) or not isinstance(addon.get("name"), str):
            msg = "an add-on profile needs a name"
            raise r.origin.error(msg, where)
        profile: JsonObject = {"enabled": bool(addon.get("enabled", False))}
        if addon.get("config"):
            profile["config"] = copy.deepcopy(addon["config"])
        addons[addon["name"]] = profile
    if addons:
        mc["addonProfiles"] = addons
    tier = r.text("sku.tier") or "Free"
    mc["sku"] = {"name": "Base", "tier": t.SKU_TIERS.get(tier, tier)}
    profile_in = r.peek("autoscalerProfile")
    if profile_in is not None:
        if not isinstance(profile_in, dict):
            msg = "expected a mapping"
            raise r.origin.error(msg, r.where("autoscalerProfile"))
        profile_out: JsonObject = {}
        for legacy, target in t.AUTOSCALER_KEYS.items():
            value = r.take(f"autoscalerProfile.{legacy}")
            if value is None:
                value = t.AUTOSCALER_DEFAULTS.get(legacy)  # CRD defaults of the profile's fields
            if value is not None:
                profile_out[target] = value if isinstance(value, str) else str(value).lower()
        mc["autoScalerProfile"] = profile_out


def _ssh_key(mc: JsonObject, r: SpecReader, remarks: list[Remark]) -> None:
    encoded = r.text("sshPublicKey")
    if encoded is None:
        remarks.append(
            Remark(
                UNMAPPED,
                "spec.sshPublicKey",
                "empty: the legacy webhook generated a key pair that is not in the manifests, so "
                "linuxProfile is left out (AKS needs none); for an existing cluster copy "
                "spec.linuxProfile from its old ManagedCluster",
            )
        )
        return
    try:
        key = base64.b64decode(encoded, validate=True).decode("utf-8")
    except ValueError:  # binascii.Error, UnicodeDecodeError, or text that is not ASCII at all
        remarks.append(
            Remark(
                UNMAPPED,
                "spec.sshPublicKey",
                "not base64-encoded UTF-8 text; linuxProfile left out",
            )
        )
        return
    mc["linuxProfile"] = {
        "adminUsername": t.DEFAULT_ADMIN_USERNAME,
        "ssh": {"publicKeys": [{"keyData": key}]},
    }
