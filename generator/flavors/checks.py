"""Render-time checks of a flavor: the validator's rules, run on the objects the flavor rendered.

There is one rulebook (:mod:`generator.checks.rules`): a combination of variables is wrong
exactly when the manifests it renders break a rule, so a flavor needs no checks of its own and a
hand-written manifest gets the same checks as a rendered one. Error findings stop the render
before anything is written, every one of them in one :class:`~generator.errors.FlavorError`
(users fix all problems in one round), each named by the variable it comes from
(:mod:`generator.flavors.origins`). Warnings do not stop a render; the validation of the output
reports them.

Placeholders (``${VAR}``, from ``flavors show`` and ``release``) are unknown values to every rule,
so an exported flavor is checked on what its structural defaults decide.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from generator.checks.engine import rule_findings
from generator.errors import FlavorError, YamlError
from generator.flavors.model import Flavor
from generator.flavors.origins import Translator, describe
from generator.jsontypes import Json
from generator.yamlio.load import load_documents


def check_rendered(
    flavor: Flavor,
    values: Mapping[str, Json],
    text: str,
    *,
    disabled_rules: frozenset[str] = frozenset(),
) -> None:
    """Raise a FlavorError naming every error finding of the rules on ``text``.

    Text that is not YAML is left to the later stages, which report it with its location.
    """
    try:
        documents = load_documents(text, source=f"<flavor {flavor.name}>")
    except YamlError:
        return
    errors = [f for f in rule_findings(documents, disabled_rules) if f.is_error]
    if not errors:
        return
    translator = Translator(flavor.origins, values, documents) if flavor.origins else None
    problems = describe(errors, translator)
    msg = (
        f"{len(problems)} problem{'s' if len(problems) != 1 else ''} with the values of flavor "
        f"{flavor.name!r}"
    )
    raise FlavorError(
        msg,
        details=problems,
        hint="each line names the variable (or rendered field) and the validation rule; "
        "`capzgen validate --list-rules` describes the rules",
    )


@dataclass(frozen=True)
class RenderCheck:
    """:func:`check_rendered` of one render, kept for later.

    When the output of a render is validated anyway, the render-time check only matters if that
    validation finds an error: then it runs, to name the variables behind it (and raises). The
    rules run once per cluster instead of twice."""

    flavor: Flavor
    values: Mapping[str, Json]
    text: str
    disabled_rules: frozenset[str] = frozenset()

    def run(self) -> None:
        """Raise the FlavorError :func:`check_rendered` raises for this render, if any."""
        check_rendered(self.flavor, self.values, self.text, disabled_rules=self.disabled_rules)
