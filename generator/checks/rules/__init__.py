"""The CAPZ semantic rules, one module per theme, collected into an ordered registry.

Rule IDs are stable: they appear in reports, in ``--disable-rule`` and in the example folders of
the tests (``tests/validate/examples/invalid/<rule-id>/``). Each description cites the reference ID
it enforces.

Each module declares its rules' records beside the functions that check them
(:meth:`~generator.checks.rules.base.Rule.checks`), which registers them as it is imported. The
import below is the registry: its order, not the alphabet's, is the order the rules run in and
``--list-rules`` shows them (tests/validate/test_rule_registry.py holds the two together).
"""

from __future__ import annotations

# isort: off
from generator.checks.rules import (  # noqa: F401 (imported to register their rules)
    references,
    owners,
    resources,
    system_pools,
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
    pod_subnets,
    siblings,
    clusteridentity,
    aso,
    aso_patches,
    aso_expressions,
    newer_fields,
    node_provisioning,
    automatic,
    immutable,
    update_capz,
    update_aso,
    update_azure,
    update_capi,
    deletes,
)

# isort: on
from generator.checks.rules.base import Rule, RuleCheck, registered
from generator.findings import Operation


def _registry() -> dict[str, RuleCheck]:
    registry: dict[str, RuleCheck] = {}
    for rule in registered():
        if rule.id in registry:
            msg = f"duplicate rule id {rule.id}"
            raise RuntimeError(msg)
        registry[rule.id] = rule
    return registry


RULES: dict[str, RuleCheck] = _registry()

CHANGE_RULES: dict[str, RuleCheck] = {
    rule_id: rule for rule_id, rule in RULES.items() if rule.operation is not Operation.CREATE
}
"""The update and delete rules: they judge an object against its previous revision
(``validate --against``) and find nothing on a create."""

__all__ = ["CHANGE_RULES", "RULES", "Rule", "RuleCheck"]
