"""The ClusterClass patch rules' ids and descriptions, apart from the checks themselves.

``--list-rules``, ``--disable-rule`` and the engine need only these; the checks
(:mod:`.patches`, with the Go template subset and YAML) load when a ClusterClass is validated.
"""

from __future__ import annotations

TEMPLATE = "CC-PATCH-TEMPLATE"
UNCHECKED = "CC-PATCH-UNCHECKED"
RULE_IDS = (TEMPLATE, UNCHECKED)
DESCRIPTIONS = (
    (
        TEMPLATE,
        "error",
        "ClusterClass JSON patches render (valueFrom.template, valueFrom.variable), give valid "
        "YAML and apply to the templates they select; the patched templates are validated like "
        "any other object (CAPI topology inline patches)",
    ),
    (
        UNCHECKED,
        "warning",
        "A ClusterClass patch capzgen could not check: Go template syntax outside the "
        "documented subset, external patches, selectors that match no template of the class",
    ),
)
