"""Small value conversions the migration needs: Kubernetes names, ARM IDs, quantities, paths."""

from __future__ import annotations

import ipaddress
import itertools
import re
from decimal import Decimal, InvalidOperation

from generator.jsontypes import Json, JsonObject

_NOT_NAME = re.compile(r"[^a-z0-9-]+")
_PATH_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def normalized_name(name: str) -> str:
    """CAPZ's ``GetNormalizedKubernetesName``: lower case, runs of other characters -> ``-``,
    no leading or trailing ``-`` (the names legacy CAPZ gave the ASO objects it created)."""
    return _NOT_NAME.sub("-", name.lower()).strip("-")


def dns_service_ip(service_cidr: str) -> str | None:
    """Legacy CAPZ's default DNS service IP: the CIDR's address with the last octet set to 10
    (``managedclusters/spec.go``: ``ip[15] = byte(10)``). None for IPv6 or malformed text."""
    address = service_cidr.split("/", 1)[0]
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return None
    if ip.version != 4:
        return None
    octets = str(ip).split(".")
    return ".".join([*octets[:3], "10"])


def resource_group_id(subscription: str, group: str) -> str:
    """The ARM ID of a resource group."""
    return f"/subscriptions/{subscription}/resourceGroups/{group}"


def subnet_id(subscription: str, group: str, vnet: str, subnet: str) -> str:
    """The ARM ID of a subnet."""
    return (
        f"{resource_group_id(subscription, group)}/providers/Microsoft.Network/virtualNetworks/"
        f"{vnet}/subnets/{subnet}"
    )


def fleet_id(subscription: str, group: str, fleet: str) -> str:
    """The ARM ID of an Azure Kubernetes Fleet Manager fleet."""
    return f"{resource_group_id(subscription, group)}/providers/Microsoft.ContainerService/fleets/{fleet}"


_DECIMAL_SUFFIXES = {
    "n": Decimal("1e-9"),
    "u": Decimal("1e-6"),
    "m": Decimal("1e-3"),
    "": Decimal(1),
    "k": Decimal("1e3"),
    "M": Decimal("1e6"),
    "G": Decimal("1e9"),
    "T": Decimal("1e12"),
    "P": Decimal("1e15"),
    "E": Decimal("1e18"),
}
_BINARY_SUFFIXES = {f"{p}i": Decimal(1024) ** (i + 1) for i, p in enumerate("KMGTPE")}
_QUANTITY = re.compile(
    r"^(?P<number>[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))"
    r"(?P<suffix>[eE][+-]?[0-9]+|Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]?)$"
)


def quantity_number(value: Json) -> int | float | None:
    """A Kubernetes resource quantity (``"-1"``, ``"0.5"``, ``"500m"``, ``"1e-2"``) as a number,
    like ``Quantity.AsApproximateFloat64``; integral values come back as ``int``. None if invalid."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    if not isinstance(value, str):
        return None
    match = _QUANTITY.match(value.strip())
    if match is None:
        return None
    try:
        number = Decimal(match["number"])
    except InvalidOperation:  # pragma: no cover - the pattern only admits decimals
        return None
    suffix = match["suffix"]
    if suffix[:1] in ("e", "E"):
        number = number.scaleb(int(suffix[1:]))
    elif suffix in _BINARY_SUFFIXES:
        number *= _BINARY_SUFFIXES[suffix]
    else:
        number *= _DECIMAL_SUFFIXES[suffix]
    if number == number.to_integral_value():
        return int(number)
    return float(number)


def parse_path(path: str) -> list[str | int]:
    """``"a.b[0].c"`` -> ``["a", "b", 0, "c"]``."""
    parts: list[str | int] = []
    for name, index in _PATH_PART.findall(path):
        parts.append(int(index) if index else name)
    return parts


def set_path(obj: JsonObject, path: str, value: Json) -> None:
    """Set ``value`` at a dotted path, creating maps and lists (``"x[0].y"``) on the way."""
    parts = parse_path(path)
    current: Json = obj
    for part, following in itertools.pairwise(parts):
        empty: Json = [] if isinstance(following, int) else {}
        if isinstance(part, int):
            while len(current) <= part:
                current.append(None)
            if current[part] is None:
                current[part] = empty
            current = current[part]
        else:
            current = current.setdefault(part, empty)
    last = parts[-1]
    if isinstance(last, int):
        while len(current) <= last:
            current.append(None)
    current[last] = value


def get_path(obj: Json, path: str | list[str | int]) -> Json:
    """The value at ``path`` (dotted or parts); None if a step is missing, null or mistyped."""
    parts = parse_path(path) if isinstance(path, str) else path
    for part in parts:
        if isinstance(part, int):
            if not isinstance(obj, list) or part >= len(obj):
                return None
            obj = obj[part]
        else:
            if not isinstance(obj, dict):
                return None
            obj = obj.get(part)
        if obj is None:
            return None
    return obj
