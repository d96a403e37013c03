"""AzureManagedControlPlane -> AzureASOManagedControlPlane with its ManagedCluster (reference
§5.3), following CAPZ's legacy ``azure/services/managedclusters/spec.go`` with the legacy defaults
made explicit, so the ManagedCluster describes the AKS cluster legacy CAPZ created.
"""

from __future__ import annotations

import base64
import binascii
import copy
from typing import Any

from generator.migrate import tables as t
from generator.migrate.build import (
    apply_patches,
    carried_metadata,
    embedded,
    name_if_different,
    report_leftovers,
    set_if,
)
from generator.migrate.cluster import infrastructure
from generator.migrate.extensions import extensions, fleets_member
from generator.migrate.plan import ClusterPlan, Item, Notes
from generator.migrate.reader import SpecReader
from generator.migrate.values import dns_service_ip, normalized_name, set_path


def plan_cluster(
    cp: Item, cluster: Item | None, credential_secret: str | None, notes: Notes
) -> ClusterPlan:
    """Convert an AzureManagedControlPlane: the AzureASOManagedControlPlane with its ManagedCluster
    (and FleetsMember, Extensions), plus the infrastructure the AzureASOManagedCluster will embed."""
    r = SpecReader(cp.spec(), cp.origin, ["spec"])
    plan = _new_plan(cp, cluster, credential_secret, r, notes)
    tags = r.mapping("additionalTags")
    resources = [_managed_cluster(r, plan, cp, cluster, notes, tags)]
    resources += fleets_member(r, plan, cp, notes, tags)
    resources += extensions(r, plan, cp, notes)
    plan.infra_resources = infrastructure(r, plan, cp, notes, tags)
    version = r.text("version")
    aso_spec: dict[str, Any] = {"resources": resources}
    if version is not None:
        aso_spec["version"] = version if version.startswith("v") else f"v{version}"
    plan.aso_control_plane = {
        "apiVersion": t.CAPZ_V1BETA1,
        "kind": t.ASO_CONTROL_PLANE,
        "metadata": carried_metadata(cp),
        "spec": aso_spec,
    }
    plan.legacy_aso_objects.append(("ManagedCluster", plan.mc_name))
    report_leftovers(r, cp, notes)
    return plan


def _new_plan(
    cp: Item, cluster: Item | None, credential_secret: str | None, r: SpecReader, notes: Notes
) -> ClusterPlan:
    """The names and settings every other conversion of this cluster reads."""
    cluster_name = cluster.name if cluster is not None else cp.name
    if cluster is None:
        notes.note(
            cp,
            "(object)",
            f"no Cluster in the input names this control plane; using {cluster_name!r} as the Cluster name",
        )
    plan = ClusterPlan(
        control_plane=cp,
        cluster=cluster,
        cluster_name=cluster_name,
        credential_secret=credential_secret or f"{cluster_name}-aso-credentials",
    )
    plan.subscription = r.text("subscriptionID")
    r.take("identityRef")  # becomes the credential Secret (credentials.py)
    location = r.text("location")
    if location is None:
        msg = "spec.location is required"
        raise cp.origin.error(msg, ["spec", "location"])
    plan.location = location
    plan.preview = bool(r.boolean("enablePreviewFeatures"))
    plan.resource_group = r.text("resourceGroupName") or cluster_name
    plan.mc_name = normalized_name(cp.name)
    return plan


def _managed_cluster(
    r: SpecReader,
    plan: ClusterPlan,
    cp: Item,
    cluster: Item | None,
    notes: Notes,
    tags: dict[str, Any] | None,
) -> dict[str, Any]:
    """The embedded ManagedCluster, with the control plane's asoManagedClusterPatches applied."""
    mc: dict[str, Any] = {
        "location": plan.location,
        "owner": {"name": normalized_name(plan.resource_group)},
    }
    name_if_different(mc, plan.mc_name, cp.name)
    for legacy, target in t.CONTROL_PLANE_COPIES:
        set_if(mc, target, r.take(legacy))
    _control_plane_defaults(mc, r, plan, cp)
    _network(mc, r, plan, cluster)
    _aad_and_accounts(mc, r, plan)
    _addons_sku_autoscaler(mc, r)
    _ssh_key(mc, r, cp, notes)
    if tags:
        mc["tags"] = copy.deepcopy(tags)
    environment = r.text("azureEnvironment")
    if environment is not None and environment != "AzurePublicCloud":
        notes.unmapped(
            cp,
            "spec.azureEnvironment",
            f"{environment}: no per-resource setting; set AZURE_AUTHORITY_HOST, "
            "AZURE_RESOURCE_MANAGER_ENDPOINT and AZURE_RESOURCE_MANAGER_AUDIENCE in ASO's "
            "aso-controller-settings Secret",
        )
    for dropped in t.CONTROL_PLANE_DROPPED:
        r.take(dropped)  # CAPZ-managed or unused by AKS
    managed_cluster = embedded(
        plan.container_service_api, "ManagedCluster", plan.mc_name, plan.credential_secret, mc
    )
    patches = r.sequence("asoManagedClusterPatches")
    if patches:
        managed_cluster = apply_patches(managed_cluster, patches, r, "asoManagedClusterPatches")
    if plan.preview:
        notes.note(
            cp,
            "spec.enablePreviewFeatures",
            f"the ManagedCluster and its agent pools use {t.CONTAINER_SERVICE_PREVIEW_API} (CAPZ "
            "v1.26.0's preview API); capzgen has no schema for it: validate with "
            "--ignore-missing-schemas or import the ASO CRD",
        )
    return managed_cluster


def _control_plane_defaults(mc: dict[str, Any], r: SpecReader, plan: ClusterPlan, cp: Item) -> None:
    """What legacy CAPZ always sent or defaulted (reference §5.3 "materialized first")."""
    mc.setdefault("dnsPrefix", cp.name)
    mc.setdefault("nodeResourceGroup", f"MC_{plan.resource_group}_{cp.name}_{plan.location}")
    mc["enableRBAC"] = True
    mc["servicePrincipalProfile"] = {"clientId": "msi"}
    identity_type = r.text("identity.type") or "SystemAssigned"
    set_path(mc, "identity.type", identity_type)


def _network(mc: dict[str, Any], r: SpecReader, plan: ClusterPlan, cluster: Item | None) -> None:
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
    services = _cluster_cidrs(cluster, "services")
    if dns_ip is None and len(services) == 1 and isinstance(services[0], str):
        dns_ip = dns_service_ip(services[0])
    set_if(mc, "networkProfile.dnsServiceIP", dns_ip)


def _cluster_cidrs(cluster: Item | None, which: str) -> list[Any]:
    if cluster is None:
        return []
    network = cluster.spec().get("clusterNetwork")
    blocks = network.get(which, {}).get("cidrBlocks") if isinstance(network, dict) else None
    return blocks if isinstance(blocks, list) else []


def _aad_and_accounts(mc: dict[str, Any], r: SpecReader, plan: ClusterPlan) -> None:
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
            {"key": "value", "name": f"{plan.cluster_name}-user-kubeconfig"},
        )
    if mc.get("oidcIssuerProfile", {}).get("enabled") is True:
        # Legacy CAPZ exported the issuer URL to this ConfigMap; keep it for its consumers.
        set_path(
            mc,
            "operatorSpec.configMaps.oidcIssuerProfile",
            {
                "key": "oidc-issuer-profile-url",
                "name": f"{plan.cluster_name}-aso-oidc-issuer-profile",
            },
        )


def _addons_sku_autoscaler(mc: dict[str, Any], r: SpecReader) -> None:
    addons: dict[str, Any] = {}
    for index, addon in enumerate(r.sequence("addonProfiles")):
        where = r.where(f"addonProfiles[{index}]")
        if not isinstance(addon, dict) or not isinstance(addon.get("name"), str):
            msg = "an add-on profile needs a name"
            raise r.origin.error(msg, where)
        profile: dict[str, Any] = {"enabled": bool(addon.get("enabled", False))}
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
        profile_out: dict[str, Any] = {}
        for legacy, target in t.AUTOSCALER_KEYS.items():
            value = r.take(f"autoscalerProfile.{legacy}")
            if value is None:
                value = t.AUTOSCALER_DEFAULTS.get(legacy)  # CRD defaults of the profile's fields
            if value is not None:
                profile_out[target] = value if isinstance(value, str) else str(value).lower()
        mc["autoScalerProfile"] = profile_out


def _ssh_key(mc: dict[str, Any], r: SpecReader, cp: Item, notes: Notes) -> None:
    encoded = r.text("sshPublicKey")
    if encoded is None:
        notes.unmapped(
            cp,
            "spec.sshPublicKey",
            "empty: the legacy webhook generated a key pair that is not in the manifests, so "
            "linuxProfile is left out (AKS needs none); for an existing cluster copy "
            "spec.linuxProfile from its old ManagedCluster",
        )
        return
    try:
        key = base64.b64decode(encoded, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        notes.unmapped(
            cp, "spec.sshPublicKey", "not base64-encoded UTF-8 text; linuxProfile left out"
        )
        return
    mc["linuxProfile"] = {
        "adminUsername": t.DEFAULT_ADMIN_USERNAME,
        "ssh": {"publicKeys": [{"keyData": key}]},
    }
