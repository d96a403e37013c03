"""AzureManagedMachinePool spec -> the ManagedClustersAgentPool CAPZ builds from it (reference
§5.4), following CAPZ's legacy ``azure/services/agentpools/spec.go``.

The option-7 patches (``asoManagedClustersAgentPoolPatches``) are not applied here: the caller
applies them to the object built.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from generator.capzbuild import tables as t
from generator.capzbuild.objects import UNMAPPED, Built, Remark, embedded, set_if
from generator.capzbuild.reader import SpecReader
from generator.capzbuild.values import normalized_name, quantity_number, set_path, subnet_id
from generator.jsontypes import JsonObject

AGENT_POOL_KIND = "ManagedClustersAgentPool"


class PoolSettings(Protocol):
    """What building an agent pool needs from its cluster (``migrate``'s ``ClusterPlan`` has
    these attributes)."""

    @property
    def mc_name(self) -> str:
        """The ManagedCluster's object name (the pool's owner)."""
        ...

    @property
    def credential_secret(self) -> str:
        """The Secret the ASO objects take their Azure credentials from."""
        ...

    @property
    def container_service_api(self) -> str:
        """The containerservice apiVersion."""
        ...

    @property
    def subscription(self) -> str | None:
        """The control plane's subscription ID, if it sets one."""
        ...

    @property
    def vnet_name(self) -> str:
        """The Azure name of the cluster's VNet."""
        ...

    @property
    def vnet_resource_group(self) -> str:
        """The Azure name of the VNet's resource group."""
        ...

    @property
    def subnet_name(self) -> str:
        """The Azure name of the control plane's subnet (every pool's by default)."""
        ...

    @property
    def subnet_ref(self) -> JsonObject:
        """The ``vnetSubnetReference`` of a pool in the control plane's subnet."""
        ...


@dataclass
class BuiltPool(Built):
    """An agent pool built, with the names ``migrate`` needs: the pool's Azure name, its object
    name, and whether it autoscales."""

    azure_name: str = ""
    object_name: str = ""
    autoscaled: bool = False


def build_agent_pool(r: SpecReader, pool_name: str, cluster: PoolSettings) -> BuiltPool:
    """The embedded ManagedClustersAgentPool of the AzureManagedMachinePool named ``pool_name``
    (patches not applied)."""
    remarks: list[Remark] = []
    azure_name = r.text("name") or pool_name
    object_name = normalized_name(pool_name)
    ap: JsonObject = {
        "azureName": azure_name,
        "owner": {"name": cluster.mc_name},
        "type": "VirtualMachineScaleSets",
    }
    for legacy, target in t.MACHINE_POOL_COPIES:
        set_if(ap, target, r.take(legacy))
    for key, default in t.MACHINE_POOL_DEFAULTS:
        ap.setdefault(key, default)
    size = r.take("osDiskSizeGB")
    if size not in (None, 0):
        ap["osDiskSizeGB"] = size  # legacy sent 0 for "AKS default"; leave it out instead
    taints = _taints(r)
    if taints:
        ap["nodeTaints"] = taints
    autoscaled = r.has("scaling")
    if autoscaled:
        ap["enableAutoScaling"] = True
        set_if(ap, "minCount", r.take("scaling.minSize"))
        set_if(ap, "maxCount", r.take("scaling.maxSize"))
    _spot_price(ap, r, remarks)
    _sysctls(ap, r, remarks)
    _pool_subnet(ap, r, cluster, remarks)
    for dropped in t.MACHINE_POOL_DROPPED:
        r.take(dropped)
    obj = embedded(
        cluster.container_service_api,
        AGENT_POOL_KIND,
        object_name,
        cluster.credential_secret,
        ap,
    )
    return BuiltPool(obj, remarks, azure_name, object_name, autoscaled)


def _taints(r: SpecReader) -> list[str]:
    """Legacy ``{key, value, effect}`` taints as AKS ``key=value:effect`` strings."""
    taints = []
    for index, taint in enumerate(r.sequence("taints")):
        if not isinstance(taint, dict) or not taint.get("key") or not taint.get("effect"):
            msg = "a taint needs key and effect"
            raise r.origin.error(msg, r.where(f"taints[{index}]"))
        value = taint.get("value")
        taints.append(
            f"{taint['key']}={value}:{taint['effect']}"
            if value
            else f"{taint['key']}:{taint['effect']}"
        )
    return taints


def _spot_price(ap: JsonObject, r: SpecReader, remarks: list[Remark]) -> None:
    """A Kubernetes quantity in legacy CAPZ, a plain number in ASO."""
    price = r.take("spotMaxPrice")
    if price is None:
        return
    number = quantity_number(price)
    if number is None:
        remarks.append(
            Remark(UNMAPPED, "spec.spotMaxPrice", f"{price!r} is not a Kubernetes quantity")
        )
    else:
        ap["spotMaxPrice"] = number


def _sysctls(ap: JsonObject, r: SpecReader, remarks: list[Remark]) -> None:
    """The sysctls both APIs know, under ASO's names."""
    sysctls = r.mapping("linuxOSConfig.sysctls")
    if sysctls is None:
        return
    out: JsonObject = {}
    for key, value in sysctls.items():
        if key in t.SYSCTL_NAMES:
            out[t.SYSCTL_RENAMES.get(key, key)] = value
        else:
            remarks.append(
                Remark(
                    UNMAPPED,
                    f"spec.linuxOSConfig.sysctls.{key}",
                    "not a sysctl of the legacy CRD or ASO",
                )
            )
    if out:
        set_path(ap, "linuxOSConfig.sysctls", out)


def _pool_subnet(
    ap: JsonObject, r: SpecReader, cluster: PoolSettings, remarks: list[Remark]
) -> None:
    """Legacy attached every pool to the control plane's subnet unless ``subnetName`` names another
    subnet of the same VNet (which CAPZ did not create)."""
    subnet = r.text("subnetName")
    if subnet is None or subnet == cluster.subnet_name:
        ap["vnetSubnetReference"] = dict(cluster.subnet_ref)
        return
    if cluster.subscription is None:
        remarks.append(
            Remark(
                UNMAPPED,
                "spec.subnetName",
                f"subnet {subnet!r} of VNet {cluster.vnet_name!r} needs an ARM ID, and the control "
                "plane sets no subscriptionID; set vnetSubnetReference.armId by hand",
            )
        )
        return
    ap["vnetSubnetReference"] = {
        "armId": subnet_id(
            cluster.subscription, cluster.vnet_resource_group, cluster.vnet_name, subnet
        )
    }
