"""The legacy AzureManagedControlPlane's virtual network: address ranges and private endpoints.

CAPZ's AzureManagedControlPlane webhook checks ``spec.virtualNetwork`` at create time:
``validateAMCPVirtualNetwork`` (both CIDR blocks parse and the subnet's address lies in the
virtual network) and, through ``validateManagedClusterNetwork``, ``validatePrivateEndpoints``
(``internal/webhooks/azurecluster_validation.go``: a name of word characters, '-', '.' or '_', at
least one private link service connection with a resource ID, private IPs inside the subnet). An
ASO cluster declares VirtualNetwork and VirtualNetworksSubnet resources instead, which
CAPZ-NET-CIDR-OVERLAP and the schemas cover.

The AzureManagedControlPlaneTemplate webhook runs ``validateAMCPVirtualNetwork`` on its
``spec.template.spec.virtualNetwork`` too, but not the private endpoint checks:
``validateManagedClusterNetwork`` returns before them when the object names no Cluster in its
``cluster.x-k8s.io/cluster-name`` label, and a template shared by many Clusters names none.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterator

from generator.checks.rules.base import Rule
from generator.checks.views import legacy_specs
from generator.findings import Finding, Gate, JsonPath, Severity
from generator.jsontypes import Json, JsonObject, dig
from generator.model import kinds
from generator.model.manifests import ManifestSet, TopObject
from generator.model.values import as_dict, as_list, is_templated, known_str

_NAME = re.compile(r"^[-\w._]+$")
_RESOURCE_ID = re.compile(r"subscriptions/.+/resourceGroups/.+/providers/.+?/.+?/.+", re.IGNORECASE)
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def _network(value: Json) -> Network | None:
    text = known_str(value)
    if text is None or "/" not in text:
        return None
    try:
        return ipaddress.ip_network(text, strict=False)
    except ValueError:
        return None


def _check_blocks(obj: TopObject, spec: JsonPath, vnet: JsonObject) -> Iterator[Finding]:
    base: JsonPath = (*spec, "virtualNetwork")
    subnet = as_dict(vnet.get("subnet")) or {}
    parent, child = _network(vnet.get("cidrBlock")), _network(subnet.get("cidrBlock"))
    for network, value, path in (
        (parent, vnet.get("cidrBlock"), (*base, "cidrBlock")),
        (child, subnet.get("cidrBlock"), (*base, "subnet", "cidrBlock")),
    ):
        if network is None and value is not None and not is_templated(value):
            yield VNET.at(obj, path, f"{value!r} is not a CIDR block")
    if parent is not None and child is not None and child.network_address not in parent:
        yield VNET.at(
            obj,
            (*base, "subnet", "cidrBlock"),
            f"{child} is outside the virtual network's {parent}",
        )


def _check_endpoint(
    obj: TopObject, path: JsonPath, endpoint: JsonObject, subnet: Network | None
) -> Iterator[Finding]:
    name = endpoint.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        yield VNET.at(
            obj,
            (*path, "name"),
            f"{name!r} is not a private endpoint name (letters, digits, '-', '.', '_')",
        )
    connections = as_list(endpoint.get("privateLinkServiceConnections")) or []
    if not connections:
        yield VNET.at(obj, path, "needs at least one privateLinkServiceConnections entry")
    for index, item in enumerate(connections):
        service = known_str((as_dict(item) or {}).get("privateLinkServiceID"))
        if service is not None and not _RESOURCE_ID.search(service):
            yield VNET.at(
                obj,
                (*path, "privateLinkServiceConnections", index, "privateLinkServiceID"),
                f"{service!r} is not an Azure resource ID" if service else "is required",
            )
    for index, item in enumerate(as_list(endpoint.get("privateIPAddresses")) or []):
        yield from _check_address(obj, (*path, "privateIPAddresses", index), item, subnet)


def _check_address(
    obj: TopObject, path: JsonPath, value: Json, subnet: Network | None
) -> Iterator[Finding]:
    text = known_str(value)
    if text is None:
        return
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        yield VNET.at(obj, path, f"{text!r} is not an IP address")
        return
    if subnet is not None and address not in subnet:
        yield VNET.at(obj, path, f"{address} is outside the subnet {subnet}")


VNET = Rule(
    "CAPZ-MC-VNET",
    "AzureManagedControlPlane virtualNetwork: CIDR blocks parse, the subnet lies in the virtual "
    "network; private endpoints have a name, a private link service ID and IPs inside the subnet "
    "(§4.8, §5.3; CAPZ validateAMCPVirtualNetwork, validatePrivateEndpoints)",
    Severity.ERROR,
    Gate.ADMISSION,
)


@VNET.checks
def _check(ms: ManifestSet) -> Iterator[Finding]:
    for obj, spec in legacy_specs(ms, kinds.LEGACY_CONTROL_PLANE):
        vnet = as_dict(dig(obj.obj, *spec, "virtualNetwork"))
        if not vnet:
            continue
        yield from _check_blocks(obj, spec, vnet)
        if spec == kinds.TEMPLATE_SPEC:
            continue  # validatePrivateEndpoints runs only with the object's Cluster (see above)
        subnet = as_dict(vnet.get("subnet")) or {}
        network = _network(subnet.get("cidrBlock"))
        base: JsonPath = ("spec", "virtualNetwork", "subnet", "privateEndpoints")
        for index, item in enumerate(as_list(subnet.get("privateEndpoints")) or []):
            endpoint = as_dict(item)
            if endpoint is not None:
                yield from _check_endpoint(obj, (*base, index), endpoint, network)
