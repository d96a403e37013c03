"""AzureManagedCluster -> AzureASOManagedCluster, which embeds the cluster's infrastructure:
resource group(s), VNet, subnet and private endpoints (legacy CAPZ created them from control plane
fields; its webhook always defaulted a VNet)."""

from __future__ import annotations

import copy

from generator.capzbuild.reader import SpecReader
from generator.capzbuild.values import normalized_name
from generator.findings import PathPart
from generator.jsontypes import JsonObject
from generator.migrate import tables as t
from generator.migrate.build import (
    carried_metadata,
    embedded,
    name_if_different,
    named_item,
    report_leftovers,
    set_if,
)
from generator.migrate.plan import ClusterPlan, Item, Notes


def infrastructure(
    r: SpecReader, plan: ClusterPlan, cp: Item, notes: Notes, tags: JsonObject | None
) -> list[JsonObject]:
    """ResourceGroup(s), VirtualNetwork, VirtualNetworksSubnet and PrivateEndpoints for the
    AzureASOManagedCluster. Legacy CAPZ always used a VNet (its webhook defaulted one)."""
    rg_object = normalized_name(plan.resource_group)
    resources = [_resource_group(plan, rg_object, plan.resource_group, tags)]
    plan.legacy_aso_objects.append(("ResourceGroup", rg_object))
    resources += _virtual_network(r, plan, cp, notes, tags, rg_object)
    resources += _private_endpoints(r, plan, cp, notes, tags, rg_object)
    return resources


def _resource_group(
    plan: ClusterPlan, object_name: str, azure_name: str, tags: JsonObject | None
) -> JsonObject:
    spec: JsonObject = {"location": plan.location}
    name_if_different(spec, object_name, azure_name)
    if tags:
        spec["tags"] = copy.deepcopy(tags)
    return embedded(
        t.RESOURCE_GROUP_API, "ResourceGroup", object_name, plan.credential_secret, spec
    )


def _virtual_network(
    r: SpecReader,
    plan: ClusterPlan,
    cp: Item,
    notes: Notes,
    tags: JsonObject | None,
    rg_object: str,
) -> list[JsonObject]:
    """The VNet and its subnet, preceded by the VNet's resource group when it is another one."""
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
    resources: list[JsonObject] = []
    vnet_rg_object = normalized_name(plan.vnet_resource_group)
    if vnet_rg_object != rg_object:
        resources.append(_resource_group(plan, vnet_rg_object, plan.vnet_resource_group, tags))
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
    vnet_spec: JsonObject = {
        "addressSpace": {"addressPrefixes": [vnet_cidr]},
        "location": plan.location,
        "owner": {"name": vnet_rg_object},
    }
    name_if_different(vnet_spec, vnet_object, plan.vnet_name)
    if tags:
        vnet_spec["tags"] = copy.deepcopy(tags)
    resources.append(
        embedded(t.NETWORK_API, "VirtualNetwork", vnet_object, plan.credential_secret, vnet_spec)
    )
    plan.legacy_aso_objects.append(("VirtualNetwork", vnet_object))
    resources.append(_subnet(r, plan, vnet_object, subnet_cidr))
    return resources


def _subnet(r: SpecReader, plan: ClusterPlan, vnet_object: str, cidr: str) -> JsonObject:
    """The node pools' subnet; :attr:`ClusterPlan.subnet_ref` points the agent pools at it."""
    subnet_object = normalized_name(f"{plan.vnet_name}-{plan.subnet_name}")
    spec: JsonObject = {
        "addressPrefix": cidr,
        "azureName": plan.subnet_name,
        "owner": {"name": vnet_object},
    }
    endpoints = r.sequence("virtualNetwork.subnet.serviceEndpoints")
    if endpoints:
        spec["serviceEndpoints"] = copy.deepcopy(endpoints)
    plan.legacy_aso_objects.append(("VirtualNetworksSubnet", subnet_object))
    plan.subnet_ref = {
        "group": "network.azure.com",
        "kind": "VirtualNetworksSubnet",
        "name": subnet_object,
    }
    return embedded(
        t.NETWORK_API, "VirtualNetworksSubnet", subnet_object, plan.credential_secret, spec
    )


def _private_endpoints(
    r: SpecReader,
    plan: ClusterPlan,
    cp: Item,
    notes: Notes,
    tags: JsonObject | None,
    rg_object: str,
) -> list[JsonObject]:
    out: list[JsonObject] = []
    base = "virtualNetwork.subnet.privateEndpoints"
    for index, raw in enumerate(r.sequence(base)):
        where = f"{base}[{index}]"
        pr, name = named_item(r, where, raw, cp, "a private endpoint")
        object_name = normalized_name(name)
        spec: JsonObject = {
            "location": pr.text("location") or plan.location,
            "owner": {"name": rg_object},
            "subnet": {"reference": dict(plan.subnet_ref)},
        }
        name_if_different(spec, object_name, name)
        groups = pr.sequence("applicationSecurityGroups")
        if groups:
            spec["applicationSecurityGroups"] = [{"reference": {"armId": g}} for g in groups]
        set_if(spec, "customNetworkInterfaceName", pr.text("customNetworkInterfaceName"))
        addresses = pr.sequence("privateIPAddresses")
        if addresses:
            spec["ipConfigurations"] = [{"privateIPAddress": a} for a in addresses]
        manual = bool(pr.boolean("manualApproval"))
        connections = _link_connections(pr, cp, r.where(where))
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


def _link_connections(pr: SpecReader, cp: Item, where: list[PathPart]) -> list[JsonObject]:
    """A private endpoint's privateLinkServiceConnections in the ASO spelling."""
    connections = []
    for index, connection in enumerate(pr.sequence("privateLinkServiceConnections")):
        if not isinstance(connection, dict):
            msg = "a private link service connection must be a mapping"
            raise cp.origin.error(
                msg,
                [*where, "privateLinkServiceConnections", index],
            )
        out: JsonObject = {}
        set_if(out, "name", connection.get("name"))
        set_if(out, "groupIds", connection.get("groupIDs"))
        set_if(out, "requestMessage", connection.get("requestMessage"))
        if connection.get("privateLinkServiceID"):
            out["privateLinkServiceReference"] = {"armId": connection["privateLinkServiceID"]}
        connections.append(out)
    return connections


def convert_cluster_infra(
    item: Item | None, name: str, namespace: str | None, plan: ClusterPlan, notes: Notes
) -> JsonObject:
    """AzureManagedCluster (only controlPlaneEndpoint, CAPZ-managed) -> AzureASOManagedCluster."""
    if item is not None:
        r = SpecReader(item.spec(), item.origin, ["spec"])
        r.take("controlPlaneEndpoint")
        report_leftovers(r, item, notes)
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
