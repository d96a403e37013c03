"""Where the CEL rules of a converted schema are: a pruned copy of the schema tree.

Objects are walked along this tree only, so a kind whose schema has no rule costs nothing and one
with a few rules deep inside (Cluster's ``machineHealthCheck`` conditions) costs a few dict
lookups per object. The tree follows the structural keywords Kubernetes attaches rules to:
``properties``, ``additionalProperties`` (map values) and ``items``; local ``$ref``s
(``#/$defs/...``, used by bundled core schemas) are followed with a guard against recursion.
Each rule is analysed and compiled once per process (:mod:`generator.cel.runtime` caches by text),
and each tree once per schema object.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from generator.cel.rules import Analysis, CelRule, analyze, rules_of
from generator.cel.runtime import CelSyntaxError, Program, compile_program

# How a schema node leads to a child: through a named property, to every map value
# (``additionalProperties``) or to every list item (``items``).
PROPERTY = "property"
VALUES = "values"
ITEMS = "items"


@dataclass(frozen=True, eq=False)
class CompiledRule:
    """A rule ready to run: its analysis and, when evaluable, its compiled programs.

    ``program`` is None for a rule that is not evaluable; ``message_program`` is None unless the
    rule has a ``messageExpression`` that is evaluable too (the static ``message`` is used then).
    """

    rule: CelRule
    analysis: Analysis
    program: Program | None  # None unless evaluable
    message_program: Program | None = None  # messageExpression, when it is evaluable too
    # Outcomes by value (CEL is pure: the result depends on ``self`` only). Filled by
    # generator.cel.validate; 1,000 clusters repeat the same few values.
    memo: dict[Any, tuple[str, str]] = field(default_factory=dict, repr=False)


@dataclass(eq=False)
class CelNode:
    """One schema node on the way to a rule: its own rules and the children that lead to more.

    ``schema`` is the schema node that types ``self`` for the rules. Children with no rule
    underneath are left out, so a missing child means there is nothing to check below it.
    """

    schema: Mapping[str, Any]
    rules: tuple[CompiledRule, ...] = ()
    properties: dict[str, CelNode] = field(default_factory=dict)
    values: CelNode | None = None  # additionalProperties
    items: CelNode | None = None


def compile_rule(rule: CelRule) -> CompiledRule:
    """Analyse ``rule`` and compile it (and its ``messageExpression``) when it can be evaluated."""
    analysis = analyze(rule.rule)
    if not analysis.evaluable:
        return CompiledRule(rule, analysis, None)
    message_program = None
    if rule.message_expression is not None and analyze(rule.message_expression).evaluable:
        message_program = _program(rule.message_expression)
    return CompiledRule(rule, analysis, _program(rule.rule), message_program)


def _program(expression: str) -> Program | None:
    try:
        return compile_program(expression)
    except CelSyntaxError:  # pragma: no cover - analyze() parsed it already
        return None


def children(node: Mapping[str, Any]) -> Iterator[tuple[str, str, Any]]:
    """The structural sub-schemas of ``node``: ``(step, property name or "", sub-schema)``."""
    properties = node.get("properties")
    if isinstance(properties, Mapping):
        for name, sub in properties.items():
            yield PROPERTY, str(name), sub
    additional = node.get("additionalProperties")
    if isinstance(additional, Mapping):
        yield VALUES, "", additional
    items = node.get("items")
    if isinstance(items, Mapping):
        yield ITEMS, "", items


def resolve_ref(node: Mapping[str, Any], root: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The target of a local ``$ref`` (``#/$defs/X`` or ``#/definitions/X``), if any."""
    ref = node.get("$ref")
    if not isinstance(ref, str) or not ref.startswith("#/"):
        return None
    target: Any = root
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(target, Mapping) or part not in target:
            return None
        target = target[part]
    return target if isinstance(target, Mapping) else None


class _Builder:
    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self.done: dict[int, CelNode | None] = {}
        self.active: set[int] = set()

    def build(self, node: Any) -> CelNode | None:
        if not isinstance(node, Mapping):
            return None
        key = id(node)
        if key in self.done:
            return self.done[key]
        if key in self.active:  # a recursive schema: the inner occurrence adds nothing new
            return None
        self.active.add(key)
        try:
            result = self._build(node)
        finally:
            self.active.discard(key)
        self.done[key] = result
        return result

    def _build(self, node: Mapping[str, Any]) -> CelNode | None:
        out = CelNode(schema=node, rules=tuple(compile_rule(r) for r in rules_of(node)))
        for step, name, sub in children(node):
            child = self.build(sub)
            if child is None:
                continue
            if step == VALUES:
                out.values = child
            elif step == ITEMS:
                out.items = child
            else:
                out.properties[name] = child
        target = resolve_ref(node, self.root)
        if target is not None:
            referenced = self.build(target)
            if referenced is not None:
                out = _merge(out, referenced)
        if not (out.rules or out.properties or out.values or out.items):
            return None
        return out


def _merge(own: CelNode, other: CelNode) -> CelNode:
    properties = dict(other.properties)
    for name, child in own.properties.items():
        properties[name] = _merge(child, properties[name]) if name in properties else child
    return CelNode(
        schema=own.schema if own.schema.get("type") else other.schema,
        rules=own.rules + other.rules,
        properties=properties,
        values=_merge_optional(own.values, other.values),
        items=_merge_optional(own.items, other.items),
    )


def _merge_optional(a: CelNode | None, b: CelNode | None) -> CelNode | None:
    if a is None:
        return b
    if b is None:
        return a
    return _merge(a, b)


def build_tree(schema: Mapping[str, Any]) -> CelNode | None:
    """The rule tree of a whole converted schema; None when it carries no rule at all."""
    return _Builder(schema).build(schema)


_TREES: weakref.WeakKeyDictionary[Any, CelNode | None] = weakref.WeakKeyDictionary()


def tree_for(handle: Any) -> CelNode | None:
    """The rule tree of a schema handle (anything with a ``schema`` dict), built once per handle."""
    schema = getattr(handle, "schema", None)
    if not isinstance(schema, Mapping):
        return None
    try:
        return _TREES[handle]
    except KeyError:
        pass
    except TypeError:  # not weak-referenceable or not hashable: build without caching
        return build_tree(schema)
    tree = build_tree(schema)
    with contextlib.suppress(TypeError):
        _TREES[handle] = tree
    return tree
