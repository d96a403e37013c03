"""The rule table: every rule capzgen reports with its severity, gate and description, for
``capzgen validate --list-rules`` and docs/rules.md (and SARIF's rule list).

Apart from :mod:`generator.checks.report` because it loads the whole rule registry, which a
report of findings does not need.
"""

from __future__ import annotations

from generator.checks.admission.chain import ADMISSION
from generator.checks.clusterclass.rule_ids import DESCRIPTIONS as CLASS_PATCH_RULES
from generator.checks.references import public_text
from generator.checks.rules import RULES, Rule
from generator.checks.schema_check import NO_SCHEMA, SCHEMA, STRUCTURE, YAML
from generator.findings import Gate, Severity

RuleRow = tuple[str, Severity, str, str | None, str]
"""One rule as ``--list-rules`` and docs/rules.md show it: id, severity, gate (``admission``,
``provisioning`` or ``both``), who fails it later (provisioning), and what it checks (with, for
``both``, which findings take the other gate)."""

_CEL_RULES: tuple[RuleRow, ...] = (
    (
        "cel",
        Severity.ERROR,
        Gate.ADMISSION.value,
        None,
        "Objects satisfy their CRDs' CEL rules (x-kubernetes-validations)",
    ),
    (
        "cel-cost",
        Severity.ERROR,
        Gate.ADMISSION.value,
        None,
        "CEL rules stay within the API server's cost limits (estimated and at run time)",
    ),
)
# The engine's own findings stand for the API server's first checks, so they are admission:
# YAML that is no object and a missing apiVersion/kind/name are refused before anything else,
# a schema violation by the CRD's OpenAPI schema. no-schema is the schema check that could not
# be made: it too stands for admission (a kind without a CRD is refused as well, and one with a
# CRD capzgen lacks is checked by the API server against that CRD), never for something later.
_ENGINE_RULES: tuple[RuleRow, ...] = (
    (
        YAML,
        Severity.ERROR,
        Gate.ADMISSION.value,
        None,
        "A document is a mapping (a Kubernetes object)",
    ),
    (
        STRUCTURE,
        Severity.ERROR,
        Gate.ADMISSION.value,
        None,
        "Objects and embedded resources have apiVersion, kind and metadata.name (C19)",
    ),
    (
        SCHEMA,
        Severity.ERROR,
        Gate.ADMISSION.value,
        None,
        "Objects and embedded ASO resources match the schema of their own apiVersion/kind",
    ),
    (
        NO_SCHEMA,
        Severity.ERROR,
        Gate.ADMISSION.value,
        None,
        "A schema exists for every apiVersion/kind (O9; off with --ignore-missing-schemas)",
    ),
    (
        ADMISSION,
        Severity.INFO,
        Gate.ADMISSION.value,
        None,
        "An object the API server admits only because a create-time default (CRD default, "
        "CAPZ mutating webhook) fixed it says what the cluster sets",
    ),
)


def rule_rows() -> list[RuleRow]:
    """Every rule capzgen reports, in ``--list-rules`` order: the engine's, CEL's, the
    registered rules, the ClusterClass patch rules."""
    registered = [
        (rule.id, rule.severity, rule.rule.gates, rule.rule.why, _described(rule.rule))
        for rule in RULES.values()
    ]
    rows = [*_ENGINE_RULES, *_CEL_RULES, *registered, *CLASS_PATCH_RULES]
    # what a user reads: without the internal reference IDs (generator.checks.references)
    return [(rid, sev, gate, why, public_text(text)) for rid, sev, gate, why, text in rows]


def _described(rule: Rule) -> str:
    """The description, and for a rule of both gates which findings take which."""
    text = rule.description
    if rule.webhook_kinds:
        kinds = ", ".join(sorted(rule.webhook_kinds))
        text += f". Admission on {kinds} (CAPZ's webhook)"
        return text + (f", {rule.split}" if rule.split else "")
    return text + (f". {rule.split}" if rule.split else "")


def describe_rules() -> str:
    """A fixed-width table: rule id, severity, gate, description (``both``: see docs/rules.md)."""
    rows = rule_rows()
    width = max(len(row[0]) for row in rows)
    lines = [f"{'RULE':<{width}}  {'SEVERITY':<8}  {'GATE':<12}  DESCRIPTION"]
    lines.extend(
        f"{rule_id:<{width}}  {severity.value:<8}  {gate:<12}  {text}"
        for rule_id, severity, gate, _why, text in rows
    )
    return "\n".join(lines) + "\n"


RULES_DOC_HEAD = """\
# Rules and their gates

<!-- Generated from the rule registry by generator.checks.rule_table.render_rules_markdown; do not
edit: tests/validate/test_rules_doc.py fails when this file is stale, and
`python -m pytest tests/validate/test_rules_doc.py --snapshot-update` writes it again. -->

Every finding says which gate it stands for, in its text (`(RULE) [admission]`,
`(RULE) [provisioning: who fails it]`) and in `--output json` (`gate`, and `why`):

- **admission**: the management cluster refuses the apply: YAML that is no Kubernetes object, the
  CRD schema, CEL rules, unknown fields, CAPI's, CAPZ's or ASO's webhooks (for an ASO resource
  embedded in a CAPZ object: ASO's admission when CAPZ creates it).
- **provisioning**: the API server admits the manifest; AKS, ARM, or a CAPI, CAPZ or ASO
  controller fails later (or ignores or overwrites the setting). capzgen is stricter than
  admission here on purpose; the fourth column says who fails it.
- **both**: the rule mirrors a CAPZ webhook check of the legacy AzureManaged* kinds (admission
  there) and checks the same on embedded ASO resources, where no webhook runs; or single cases
  differ, as the last column says.

Rules whose description starts with **on update:** or **on delete:** judge a change, not a
manifest: they run only with `capzgen validate PATH --against REV|OLD_PATH`, on objects present
in both versions (update) or only in the old one (delete), and their findings say `[update]` or
`[delete]` and where the object was (`(was HEAD~1:file:line)`); see
[validation.md](validation.md#updates-and-deletes---against).

The classification was checked with CAPZ v1.26.0's own webhooks (capz-oracle) on each rule's
invalid examples in `tests/validate/examples/invalid/`; [webhook-parity.md](webhook-parity.md)
maps CAPZ's and ASO's admission checks to the rules. The fleet rules of `generate fleet`
(FLEET-001 to FLEET-003) are provisioning: each cluster alone is admitted.

| Rule | Severity | Gate | Who fails it later | What it checks |
|---|---|---|---|---|
"""


def _cell(text: str) -> str:
    """``text`` safe in a Markdown table cell: no pipe ends the cell, no ``<...>`` is read as
    HTML, no ``*`` as emphasis."""
    return text.replace("|", "\\|").replace("<", "&lt;").replace("*", "\\*")


def render_rules_markdown() -> str:
    """docs/rules.md: every rule of :func:`rule_rows` with its severity, gate and reason."""
    lines = [
        f"| `{rule_id}` | {severity.value} | {gate} | {_cell(why or '')} | {_cell(text)} |"
        for rule_id, severity, gate, why, text in rule_rows()
    ]
    return RULES_DOC_HEAD + "\n".join(lines) + "\n"
