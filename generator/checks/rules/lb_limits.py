"""Numeric limits of the AKS load balancer profile, on both API shapes.

CAPZ's ``validateLoadBalancerProfile`` (AzureManagedControlPlane and its template) bounds the
number of managed outbound IPs (1-100), the outbound ports per node (0-64000) and the idle timeout
(4-120 minutes); AKS enforces the same limits. The legacy shape writes the IP count as
``managedOutboundIPs: <n>``, the ManagedCluster as ``managedOutboundIPs.count``. Which outbound
kinds may be combined is CAPZ-MC-LOADBALANCER.
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.checks.fields import Api, Field, inside
from generator.checks.rules.base import Rule
from generator.checks.views import views_of
from generator.findings import Finding, Gate, Severity
from generator.jsontypes import Json
from generator.model.manifests import ManifestSet
from generator.model.values import as_int

_LIMITS = (
    ("allocatedOutboundPorts", 0, 64000),
    ("idleTimeoutInMinutes", 4, 120),
)


def _settings(profile: Field[Json], api: Api) -> Iterator[tuple[Field[Json], int, int]]:
    count = ("managedOutboundIPs",) if api is Api.LEGACY else ("managedOutboundIPs", "count")
    yield inside(profile, *count), 1, 100
    for key, low, high in _LIMITS:
        yield inside(profile, key), low, high


LIMITS = Rule(
    "CAPZ-MC-LB-LIMITS",
    "loadBalancerProfile: 1-100 managed outbound IPs, 0-64000 allocated outbound ports, idle "
    "timeout 4-120 minutes (K14, §4.5; CAPZ validateLoadBalancerProfile)",
    Severity.ERROR,
    Gate.ADMISSION,
)


@LIMITS.checks
def _check(ms: ManifestSet) -> Iterator[Finding]:
    for cp in views_of(ms).control_planes:
        if cp.load_balancer.value is None:
            continue
        for setting, low, high in _settings(cp.load_balancer, cp.api):
            value = as_int(setting.raw)
            if value is not None and not low <= value <= high:
                yield LIMITS.at(setting, (), f"{value} is outside {low}-{high}")
