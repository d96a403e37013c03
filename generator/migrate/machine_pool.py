"""AzureManagedMachinePool -> AzureASOManagedMachinePool with its ManagedClustersAgentPool
(reference §5.4), following CAPZ's legacy ``azure/services/agentpools/spec.go``."""

from __future__ import annotations

from typing import Any

from generator.migrate import tables as t
from generator.migrate.build import (
    apply_patches,
    carried_metadata,
    embedded,
    report_leftovers,
    set_if,
)
from generator.migrate.plan import ClusterPlan, Item, Notes, PoolPlan
from generator.migrate.reader import SpecReader
from generator.migrate.values import normalized_name, quantity_number, set_path, subnet_id


def convert_machine_pool(item: Item, plan: ClusterPlan, notes: Notes) -> PoolPlan:
    """Convert an AzureManagedMachinePool to an AzureASOManagedMachinePool and its agent pool.

    The pool plan is also added to ``plan.pools``, where the MachinePool rewrite and the checklist
    find it.
    """
    r = SpecReader(item.spec(), item.origin, ["spec"])
    azure_name = r.text("name") or item.name
    object_name = normalized_name(item.name)
    ap: dict[str, Any] = {
        "azureName": azure_name,
        "owner": {"name": plan.mc_name},
        "type": "VirtualMachineScaleSets",
    }
    for legacy, target in t.MACHINE_POOL_COPIES:
        set_if(ap, target, r.take(legacy))
    for key, default in t.MACHINE_POOL_DEFAULTS:
        ap.setdefault(key, default)
    size = r.take("osDiskSizeGB")
    if size not in (None, 0):
        ap["osDiskSizeGB"] = size  # legacy sent 0 for "AKS default"; leave it out instead
    taints = _taints(r, item)
    if taints:
        ap["nodeTaints"] = taints
    autoscaled = r.has("scaling")
    if autoscaled:
        ap["enableAutoScaling"] = True
        set_if(ap, "minCount", r.take("scaling.minSize"))
        set_if(ap, "maxCount", r.take("scaling.maxSize"))
    _spot_price(ap, r, item, notes)
    _sysctls(ap, r, item, notes)
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
        pool = apply_patches(pool, patches, r, "asoManagedClustersAgentPoolPatches")
    report_leftovers(r, item, notes)
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


def _taints(r: SpecReader, item: Item) -> list[str]:
    """Legacy ``{key, value, effect}`` taints as AKS ``key=value:effect`` strings."""
    taints = []
    for index, taint in enumerate(r.sequence("taints")):
        if not isinstance(taint, dict) or not taint.get("key") or not taint.get("effect"):
            msg = "a taint needs key and effect"
            raise item.origin.error(msg, r.where(f"taints[{index}]"))
        value = taint.get("value")
        taints.append(
            f"{taint['key']}={value}:{taint['effect']}"
            if value
            else f"{taint['key']}:{taint['effect']}"
        )
    return taints


def _spot_price(ap: dict[str, Any], r: SpecReader, item: Item, notes: Notes) -> None:
    """A Kubernetes quantity in legacy CAPZ, a plain number in ASO."""
    price = r.take("spotMaxPrice")
    if price is None:
        return
    number = quantity_number(price)
    if number is None:
        notes.unmapped(item, "spec.spotMaxPrice", f"{price!r} is not a Kubernetes quantity")
    else:
        ap["spotMaxPrice"] = number


def _sysctls(ap: dict[str, Any], r: SpecReader, item: Item, notes: Notes) -> None:
    """The sysctls both APIs know, under ASO's names."""
    sysctls = r.mapping("linuxOSConfig.sysctls")
    if sysctls is None:
        return
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
