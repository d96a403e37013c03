"""Agent pool constraints AKS enforces at create time (K1–K8, K23, C14, §4.11).

For the ASO API CAPZ checks none of these; AKS rejects the pool (or the whole cluster) only after
the manifests are applied, so catching them here saves a slow round trip to Azure.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from generator.findings import Finding, Severity
from generator.validate import kinds
from generator.validate.model import AsoResource, ManifestSet
from generator.validate.rules.base import Rule
from generator.validate.values import (
    as_dict,
    as_int,
    as_list,
    as_number,
    as_str,
    dig,
    is_templated,
    known_str,
)

_POOL_NAME = re.compile(r"^[a-z][a-z0-9]*$")


def _spec(res: AsoResource) -> dict[str, Any]:
    return res.spec or {}


def _is_windows(spec: dict[str, Any]) -> bool:
    return spec.get("osType") == "Windows"


def _check_system_pool(ms: ManifestSet) -> Iterator[Finding]:
    for group in ms.clusters:
        if not group.is_aso or group.control_plane is None:
            continue
        modes = [
            as_str((pool.agent_pool.spec or {}).get("mode"))
            for pool in group.pools
            if pool.agent_pool
        ]
        if any(mode == "System" or is_templated(mode) for mode in modes):
            continue
        yield SYSTEM_POOL.at(
            group.cluster,
            (),
            f"Cluster {group.cluster.name!r} has no agent pool with mode: System "
            f"({len(modes)} pool{'s' if len(modes) != 1 else ''} found); AKS requires at least one",
        )


def _check_system_linux(ms: ManifestSet) -> Iterator[Finding]:
    for res in ms.resources_of(kinds.AGENT_POOL):
        spec = _spec(res)
        if spec.get("mode") == "System" and _is_windows(spec):
            yield SYSTEM_LINUX.at(
                res, ("spec", "osType"), "a System pool must run Linux, not Windows"
            )


def _check_spot_system(ms: ManifestSet) -> Iterator[Finding]:
    for res in ms.resources_of(kinds.AGENT_POOL):
        spec = _spec(res)
        if spec.get("scaleSetPriority") == "Spot" and spec.get("mode") == "System":
            yield SPOT_SYSTEM.at(
                res,
                ("spec", "scaleSetPriority"),
                "Spot is not allowed for a System pool: AKS runs System pools on regular VMs",
                hint="use mode: User for the spot pool and keep a regular System pool",
            )


def _check_pool_name(ms: ManifestSet) -> Iterator[Finding]:
    for res in ms.resources_of(kinds.AGENT_POOL):
        spec = res.spec
        if spec is None:
            continue
        value = spec.get("azureName")
        if value is None:
            yield POOL_NAME.at(
                res,
                ("spec", "azureName"),
                "is required: CAPZ names the AKS pool from the raw azureName (ASO's default is not applied)",
                hint="set a short name such as pool0",
            )
            continue
        name = known_str(value)
        if name is None:
            continue
        limit = 6 if _is_windows(spec) else 12
        os_name = "Windows" if _is_windows(spec) else "Linux"
        if not name:
            yield POOL_NAME.at(res, ("spec", "azureName"), "must not be empty")
        elif len(name) > limit:
            yield POOL_NAME.at(
                res,
                ("spec", "azureName"),
                f"{name!r} is {len(name)} characters; a {os_name} pool name has at most {limit}",
            )
        if name and not _POOL_NAME.match(name):
            yield POOL_NAME.at(
                res,
                ("spec", "azureName"),
                f"{name!r} must start with a lower-case letter and contain only lower-case letters and digits",
            )


def _check_max_pods(ms: ManifestSet) -> Iterator[Finding]:
    for res in ms.resources_of(kinds.AGENT_POOL):
        value = as_int(_spec(res).get("maxPods"))
        if value is not None and not 10 <= value <= 250:
            yield MAX_PODS.at(res, ("spec", "maxPods"), f"is {value}; AKS allows 10 to 250")


def _check_node_labels(ms: ManifestSet) -> Iterator[Finding]:
    for res in ms.resources_of(kinds.AGENT_POOL):
        for key in as_dict(_spec(res).get("nodeLabels")) or {}:
            if isinstance(key, str) and key.startswith("kubernetes.azure.com"):
                yield NODE_LABELS.at(
                    res,
                    ("spec", "nodeLabels", key),
                    "label keys with prefix kubernetes.azure.com are reserved by AKS",
                )


def _check_public_ip(ms: ManifestSet) -> Iterator[Finding]:
    for res in ms.resources_of(kinds.AGENT_POOL):
        spec = _spec(res)
        if (
            spec.get("nodePublicIPPrefixReference") is not None
            and spec.get("enableNodePublicIP") is not True
        ):
            yield PUBLIC_IP.at(
                res, ("spec", "nodePublicIPPrefixReference"), "requires enableNodePublicIP: true"
            )


_SYSCTL = re.compile(r"^(kernel\.shm.+|kernel\.msg.+|kernel\.sem|fs\.mqueue\..+|net\..+)$")
_KUBELET_ENUMS = {
    "cpuManagerPolicy": ("none", "static"),
    "topologyManagerPolicy": ("none", "best-effort", "restricted", "single-numa-node"),
}


def _kubelet_problems(config: dict[str, Any]) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """(relative path, message) pairs for kubeletConfig (K7)."""
    period = known_str(config.get("cpuCfsQuotaPeriod"))
    if period is not None and not period.endswith("ms"):
        yield ("cpuCfsQuotaPeriod",), f"{period!r} must end in 'ms'"
    low, high = (
        as_int(config.get("imageGcLowThreshold")),
        as_int(config.get("imageGcHighThreshold")),
    )
    for key, value in (("imageGcLowThreshold", low), ("imageGcHighThreshold", high)):
        if value is not None and not 0 <= value <= 100:
            yield (key,), f"is {value}; must be 0 to 100"
    if low is not None and high is not None and low > high:
        yield ("imageGcLowThreshold",), f"{low} is above imageGcHighThreshold {high}"
    for index, item in enumerate(as_list(config.get("allowedUnsafeSysctls")) or ()):
        text = known_str(item)
        if text is not None and not _SYSCTL.match(text):
            yield (
                ("allowedUnsafeSysctls", index),
                f"{text!r} is not allowed (kernel.shm*, kernel.msg*, kernel.sem, fs.mqueue.*, net.*)",
            )
    for key, allowed in _KUBELET_ENUMS.items():
        policy = known_str(config.get(key))
        if policy is not None and policy not in allowed:
            yield (key,), f"{policy!r} is not one of {', '.join(allowed)}"
    pids = as_int(config.get("podMaxPids"))
    if pids is not None and pids < -1:
        yield ("podMaxPids",), f"is {pids}; must be -1 or more"
    files = as_int(config.get("containerLogMaxFiles"))
    if files is not None and files < 2:
        yield ("containerLogMaxFiles",), f"is {files}; must be 2 or more"


def _check_kubelet(ms: ManifestSet) -> Iterator[Finding]:
    for res in ms.resources_of(kinds.AGENT_POOL):
        config = as_dict(_spec(res).get("kubeletConfig"))
        if config is None:
            continue
        for rel, message in _kubelet_problems(config):
            yield KUBELET.at(res, ("spec", "kubeletConfig", *rel), message)


_PORT_RANGE = re.compile(r"^\s*(\d+)\s+(\d+)\s*$")
_THP = {
    "transparentHugePageEnabled": ("always", "madvise", "never"),
    "transparentHugePageDefrag": ("always", "defer", "defer+madvise", "madvise", "never"),
}


def _linux_os_problems(
    spec: dict[str, Any], config: dict[str, Any]
) -> Iterator[tuple[tuple[str, ...], str]]:
    if (
        config.get("swapFileSizeMB") is not None
        and dig(spec, "kubeletConfig", "failSwapOn") is not False
    ):
        yield ("swapFileSizeMB",), "requires kubeletConfig.failSwapOn: false"
    ports = known_str(dig(config, "sysctls", "netIpv4IpLocalPortRange"))
    if ports is not None:
        match = _PORT_RANGE.match(ports)
        rel = ("sysctls", "netIpv4IpLocalPortRange")
        if match is None:
            yield rel, f"{ports!r} must be two numbers '<first> <last>'"
        else:
            first, last = int(match.group(1)), int(match.group(2))
            if not 1024 <= first <= 60999 or not 32768 <= last <= 65000 or first > last:
                yield rel, f"{ports!r}: first must be 1024-60999, last 32768-65000, first <= last"
    for key, allowed in _THP.items():
        value = known_str(config.get(key))
        if value is not None and value not in allowed:
            yield (key,), f"{value!r} is not one of {', '.join(allowed)}"


def _check_linux_os(ms: ManifestSet) -> Iterator[Finding]:
    for res in ms.resources_of(kinds.AGENT_POOL):
        spec = _spec(res)
        config = as_dict(spec.get("linuxOSConfig"))
        if config is None:
            continue
        for rel, message in _linux_os_problems(spec, config):
            yield LINUX_OS.at(res, ("spec", "linuxOSConfig", *rel), message)


def _check_scale_set(ms: ManifestSet) -> Iterator[Finding]:
    for res in ms.resources_of(kinds.AGENT_POOL):
        spec = _spec(res)
        spot = spec.get("scaleSetPriority") == "Spot"
        if (
            spec.get("scaleSetEvictionPolicy") is not None
            and not spot
            and not is_templated(spec.get("scaleSetPriority"))
        ):
            yield SCALE_SET.at(
                res,
                ("spec", "scaleSetEvictionPolicy"),
                "is only allowed with scaleSetPriority: Spot",
            )
        price = as_number(spec.get("spotMaxPrice"))
        if price is not None and price != -1 and price <= 0:
            yield SCALE_SET.at(
                res,
                ("spec", "spotMaxPrice"),
                f"is {price:g}; must be -1 (on-demand cap) or above 0",
            )
        pool_type = spec.get("type")
        zones = spec.get("availabilityZones") is not None
        if (
            zones
            and pool_type not in (None, "VirtualMachineScaleSets")
            and not is_templated(pool_type)
        ):
            yield SCALE_SET.at(
                res,
                ("spec", "availabilityZones"),
                "is only allowed with type: VirtualMachineScaleSets",
            )
        yield from _check_count(ms, res, spec)


def _check_count(ms: ManifestSet, res: AsoResource, spec: dict[str, Any]) -> Iterator[Finding]:
    """Node count range: User 0–1000, System 1–1000 (K23); MachinePool replicas become the count."""
    low = 1 if spec.get("mode") == "System" else 0
    count = as_int(spec.get("count"))
    if count is not None:
        if not low <= count <= 1000:
            yield SCALE_SET.at(
                res,
                ("spec", "count"),
                f"is {count}; a {spec.get('mode') or 'User'} pool allows {low} to 1000",
            )
        return
    view = ms.pool_of.get(res.top) if res.parent is not None else None
    if view is None or view.agent_pool is not res or spec.get("enableAutoScaling") is True:
        return
    replicas = as_int(dig(view.machine_pool.obj, "spec", "replicas"))
    if replicas is not None and not low <= replicas <= 1000:
        yield SCALE_SET.at(
            view.machine_pool,
            ("spec", "replicas"),
            f"is {replicas}; it becomes the node count of {res.ref()}, which as a "
            f"{spec.get('mode') or 'User'} pool allows {low} to 1000",
        )


SYSTEM_POOL = Rule(
    "CAPZ-POOL-SYSTEM",
    "Every ASO Cluster has at least one agent pool with mode: System (K1)",
    Severity.ERROR,
    _check_system_pool,
)
SYSTEM_LINUX = Rule(
    "CAPZ-POOL-SYSTEM-LINUX",
    "System agent pools run Linux (osType absent or Linux) (K2)",
    Severity.ERROR,
    _check_system_linux,
)
SPOT_SYSTEM = Rule(
    "CAPZ-POOL-SPOT-SYSTEM",
    "A ManagedClustersAgentPool with scaleSetPriority: Spot is not a System pool (§4.11)",
    Severity.ERROR,
    _check_spot_system,
)
POOL_NAME = Rule(
    "CAPZ-POOL-NAME",
    "Agent pool spec.azureName is set explicitly and is lower-case alphanumeric starting with a "
    "letter, at most 12 characters (Linux) or 6 (Windows) (C14, K3, O4)",
    Severity.ERROR,
    _check_pool_name,
)
MAX_PODS = Rule(
    "CAPZ-POOL-MAXPODS", "Agent pool maxPods is 10 to 250 (K4)", Severity.ERROR, _check_max_pods
)
NODE_LABELS = Rule(
    "CAPZ-POOL-NODELABELS",
    "Agent pool nodeLabels keys do not start with kubernetes.azure.com (K5)",
    Severity.ERROR,
    _check_node_labels,
)
PUBLIC_IP = Rule(
    "CAPZ-POOL-PUBLICIP",
    "nodePublicIPPrefixReference requires enableNodePublicIP: true (K6)",
    Severity.ERROR,
    _check_public_ip,
)
KUBELET = Rule(
    "CAPZ-POOL-KUBELET",
    "kubeletConfig: cpuCfsQuotaPeriod in ms, image GC thresholds 0-100 and low <= high, allowed "
    "unsafe sysctls, manager policy enums, podMaxPids >= -1, containerLogMaxFiles >= 2 (K7)",
    Severity.ERROR,
    _check_kubelet,
)
LINUX_OS = Rule(
    "CAPZ-POOL-LINUXOS",
    "linuxOSConfig: swap needs failSwapOn: false, valid local port range, transparent huge page "
    "enums (K8)",
    Severity.ERROR,
    _check_linux_os,
)
SCALE_SET = Rule(
    "CAPZ-POOL-SCALESET",
    "Eviction policy only with Spot, spotMaxPrice -1 or > 0, availabilityZones only with "
    "VirtualMachineScaleSets, node count 0-1000 (User) / 1-1000 (System) (K23)",
    Severity.ERROR,
    _check_scale_set,
)

RULES = (
    SYSTEM_POOL,
    SYSTEM_LINUX,
    SPOT_SYSTEM,
    POOL_NAME,
    MAX_PODS,
    NODE_LABELS,
    PUBLIC_IP,
    KUBELET,
    LINUX_OS,
    SCALE_SET,
)
