"""System agent pools (K1, K2, §4.11): every AKS cluster has one, and they run Linux on regular VMs.

Like :mod:`~generator.checks.rules.pools`, these rules run on
:class:`~generator.checks.views.AgentPool`, so they hold for the ASO and the legacy API alike;
AKS rejects the cluster only after the manifests are applied.
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.checks.rules.base import LEGACY_POOLS, Rule
from generator.checks.views import is_aks_cluster, views_of
from generator.findings import Finding, Gate, Severity
from generator.model.manifests import ManifestSet

SYSTEM_POOL = Rule(
    "CAPZ-POOL-SYSTEM",
    "Every AKS Cluster (either API) has at least one agent pool with mode: System (K1)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="AKS refuses a cluster without a System pool",
)


@SYSTEM_POOL.checks
def _check_system_pool(ms: ManifestSet) -> Iterator[Finding]:
    views = views_of(ms)
    for group in ms.clusters:
        if not is_aks_cluster(group) or group.control_plane is None:
            continue
        pools = views.pools_of(group)
        if any(pool.is_system or pool.mode.unknown for pool in pools):
            continue
        yield SYSTEM_POOL.at(
            group.cluster,
            (),
            f"Cluster {group.cluster.name!r} has no agent pool with mode: System "
            f"({len(pools)} pool{'s' if len(pools) != 1 else ''} found); AKS requires at least one",
        )


SYSTEM_LINUX = Rule(
    "CAPZ-POOL-SYSTEM-LINUX",
    "System agent pools run Linux (osType absent or Linux) (K2)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="AKS refuses a System pool that is not Linux",
    webhook_kinds=LEGACY_POOLS,
)


@SYSTEM_LINUX.checks
def _check_system_linux(ms: ManifestSet) -> Iterator[Finding]:
    for pool in views_of(ms).pools:
        if pool.is_system and pool.is_windows:
            yield SYSTEM_LINUX.at(pool.os_type, (), "a System pool must run Linux, not Windows")


SPOT_SYSTEM = Rule(
    "CAPZ-POOL-SPOT-SYSTEM",
    "An agent pool with scaleSetPriority: Spot is not a System pool (§4.11)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="AKS refuses a Spot System pool",
)


@SPOT_SYSTEM.checks
def _check_spot_system(ms: ManifestSet) -> Iterator[Finding]:
    for pool in views_of(ms).pools:
        if pool.priority.value == "Spot" and pool.is_system:
            yield SPOT_SYSTEM.at(
                pool.priority,
                (),
                "Spot is not allowed for a System pool: AKS runs System pools on regular VMs",
                hint="use mode: User for the spot pool and keep a regular System pool",
            )
