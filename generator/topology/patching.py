"""A ClusterClass's inline patches applied to one Cluster's templates, as CAPI applies them.

CAPI's patch engine (``internal/controllers/topology/cluster/patches``) runs the class's patches
in order; each inline patch, for every template of the Cluster its definitions' selectors match
and whose ``enabledIf`` renders ``true``, renders its JSON patches with the Cluster's variables
(a machine pool's overrides on top) and the template's ``builtin`` values, and applies them to
the template. The patched template's ``spec.template.spec`` then becomes the object's ``spec``,
the control plane keeping the fields the topology sets (version, replicas).

The rendering is the validator's own (:mod:`generator.checks.clusterclass.values`, the Go
template subset); selectors are matched by :mod:`generator.checks.clusterclass.targets`. What
fails is an error finding on the JSON patch of the class (rule ``CC-PATCH-TEMPLATE``: CAPI's
reconcile fails there too); what cannot be evaluated (an external patch, which a runtime
extension computes; template syntax outside the subset) is a warning (``CC-PATCH-UNCHECKED``)
and the plan goes on without it.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass, field

from generator.checks.clusterclass.goeval import render
from generator.checks.clusterclass.gotemplate import TemplateFailure, Unsupported
from generator.checks.clusterclass.rule_ids import GATES, TEMPLATE, UNCHECKED
from generator.checks.clusterclass.targets import matches
from generator.checks.clusterclass.values import ValueProblem, patch_value
from generator.errors import TopologyError
from generator.findings import Finding, Gate, JsonPath, Severity, Subject, format_path
from generator.jsonpatch import PatchFailure, apply_json_patch
from generator.jsontypes import Json, JsonObject, dig
from generator.model.values import as_dict, as_list, as_str
from generator.topology.blueprint import ClassView, name_of, where
from generator.topology.desired import PlanItem

MAX_APPLICATIONS = 20_000
"""JSON patch operations applied for one Cluster; a class past it is refused (each operation is
bounded by the renderer and the JSON patch size limits, their number is not otherwise)."""

PRESERVED = ("version", "replicas", "rolloutAfter", "machineTemplate")
"""Control plane fields the topology sets and the patches cannot change (CAPI's
``PreserveFields``; of ``machineTemplate`` CAPI keeps the parts the topology fills)."""


@dataclass(slots=True)
class Patched:
    """The templates of one Cluster while the patches apply, and what was found."""

    view: ClassView
    items: list[PlanItem]
    templates: list[JsonObject]
    variables: JsonObject
    findings: list[Finding] = field(default_factory=list)
    applied: int = 0

    def count(self) -> None:
        """One more operation; past :data:`MAX_APPLICATIONS` the plan stops."""
        self.applied += 1
        if self.applied > MAX_APPLICATIONS:
            msg = f"the class applies more than {MAX_APPLICATIONS:,} JSON patch operations to one Cluster's templates: not planned"
            raise TopologyError(msg, location=where(self.view.document, "spec.patches"))

    def report(self, severity: Severity, path: JsonPath, message: str) -> None:
        """A finding on the class at ``path``: an error CAPI fails on, or a warning about what
        the plan left out."""
        rule = TEMPLATE if severity is Severity.ERROR else UNCHECKED
        gate, why = GATES.get(rule, (Gate.PROVISIONING, None))
        subject = Subject(
            self.view.document.source,
            self.view.document.index,
            self.view.document.kind,
            self.view.name,
        )
        finding = Finding(severity, rule, message, subject, path, gate=gate, why=why)
        if finding not in self.findings:
            self.findings.append(finding)


def _definitions(patch: JsonObject, index: int) -> Iterator[tuple[JsonObject, JsonPath]]:
    for j, definition in enumerate(as_list(patch.get("definitions")) or ()):
        if isinstance(definition, dict):
            yield definition, ("spec", "patches", index, "definitions", j)


def _label(patch: JsonObject, index: int, item: PlanItem) -> str:
    name = as_str(patch.get("name"))
    return f"patch {name if name else f'#{index}'} on {item.target.label()} ({name_of(item.obj)})"


def _enabled(state: Patched, patch: JsonObject, index: int, data: JsonObject) -> bool | None:
    """Whether ``enabledIf`` renders ``true``; None (reported) when it cannot be told."""
    text = patch.get("enabledIf")
    if not isinstance(text, str) or text == "":
        return True
    path: JsonPath = ("spec", "patches", index, "enabledIf")
    try:
        result = render(text, data)
    except Unsupported as error:
        state.report(
            Severity.WARNING,
            path,
            f"enabledIf uses {error.what}, which capzgen does not evaluate: patch left out of the plan",
        )
        return None
    except TemplateFailure as error:
        state.report(Severity.ERROR, path, f"enabledIf fails: {error.message}")
        return None
    return result.text.strip() in ("true", "True", "TRUE")


def _apply_item(state: Patched, patch: JsonObject, index: int, position: int) -> None:
    item = state.items[position]
    definitions = [
        (definition, path)
        for definition, path in _definitions(patch, index)
        if matches(definition.get("selector"), item.target)
    ]
    if not definitions:
        return
    data = {**state.variables, **item.overrides, "builtin": item.builtins}
    if not _enabled(state, patch, index, data):
        return
    label = _label(patch, index, item)
    source = f"{state.view.document.source}: {format_path(('spec', 'patches', index))}"
    for definition, base in definitions:
        for k, operation in enumerate(as_list(definition.get("jsonPatches")) or ()):
            path: JsonPath = (*base, "jsonPatches", k)
            state.count()
            try:
                value = patch_value(as_dict(operation) or {}, data, source)
                state.templates[position] = _as_object(
                    apply_json_patch(state.templates[position], [value.operation])
                )
            except ValueProblem as problem:
                severity = Severity.WARNING if problem.unsupported else Severity.ERROR
                state.report(severity, (*path, *problem.rel), f"{label}: {problem.message}")
            except PatchFailure as failure:
                state.report(Severity.ERROR, path, f"{label}: does not apply: {failure.message}")


def _as_object(value: Json) -> JsonObject:
    if not isinstance(value, dict):
        msg = "the patch replaces the whole template with a non-object"
        raise PatchFailure(msg)
    return value


def _spec(item: PlanItem, template: JsonObject) -> JsonObject:
    """The object of ``item`` with the patched template's spec (the control plane keeps what
    the topology set)."""
    obj = copy.deepcopy(item.obj)
    before = as_dict(obj.get("spec")) or {}
    spec = copy.deepcopy(as_dict(dig(template, "spec", "template", "spec")) or {})
    if item.target.role.kind == "controlPlane":
        for key in PRESERVED:
            if key in before:
                spec[key] = before[key]
    obj["spec"] = spec
    return obj


def apply_patches(
    view: ClassView, items: list[PlanItem], variables: JsonObject
) -> tuple[list[JsonObject], list[Finding]]:
    """The objects of ``items`` with the class's patches applied, and the findings."""
    state = Patched(view, items, [copy.deepcopy(item.template) for item in items], variables)
    for index, patch in enumerate(as_list(dig(view.obj, "spec", "patches")) or ()):
        patch = as_dict(patch) or {}
        if not as_list(patch.get("definitions")):
            state.report(
                Severity.WARNING,
                ("spec", "patches", index),
                f"patch {as_str(patch.get('name')) or f'#{index}'} is external (a runtime "
                "extension computes it): not evaluated, the plan leaves it out",
            )
            continue
        for position in range(len(items)):
            _apply_item(state, patch, index, position)
    objects = [_spec(item, template) for item, template in zip(items, state.templates, strict=True)]
    return objects, state.findings
