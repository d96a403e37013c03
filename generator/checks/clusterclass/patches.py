"""Applying a ClusterClass's inline patches to its templates and checking what they produce.

For every template the class references (:mod:`.targets`), the JSON patches whose selector
matches it are applied in CAPI's order (patches, then definitions, then operations) to the
template object found in the same set, or to an empty skeleton of its kind when it is not there.
After each operation the patched template is checked by the validator's own object checks
(``check``: shape and schema of the template and of its embedded ASO resources, CEL, the rules);
a finding the unpatched template does not have is reported once, against the operation that
first produced it, if the fully patched template still has it. ``enabledIf`` is rendered (it must
not fail nor read undefined values) but not judged: every patch is checked as if enabled. Once an operation cannot be applied to a template (its value
fails, is not checked, or the operation does not apply), the later operations on that template
are still rendered, but neither applied nor is the template's final state judged: what was left
out may be exactly what it needs.

Findings are about the ClusterClass and sit at the JSON patch
(``spec.patches[i].definitions[j].jsonPatches[k]``); the message names the patch and the
template. Rule :data:`TEMPLATE` reports what CAPI would fail on (a template that does not render,
renders to invalid YAML, reads an undefined value, or an operation that does not apply); rule
:data:`UNCHECKED` warns about what was not checked and why (template syntax outside the subset,
external patches, selectors matching no template).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from generator.checks.clusterclass.placeholders import Role, builtins, variables
from generator.checks.clusterclass.rule_ids import GATES, TEMPLATE, UNCHECKED
from generator.checks.clusterclass.targets import Target, class_targets, matches
from generator.checks.clusterclass.values import ValueProblem, enabled_if_problem, patch_value
from generator.documents import Document
from generator.findings import Finding, Gate, JsonPath, Severity, format_path
from generator.jsonpatch import PatchFailure, apply_json_patch
from generator.jsontypes import Json, JsonObject
from generator.model import kinds
from generator.model.manifests import ManifestSet, TopObject
from generator.model.values import as_dict, as_list, as_str

MAX_OPERATIONS = 1_000  # JSON patch applications checked per ClusterClass

ObjectCheck = Callable[[Document], list[Finding]]
_Key = tuple[str, str, JsonPath, str]


def _key(finding: Finding) -> _Key:
    return (finding.rule, finding.severity.value, finding.path, finding.message)


@dataclass(frozen=True, slots=True)
class _Operation:
    """One JSON patch of the class and where it is."""

    patch: JsonObject
    path: JsonPath
    name: str

    def label(self, target: Target) -> str:
        return f"patch {self.name} on {target.label()}"


@dataclass(slots=True)
class _State:
    """One template while the class's patches are applied to it."""

    target: Target
    document: Document
    found: bool
    baseline: set[_Key]
    seen: set[_Key] = field(default_factory=set)
    current: set[_Key] = field(default_factory=set)
    first: dict[_Key, tuple[Finding, _Operation]] = field(default_factory=dict)
    cut: bool = False  # an operation was not applied: later ones are only rendered


def _skeleton(target: Target, namespace: str | None) -> JsonObject:
    metadata: JsonObject = {"name": target.ref.name}
    if namespace is not None:
        metadata["namespace"] = namespace
    return {
        "apiVersion": target.ref.api_version,
        "kind": target.ref.kind,
        "metadata": metadata,
        "spec": {"template": {"spec": {}}},
    }


def _operations(cc: TopObject) -> Iterator[tuple[_Operation | None, Json, JsonPath]]:
    """(operation, selector, path) in CAPI's order; operation None for a definition-less
    (external) patch."""
    for i, patch in enumerate(as_list((cc.spec or {}).get("patches")) or ()):
        patch = as_dict(patch) or {}
        name = as_str(patch.get("name"))
        shown = f'"{name}"' if name else f"#{i}"
        definitions = as_list(patch.get("definitions")) or []
        if not definitions:
            yield None, None, ("spec", "patches", i)
        for j, definition in enumerate(definitions):
            definition = as_dict(definition) or {}
            for k, item in enumerate(as_list(definition.get("jsonPatches")) or ()):
                path: JsonPath = ("spec", "patches", i, "definitions", j, "jsonPatches", k)
                if isinstance(item, dict):
                    yield _Operation(item, path, shown), definition.get("selector"), path


class ClassPatches:
    """The patch findings of one ClusterClass."""

    def __init__(
        self, cc: TopObject, ms: ManifestSet, check: ObjectCheck, max_operations: int
    ) -> None:
        self.cc = cc
        self.max_operations = max_operations
        self.check = check
        self.findings: list[Finding] = []
        self.variables = variables(cc.obj)
        self.states = [self._state(target, ms) for target in class_targets(cc.obj)]
        self.applied = 0

    def _state(self, target: Target, ms: ManifestSet) -> _State:
        found = ms.find(target.ref.kind, target.ref.name, self.cc.namespace)
        if found is not None and found.api_version != target.ref.api_version:
            found = None
        if found is not None:
            document = Document(found.document.source, found.document.index, found.obj)
        else:
            obj = _skeleton(target, self.cc.namespace)
            document = Document(self.cc.document.source, self.cc.document.index, obj)
        state = _State(target, document, found is not None, set())
        state.baseline = state.current = {_key(f) for f in self.check(document)}
        state.seen = set(state.baseline)
        return state

    def _report(
        self,
        severity: Severity,
        rule: str,
        path: JsonPath,
        message: str,
        hint: str | None = None,
        why: str | None = None,
    ) -> None:
        """A finding on the class: of its own rule (``CC-PATCH-*``), or of a patched template's
        rule, which is provisioning all the same: the template is built by CAPI's topology
        controller, so the user's apply of the class succeeds (``why`` says what follows)."""
        gate, own_why = GATES.get(rule, (Gate.PROVISIONING, None))
        finding = Finding(
            severity, rule, message, self.cc.subject, path, hint=hint, gate=gate, why=why or own_why
        )
        if finding not in self.findings:
            self.findings.append(finding)

    def _check_enabled_if(self) -> None:
        """Each ``enabledIf`` renders, with every builtin group set (its patch may select
        templates of any role)."""
        every = {
            **builtins(Role("machinePool"), self.cc.name),
            **builtins(Role("machineDeployment"), self.cc.name),
            **builtins(Role("controlPlane"), self.cc.name),
        }
        data = {**self.variables, "builtin": every}
        for i, patch in enumerate(as_list((self.cc.spec or {}).get("patches")) or ()):
            text = (as_dict(patch) or {}).get("enabledIf")
            problem = enabled_if_problem(text, data) if isinstance(text, str) else None
            if problem is not None:
                severity, rule = (
                    (Severity.WARNING, UNCHECKED)
                    if problem.unsupported
                    else (Severity.ERROR, TEMPLATE)
                )
                self._report(severity, rule, ("spec", "patches", i, "enabledIf"), problem.message)

    def run(self) -> list[Finding]:
        """Apply every operation to the templates it selects; the findings, in patch order."""
        self._check_enabled_if()
        for operation, selector, path in _operations(self.cc):
            if operation is None:
                self._report(
                    Severity.WARNING,
                    UNCHECKED,
                    path,
                    "external patch (a runtime extension computes it): not checked",
                )
                continue
            selected = [s for s in self.states if matches(selector, s.target)]
            if not selected:
                self._report(
                    Severity.WARNING,
                    UNCHECKED,
                    path,
                    f"patch {operation.name}: the "
                    "selector matches no template of this ClusterClass: not checked",
                )
            for state in selected:
                self._apply(operation, state)
        for state in self.states:
            self._final(state)
        return self.findings

    def _apply(self, operation: _Operation, state: _State) -> None:
        self.applied += 1
        if self.applied > self.max_operations:
            if self.applied == self.max_operations + 1:
                self._report(
                    Severity.WARNING,
                    UNCHECKED,
                    operation.path,
                    f"more than {self.max_operations:,} patch applications: the rest is not checked",
                )
            return
        data = {**self.variables, "builtin": builtins(state.target.role, self.cc.name)}
        source = f"{self.cc.document.source}: {format_path(operation.path)}"
        try:
            value = patch_value(operation.patch, data, source)
            if state.cut:
                return
            patched = apply_json_patch(state.document.obj, [value.operation])
        except ValueProblem as problem:
            self._problem(operation, state, problem)
            return
        except PatchFailure as failure:
            self._not_applied(operation, state, failure.message)
            return
        state.document = Document(state.document.source, state.document.index, patched)
        findings = self.check(state.document)
        state.current = {_key(f) for f in findings}
        for finding in findings:
            key = _key(finding)
            if key not in state.seen:
                state.seen.add(key)
                state.first[key] = (finding, operation)

    def _problem(self, operation: _Operation, state: _State, problem: ValueProblem) -> None:
        state.cut = True
        severity, rule = (
            (Severity.WARNING, UNCHECKED) if problem.unsupported else (Severity.ERROR, TEMPLATE)
        )
        message = f"{operation.label(state.target)}: {problem.message}"
        self._report(severity, rule, (*operation.path, *problem.rel), message)

    def _not_applied(self, operation: _Operation, state: _State, reason: str) -> None:
        state.cut = True
        label = operation.label(state.target)
        if state.found:
            self._report(
                Severity.ERROR, TEMPLATE, operation.path, f"{label}: does not apply: {reason}"
            )
            return
        self._report(
            Severity.WARNING,
            UNCHECKED,
            operation.path,
            f"{label}: the template is not in the set and the patch does not apply to an empty "
            f"one ({reason}): not checked",
        )

    def _final(self, state: _State) -> None:
        if state.cut:
            return  # an operation left out may be what the template needs
        for key in sorted(state.current - state.baseline, key=lambda k: (format_path(k[2]), k[3])):
            finding, operation = state.first[key]
            where = format_path(finding.path) or "(object)"
            message = f"{operation.label(state.target)}: {where}: {finding.message}"
            then = finding.why or "the API server refuses it"
            why = f"CAPI's topology controller builds the patched template, then {then}"
            self._report(finding.severity, finding.rule, operation.path, message, finding.hint, why)


def check_class_patches(
    ms: ManifestSet, check: ObjectCheck, max_operations: int = MAX_OPERATIONS
) -> list[Finding]:
    """The patch findings of every ClusterClass of ``ms``; past ``max_operations`` patch
    applications in one class, the rest is reported unchecked."""
    findings: list[Finding] = []
    for cc in ms.objects_of(kinds.CLUSTER_CLASS):
        if not ms.is_copy(cc):
            findings.extend(ClassPatches(cc, ms, check, max_operations).run())
    return findings
