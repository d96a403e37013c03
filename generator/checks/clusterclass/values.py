"""The value of one ClusterClass JSON patch, computed as CAPI does (``calculateValue``).

``add`` and ``replace`` need exactly one of ``value`` (used as written), ``valueFrom.variable``
(a variable or builtin value, by dotted path) and ``valueFrom.template`` (Go template text,
rendered by :mod:`.goeval` and read back as one YAML or JSON value through the bounded manifest
loader, as CAPI reads it with ``sigs.k8s.io/yaml``); ``remove`` takes none.
"""

from __future__ import annotations

from dataclasses import dataclass

from generator.checks.clusterclass.goeval import render
from generator.checks.clusterclass.goformat import MISSING
from generator.checks.clusterclass.gotemplate import TemplateFailure, Unsupported
from generator.errors import YamlError
from generator.findings import JsonPath
from generator.jsontypes import Json, JsonObject
from generator.model.values import as_dict
from generator.yamlio.load import load_manifest_value

OPS_WITH_VALUE = ("add", "replace")
OPS = (*OPS_WITH_VALUE, "remove")


class ValueProblem(Exception):
    """Why a patch has no value: an error CAPI would hit, or (``unsupported``) text the subset
    cannot render; ``rel`` is where, relative to the JSON patch."""

    def __init__(self, message: str, *, rel: JsonPath = (), unsupported: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.rel = rel
        self.unsupported = unsupported


@dataclass(frozen=True, slots=True)
class PatchValue:
    """The operation to apply: ``op``, ``path`` and, for add and replace, ``value``."""

    operation: JsonObject


_TEMPLATE: JsonPath = ("valueFrom", "template")


def _lookup(data: JsonObject, name: str) -> Json:
    if "[" in name:
        msg = f"variable path {name!r} with an index"
        raise ValueProblem(msg, rel=("valueFrom", "variable"), unsupported=True)
    current: Json = data
    for part in name.split("."):
        current = current.get(part, MISSING) if isinstance(current, dict) else MISSING
    if current is MISSING:
        msg = f"variable {name!r} is neither a ClusterClass variable nor a builtin value set for this template"
        raise ValueProblem(msg, rel=("valueFrom", "variable"))
    return current


def _rendered(text: str, data: JsonObject, source: str) -> Json:
    try:
        result = render(text, data)
    except Unsupported as error:
        msg = f"template uses {error.what}, which capzgen does not evaluate: not checked"
        raise ValueProblem(msg, rel=_TEMPLATE, unsupported=True) from None
    except TemplateFailure as error:
        msg = f"template fails: {error.message}"
        raise ValueProblem(msg, rel=_TEMPLATE) from None
    if result.undefined:
        names = ", ".join(f".{name}" for name in result.undefined)
        msg = (
            f"template reads {names}: no ClusterClass variable or builtin value of that name is set "
            "for this template (CAPI renders <no value>)"
        )
        raise ValueProblem(msg, rel=_TEMPLATE)
    try:
        return load_manifest_value(result.text, source=source)
    except YamlError as error:
        line = (
            f" (line {error.location.line} of the rendered text)"
            if error.location and error.location.line
            else ""
        )
        msg = f"rendered template is not valid YAML{line}: {error.message}"
        raise ValueProblem(msg, rel=_TEMPLATE) from None


def _value_from(value_from: JsonObject, data: JsonObject, source: str) -> Json:
    variable, template = value_from.get("variable"), value_from.get("template")
    if (variable is None) == (template is None):
        msg = "valueFrom needs exactly one of variable and template"
        raise ValueProblem(msg, rel=("valueFrom",))
    if isinstance(variable, str):
        return _lookup(data, variable)
    if not isinstance(template, str):
        msg = "valueFrom.template is not a string"
        raise ValueProblem(msg, rel=_TEMPLATE)
    return _rendered(template, data, source)


def patch_value(patch: JsonObject, data: JsonObject, source: str) -> PatchValue:
    """The RFC 6902 operation CAPI generates from ``patch``; raises :class:`ValueProblem`."""
    op, path = patch.get("op"), patch.get("path")
    if op not in OPS or not isinstance(path, str):
        msg = "needs op add, replace or remove and a path"
        raise ValueProblem(msg)
    if op not in OPS_WITH_VALUE:
        return PatchValue({"op": op, "path": path})
    value_from = as_dict(patch.get("valueFrom"))
    if ("value" in patch) == (value_from is not None):
        msg = f"{op} needs exactly one of value and valueFrom"
        raise ValueProblem(msg)
    value = patch["value"] if value_from is None else _value_from(value_from, data, source)
    return PatchValue({"op": op, "path": path, "value": value})


def enabled_if_problem(text: str, data: JsonObject) -> ValueProblem | None:
    """What is wrong with a patch's ``enabledIf`` template, rendered with ``data`` (whether the
    patch is enabled is not judged: every patch is checked)."""
    try:
        result = render(text, data)
    except Unsupported as error:
        msg = f"enabledIf uses {error.what}, which capzgen does not evaluate: not checked"
        return ValueProblem(msg, unsupported=True)
    except TemplateFailure as error:
        return ValueProblem(f"enabledIf fails: {error.message}")
    if result.undefined:
        names = ", ".join(f".{name}" for name in result.undefined)
        msg = (
            f"enabledIf reads {names}: no ClusterClass variable or builtin value of that name "
            "(CAPI renders <no value>, and the patch is never enabled)"
        )
        return ValueProblem(msg)
    return None
