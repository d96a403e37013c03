"""The CAPZ semantic rules, one module per theme, collected into an ordered registry.

Rule IDs are stable: they appear in reports, in ``--disable-rule`` and in the example folders of
the tests (``tests/validate/examples/invalid/<rule-id>/``). Each description cites the reference ID
it enforces.
"""

from __future__ import annotations

from generator.checks.rules import (
    access,
    aso,
    aso_patches,
    autoscale,
    azure_values,
    clusteridentity,
    cp_identity,
    credentials,
    lb_limits,
    managedcluster,
    namespaces,
    network,
    owned,
    owners,
    pool_ids,
    pools,
    references,
    resources,
    siblings,
    ssh_keys,
    versions,
    vnet,
)
from generator.checks.rules.base import Rule

_MODULES = (
    references,
    owners,
    resources,
    pools,
    pool_ids,
    autoscale,
    owned,
    versions,
    azure_values,
    namespaces,
    credentials,
    managedcluster,
    lb_limits,
    ssh_keys,
    vnet,
    cp_identity,
    access,
    network,
    siblings,
    clusteridentity,
    aso,
    aso_patches,
)


def _registry() -> dict[str, Rule]:
    registry: dict[str, Rule] = {}
    for module in _MODULES:
        for rule in module.RULES:
            if rule.id in registry:
                msg = f"duplicate rule id {rule.id}"
                raise RuntimeError(msg)
            registry[rule.id] = rule
    return registry


RULES: dict[str, Rule] = _registry()

__all__ = ["RULES", "Rule"]
