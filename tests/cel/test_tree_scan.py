"""The scan that keeps the rule-tree builder out of rule-less subtrees changes no tree.

``TreeBuilder.reaches`` lets the builder skip every subtree in which no rule can sit; forcing it to
say yes everywhere gives the tree as it was built before the scan existed. Both must agree on
every shipped schema (built-in bundle and core kinds) and on recursive and shared ``$ref``s.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from generator.cel import tree as cel_tree
from generator.cel.tree import CelNode, build_tree
from generator.schemastore.store import SchemaStore

Described = Any


def describe(tree: CelNode | None, schema: Mapping[str, Any]) -> Described:
    """``tree`` as plain data: schema nodes named by their order in ``schema``, rules by text,
    place, enclosing nodes and cardinality, and the order in which the rule set holds them."""
    order: dict[int, int] = {}
    stack: list[Any] = [schema]
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            order.setdefault(id(item), len(order))
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))
    seen: dict[int, int] = {}

    def node(n: CelNode | None) -> Described:
        if n is None:
            return None
        if id(n) in seen:
            return ["seen", seen[id(n)]]
        seen[id(n)] = len(seen)
        rules = [
            (r.rule.rule, r.location, order[id(r.schema)], [order[id(e)] for e in r.enclosing])
            for r in n.rules
        ]
        properties = {name: node(child) for name, child in n.properties.items()}
        return [order[id(n.schema)], rules, properties, node(n.values), node(n.items)]

    if tree is None:
        return None
    assert tree.rule_set is not None
    ranked = [(r.rule.rule, r.location, r.cardinality) for r in tree.rule_set.rules]
    return [node(tree), ranked]


def built_both_ways(schema: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    scanned = describe(build_tree(schema), schema)
    with monkeypatch.context() as patched:
        patched.setattr(cel_tree.TreeBuilder, "reaches", lambda self, node: True)
        full = describe(build_tree(schema), schema)
    return scanned, full


def rule(text: str) -> list[dict[str, str]]:
    return [{"rule": text}]


RECURSIVE: dict[str, Any] = {
    "type": "object",
    "properties": {
        "plain": {"type": "object", "properties": {"deep": {"type": "string"}}},
        "tree": {"$ref": "#/$defs/Node"},
        "again": {"$ref": "#/$defs/Node"},
        "loop": {"$ref": "#/$defs/Loop"},
    },
    "$defs": {
        "Node": {
            "type": "object",
            "x-kubernetes-validations": rule("self.size() > 0"),
            "properties": {
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                "labels": {"type": "object", "additionalProperties": {"$ref": "#/$defs/Leaf"}},
            },
        },
        "Leaf": {"type": "string", "x-kubernetes-validations": rule("self != ''")},
        # A cycle with no rule anywhere: nothing is built for it.
        "Loop": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Loop"}}},
    },
}
DEEP_ONLY: dict[str, Any] = {
    "type": "object",
    "properties": {
        "wide": {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(50)}},
        "spec": {
            "type": "object",
            "properties": {
                "list": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "name": {"type": "string", "x-kubernetes-validations": rule("true")}
                        },
                    },
                }
            },
        },
    },
}


@pytest.mark.parametrize("schema", [RECURSIVE, DEEP_ONLY], ids=["recursive", "deep-only"])
def test_the_scan_changes_no_tree_of_synthetic_schemas(
    schema: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    scanned, full = built_both_ways(schema, monkeypatch)
    assert scanned == full
    assert scanned is not None


def test_a_schema_without_rules_is_scanned_not_built(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[int] = []
    original = cel_tree.TreeBuilder.build_node

    def counting(self: Any, node: Any, path: str, enclosing: Any) -> Any:
        built.append(id(node))
        return original(self, node, path, enclosing)

    monkeypatch.setattr(cel_tree.TreeBuilder, "build_node", counting)
    assert build_tree(DEEP_ONLY["properties"]["wide"]) is None
    assert built == [id(DEEP_ONLY["properties"]["wide"])]  # the root only, none of its 50
    assert build_tree(DEEP_ONLY) is not None
    assert len(built) == 1 + 5  # root, spec, list, its items, name: the way to the one rule
    # A cycle counts as "maybe" for the scan; the builder's own guard settles it.
    assert build_tree({"$ref": "#/$defs/Loop", "$defs": RECURSIVE["$defs"]}) is None


def test_the_scan_changes_no_tree_of_the_shipped_schemas(monkeypatch: pytest.MonkeyPatch) -> None:
    with_rules = 0
    for gvk, _source, schema in SchemaStore.from_search_path().effective_schemas():
        scanned, full = built_both_ways(schema, monkeypatch)
        assert scanned == full, str(gvk)
        with_rules += scanned is not None
    assert with_rules >= 5  # Cluster API's kinds among them carry rules


def test_a_store_handle_has_its_tree_built_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each batch of ``validate`` asks for the trees of its kinds again: a schema handle of the
    store must be weak-referenceable, or the tree is built anew every time (it was, 8 ms of a
    thousand-cluster run at ``-j 1``)."""
    built: list[int] = []
    original = cel_tree.build_tree

    def counting(schema: Any, cache_folder: Any = None) -> Any:
        built.append(id(schema))
        return original(schema, cache_folder)

    monkeypatch.setattr(cel_tree, "build_tree", counting)
    handle = SchemaStore.from_search_path().lookup("cluster.x-k8s.io/v1beta2", "Cluster")
    assert handle is not None
    tree = cel_tree.tree_for(handle)
    assert tree is not None
    assert cel_tree.tree_for(handle) is tree
    assert built == [id(handle.schema)]
