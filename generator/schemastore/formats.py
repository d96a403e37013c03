"""Checkers for the ``format`` names Kubernetes uses, as far as a JSON Schema validator can check them.

jsonschema-rs calls a format checker only for string values, and ignores format names it does not
know (we compile with ``ignore_unknown_formats=True``), so an exotic format never breaks a schema.
Integer formats (``int32``, ``int64``) are turned into bounds by the converter; ``float`` and
``double`` need no check. The remaining names are checked here with the rules of the Kubernetes
API server (kube-openapi's ``strfmt``), which are more lenient than the JSON Schema builtins in
places (``date-time`` without zone, Go durations, ``uri`` as a request URI). ``email``, ``ipv4``,
``ipv6``, ``uuid``, ``hostname`` and ``date`` keep jsonschema-rs's builtin checks.
"""

from __future__ import annotations

import base64
import binascii
import functools
import ipaddress
import re
from collections.abc import Callable
from datetime import datetime

FormatChecker = Callable[[str], bool]

# Patterns are compiled on first use: most runs check few of these formats, if any, and
# compiling all of them costs about a millisecond of every command's start-up.
_DATE_TIME = (
    r"^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:?\d{2})?$"
)
# Go's time.ParseDuration plus the "d"/"w" units strfmt also accepts.
_DURATION = r"^[-+]?(0|((\d+(\.\d*)?|\.\d+)\s*(ns|us|µs|μs|ms|s|m|h|d|w)\s*)+)$"
_MAC = (
    r"^([0-9A-Fa-f]{2}([:-])){5}[0-9A-Fa-f]{2}$"
    r"|^([0-9A-Fa-f]{2}([:-])){7}[0-9A-Fa-f]{2}$"
    r"|^([0-9A-Fa-f]{2}([:-])){19}[0-9A-Fa-f]{2}$"
    r"|^([0-9A-Fa-f]{4}\.){2}[0-9A-Fa-f]{4}$"
    r"|^([0-9A-Fa-f]{4}\.){3}[0-9A-Fa-f]{4}$"
    r"|^([0-9A-Fa-f]{4}\.){9}[0-9A-Fa-f]{4}$"
)
_URI_SCHEME = r"^[A-Za-z][A-Za-z0-9+.-]*:\S*$"
_UUID_VERSION = r"^[0-9a-f]{8}-[0-9a-f]{4}-%s[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$"


@functools.cache
def _compiled(pattern: str, flags: int = 0) -> re.Pattern[str]:
    return re.compile(pattern, flags)


def is_byte(value: str) -> bool:
    """Standard base64 (what ``[]byte`` fields and Secret ``data`` hold)."""
    try:
        base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def is_date_time(value: str) -> bool:
    """``date-time``: RFC 3339 with ``T`` or a space, the zone optional; the date must exist."""
    match = _compiled(_DATE_TIME).match(value)
    if not match:
        return False
    try:
        year, month, day, hour, minute, second = (int(match.group(i)) for i in range(1, 7))
        datetime(year, month, day, hour, minute, second)
    except ValueError:
        return False
    return True


def is_duration(value: str) -> bool:
    """``duration``: Go's ``time.ParseDuration`` syntax plus ``d`` and ``w`` units; not empty."""
    return bool(_compiled(_DURATION).match(value.strip())) and bool(value.strip())


def is_cidr(value: str) -> bool:
    """``cidr``: an IPv4 or IPv6 network with a prefix length; host bits may be set, as in Go."""
    if "/" not in value:
        return False
    try:
        ipaddress.ip_network(value, strict=False)
    except ValueError:
        return False
    return True


def is_mac(value: str) -> bool:
    """``mac``: 6, 8 or 20 octets as Go's ``net.ParseMAC`` reads them (``:``, ``-`` or dots)."""
    return bool(_compiled(_MAC).match(value))


def is_uri(value: str) -> bool:
    """Like Go's ``url.ParseRequestURI``: an absolute URI or an absolute path."""
    if not value or any(c.isspace() for c in value):
        return False
    return value.startswith("/") or bool(_compiled(_URI_SCHEME).match(value))


def _uuid_checker(version: str) -> FormatChecker:
    pattern = _UUID_VERSION % version
    return lambda value: bool(_compiled(pattern, re.IGNORECASE).match(value))


KUBERNETES_FORMATS: dict[str, FormatChecker] = {
    "byte": is_byte,
    "date-time": is_date_time,
    "datetime": is_date_time,
    "duration": is_duration,
    "cidr": is_cidr,
    "mac": is_mac,
    "uri": is_uri,
    "uuid3": _uuid_checker("3"),
    "uuid4": _uuid_checker("4"),
    "uuid5": _uuid_checker("5"),
}
