"""``--disable-rule`` must name rules that exist: a typo would silently keep a rule on.

Apart from :mod:`generator.cli.common` because it needs the validator's rule list, which commands
that never validate (``generate yaml``, ``migrate``) should not load.
"""

from __future__ import annotations

from collections.abc import Iterable

from generator.errors import UsageError
from generator.validate import known_rule_ids


def check_rule_ids(disabled_rules: Iterable[str], *, extra: Iterable[str] = ()) -> None:
    disabled = set(disabled_rules)
    if not disabled:
        return
    unknown = sorted(disabled - {*known_rule_ids(), *extra})
    if unknown:
        raise UsageError(
            f"unknown rule id(s): {', '.join(unknown)}",
            hint="`capzgen validate --list-rules` shows every rule",
        )
