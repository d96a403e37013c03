"""Agent pool constraints AKS enforces at create time (K3–K8, K23, C14, §4.10, §4.12, §4.14);
the System pool rules (K1, K2, §4.11) live in :mod:`~generator.checks.rules.system_pools`.

Each rule runs on :class:`~generator.checks.views.AgentPool`, so it holds for a
ManagedClustersAgentPool (ASO API) and an AzureManagedMachinePool (legacy API) alike. For the
ASO API CAPZ checks none of these, and for the legacy API only its webhooks did (§5.5); AKS
rejects the pool (or the whole cluster) only after the manifests are applied, so catching them
here saves a slow round trip to Azure.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

from generator.checks.rules.base import LEGACY_POOLS, Rule
from generator.checks.views import (
    AgentPool,
    Field,
    embeds_raw_pool_name,
    inside,
    views_of,
)
from generator.findings import Finding, Gate, Severity
from generator.jsontypes import Json, JsonObject, dig
from generator.model.manifests import AsoResource, ManifestSet
from generator.model.values import as_dict, as_int, as_list, is_templated, known_str
from generator.names import is_label_key, is_label_value

_POOL_NAME = re.compile(r"^[a-z][a-z0-9]*$")


POOL_NAME = Rule(
    "CAPZ-POOL-NAME",
    "Agent pool name (ASO azureName, set explicitly in an AzureASOManagedMachinePool, else "
    "defaulting to metadata.name; legacy spec.name, defaulting likewise) is lower-case "
    "alphanumeric starting with a letter, at most 12 characters (Linux) or 6 (Windows) "
    "(C14, K3, O4)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="AKS refuses the pool name",
    webhook_kinds=LEGACY_POOLS,
    split="not for an empty name or a lower-case non-ASCII name (pöol), which it admits",
)


@POOL_NAME.checks
def _check_pool_name(ms: ManifestSet) -> Iterator[Finding]:
    for pool in views_of(ms).pools:
        field = pool.name
        if not field.is_set:
            if not isinstance(pool.owner, AsoResource) or not embeds_raw_pool_name(pool.owner):
                continue  # ASO names a standalone pool after metadata.name (required anyway)
            yield POOL_NAME.at(
                field,
                (),
                "is required: CAPZ names the AKS pool from the raw azureName (ASO's default is not applied)",
                hint="set a short name such as pool0",
            )
            continue
        name = field.value
        if name is None:
            continue
        limit = 6 if pool.is_windows else 12
        os_name = "Windows" if pool.is_windows else "Linux"
        if not name:
            # CAPZ's webhook admits an empty name (it checks only a non-empty one)
            yield POOL_NAME.at(field, (), "must not be empty", gate=Gate.PROVISIONING)
        elif len(name) > limit:
            yield POOL_NAME.at(
                field,
                (),
                f"{name!r} is {len(name)} characters; a {os_name} pool name has at most {limit}",
            )
        if name and not _POOL_NAME.match(name):
            yield POOL_NAME.at(
                field,
                (),
                f"{name!r} must start with a lower-case letter and contain only lower-case letters and digits",
                gate=None if _capz_webhook_refuses(name) else Gate.PROVISIONING,
            )


def _capz_webhook_refuses(name: str) -> bool:
    """Whether CAPZ's AzureManagedMachinePool webhook refuses the pool name ``name`` by its
    pattern: it reads "lower-case" and "digit" as Unicode does (``pöol`` is admitted, and only AKS
    refuses it), where AKS and capzgen want ASCII."""
    categories = [unicodedata.category(char) for char in name]
    return not categories or categories[0] != "Ll" or any(c not in ("Ll", "Nd") for c in categories)


POOL_NAME_UNIQUE = Rule(
    "CAPZ-POOL-NAME-UNIQUE",
    "The agent pools of one Cluster have distinct names (K3, §5.4: the name is the pool's "
    "identity in AKS)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="AKS sees one pool where two were meant",
)


@POOL_NAME_UNIQUE.checks
def _check_unique_names(ms: ManifestSet) -> Iterator[Finding]:
    views = views_of(ms)
    for group in ms.clusters:
        first: dict[str, AgentPool] = {}
        for pool in views.pools_of(group):
            name = pool.name.value
            if name is None or first.get(name) is pool:
                continue  # MachinePools named alike resolve to one pool (CAPZ-RES-DUPLICATE's)
            if name in first:
                yield POOL_NAME_UNIQUE.at(
                    pool.name,
                    (),
                    f"{name!r} is also the name of {first[name].ref()} in Cluster "
                    f"{group.cluster.name!r}; AKS names a cluster's agent pools uniquely",
                )
            else:
                first[name] = pool


_WINDOWS_SKUS = ("Windows2019", "Windows2022")


OS_SKU = Rule(
    "CAPZ-POOL-OSSKU",
    "Agent pool osSKU fits osType: Windows2019/Windows2022 with Windows, the others with Linux "
    "(§4.10)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="AKS refuses the OS SKU for this OS type",
)


@OS_SKU.checks
def _check_os_sku(ms: ManifestSet) -> Iterator[Finding]:
    for pool in views_of(ms).pools:
        sku = pool.os_sku.value
        if sku is None or pool.os_type.unknown:
            continue
        windows_sku = sku.startswith("Windows")
        if windows_sku and not pool.is_windows:
            yield OS_SKU.at(
                pool.os_sku,
                (),
                f"{sku} is a Windows image but the pool's osType is "
                f"{pool.os_type.value or 'Linux (the default)'}; set osType: Windows",
            )
        elif not windows_sku and pool.is_windows:
            yield OS_SKU.at(
                pool.os_sku,
                (),
                f"{sku} is a Linux image but the pool's osType is Windows; use one of "
                f"{', '.join(_WINDOWS_SKUS)}",
            )


MAX_PODS = Rule(
    "CAPZ-POOL-MAXPODS",
    "Agent pool maxPods is 10 to 250 (K4)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="AKS refuses maxPods outside 10-250",
    webhook_kinds=LEGACY_POOLS,
)


@MAX_PODS.checks
def _check_max_pods(ms: ManifestSet) -> Iterator[Finding]:
    for pool in views_of(ms).pools:
        value = pool.max_pods.value
        if value is not None and not 10 <= value <= 250:
            yield MAX_PODS.at(pool.max_pods, (), f"is {value}; AKS allows 10 to 250")


NODE_LABELS = Rule(
    "CAPZ-POOL-NODELABELS",
    "Agent pool nodeLabels keys do not start with kubernetes.azure.com (K5)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="AKS refuses labels under kubernetes.azure.com",
    webhook_kinds=LEGACY_POOLS,
)


@NODE_LABELS.checks
def _check_node_labels(ms: ManifestSet) -> Iterator[Finding]:
    for pool in views_of(ms).pools:
        for key in pool.node_labels.value or {}:
            if isinstance(key, str) and key.startswith("kubernetes.azure.com"):
                yield NODE_LABELS.at(
                    pool.node_labels,
                    (key,),
                    "label keys with prefix kubernetes.azure.com are reserved by AKS",
                )


PUBLIC_IP = Rule(
    "CAPZ-POOL-PUBLICIP",
    "A node public IP prefix (nodePublicIPPrefixReference, legacy nodePublicIPPrefixID) requires "
    "enableNodePublicIP: true (K6)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="AKS refuses a public IP prefix without node public IPs",
    webhook_kinds=LEGACY_POOLS,
)


@PUBLIC_IP.checks
def _check_public_ip(ms: ManifestSet) -> Iterator[Finding]:
    for pool in views_of(ms).pools:
        if pool.public_ip_prefix.is_set and pool.node_public_ip.raw is not True:
            yield PUBLIC_IP.at(pool.public_ip_prefix, (), "requires enableNodePublicIP: true")


_SYSCTL = re.compile(r"^(kernel\.shm.+|kernel\.msg.+|kernel\.sem|fs\.mqueue\..+|net\..+)$")
_KUBELET_ENUMS = {
    "cpuManagerPolicy": ("none", "static"),
    "topologyManagerPolicy": ("none", "best-effort", "restricted", "single-numa-node"),
}
_KUBELET_MINIMUMS = {"podMaxPids": -1, "containerLogMaxFiles": 2}


def _kubelet_problems(config: JsonObject) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """(relative path, message) pairs for kubeletConfig (K7)."""
    period = known_str(config.get("cpuCfsQuotaPeriod"))
    if period is not None and not period.endswith("ms"):
        yield ("cpuCfsQuotaPeriod",), f"{period!r} must end in 'ms'"
    yield from _image_gc_problems(config)
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
    for key, minimum in _KUBELET_MINIMUMS.items():
        value = as_int(config.get(key))
        if value is not None and value < minimum:
            yield (key,), f"is {value}; must be {minimum} or more"


def _image_gc_problems(config: JsonObject) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """Both image GC thresholds are percentages, and low may not be above high."""
    low, high = (
        as_int(config.get("imageGcLowThreshold")),
        as_int(config.get("imageGcHighThreshold")),
    )
    for key, value in (("imageGcLowThreshold", low), ("imageGcHighThreshold", high)):
        if value is not None and not 0 <= value <= 100:
            yield (key,), f"is {value}; must be 0 to 100"
    if low is not None and high is not None and low > high:
        yield ("imageGcLowThreshold",), f"{low} is above imageGcHighThreshold {high}"


KUBELET = Rule(
    "CAPZ-POOL-KUBELET",
    "kubeletConfig: cpuCfsQuotaPeriod in ms, image GC thresholds 0-100 and low <= high, allowed "
    "unsafe sysctls, manager policy enums, podMaxPids >= -1, containerLogMaxFiles >= 2 (K7)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="AKS refuses the kubelet configuration",
    webhook_kinds=LEGACY_POOLS,
)


@KUBELET.checks
def _check_kubelet(ms: ManifestSet) -> Iterator[Finding]:
    for pool in views_of(ms).pools:
        config = pool.kubelet_config.value
        if config is None:
            continue
        for rel, message in _kubelet_problems(config):
            yield KUBELET.at(pool.kubelet_config, rel, message)


_PORT_RANGE = re.compile(r"^\s*(\d+)\s+(\d+)\s*$")
_THP = {
    "transparentHugePageEnabled": ("always", "madvise", "never"),
    "transparentHugePageDefrag": ("always", "defer", "defer+madvise", "madvise", "never"),
}


def _linux_os_problems(pool: AgentPool, config: JsonObject) -> Iterator[tuple[Field[Json], str]]:
    """(field, message) pairs for linuxOSConfig (K8)."""
    base = pool.linux_os_config
    if (
        config.get("swapFileSizeMB") is not None
        and dig(pool.kubelet_config.value, "failSwapOn") is not False
    ):
        yield inside(base, "swapFileSizeMB"), "requires kubeletConfig.failSwapOn: false"
    ports = pool.local_port_range.value
    if ports is not None:
        match = _PORT_RANGE.match(ports)
        if match is None:
            yield pool.local_port_range, f"{ports!r} must be two numbers '<first> <last>'"
        else:
            first, last = int(match.group(1)), int(match.group(2))
            if not 1024 <= first <= 60999 or not 32768 <= last <= 65000 or first > last:
                yield (
                    pool.local_port_range,
                    f"{ports!r}: first must be 1024-60999, last 32768-65000, first <= last",
                )
    for key, allowed in _THP.items():
        value = known_str(config.get(key))
        if value is not None and value not in allowed:
            yield inside(base, key), f"{value!r} is not one of {', '.join(allowed)}"


LINUX_OS = Rule(
    "CAPZ-POOL-LINUXOS",
    "linuxOSConfig: swap needs failSwapOn: false, valid local port range, transparent huge page "
    "enums (K8)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="AKS refuses the Linux OS configuration",
    webhook_kinds=LEGACY_POOLS,
)


@LINUX_OS.checks
def _check_linux_os(ms: ManifestSet) -> Iterator[Finding]:
    for pool in views_of(ms).pools:
        config = pool.linux_os_config.value
        if config is None:
            continue
        for field, message in _linux_os_problems(pool, config):
            yield LINUX_OS.at(field, (), message)


SCALE_SET = Rule(
    "CAPZ-POOL-SCALESET",
    "Eviction policy only with Spot, spotMaxPrice -1 or > 0, availabilityZones only with "
    "VirtualMachineScaleSets, node count 0-1000 (User) / 1-1000 (System) (K23)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="AKS refuses the scale set settings",
)


@SCALE_SET.checks
def _check_scale_set(ms: ManifestSet) -> Iterator[Finding]:
    for pool in views_of(ms).pools:
        spot = pool.priority.value == "Spot"
        if pool.eviction_policy.is_set and not spot and not pool.priority.unknown:
            yield SCALE_SET.at(
                pool.eviction_policy, (), "is only allowed with scaleSetPriority: Spot"
            )
        price = pool.spot_max_price.value
        if price is not None and price != -1 and price <= 0:
            yield SCALE_SET.at(
                pool.spot_max_price, (), f"is {price:g}; must be -1 (on-demand cap) or above 0"
            )
        pool_type = pool.pool_type
        if (
            pool.availability_zones.is_set
            and pool_type.raw not in (None, "VirtualMachineScaleSets")
            and not pool_type.unknown
        ):
            yield SCALE_SET.at(
                pool.availability_zones,
                (),
                "is only allowed with type: VirtualMachineScaleSets",
            )
        yield from _check_count(pool)


def _check_count(pool: AgentPool) -> Iterator[Finding]:
    """Node count range: User 0–1000, System 1–1000 (K23); MachinePool replicas become the count."""
    low = 1 if pool.is_system else 0
    mode = pool.mode.value or "User"
    count = pool.count.value
    if count is not None:
        if not low <= count <= 1000:
            yield SCALE_SET.at(pool.count, (), f"is {count}; a {mode} pool allows {low} to 1000")
        return
    if pool.machine_pool is None or pool.autoscaling.value is True:
        return
    replicas = pool.replicas.value
    if replicas is not None and not low <= replicas <= 1000:
        yield SCALE_SET.at(
            pool.replicas,
            (),
            f"is {replicas}; it becomes the node count of {pool.ref()}, which as a "
            f"{mode} pool allows {low} to 1000",
        )


TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def _taint_text_problem(text: str) -> str | None:
    """What is wrong with a taint written ``key=value:Effect`` or, without a value (Kubernetes
    allows an empty one), ``key:Effect`` (ASO nodeTaints)."""
    body, colon, effect = text.rpartition(":")
    key, _, value = body.partition("=")
    if not colon:
        return f"{text!r} must be written key=value:Effect (or key:Effect)"
    if not is_label_key(key):
        return f"{text!r}: key {key!r} must be a label key ([prefix/]name of letters, digits, '-', '_', '.')"
    if not is_label_value(value):
        return f"{text!r}: value {value!r} must be a label value (at most 63 letters, digits, '-', '_', '.')"
    if effect not in TAINT_EFFECTS:
        return f"{text!r}: effect {effect!r} is not one of {', '.join(TAINT_EFFECTS)}"
    return None


def _taint_problems(item: Json) -> Iterator[tuple[tuple[str, ...], str]]:
    """(path inside the item, message): a string (ASO) or a legacy {key, value, effect}, whose
    effect the legacy CRD's enum checks and whose parts CAPZ joins as key=value:effect."""
    if isinstance(item, str):
        problem = None if is_templated(item) else _taint_text_problem(item)
        if problem is not None:
            yield (), problem
        return
    taint = as_dict(item) or {}
    key, value = known_str(taint.get("key")), known_str(taint.get("value"))
    if key is not None and not is_label_key(key):
        yield (
            ("key",),
            f"{key!r} must be a label key ([prefix/]name of letters, digits, '-', '_', '.')",
        )
    if value is not None and not is_label_value(value):
        yield (
            ("value",),
            f"{value!r} must be a label value (at most 63 letters, digits, '-', '_', '.')",
        )


TAINTS = Rule(
    "CAPZ-POOL-TAINTS",
    "Agent pool taints are key=value:Effect (or key:Effect) with a label key, a label value and "
    "an effect of NoSchedule, PreferNoSchedule or NoExecute (ASO nodeTaints; legacy "
    "taints[].key/value) (§4.12, §5.4)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="AKS refuses the taint",
)


@TAINTS.checks
def _check_taints(ms: ManifestSet) -> Iterator[Finding]:
    for pool in views_of(ms).pools:
        for index, item in enumerate(pool.taints.value or ()):
            for rel, message in _taint_problems(item):
                yield TAINTS.at(pool.taints, (index, *rel), message)


_SURGE = re.compile(r"^(\d+)(%?)$")


MAX_SURGE = Rule(
    "CAPZ-POOL-MAXSURGE",
    "Agent pool upgradeSettings.maxSurge is a whole number of nodes or a percentage, above 0 "
    "(§4.14)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="AKS refuses the surge value",
)


@MAX_SURGE.checks
def _check_max_surge(ms: ManifestSet) -> Iterator[Finding]:
    for pool in views_of(ms).pools:
        surge = pool.max_surge.value
        if surge is None:
            continue
        match = _SURGE.match(surge)
        if match is None:
            yield MAX_SURGE.at(
                pool.max_surge,
                (),
                f"{surge!r} must be a number of nodes ('3') or a percentage of the pool ('33%')",
            )
        elif (
            int(match.group(1)) == 0
            and dig(pool.owner.obj, *pool.max_surge.rel[:-1], "maxUnavailable") is None
        ):
            yield MAX_SURGE.at(
                pool.max_surge,
                (),
                f"{surge!r}: an upgrade needs at least one surge node (maxSurge above 0)",
            )
