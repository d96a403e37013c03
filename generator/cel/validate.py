"""Evaluating the CEL rules of each object's schema, as the API server would on create.

For every top-level object and every ASO resource embedded in one, the schema of its own
apiVersion/kind is looked up; the object is walked along the schema's rule tree and every rule is
evaluated at every node where a value is present (rules never apply to absent or null values),
including each list item and map value. The API server's behaviour is followed where a manifest
alone allows it:

* a rule that is false is an error finding: ``<message> (rule: <rule>)`` at the node's path, or at
  ``fieldPath`` below it when the rule names one; ``messageExpression`` replaces ``message`` when
  it evaluates to a non-empty single-line string;
* a rule that fails at run time (no such key, no such overload ...) makes the API server reject the
  object too, but an evaluator other than cel-go may fail where cel-go would not: it is reported as
  a *warning* naming the rule, and validation goes on;
* a value whose type does not match the schema is not given to the node's rules (the schema check
  reports the type, and cel-go would only add a "no such overload" on top);
* transition rules (``oldSelf``) and rules using functions cel-python lacks are not evaluated; they
  are listed by ``capzgen schemas list --cel`` and logged at info level (``-v``);
* inside CAPZ ``*Template`` kinds, values holding Go-template text (``{{ ... }}``) are not given to
  rules, as for schema patterns: their final value is unknown;
* the API server's cost limits apply (rule ``cel-cost``, :mod:`generator.cel.cost_findings`): a
  rule whose estimated cost makes the API server refuse its CRD is reported instead of evaluated,
  and every evaluation runs on a meter that stops it past the per-call limit, the per-object budget
  or capzgen's wall-clock bound;
* a rule over cel-go's expression limits (length, nesting) is reported instead of parsed further;
  every rule that could not be evaluated within a budget (cost, time, nesting, memory) is an
  error finding, never a warning: a rule that was not checked must not let the file pass.

Nothing of cel-python is loaded until a rule is about to be evaluated.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from generator.cel import cost_findings
from generator.cel.limits import CALL, CostExceeded, CostLimits, Meter
from generator.cel.tree import CelNode, CompiledRule, MemoKey, RuleSet, tree_for
from generator.cel.values import matches_type
from generator.findings import Finding, JsonPath, PathPart, Severity, Subject
from generator.jsontypes import Json, JsonObject
from generator.model import kinds
from generator.model.manifests import AsoResource, ManifestSet, TopObject
from generator.names import valid_api_version
from generator.schemastore.types import SchemaHandle, SchemaLookup

if TYPE_CHECKING:
    from celpy import celtypes

log = logging.getLogger(__name__)

RULE_ID = "cel"
ORIGIN = "cel"


@dataclass
class _Run:
    """What one validation shares across objects: limits, cache folder, rules logged as skipped,
    and the rule tree of each apiVersion/kind met so far."""

    limits: CostLimits
    cache_folder: Path | None
    skipped: set[str] = field(default_factory=set)
    trees: dict[tuple[str, str], tuple[SchemaHandle, CelNode] | None] = field(default_factory=dict)

    def tree_of(
        self, store: SchemaLookup, api_version: str, kind: str
    ) -> tuple[SchemaHandle, CelNode] | None:
        """The schema of ``apiVersion``/``kind`` and its rule tree; None without a valid
        apiVersion, a schema or any rule. Found once per kind: a fleet has thousands of objects
        of a handful of kinds."""
        key = (api_version, kind)
        if key not in self.trees:
            handle = store.lookup(api_version, kind) if valid_api_version(api_version) else None
            tree = tree_for(handle, self.cache_folder) if handle is not None else None
            self.trees[key] = None if handle is None or tree is None else (handle, tree)
        return self.trees[key]


def check_cel(
    manifests: ManifestSet,
    store: SchemaLookup,
    *,
    limits: CostLimits | None = None,
    cache_folder: Path | None = None,
) -> list[Finding]:
    """CEL findings of every object and embedded resource of ``manifests``.

    ``limits`` are the API server's unless given; ``cache_folder`` is where the rules' parse trees
    (and cel-python's grammar analysis) may be kept between runs.
    """
    run = _Run(limits or CostLimits(), cache_folder)
    findings: list[Finding] = []
    for top in manifests.objects:
        findings.extend(_check(top, store, run))
        for resource in top.resources:
            findings.extend(_check(resource, store, run))
    return findings


def _check(where: TopObject | AsoResource, store: SchemaLookup, run: _Run) -> list[Finding]:
    obj = where.obj
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str) or not kind:
        return []
    found = run.tree_of(store, api_version, kind)
    if found is None:
        return []
    handle, tree = found
    top = where.top if isinstance(where, AsoResource) else where
    walker = _Walker(
        subject=lambda: where.subject,
        in_template=top.kind in kinds.TEMPLATE_KINDS,
        run=run,
        crd=cost_findings.crd_name(handle),
        root_path=where.path,
    )
    try:
        walker.walk(obj, tree, where.path)
    except CostExceeded as stop:
        walker.findings.append(cost_findings.stopped_object(stop, walker.subject, where.path))
    return walker.findings


class _Walker:
    def __init__(
        self,
        *,
        subject: Callable[[], Subject],
        in_template: bool,
        run: _Run,
        crd: str,
        root_path: JsonPath,
    ) -> None:
        self._subject_of = subject
        self.root_path = root_path
        self._subject: Subject | None = None
        self.in_template = in_template
        self.run = run
        self.crd = crd
        self.meter = Meter(run.limits)
        self.findings: list[Finding] = []
        self.reported: set[int] = set()  # rules (and rule sets) already reported as too costly

    @property
    def subject(self) -> Subject:
        if self._subject is None:
            self._subject = self._subject_of()
        return self._subject

    def walk(self, value: Json, node: CelNode, path: JsonPath) -> None:
        if value is None:
            return
        if (
            node.rules
            and matches_type(value, node.schema)
            and not (self.in_template and _has_template(value))
        ):
            self._evaluate_rules(value, node, path)
        if isinstance(value, dict):
            self._walk_members(value, node, path)
        elif isinstance(value, list) and node.items is not None:
            for index, item in enumerate(value):
                self.walk(item, node.items, (*path, index))

    def _walk_members(self, value: JsonObject, node: CelNode, path: JsonPath) -> None:
        """Declared properties in schema order, then the other keys against the value schema."""
        for name, child in node.properties.items():
            if name in value:
                self.walk(value[name], child, (*path, name))
        if node.values is not None:
            for key, item in value.items():
                if key not in node.properties:
                    self.walk(item, node.values, (*path, key))

    def _evaluate_rules(self, value: Json, node: CelNode, path: JsonPath) -> None:
        converted: list[celtypes.Value] = []  # converted once, for the first rule that needs it
        key = _memo_key(value)
        for compiled in node.rules:
            if not self._runnable(compiled, path):
                continue
            outcome = compiled.memo.get(key) if key is not None else None
            if outcome is None:
                outcome = self._outcome(compiled, value, node, converted)
                if key is not None:
                    if len(compiled.memo) >= _MEMO_LIMIT:
                        compiled.memo.clear()
                    compiled.memo[key] = outcome
            else:
                self.meter.replay(outcome[2])
            self._report(compiled, outcome, path)

    def _runnable(self, compiled: CompiledRule, path: JsonPath) -> bool:
        """Whether to evaluate ``compiled`` (reporting why not, once per object, when too costly)."""
        self._check_rule_set(compiled.rule_set, path)
        prepared = compiled.prepared()
        if prepared.refused is not None:
            if id(compiled) not in self.reported:
                self.reported.add(id(compiled))
                message = cost_findings.refused_rule(compiled, prepared.refused, self.crd)
                self._add(Severity.ERROR, cost_findings.RULE_ID, message, path)
            return False
        if prepared.program is None:
            self._note_skipped(compiled)
            return False
        if prepared.total <= self.run.limits.static_per_rule:
            return True
        if id(compiled) not in self.reported:
            self.reported.add(id(compiled))
            assert prepared.cost is not None
            message, hint = cost_findings.over_rule_limit(
                compiled, prepared.cost, prepared.total, self.run.limits, self.crd
            )
            self._add(Severity.ERROR, cost_findings.RULE_ID, message, path, hint)
        return False

    def _check_rule_set(self, rule_set: RuleSet, path: JsonPath) -> None:
        if id(rule_set) in self.reported:
            return
        self.reported.add(id(rule_set))
        total = rule_set.cost().total
        if total > self.run.limits.static_per_crd:
            self.findings.append(
                cost_findings.over_crd_limit(
                    total, self.run.limits, self.crd, self.subject, self.root_path
                )
            )

    def _outcome(
        self, compiled: CompiledRule, value: Json, node: CelNode, converted: list[celtypes.Value]
    ) -> tuple[str, str, int]:
        """``(verdict, text, cost)``: pass, fail with the finding's message, error with the
        problem, or stopped at the per-call limit."""
        self.meter.start_call()
        try:
            verdict, text = _evaluate(compiled, value, node, converted, self.meter)
        except CostExceeded as stop:
            if stop.scope != CALL:
                raise
            message = cost_findings.stopped_call(compiled, stop.cost, self.run.limits)
            return _STOPPED, message, stop.cost
        return verdict, text, self.meter.call

    def _report(
        self, compiled: CompiledRule, outcome: tuple[str, str, int], path: JsonPath
    ) -> None:
        verdict, text, _ = outcome
        if verdict == _FAIL:
            self._violation(compiled, text, path)
        elif verdict == _ERROR:
            self._add(
                Severity.WARNING,
                RULE_ID,
                f"CEL rule could not be evaluated: {text} (rule: {compiled.rule.rule}); "
                "the API server rejects the object if its evaluation fails too",
                path,
            )
        elif verdict in (_STOPPED, _UNEVALUATED):
            self._add(Severity.ERROR, cost_findings.RULE_ID, text, path)

    def _violation(self, compiled: CompiledRule, message: str, path: JsonPath) -> None:
        rule = compiled.rule
        where = path
        if rule.field_path is not None:
            relative = parse_field_path(rule.field_path)
            if relative is not None:
                where = (*path, *relative)
        hint = f"reason: {rule.reason}" if rule.reason else None
        self._add(Severity.ERROR, RULE_ID, message, where, hint)

    def _add(
        self, severity: Severity, rule: str, message: str, path: JsonPath, hint: str | None = None
    ) -> None:
        self.findings.append(
            Finding(severity, rule, message, self.subject, path, origin=ORIGIN, hint=hint)
        )

    def _note_skipped(self, compiled: CompiledRule) -> None:
        text = compiled.rule.rule
        if text not in self.run.skipped:
            self.run.skipped.add(text)
            log.info("CEL rule not evaluated (%s): %s", compiled.prepared().analysis.detail, text)


_PASS, _FAIL, _ERROR, _STOPPED = "pass", "fail", "error", "stopped"
_UNEVALUATED = "unevaluated"  # beyond the evaluator (too deep, out of memory): an error
_MEMO_LIMIT = 4096
_MEMO_MAX_KEY = 8192


def _memo_key(value: Json) -> MemoKey | None:
    """A hashable stand-in for ``value`` (None when it is too large or not JSON-like)."""
    if value is None or isinstance(value, (str, int, float)):
        return (type(value).__name__, value)
    try:
        text = json.dumps(value, sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError):
        return None
    return text if len(text) <= _MEMO_MAX_KEY else None


def _evaluate(
    compiled: CompiledRule,
    value: Json,
    node: CelNode,
    converted: list[celtypes.Value],
    meter: Meter,
) -> tuple[str, str]:
    """``(verdict, text)`` of one evaluation on ``meter``."""
    # lazy: cel-python loads only when a rule is evaluated
    from generator.cel.runtime import CelBeyondEvaluator, CelEvaluationError, is_bool, to_cel

    prepared = compiled.prepared()
    program = prepared.program
    assert program is not None
    if not converted:
        try:
            converted.append(to_cel(value, node.schema))
        except (TypeError, ValueError) as error:
            return _ERROR, str(error)
    try:
        result = program.evaluate(converted[0], meter)
    except CelBeyondEvaluator as error:
        return _UNEVALUATED, cost_findings.unevaluated(compiled, str(error))
    except CelEvaluationError as error:
        return _ERROR, str(error)
    if not is_bool(result):
        return _ERROR, f"the rule returned {type(result).__name__}, not a bool"
    if bool(result):
        return _PASS, ""
    return _FAIL, compiled.rule.failure_message(_message_from(compiled, converted[0], meter))


def _message_from(compiled: CompiledRule, converted: celtypes.Value, meter: Meter) -> str | None:
    # lazy: as above (already loaded by the evaluation)
    from generator.cel.runtime import CelEvaluationError

    program = compiled.prepared().message_program
    if program is None:
        return None
    try:
        result = program.evaluate(converted, meter)
    except CelEvaluationError as error:
        log.info("messageExpression %r failed: %s", compiled.rule.message_expression, error)
        return None
    if not isinstance(result, str):
        return None
    text = str(result).strip()
    return text if text and "\n" not in text and "\r" not in text else None


def _has_template(value: Json) -> bool:
    if isinstance(value, str):
        return "{{" in value
    if isinstance(value, dict):
        return any(_has_template(item) for item in value.values())
    if isinstance(value, list):
        return any(_has_template(item) for item in value)
    return False


_FIELD_PATH_STEP = re.compile(
    r"""\.(?P<name>[A-Za-z_$][A-Za-z0-9_$-]*)"""
    r"""|\[\s*'(?P<single>(?:[^'\\]|\\.)*)'\s*\]"""
    r"""|\[\s*"(?P<double>(?:[^"\\]|\\.)*)"\s*\]"""
    r"""|\[\s*(?P<index>\d+)\s*\]"""
)


def parse_field_path(text: str) -> tuple[PathPart, ...] | None:
    """``.spec.foo['a.b'][0]`` -> ``("spec", "foo", "a.b", 0)``; None if it is not such a path."""
    parts: list[PathPart] = []
    position = 0
    while position < len(text):
        match = _FIELD_PATH_STEP.match(text, position)
        if match is None:
            return None
        if match["name"] is not None:
            parts.append(match["name"])
        elif match["index"] is not None:
            parts.append(int(match["index"]))
        else:
            quoted = match["single"] if match["single"] is not None else match["double"]
            parts.append(re.sub(r"\\(.)", r"\1", quoted))
        position = match.end()
    return tuple(parts) if parts else None
