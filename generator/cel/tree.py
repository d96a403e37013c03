"""Where the CEL rules of a converted schema are: a pruned copy of the schema tree.

Objects are walked along this tree only, so a kind whose schema has no rule costs nothing and one
with a few rules deep inside (Cluster's ``machineHealthCheck`` conditions) costs a few dict
lookups per object. The tree follows the structural keywords Kubernetes attaches rules to:
``properties``, ``additionalProperties`` (map values) and ``items``; local ``$ref``s
(``#/$defs/...``, used by bundled core schemas) are followed with a guard against recursion.

Building the tree needs no CEL machinery: each rule is only located (its schema path, and how many
times it can run in one object, which the API server's cost limit multiplies its cost by). The
rules of a schema are parsed, analysed and estimated together (:mod:`generator.cel.prepare`) when
the first of them is about to be evaluated, so neither cel-python nor its parser is loaded for
objects none of whose rules apply. Each tree is built once per schema object.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from generator.cel.rules import VALIDATIONS, CelRule, rules_of
from generator.cel.shapes import Shape, cardinality_step
from generator.findings import format_path
from generator.jsontypes import Json

if TYPE_CHECKING:
    from generator.cel.prepare import Prepared, RuleSetCost

# How a schema node leads to a child: through a named property, to every map value
# (``additionalProperties``) or to every list item (``items``).
PROPERTY = "property"
VALUES = "values"
ITEMS = "items"

# A value's hashable stand-in for the outcome memo: ``(type name, scalar)`` or its canonical JSON.
MemoKey: TypeAlias = "tuple[str, str | int | float | None] | str"


@dataclass(eq=False)
class CompiledRule:
    """A rule where it sits in the schema; :meth:`prepared` parses, analyses and estimates it.

    ``location`` is the rule's place as an object path (``spec.items[*].name``); ``enclosing``
    the lists and maps around it, whose sizes multiply into :attr:`cardinality`.
    """

    rule: CelRule
    schema: Mapping[str, Json]
    location: str
    enclosing: tuple[Mapping[str, Json], ...]
    rule_set: RuleSet = field(repr=False)
    # Outcomes by value (CEL is pure: the result depends on ``self`` only). Filled by
    # generator.cel.validate; 1,000 clusters repeat the same few values.
    memo: dict[MemoKey, tuple[str, str, int]] = field(default_factory=dict, repr=False)

    @property
    def cardinality(self) -> int:
        """The most times the rule runs in one object, as the API server bounds it."""
        total = 1
        for node in self.enclosing:
            total *= cardinality_step(Shape(node, self.rule_set.root))
        return total

    def prepared(self) -> Prepared:
        """The rule's analysis, programs and cost estimate (its whole schema's, on first use)."""
        return self.rule_set.prepared()[id(self)]


class RuleSet:
    """All rules of one schema, prepared together on first use (see the module docstring)."""

    def __init__(self, root: Mapping[str, Json], cache_folder: Path | None) -> None:
        self.root = root
        self.cache_folder = cache_folder
        self.rules: list[CompiledRule] = []
        self._prepared: dict[int, Prepared] | None = None
        self._cost: RuleSetCost | None = None

    def prepared(self) -> dict[int, Prepared]:
        """Every rule's preparation, by ``id`` of its :class:`CompiledRule`."""
        if self._prepared is None:
            # lazy: cel-python, its parser and the estimator load only when a rule is evaluated
            from generator.cel.prepare import prepare_rules

            self._prepared, self._cost = prepare_rules(self.rules, self.root, self.cache_folder)
        return self._prepared

    def cost(self) -> RuleSetCost:
        """The estimated cost of the whole schema's rules (prepares them)."""
        self.prepared()
        assert self._cost is not None
        return self._cost


@dataclass(eq=False)
class CelNode:
    """One schema node on the way to a rule: its own rules and the children that lead to more.

    ``schema`` is the schema node that types ``self`` for the rules. Children with no rule
    underneath are left out, so a missing child means there is nothing to check below it.
    """

    schema: Mapping[str, Json]
    rules: tuple[CompiledRule, ...] = ()
    properties: dict[str, CelNode] = field(default_factory=dict)
    values: CelNode | None = None  # additionalProperties
    items: CelNode | None = None
    rule_set: RuleSet | None = field(default=None, repr=False)


def children(node: Mapping[str, Json]) -> Iterator[tuple[str, str, Json]]:
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


def resolve_ref(node: Mapping[str, Json], root: Mapping[str, Json]) -> Mapping[str, Json] | None:
    """The target of a local ``$ref`` (``#/$defs/X`` or ``#/definitions/X``), if any."""
    ref = node.get("$ref")
    if not isinstance(ref, str) or not ref.startswith("#/"):
        return None
    target: Json = root
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(target, Mapping) or part not in target:
            return None
        target = target[part]
    return target if isinstance(target, Mapping) else None


def step_path(path: str, step: str, name: str) -> str:
    """``path`` one step down, as ``capzgen schemas list --cel`` and findings name places."""
    if step == VALUES:
        return f"{path}.*" if path else "*"
    if step == ITEMS:
        return f"{path}[*]"
    text = format_path((name,))
    if text.startswith("["):
        return f"{path}{text}"
    return f"{path}.{text}" if path else text


class TreeBuilder:
    """Builds the CEL tree of one schema, descending only where a rule can sit."""

    def __init__(self, root: Mapping[str, Json], cache_folder: Path | None) -> None:
        self.root = root
        self.rule_set = RuleSet(root, cache_folder)
        self.done: dict[int, CelNode | None] = {}
        self.active: set[int] = set()
        self.reach: dict[int, bool] = {}  # node id -> whether a rule may lie at or below it

    def reaches(self, node: Json) -> bool:
        """Whether a rule may sit at or below ``node`` (through children and local ``$ref``s).

        Most schemas carry no rule, or a few deep inside; building a :class:`CelNode` (and a
        path) for every node only to drop it costs several times this plain scan, so
        :meth:`build_node` descends only where this says yes. A node met again below itself (a
        recursive schema) counts as yes, and so does a mapping that is not a dict: the builder
        then decides, as it did before this scan existed, so the tree is the same. A no is
        exact, a yes at worst a wasted build.
        """
        if type(node) is not dict:  # JSON schemas are dicts
            return node is not None and isinstance(node, Mapping)
        reach = self.reach
        key = id(node)
        if key in reach:
            return reach[key]
        reach[key] = True  # until decided: what meets this node again below it says yes
        found = bool(node.get(VALIDATIONS))
        if not found:
            properties = node.get("properties")
            if type(properties) is dict:
                found = any(map(self.reaches, properties.values()))
            else:
                found = self.reaches(properties)
        found = found or self.reaches(node.get("additionalProperties"))
        found = found or self.reaches(node.get("items"))
        if not found and "$ref" in node:
            found = self.reaches(resolve_ref(node, self.root))
        reach[key] = found
        return found

    def build(
        self, node: Json, path: str = "", enclosing: tuple[Mapping[str, Json], ...] = ()
    ) -> CelNode | None:
        """The tree below ``node``, once per node (a node met again below itself is None)."""
        if not isinstance(node, Mapping):
            return None
        key = id(node)
        if key in self.done:
            return self.done[key]
        if key in self.active:  # a recursive schema: the inner occurrence adds nothing new
            return None
        self.active.add(key)
        try:
            result = self.build_node(node, path, enclosing)
        finally:
            self.active.discard(key)
        self.done[key] = result
        return result

    def build_node(
        self, node: Mapping[str, Json], path: str, enclosing: tuple[Mapping[str, Json], ...]
    ) -> CelNode | None:
        """One node's rules and the children that lead to more (None when there are none)."""
        rules = tuple(self._locate(rule, node, path, enclosing) for rule in rules_of(node))
        out = CelNode(schema=node, rules=rules)
        for step, name, sub in children(node):
            if not self.reaches(sub):
                continue
            inner = enclosing if step == PROPERTY else (*enclosing, node)
            child = self.build(sub, step_path(path, step, name), inner)
            if child is None:
                continue
            if step == VALUES:
                out.values = child
            elif step == ITEMS:
                out.items = child
            else:
                out.properties[name] = child
        target = resolve_ref(node, self.root)
        if target is not None and self.reaches(target):
            referenced = self.build(target, path, enclosing)
            if referenced is not None:
                out = _merge(out, referenced)
        if not (out.rules or out.properties or out.values or out.items):
            return None
        return out

    def _locate(
        self,
        rule: CelRule,
        node: Mapping[str, Json],
        path: str,
        enclosing: tuple[Mapping[str, Json], ...],
    ) -> CompiledRule:
        compiled = CompiledRule(rule, node, path, enclosing, self.rule_set)
        self.rule_set.rules.append(compiled)
        return compiled


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


def build_tree(schema: Mapping[str, Json], cache_folder: Path | None = None) -> CelNode | None:
    """The rule tree of a whole converted schema; None when it carries no rule at all."""
    builder = TreeBuilder(schema, cache_folder)
    tree = builder.build(schema)
    if tree is not None:
        tree.rule_set = builder.rule_set
    return tree


_TREES: weakref.WeakKeyDictionary[object, CelNode | None] = weakref.WeakKeyDictionary()


def tree_for(handle: object, cache_folder: Path | None = None) -> CelNode | None:
    """The rule tree of a schema handle (anything with a ``schema`` dict), built once per handle.

    ``cache_folder`` is where parse trees of the schema's rules may be kept between runs.
    """
    schema = getattr(handle, "schema", None)
    if not isinstance(schema, Mapping):
        return None
    try:
        return _TREES[handle]
    except KeyError:
        pass
    except TypeError:  # not weak-referenceable or not hashable: build without caching
        return build_tree(schema, cache_folder)
    tree = build_tree(schema, cache_folder)
    with contextlib.suppress(TypeError):
        _TREES[handle] = tree
    return tree
