"""An agent pool's pods and nodes on subnets of their own (§4.8).

Kept beside :mod:`generator.checks.rules.network` (registered right after it, so the rules run
and are listed in the same order as when they shared a module).
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.checks.rules.base import Rule
from generator.checks.views import views_of
from generator.findings import Finding, Gate, Severity
from generator.jsontypes import JsonObject
from generator.model.manifests import ManifestSet
from generator.model.values import known_str


def _subnet_key(ref: JsonObject) -> tuple[str, ...] | None:
    """What a subnet reference names, comparable with another written the same way."""
    arm_id = known_str(ref.get("armId"))
    if arm_id:
        return ("armId", arm_id.lower().rstrip("/"))
    parts = tuple(known_str(ref.get(key)) for key in ("group", "kind", "name"))
    return None if None in parts else ("name", *(part or "" for part in parts))


POD_SUBNET = Rule(
    "CAPZ-POOL-POD-SUBNET",
    "An agent pool's podSubnetReference names a subnet other than its vnetSubnetReference (same "
    "armId, or same group/kind/name) (§4.8)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="AKS refuses one subnet for nodes and pods",
)


@POD_SUBNET.checks
def _check_pod_subnet(ms: ManifestSet) -> Iterator[Finding]:
    for pool in views_of(ms).pools:
        node, pods = pool.subnet.value, pool.pod_subnet.value
        if node is None or pods is None:
            continue
        key = _subnet_key(pods)
        if key is not None and key == _subnet_key(node):
            yield POD_SUBNET.at(
                pool.pod_subnet,
                (),
                f"names the node subnet ({key[-1]}, the pool's vnetSubnetReference): pods get "
                "their addresses from a subnet of their own",
                hint="reference a separate subnet, or leave podSubnetReference out to give pods "
                "node subnet addresses",
            )
