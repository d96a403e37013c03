"""The one stderr line after ``generate cluster`` that says what was checked.

A cluster that was generated without a word leaves the user guessing whether it was validated at
all, and against what; ``--no-validate`` must be as visible as its opposite. Stdout stays the
manifests: the line goes to stderr, with the findings.
"""

from __future__ import annotations

from collections.abc import Sequence

from generator.checks.context import CheckOptions
from generator.findings import Finding, Severity
from generator.jsontypes import Json

NOT_VALIDATED = "not validated (--no-validate)"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def embedded_resources(objects: Sequence[Json]) -> int:
    """How many ASO resources the objects embed in ``spec.resources`` (each is validated too)."""
    count = 0
    for obj in objects:
        spec = obj.get("spec") if isinstance(obj, dict) else None
        items = spec.get("resources") if isinstance(spec, dict) else None
        if isinstance(items, list):
            count += sum(1 for item in items if isinstance(item, dict))
    return count


def validated_line(
    checks: CheckOptions, objects: Sequence[Json], findings: Sequence[Finding]
) -> str:
    """``validated 7 objects (5 embedded ASO resources): schemas, CEL, 93 CAPZ/ASO rules;
    0 errors, 1 warning``, naming only the checks that ran (``--no-cel``, ``--disable-rule``)."""
    if not checks.validate:
        return NOT_VALIDATED
    # lazy: the rule registry is loaded by the validation that just ran; not before
    from generator.checks.rules import CHANGE_RULES, RULES

    options = checks.validation
    ran = ["schemas"] if options.schemas else []
    if options.cel:
        ran.append("CEL")
    rules = sum(
        1
        for rule_id in RULES
        if rule_id not in options.disabled_rules and rule_id not in CHANGE_RULES  # create only
    )
    ran.append(f"{rules} CAPZ/ASO rules")  # kubeconform's own lines say whether it ran
    errors = sum(1 for finding in findings if finding.is_error)
    warnings = sum(1 for finding in findings if finding.severity is Severity.WARNING)
    return (
        f"validated {_plural(len(objects), 'object')} "
        f"({_plural(embedded_resources(objects), 'embedded ASO resource')}): {', '.join(ran)}; "
        f"{_plural(errors, 'error')}, {_plural(warnings, 'warning')}"
    )
