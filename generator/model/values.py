"""Defensive accessors for user-supplied YAML values.

Every rule reads data that may be missing or of the wrong type. Type errors are the schema check's
job, so the accessors here return ``None`` for anything unexpected and rules simply skip: a rule
never raises and never reports a problem the schema check already reports.
"""

from __future__ import annotations

import ipaddress

from generator.jsontypes import Json, JsonObject
from generator.names import parse_kubernetes_version


def as_str(value: Json) -> str | None:
    """The value if it is a string, else None."""
    return value if isinstance(value, str) else None


def as_int(value: Json) -> int | None:
    """Integers only: YAML booleans are ``int`` subclasses in Python but not numbers to a user."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def as_number(value: Json) -> float | None:
    """An int or float as a float; None for anything else, booleans included."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def as_dict(value: Json) -> JsonObject | None:
    """The value if it is a mapping, else None."""
    return value if isinstance(value, dict) else None


def as_list(value: Json) -> list[Json] | None:
    """The value if it is a list, else None."""
    return value if isinstance(value, list) else None


def is_templated(value: Json) -> bool:
    """Text whose final value is decided later, so rules treat it as "unknown" and skip it:
    Go-template text (``{{ .builtin.cluster.name }}``) that CAPI topology evaluates, and
    clusterctl placeholders (``${CLUSTER_NAME}``, ``${WORKER_MACHINE_COUNT:=2}``) that
    ``clusterctl generate`` substitutes. Flavors exported with placeholders (``capzgen release``,
    ``flavors show``) are checked by the same rules, which must not judge a placeholder.
    """
    return isinstance(value, str) and ("{{" in value or "${" in value)


def known_str(value: Json) -> str | None:
    """A plain string whose final value is known (neither a Go template nor a placeholder)."""
    return value if isinstance(value, str) and not is_templated(value) else None


def parse_version(value: Json) -> tuple[int, int, int | None] | None:
    """The Kubernetes version a known string holds (see :mod:`generator.names`), else ``None``."""
    text = known_str(value)
    return None if text is None else parse_kubernetes_version(text)


def parse_ipv4_network(value: Json) -> ipaddress.IPv4Network | None:
    """The IPv4 network a known string holds (host bits allowed: ``10.0.0.1/24``), else None."""
    text = known_str(value)
    if text is None:
        return None
    try:
        return ipaddress.IPv4Network(text, strict=False)
    except ValueError:
        return None


def parse_ip_network(value: Json) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    """The IPv4 or IPv6 network a known string holds (host bits allowed), else None."""
    text = known_str(value)
    if text is None:
        return None
    try:
        return ipaddress.ip_network(text, strict=False)
    except ValueError:
        return None


def parse_go_cidr(value: Json) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    """The network a known string holds as Go's ``net.ParseCIDR`` reads it, else None: an IP
    address without zone, ``/`` and a decimal prefix length in range. A bare address
    (``1.2.3.4``) and a netmask (``1.2.3.4/255.255.255.0``), which :func:`parse_ip_network`
    accepts, are refused."""
    text = known_str(value)
    if text is None:
        return None
    address, slash, bits = text.partition("/")
    if not slash or not bits.isascii() or not bits.isdigit() or "%" in address:
        return None
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return None
    if int(bits) > ip.max_prefixlen:
        return None
    return ipaddress.ip_network(f"{ip}/{int(bits)}", strict=False)


def parse_ipv4(value: Json) -> ipaddress.IPv4Address | None:
    """The IPv4 address a known string holds, else None."""
    text = known_str(value)
    if text is None:
        return None
    try:
        return ipaddress.IPv4Address(text)
    except ValueError:
        return None
