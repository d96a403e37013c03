"""Legacy AzureManaged* objects -> AzureASOManaged* objects with embedded ASO resources.

One :class:`ClusterPlan` per AzureManagedControlPlane holds what every other conversion of that
cluster needs (names, subscription, subnet, credential Secret); the AzureManagedCluster and the
AzureManagedMachinePools are converted against it. Field mapping follows reference §5.3/§5.4 and
CAPZ's own legacy code (``azure/services/managedclusters/spec.go``, ``agentpools/spec.go``), with
the legacy defaults made explicit, so the ASO resources describe the Azure resources legacy CAPZ
created.
"""

from __future__ import annotations

import base64
import binascii
import copy
from dataclasses import dataclass, field
from typing import Any

import yaml

from generator.findings import PathPart, format_path
from generator.migrate import tables as t
from generator.migrate.model import NOTE, UNMAPPED, Note, Origin
from generator.migrate.reader import SpecReader
from generator.migrate.values import (
    dns_service_ip,
    fleet_id,
    normalized_name,
    quantity_number,
    set_path,
    subnet_id,
)
from generator.patches import merge_patch


@dataclass
class Item:
    """One input object and where it came from."""

    obj: dict[str, Any]
    origin: Origin

    @property
    def kind(self) -> str:
        return self.origin.kind

    @property
    def name(self) -> str:
        return self.origin.name

    @property
    def namespace(self) -> str | None:
        metadata = self.obj.get("metadata")
        value = metadata.get("namespace") if isinstance(metadata, dict) else None
        return value if isinstance(value, str) and value else None

    def spec(self) -> dict[str, Any]:
        spec = self.obj.get("spec")
        if spec is None:
            return {}
        if not isinstance(spec, dict):
            raise self.origin.error("spec is not a mapping", ["spec"])
        return spec


@dataclass
class Notes:
    items: list[Note] = field(default_factory=list)

    def unmapped(self, item: Item, path: str | list[PathPart], reason: str) -> None:
        self.add(UNMAPPED, item.kind, item.name, path, reason)

    def note(self, item: Item, path: str | list[PathPart], reason: str) -> None:
        self.add(NOTE, item.kind, item.name, path, reason)

    def add(
        self, category: str, kind: str, name: str, path: str | list[PathPart], reason: str
    ) -> None:
        self.items.append(Note(category, kind, name, _path(path), reason))


def _path(path: str | list[PathPart]) -> str:
    return path if isinstance(path, str) else (format_path(path) or "(object)")


@dataclass
class ClusterPlan:
    control_plane: Item
    cluster: Item | None
    cluster_name: str
    credential_secret: str
    subscription: str | None = None
    location: str = ""
    preview: bool = False
    mc_name: str = ""
    resource_group: str = ""  # Azure name of the cluster's resource group
    vnet_name: str = ""
    vnet_resource_group: str = ""
    subnet_name: str = ""
    subnet_ref: dict[str, Any] = field(default_factory=dict)
    aso_control_plane: dict[str, Any] = field(default_factory=dict)
    infra_resources: list[dict[str, Any]] = field(default_factory=list)
    # (kind, metadata.name) of the ASO objects legacy CAPZ created for this cluster (checklist).
    legacy_aso_objects: list[tuple[str, str]] = field(default_factory=list)
    pools: list[PoolPlan] = field(default_factory=list)
    aso_cluster_name: str | None = None
    legacy_infra_name: str | None = None  # the AzureManagedCluster, when the input has one
    machine_pool_names: list[str] = field(default_factory=list)

    @property
    def namespace(self) -> str | None:
        if self.cluster is not None and self.cluster.namespace:
            return self.cluster.namespace
        return self.control_plane.namespace

    @property
    def container_service_api(self) -> str:
        return t.CONTAINER_SERVICE_PREVIEW_API if self.preview else t.CONTAINER_SERVICE_API


@dataclass
class PoolPlan:
    item: Item
    azure_name: str
    object_name: str
    autoscaled: bool
    converted: dict[str, Any]


# --- helpers ----------------------------------------------------------------------------------------


def embedded(
    api_version: str, kind: str, name: str, credential: str, spec: dict[str, Any]
) -> dict[str, Any]:
    return {
        "apiVersion": api_version,
        "kind": kind,
        "metadata": {"annotations": {t.CREDENTIAL_ANNOTATION: credential}, "name": name},
        "spec": spec,
    }


def carried_metadata(item: Item) -> dict[str, Any]:
    """name, namespace, labels and user annotations of a legacy object, for its replacement."""
    source = item.obj.get("metadata")
    source = source if isinstance(source, dict) else {}
    metadata: dict[str, Any] = {"name": item.name}
    if item.namespace:
        metadata["namespace"] = item.namespace
    labels = source.get("labels")
    if isinstance(labels, dict) and labels:
        metadata["labels"] = copy.deepcopy(labels)
    annotations = source.get("annotations")
    if isinstance(annotations, dict):
        kept = {k: v for k, v in annotations.items() if k not in t.CONTROLLER_ANNOTATIONS}
        if kept:
            metadata["annotations"] = copy.deepcopy(kept)
    return metadata


def strip_server_fields(obj: dict[str, Any]) -> None:
    """Drop what the API server and controllers wrote (input from ``kubectl get -o yaml``)."""
    obj.pop("status", None)
    metadata = obj.get("metadata")
    if isinstance(metadata, dict):
        for key in t.SERVER_METADATA:
            metadata.pop(key, None)
        annotations = metadata.get("annotations")
        if isinstance(annotations, dict):
            for key in t.CONTROLLER_ANNOTATIONS:
                annotations.pop(key, None)
            if not annotations:
                metadata.pop("annotations")


def _set_if(spec: dict[str, Any], path: str, value: Any) -> None:
    if value is not None:
        set_path(spec, path, value)


def _name_if_different(spec: dict[str, Any], object_name: str, azure_name: str) -> None:
    if azure_name != object_name:
        spec["azureName"] = azure_name


def _report_leftovers(reader: SpecReader, item: Item, notes: Notes) -> None:
    for path in reader.leftovers():
        notes.unmapped(
            item, path, f"no ASO equivalent known (not a field of CAPZ v1.26.0's {item.kind})"
        )


def _apply_patches(
    obj: dict[str, Any], patches: list[Any], reader: SpecReader, path: str
) -> dict[str, Any]:
    """Apply CAPZ's JSON merge patches (strings of YAML/JSON) in order to a generated object."""
    for index, text in enumerate(patches):
        where = reader.where(f"{path}[{index}]")
        if not isinstance(text, str):
            raise reader.origin.error("a patch must be a string holding a JSON object", where)
        try:
            patch = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise reader.origin.error(f"patch is not valid JSON or YAML: {exc}", where) from None
        if not isinstance(patch, dict):
            raise reader.origin.error('a patch must be a JSON object ({"spec": {...}})', where)
        obj = merge_patch(obj, patch)
    return obj


# --- AzureManagedControlPlane ---------------------------------------------------------------------


def plan_cluster(
    cp: Item, cluster: Item | None, credential_secret: str | None, notes: Notes
) -> ClusterPlan:
    """Convert an AzureManagedControlPlane: the AzureASOManagedControlPlane with its ManagedCluster
    (and FleetsMember, Extensions), plus the infrastructure the AzureASOManagedCluster will embed."""
    spec = cp.spec()
    r = SpecReader(spec, cp.origin, ["spec"])
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
        raise cp.origin.error("spec.location is required", ["spec", "location"])
    plan.location = location
    plan.preview = bool(r.boolean("enablePreviewFeatures"))
    plan.resource_group = r.text("resourceGroupName") or cluster_name
    plan.mc_name = normalized_name(cp.name)
    tags = r.mapping("additionalTags")
    cred = plan.credential_secret

    mc: dict[str, Any] = {
        "location": location,
        "owner": {"name": normalized_name(plan.resource_group)},
    }
    _name_if_different(mc, plan.mc_name, cp.name)
    for legacy, target in t.CONTROL_PLANE_COPIES:
        _set_if(mc, target, r.take(legacy))
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

    managed_cluster = embedded(plan.container_service_api, "ManagedCluster", plan.mc_name, cred, mc)
    patches = r.sequence("asoManagedClusterPatches")
    if patches:
        managed_cluster = _apply_patches(managed_cluster, patches, r, "asoManagedClusterPatches")
    if plan.preview:
        notes.note(
            cp,
            "spec.enablePreviewFeatures",
            f"the ManagedCluster and its agent pools use {t.CONTAINER_SERVICE_PREVIEW_API} (CAPZ "
            "v1.26.0's preview API); capzgen has no schema for it: validate with "
            "--ignore-missing-schemas or import the ASO CRD",
        )

    resources = [managed_cluster]
    resources += _fleets_member(r, plan, cp, notes, tags)
    resources += _extensions(r, plan, cp, notes)
    plan.infra_resources = _infrastructure(r, plan, cp, notes, tags)

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
    _report_leftovers(r, cp, notes)
    return plan


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
    _set_if(mc, "networkProfile.dnsServiceIP", dns_ip)


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
            raise r.origin.error("an add-on profile needs a name", where)
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
            raise r.origin.error("expected a mapping", r.where("autoscalerProfile"))
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


def _fleets_member(
    r: SpecReader, plan: ClusterPlan, cp: Item, notes: Notes, tags: dict[str, Any] | None
) -> list[dict[str, Any]]:
    if r.peek("fleetsMember") is None:
        return []
    name = r.text("fleetsMember.name") or plan.cluster_name
    group = r.text("fleetsMember.group") or t.DEFAULT_FLEET_GROUP
    manager = r.text("fleetsMember.managerName")
    manager_group = r.text("fleetsMember.managerResourceGroup")
    if manager is None or manager_group is None or plan.subscription is None:
        missing = [
            label
            for label, value in (
                ("spec.fleetsMember.managerName", manager),
                ("spec.fleetsMember.managerResourceGroup", manager_group),
                ("spec.subscriptionID", plan.subscription),
            )
            if value is None
        ]
        notes.unmapped(
            cp,
            "spec.fleetsMember",
            f"the fleet's ARM ID needs {', '.join(missing)}; add a FleetsMember "
            f"({t.FLEETS_MEMBER_API}) with owner.armId by hand",
        )
        return []
    object_name = normalized_name(name)
    spec: dict[str, Any] = {
        "azureName": name,
        "clusterResourceReference": {
            "group": "containerservice.azure.com",
            "kind": "ManagedCluster",
            "name": plan.mc_name,
        },
        "group": group,
        "owner": {"armId": fleet_id(plan.subscription, manager_group, manager)},
    }
    plan.legacy_aso_objects.append(("FleetsMember", object_name))
    notes.note(
        cp,
        "spec.fleetsMember",
        f"FleetsMember uses {t.FLEETS_MEMBER_API}, for which capzgen has no schema; validate with "
        "--ignore-missing-schemas or import the ASO CRD",
    )
    return [
        embedded(t.FLEETS_MEMBER_API, "FleetsMember", object_name, plan.credential_secret, spec)
    ]


def _extensions(r: SpecReader, plan: ClusterPlan, cp: Item, notes: Notes) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for index, raw in enumerate(r.sequence("extensions")):
        base = f"extensions[{index}]"
        if not isinstance(raw, dict):
            raise cp.origin.error("an extension must be a mapping", r.where(base))
        er = SpecReader(raw, cp.origin, r.where(base))
        name = er.text("name")
        if name is None:
            raise cp.origin.error("an extension needs a name", r.where(f"{base}.name"))
        spec: dict[str, Any] = {
            "azureName": name,
            "owner": {
                "group": "containerservice.azure.com",
                "kind": "ManagedCluster",
                "name": plan.mc_name,
            },
        }
        auto_upgrade = er.boolean("autoUpgradeMinorVersion")
        spec["autoUpgradeMinorVersion"] = True if auto_upgrade is None else auto_upgrade
        for key in ("extensionType", "releaseTrain", "version"):
            _set_if(spec, key, er.text(key))
        settings = er.mapping("configurationSettings")
        if settings:
            spec["configurationSettings"] = copy.deepcopy(settings)
        _set_if(spec, "identity.type", er.text("identity"))
        _set_if(spec, "aksAssignedIdentity.type", er.text("aksAssignedIdentityType"))
        plan_in = er.mapping("plan")
        if plan_in is not None:
            product = er.text("plan.product")
            plan_out: dict[str, Any] = {
                "name": er.text("plan.name") or f"{cp.name}-{product}",
            }
            for key in ("product", "publisher", "promotionCode", "version"):
                _set_if(plan_out, key, er.text(f"plan.{key}"))
            spec["plan"] = plan_out
        scope_type = er.text("scope.scopeType")
        release_ns, target_ns = er.text("scope.releaseNamespace"), er.text("scope.targetNamespace")
        if scope_type == "Cluster":
            _set_if(spec, "scope.cluster.releaseNamespace", release_ns)
        elif scope_type == "Namespace":
            _set_if(spec, "scope.namespace.targetNamespace", target_ns)
        for field_name, value, used_by in (
            ("releaseNamespace", release_ns, "Cluster"),
            ("targetNamespace", target_ns, "Namespace"),
        ):
            if value is not None and scope_type != used_by:
                notes.unmapped(
                    cp,
                    er.where(f"scope.{field_name}"),
                    f"ignored: only scopeType {used_by} uses it (legacy CAPZ ignored it too)",
                )
        object_name = normalized_name(f"{plan.mc_name}-{name}")
        out.append(
            embedded(t.EXTENSION_API, "Extension", object_name, plan.credential_secret, spec)
        )
        for path in er.leftovers():
            notes.unmapped(cp, path, "no field of the ASO Extension corresponds")
        r.take(base)
    return out


def _infrastructure(
    r: SpecReader, plan: ClusterPlan, cp: Item, notes: Notes, tags: dict[str, Any] | None
) -> list[dict[str, Any]]:
    """ResourceGroup(s), VirtualNetwork, VirtualNetworksSubnet and PrivateEndpoints for the
    AzureASOManagedCluster. Legacy CAPZ always used a VNet (its webhook defaulted one)."""
    cred = plan.credential_secret
    rg_object = normalized_name(plan.resource_group)
    rg_spec: dict[str, Any] = {"location": plan.location}
    _name_if_different(rg_spec, rg_object, plan.resource_group)
    if tags:
        rg_spec["tags"] = copy.deepcopy(tags)
    resources = [embedded(t.RESOURCE_GROUP_API, "ResourceGroup", rg_object, cred, rg_spec)]
    plan.legacy_aso_objects.append(("ResourceGroup", rg_object))

    explicit = r.has("virtualNetwork")
    overlay = r.spec.get("networkPluginMode") == "overlay"
    plan.vnet_name = r.text("virtualNetwork.name") or cp.name
    vnet_cidr = r.text("virtualNetwork.cidrBlock") or (
        t.DEFAULT_OVERLAY_VNET_CIDR if overlay else t.DEFAULT_VNET_CIDR
    )
    plan.vnet_resource_group = r.text("virtualNetwork.resourceGroup") or plan.resource_group
    plan.subnet_name = r.text("virtualNetwork.subnet.name") or cp.name
    subnet_cidr = r.text("virtualNetwork.subnet.cidrBlock") or (
        t.DEFAULT_OVERLAY_SUBNET_CIDR if overlay else t.DEFAULT_SUBNET_CIDR
    )
    vnet_rg_object = normalized_name(plan.vnet_resource_group)
    if vnet_rg_object != rg_object:
        spec: dict[str, Any] = {"location": plan.location}
        _name_if_different(spec, vnet_rg_object, plan.vnet_resource_group)
        if tags:
            spec["tags"] = copy.deepcopy(tags)
        resources.append(
            embedded(t.RESOURCE_GROUP_API, "ResourceGroup", vnet_rg_object, cred, spec)
        )
        plan.legacy_aso_objects.append(("ResourceGroup", vnet_rg_object))
        notes.note(
            cp,
            "spec.virtualNetwork.resourceGroup",
            f"the VNet lives in resource group {plan.vnet_resource_group!r}, now embedded as "
            f"ResourceGroup {vnet_rg_object}: legacy CAPZ left pre-existing (untagged) groups and "
            "VNets alone, but ASO manages every embedded resource and deletes it with the cluster; "
            "if they pre-existed, annotate them serviceoperator.azure.com/reconcile-policy: skip",
        )
    elif not explicit:
        notes.note(
            cp,
            "spec.virtualNetwork",
            f"not set: legacy CAPZ created VNet {plan.vnet_name!r} ({vnet_cidr}) with subnet "
            f"{plan.subnet_name!r} ({subnet_cidr}) for the node pools; they are now embedded explicitly",
        )
    vnet_object = normalized_name(plan.vnet_name)
    vnet_spec: dict[str, Any] = {
        "addressSpace": {"addressPrefixes": [vnet_cidr]},
        "location": plan.location,
        "owner": {"name": vnet_rg_object},
    }
    _name_if_different(vnet_spec, vnet_object, plan.vnet_name)
    if tags:
        vnet_spec["tags"] = copy.deepcopy(tags)
    resources.append(embedded(t.NETWORK_API, "VirtualNetwork", vnet_object, cred, vnet_spec))
    subnet_object = normalized_name(f"{plan.vnet_name}-{plan.subnet_name}")
    subnet_spec: dict[str, Any] = {
        "addressPrefix": subnet_cidr,
        "azureName": plan.subnet_name,
        "owner": {"name": vnet_object},
    }
    endpoints = r.sequence("virtualNetwork.subnet.serviceEndpoints")
    if endpoints:
        subnet_spec["serviceEndpoints"] = copy.deepcopy(endpoints)
    resources.append(
        embedded(t.NETWORK_API, "VirtualNetworksSubnet", subnet_object, cred, subnet_spec)
    )
    plan.legacy_aso_objects += [
        ("VirtualNetwork", vnet_object),
        ("VirtualNetworksSubnet", subnet_object),
    ]
    plan.subnet_ref = {
        "group": "network.azure.com",
        "kind": "VirtualNetworksSubnet",
        "name": subnet_object,
    }
    resources += _private_endpoints(r, plan, cp, notes, tags, rg_object)
    return resources


def _private_endpoints(
    r: SpecReader,
    plan: ClusterPlan,
    cp: Item,
    notes: Notes,
    tags: dict[str, Any] | None,
    rg_object: str,
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    base = "virtualNetwork.subnet.privateEndpoints"
    for index, raw in enumerate(r.sequence(base)):
        where = f"{base}[{index}]"
        if not isinstance(raw, dict):
            raise cp.origin.error("a private endpoint must be a mapping", r.where(where))
        pr = SpecReader(raw, cp.origin, r.where(where))
        name = pr.text("name")
        if name is None:
            raise cp.origin.error("a private endpoint needs a name", r.where(f"{where}.name"))
        object_name = normalized_name(name)
        spec: dict[str, Any] = {
            "location": pr.text("location") or plan.location,
            "owner": {"name": rg_object},
            "subnet": {"reference": dict(plan.subnet_ref)},
        }
        _name_if_different(spec, object_name, name)
        groups = pr.sequence("applicationSecurityGroups")
        if groups:
            spec["applicationSecurityGroups"] = [{"reference": {"armId": g}} for g in groups]
        _set_if(spec, "customNetworkInterfaceName", pr.text("customNetworkInterfaceName"))
        addresses = pr.sequence("privateIPAddresses")
        if addresses:
            spec["ipConfigurations"] = [{"privateIPAddress": a} for a in addresses]
        manual = bool(pr.boolean("manualApproval"))
        connections = []
        for c_index, connection in enumerate(pr.sequence("privateLinkServiceConnections")):
            if not isinstance(connection, dict):
                raise cp.origin.error(
                    "a private link service connection must be a mapping",
                    r.where(f"{where}.privateLinkServiceConnections[{c_index}]"),
                )
            out_connection: dict[str, Any] = {}
            _set_if(out_connection, "name", connection.get("name"))
            _set_if(out_connection, "groupIds", connection.get("groupIDs"))
            _set_if(out_connection, "requestMessage", connection.get("requestMessage"))
            if connection.get("privateLinkServiceID"):
                out_connection["privateLinkServiceReference"] = {
                    "armId": connection["privateLinkServiceID"]
                }
            connections.append(out_connection)
        if connections:
            key = (
                "manualPrivateLinkServiceConnections" if manual else "privateLinkServiceConnections"
            )
            spec[key] = connections
        if tags:
            spec["tags"] = copy.deepcopy(tags)
        out.append(
            embedded(
                t.PRIVATE_ENDPOINT_API, "PrivateEndpoint", object_name, plan.credential_secret, spec
            )
        )
        plan.legacy_aso_objects.append(("PrivateEndpoint", object_name))
        for path in pr.leftovers():
            notes.unmapped(cp, path, "no field of the ASO PrivateEndpoint corresponds")
    return out


# --- AzureManagedCluster --------------------------------------------------------------------------


def convert_cluster_infra(
    item: Item | None, name: str, namespace: str | None, plan: ClusterPlan, notes: Notes
) -> dict[str, Any]:
    """AzureManagedCluster (only controlPlaneEndpoint, CAPZ-managed) -> AzureASOManagedCluster."""
    if item is not None:
        r = SpecReader(item.spec(), item.origin, ["spec"])
        r.take("controlPlaneEndpoint")
        _report_leftovers(r, item, notes)
        metadata = carried_metadata(item)
        plan.legacy_infra_name = item.name
    else:
        metadata = {"name": name}
        if namespace:
            metadata["namespace"] = namespace
    plan.aso_cluster_name = metadata["name"]
    return {
        "apiVersion": t.CAPZ_V1BETA1,
        "kind": t.ASO_CLUSTER,
        "metadata": metadata,
        "spec": {"resources": plan.infra_resources},
    }


# --- AzureManagedMachinePool ----------------------------------------------------------------------


def convert_machine_pool(item: Item, plan: ClusterPlan, notes: Notes) -> PoolPlan:
    r = SpecReader(item.spec(), item.origin, ["spec"])
    azure_name = r.text("name") or item.name
    object_name = normalized_name(item.name)
    ap: dict[str, Any] = {
        "azureName": azure_name,
        "owner": {"name": plan.mc_name},
        "type": "VirtualMachineScaleSets",
    }
    for legacy, target in t.MACHINE_POOL_COPIES:
        _set_if(ap, target, r.take(legacy))
    for key, default in t.MACHINE_POOL_DEFAULTS:
        ap.setdefault(key, default)
    size = r.take("osDiskSizeGB")
    if size not in (None, 0):
        ap["osDiskSizeGB"] = size  # legacy sent 0 for "AKS default"; leave it out instead
    taints = []
    for index, taint in enumerate(r.sequence("taints")):
        if not isinstance(taint, dict) or not taint.get("key") or not taint.get("effect"):
            raise item.origin.error("a taint needs key and effect", r.where(f"taints[{index}]"))
        value = taint.get("value")
        taints.append(
            f"{taint['key']}={value}:{taint['effect']}"
            if value
            else f"{taint['key']}:{taint['effect']}"
        )
    if taints:
        ap["nodeTaints"] = taints
    autoscaled = r.has("scaling")
    if autoscaled:
        ap["enableAutoScaling"] = True
        _set_if(ap, "minCount", r.take("scaling.minSize"))
        _set_if(ap, "maxCount", r.take("scaling.maxSize"))
    price = r.take("spotMaxPrice")
    if price is not None:
        number = quantity_number(price)
        if number is None:
            notes.unmapped(item, "spec.spotMaxPrice", f"{price!r} is not a Kubernetes quantity")
        else:
            ap["spotMaxPrice"] = number
    sysctls = r.mapping("linuxOSConfig.sysctls")
    if sysctls is not None:
        out: dict[str, Any] = {}
        for key, value in sysctls.items():
            if key in t.SYSCTL_NAMES:
                out[t.SYSCTL_RENAMES.get(key, key)] = value
            else:
                notes.unmapped(
                    item,
                    f"spec.linuxOSConfig.sysctls.{key}",
                    "not a sysctl of the legacy CRD or ASO",
                )
        if out:
            set_path(ap, "linuxOSConfig.sysctls", out)
    _pool_subnet(ap, r, plan, item, notes)
    for dropped in t.MACHINE_POOL_DROPPED:
        r.take(dropped)
    pool = embedded(
        plan.container_service_api,
        "ManagedClustersAgentPool",
        object_name,
        plan.credential_secret,
        ap,
    )
    patches = r.sequence("asoManagedClustersAgentPoolPatches")
    if patches:
        pool = _apply_patches(pool, patches, r, "asoManagedClustersAgentPoolPatches")
    _report_leftovers(r, item, notes)
    converted = {
        "apiVersion": t.CAPZ_V1BETA1,
        "kind": t.ASO_MACHINE_POOL,
        "metadata": carried_metadata(item),
        "spec": {"resources": [pool]},
    }
    plan.legacy_aso_objects.append(("ManagedClustersAgentPool", object_name))
    result = PoolPlan(item, azure_name, object_name, autoscaled, converted)
    plan.pools.append(result)
    return result


def _pool_subnet(
    ap: dict[str, Any], r: SpecReader, plan: ClusterPlan, item: Item, notes: Notes
) -> None:
    """Legacy attached every pool to the control plane's subnet unless ``subnetName`` names another
    subnet of the same VNet (which CAPZ did not create)."""
    subnet = r.text("subnetName")
    if subnet is None or subnet == plan.subnet_name:
        ap["vnetSubnetReference"] = dict(plan.subnet_ref)
        return
    if plan.subscription is None:
        notes.unmapped(
            item,
            "spec.subnetName",
            f"subnet {subnet!r} of VNet {plan.vnet_name!r} needs an ARM ID, and the control plane "
            "sets no subscriptionID; set vnetSubnetReference.armId by hand",
        )
        return
    ap["vnetSubnetReference"] = {
        "armId": subnet_id(plan.subscription, plan.vnet_resource_group, plan.vnet_name, subnet)
    }


# --- CAPI objects that reference the legacy kinds -------------------------------------------------


def rewrite_ref(ref: Any, kinds: dict[str, str], namespace: str | None) -> bool:
    """Point a v1beta1 ``{apiVersion, kind, name}`` (or v1beta2 ``{apiGroup, kind, name}``) reference
    at the ASO kind; returns whether it changed."""
    if not isinstance(ref, dict) or ref.get("kind") not in kinds:
        return False
    group = ref.get("apiGroup")
    api_version = ref.get("apiVersion")
    if group is None and api_version is None:
        return False
    if group is not None and group != t.CAPZ_GROUP:
        return False
    if isinstance(api_version, str) and not api_version.startswith(f"{t.CAPZ_GROUP}/"):
        return False
    ref["kind"] = kinds[ref["kind"]]
    if api_version is not None:
        ref["apiVersion"] = t.CAPZ_V1BETA1
    if namespace and ref.get("namespace"):
        ref["namespace"] = namespace
    return True


def rewrite_machine_pool(
    item: Item, pool: PoolPlan | None, namespace: str | None, notes: Notes
) -> dict[str, Any]:
    obj = copy.deepcopy(item.obj)
    strip_server_fields(obj)
    ref = obj.get("spec", {}).get("template", {}).get("spec", {}).get("infrastructureRef")
    rewrite_ref(ref, {t.LEGACY_MACHINE_POOL: t.ASO_MACHINE_POOL}, namespace)
    template_spec = obj["spec"]["template"]["spec"]
    if template_spec.get("bootstrap") is None:
        template_spec["bootstrap"] = {"dataSecretName": ""}
        notes.note(
            item,
            "spec.template.spec.bootstrap",
            'missing: set to {dataSecretName: ""} (CAPI requires a bootstrap; AKS has no bootstrap data)',
        )
    metadata = obj.setdefault("metadata", {})
    annotations = (
        metadata.get("annotations") if isinstance(metadata.get("annotations"), dict) else {}
    )
    managed_by = annotations.get(t.REPLICAS_MANAGED_BY)
    autoscaled = pool is not None and pool.autoscaled
    if autoscaled and managed_by != "aks":
        annotations[t.REPLICAS_MANAGED_BY] = "aks"
        metadata["annotations"] = annotations
        if managed_by is not None:
            notes.note(
                item,
                ["metadata", "annotations", t.REPLICAS_MANAGED_BY],
                f"{managed_by!r} -> 'aks': CAPZ's ASO API refuses other values on an autoscaled pool (C13)",
            )
    elif not autoscaled and managed_by is not None:
        annotations.pop(t.REPLICAS_MANAGED_BY)
        if not annotations:
            metadata.pop("annotations", None)
        notes.note(
            item,
            ["metadata", "annotations", t.REPLICAS_MANAGED_BY],
            f"removed ({managed_by!r}): the pool does not autoscale, and while the annotation is set "
            "CAPZ stops copying replicas to the agent pool count (C12)",
        )
    return obj
