"""The ClusterClass patch rules' records, apart from the checks themselves.

``--list-rules``, ``--disable-rule`` and the engine need only these; the checks
(:mod:`.patches`, with the Go template subset and YAML) load when a ClusterClass is validated.

Both are provisioning rules: the API server admits a ClusterClass whatever its patches render
to (CAPI's ClusterClass webhook checks a patch's shape, not what it renders); CAPI's topology
controller renders and applies them when a Cluster of the class is reconciled, and that is where
a broken patch, or a patched template the API server refuses, stops the cluster.
"""

from __future__ import annotations

from generator.findings import Gate, Severity

TEMPLATE = "CC-PATCH-TEMPLATE"
UNCHECKED = "CC-PATCH-UNCHECKED"
RULE_IDS = (TEMPLATE, UNCHECKED)
TOPOLOGY = "CAPI's topology controller fails to build the Cluster's templates"
"""Who fails what CC-PATCH-TEMPLATE finds."""

DESCRIPTIONS: tuple[tuple[str, Severity, Gate, str | None, str], ...] = (
    (
        TEMPLATE,
        Severity.ERROR,
        Gate.PROVISIONING,
        TOPOLOGY,
        "ClusterClass JSON patches render (valueFrom.template, valueFrom.variable), give valid "
        "YAML and apply to the templates they select; the patched templates are validated like "
        "any other object (CAPI topology inline patches)",
    ),
    (
        UNCHECKED,
        Severity.WARNING,
        Gate.PROVISIONING,
        "not checked; CAPI's topology controller applies it",
        "A ClusterClass patch capzgen could not check: Go template syntax outside the "
        "documented subset, external patches, selectors that match no template of the class",
    ),
)
"""(id, severity, gate, why, description) of each rule, as ``--list-rules`` shows them."""

GATES: dict[str, tuple[Gate, str | None]] = {row[0]: (row[2], row[3]) for row in DESCRIPTIONS}
"""The gate and reason of each rule's findings, by id."""
