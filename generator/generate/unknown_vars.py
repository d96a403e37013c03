"""No silent typos: a ``--var`` or values-file name that nothing uses is an error.

clusterctl ignores a variable the template never mentions, so ``--var AZURE_NODE_MACHNE_TYPE=...``
would render the default VM size without a word. A name given on purpose (``--var`` or a values
file, including a fleet's ``values``) must be one the flavor declares or the template text uses;
every other one is reported with its nearest known name. The environment and the clusterctl
config file are not checked: they hold variables for many templates, as clusterctl assumes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from generator.clusterctl.substitution import ValuesOrigin
from generator.envsubst import inspect_variables
from generator.errors import InputOutputError, TemplateSyntaxError, VariableError
from generator.flavors.model import Flavor
from generator.suggest import did_you_mean
from generator.yamlio.source import read_source

# Variables clusterctl itself fills from its flags; a --from template may or may not use them.
CLUSTERCTL_FLAG_VARIABLES = frozenset(
    {
        "CLUSTER_NAME",
        "NAMESPACE",
        "KUBERNETES_VERSION",
        "CONTROL_PLANE_MACHINE_COUNT",
        "WORKER_MACHINE_COUNT",
    }
)
# A `${NAME` written in a flavor's Jinja template: substituted after rendering, so the name is used.
_PLACEHOLDER = re.compile(r"\$\{\s*([A-Za-z_][A-Za-z0-9_]*)")


@dataclass(frozen=True)
class SuppliedName:
    """A variable name a person gave explicitly, and where (``--var`` or ``file:line``)."""

    name: str
    where: str


def supplied_names(
    variables: Mapping[str, str], values: Mapping[str, object], origin: ValuesOrigin
) -> list[SuppliedName]:
    """The ``--var`` names, then the values file's top-level keys with their place."""
    given = [SuppliedName(name, "--var") for name in variables]
    given += [SuppliedName(name, origin.where((name,))) for name in values]
    return given


def flavor_names(flavor: Flavor) -> set[str]:
    """Names a flavor accepts: its declared variables and the ``${NAME}`` its templates write."""
    names = set(flavor.variables)
    for template in flavor.templates:
        path = flavor.directory / template
        try:
            names.update(_PLACEHOLDER.findall(read_source(str(path))))
        except InputOutputError:
            continue  # the render reports an unreadable template with its own message
    return names


def template_names(text: str) -> set[str] | None:
    """Names a ``--from`` template uses, with the ones clusterctl's flags fill; None when the
    template cannot be parsed (the substitution then reports where)."""
    try:
        return set(inspect_variables(text)) | CLUSTERCTL_FLAG_VARIABLES
    except TemplateSyntaxError:
        return None


def check_names(given: Iterable[SuppliedName], known: Iterable[str], *, owner: str) -> None:
    """Raise :class:`VariableError` listing every given name not in ``known``, one line each.

    Names compare case-insensitively, as the ``--var`` and values layers look them up. ``owner``
    completes "not a variable of ...", e.g. ``flavor aks`` or ``template cluster.yaml``.
    """
    known = sorted(set(known))
    folded = {name.lower() for name in known}
    lines = []
    seen: set[str] = set()
    for item in given:
        if item.name.lower() in folded or item.name in seen:
            continue
        seen.add(item.name)
        line = f"{item.name}: not a variable of {owner}{did_you_mean(item.name, known)}"
        lines.append(line if item.where == "--var" else f"{line} ({item.where})")
    if not lines:
        return
    count = len(lines)
    msg = f"{count} unknown variable{'s' if count != 1 else ''} given to {owner}"
    raise VariableError(
        msg,
        details=lines,
        hint="check the spelling (--list-variables lists the variables), or pass "
        "--allow-unknown-vars to set them anyway",
    )
