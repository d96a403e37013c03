"""A worst-case cost estimate of one CEL rule, from its parse tree and the schema of ``self``.

This is capzgen's counterpart of cel-go's ``checker/cost.go`` as the API server uses it when a
CRD is written: every step is charged as :mod:`generator.cel.metered` charges it at run time, with
every list, map and string at the largest size the schema allows (:mod:`generator.cel.shapes`);
a macro costs its range plus, per element, its loop overhead and its predicate. The estimate is
an upper bound of what the meter counts for any value the schema accepts, so a rule estimated
under the per-call limit cannot be stopped by it.

The walk works on the ``lark`` tree cel-python parses (``expr``, ``conditionalor`` ...,
``member_dot_arg``, ``primary``); nodes it does not know cost 1 plus their children.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

import lark

from generator.cel.charges import (
    ITERATION_COST,
    LIST_LITERAL_COST,
    MAP_LITERAL_COST,
    REGEX_FACTOR,
    TRAVERSING,
    traversal,
)
from generator.cel.shapes import Shape
from generator.cel.syntax import Ast, AstNode, subtree
from generator.jsontypes import Json

MACROS = frozenset(ITERATION_COST)
_LIST_RESULT = frozenset({"split", "findAll"})
_STRING_RESULT = frozenset(
    {"lowerAscii", "upperAscii", "replace", "substring", "trim", "join", "find", "string"}
)
_COMPARISONS = frozenset(
    {"relation_lt", "relation_le", "relation_gt", "relation_ge", "relation_eq", "relation_ne"}
)


class ValueShape(Protocol):
    """What the estimator needs to know of a value: its kind and its largest sizes."""

    @property
    def kind(self) -> str:
        """``list``, ``map``, ``object``, ``string``, ``scalar`` or ``dyn``."""
        ...

    def max_size(self) -> int:
        """Elements, entries or characters at most."""
        ...

    def element(self) -> ValueShape:
        """A list's items, a map's values."""
        ...

    def key(self) -> ValueShape:
        """A map's keys."""
        ...

    def field(self, name: str) -> ValueShape:
        """An object's property."""
        ...


@dataclass(eq=False)
class Computed:
    """The shape of a value an expression builds (a literal, a ``map()`` result ...)."""

    kind: str
    size: int = 1
    items: ValueShape | None = None

    def max_size(self) -> int:
        """The size the expression gives it."""
        return self.size

    def element(self) -> ValueShape:
        """What it holds (unknown when it holds nothing known)."""
        return self.items if self.items is not None else UNKNOWN

    def key(self) -> ValueShape:
        """Keys of a built map: strings as large as a request."""
        return Shape({"type": "string"})

    def field(self, name: str) -> ValueShape:
        """A built map's entry."""
        return self.element()


UNKNOWN: ValueShape = Shape({})
SCALAR: ValueShape = Computed("scalar")


@dataclass(frozen=True, slots=True)
class Estimate:
    """The cost of a sub-expression and the shape of its value."""

    cost: int
    shape: ValueShape = field(default=SCALAR)


def estimate_cost(tree: Ast, schema: Mapping[str, Json], root: Json = None) -> int:
    """The worst-case cost of the rule ``tree`` with ``self`` typed by ``schema``."""
    self_shape = Shape(schema, root if isinstance(root, Mapping) else {})
    return _Estimator({"self": self_shape, "oldSelf": self_shape}).visit(tree).cost


def _size(shape: ValueShape) -> int:
    return shape.max_size() if shape.kind in ("list", "map", "object", "string", "dyn") else 1


class _Estimator:
    def __init__(self, scope: dict[str, ValueShape]) -> None:
        self.scope = scope

    def visit(self, node: AstNode | None) -> Estimate:
        if not isinstance(node, lark.Tree):
            return Estimate(0)
        handler = _HANDLERS.get(str(node.data))
        if handler is not None:
            return handler(self, node)
        if len(node.children) == 1:
            return self.visit(node.children[0])
        return Estimate(1 + self.children_cost(node))

    def children_cost(self, node: Ast) -> int:
        return sum(self.visit(child).cost for child in node.children)

    def expr(self, node: Ast) -> Estimate:
        if len(node.children) != 3:
            return self.visit(node.children[0])
        condition, yes, no = (self.visit(child) for child in node.children)
        larger = yes if _size(yes.shape) >= _size(no.shape) else no
        return Estimate(condition.cost + max(yes.cost, no.cost), larger.shape)

    def logical(self, node: Ast) -> Estimate:
        if len(node.children) == 1:
            return self.visit(node.children[0])
        return Estimate(self.children_cost(node))

    def _operands(self, node: Ast) -> tuple[str, Estimate, Estimate, int]:
        """A binary node's operator, its two operands' estimates and their summed cost."""
        operator, right_tree = node.children
        operator_tree = subtree(operator)
        left = self.visit(operator_tree.children[0])
        right = self.visit(right_tree)
        return operator_tree.data, left, right, left.cost + right.cost

    def relation(self, node: Ast) -> Estimate:
        if len(node.children) == 1:
            return self.visit(node.children[0])
        operator, left, right, cost = self._operands(node)
        if operator in _COMPARISONS:
            return Estimate(cost + traversal(min(_size(left.shape), _size(right.shape))))
        in_list = right.shape.kind == "list"
        return Estimate(cost + (_size(right.shape) if in_list else 1))

    def addition(self, node: Ast) -> Estimate:
        if len(node.children) == 1:
            return self.visit(node.children[0])
        operator, left, right, cost = self._operands(node)
        size = _size(left.shape) + _size(right.shape)
        if left.shape.kind == "string" and operator == "addition_add":
            return Estimate(cost + traversal(size), Computed("string", size))
        if left.shape.kind == "list":
            return Estimate(cost + 1, Computed("list", size, left.shape.element()))
        return Estimate(cost + 1)

    def member_dot(self, node: Ast) -> Estimate:
        target = self.visit(node.children[0])
        return Estimate(target.cost + 1, target.shape.field(str(node.children[1])))

    def member_index(self, node: Ast) -> Estimate:
        target = self.visit(node.children[0])
        index = self.visit(node.children[1])
        shape = target.shape
        result = shape.element() if shape.kind in ("list", "map") else UNKNOWN
        return Estimate(target.cost + index.cost + 1, result)

    def member_dot_arg(self, node: Ast) -> Estimate:
        name = str(node.children[1])
        args = _arguments(node.children[2] if len(node.children) > 2 else None)
        if name in MACROS and len(args) == 2:
            return self.macro(name, node.children[0], args)
        target = self.visit(node.children[0])
        return self.call(name, [target, *(self.visit(arg) for arg in args)])

    def macro(self, name: str, range_tree: AstNode, args: list[AstNode]) -> Estimate:
        items = self.visit(range_tree)
        kind = items.shape.kind
        element = items.shape.element() if kind == "list" else items.shape.key()
        variable = _identifier(args[0])
        saved = self.scope.get(variable) if variable else None
        if variable:
            self.scope[variable] = element
        try:
            predicate = self.visit(args[1])
        finally:
            if variable and saved is not None:
                self.scope[variable] = saved
            elif variable:
                del self.scope[variable]
        count = _size(items.shape)
        cost = items.cost + count * (ITERATION_COST[name] + predicate.cost) + 1
        if name == "map":
            return Estimate(cost + LIST_LITERAL_COST, Computed("list", count, predicate.shape))
        if name == "filter":
            return Estimate(cost + LIST_LITERAL_COST, Computed("list", count, element))
        return Estimate(cost)

    def call(self, name: str, operands: list[Estimate]) -> Estimate:
        cost = sum(operand.cost for operand in operands)
        shapes = [operand.shape for operand in operands]
        return Estimate(cost + _call_cost(name, shapes), _result(name, shapes))

    def primary(self, node: Ast) -> Estimate:
        child = node.children[0]
        if not isinstance(child, lark.Tree):
            return Estimate(0)
        if child.data == "list_lit":
            elements = [self.visit(e) for e in _arguments(_first(child))]
            widest = max(elements, key=lambda e: _size(e.shape), default=Estimate(0))
            cost = LIST_LITERAL_COST + sum(e.cost for e in elements)
            return Estimate(cost, Computed("list", len(elements), widest.shape))
        if child.data == "map_lit":
            return Estimate(MAP_LITERAL_COST + self.children_cost(child), Computed("map"))
        return self.visit(child)

    def ident(self, node: Ast) -> Estimate:
        return Estimate(1, self.scope.get(str(node.children[0]), UNKNOWN))

    def ident_arg(self, node: Ast) -> Estimate:
        name = str(node.children[0])
        args = [self.visit(arg) for arg in _arguments(_first(node, 1))]
        if name == "has":
            return Estimate(1 + sum(arg.cost for arg in args))
        if name == "dyn" and len(args) == 1:
            return args[0]
        return self.call(name, args)

    def literal(self, node: Ast) -> Estimate:
        token = node.children[0]
        if isinstance(token, lark.Token) and "STRING" in str(token.type):
            return Estimate(0, Computed("string", max(len(str(token)) - 2, 0)))
        return Estimate(0)


def _call_cost(name: str, shapes: list[ValueShape]) -> int:
    """As :func:`generator.cel.charges.call_cost`, on the largest operands."""
    if not shapes:
        return 1
    receiver = _size(shapes[0])
    second = _size(shapes[1]) if len(shapes) > 1 else 1
    if name in ("startsWith", "endsWith"):
        return traversal(receiver)
    if name == "contains" and shapes[0].kind == "string":
        return traversal(receiver) * traversal(second)
    if name in ("matches", "find", "findAll") and len(shapes) > 1:
        return traversal(1 + receiver) * traversal(second, REGEX_FACTOR)
    if name in TRAVERSING or name == "min":
        return 1 + traversal(receiver) if shapes[0].kind == "string" else 1 + receiver
    return 1


def _result(name: str, shapes: list[ValueShape]) -> ValueShape:
    receiver = _size(shapes[0]) if shapes else 1
    if name in _LIST_RESULT:
        return Computed("list", receiver, Computed("string", receiver))
    if name in _STRING_RESULT:
        return Computed("string", receiver)
    if name == "charAt":
        return Computed("string", 4)
    return SCALAR


def _first(node: Ast, index: int = 0) -> AstNode | None:
    return node.children[index] if len(node.children) > index else None


def _arguments(exprlist: AstNode | None) -> list[AstNode]:
    if isinstance(exprlist, lark.Tree) and exprlist.data == "exprlist":
        return list(exprlist.children)
    return []


def _identifier(tree: AstNode) -> str | None:
    """The name when ``tree`` is nothing but an identifier (a macro's variable)."""
    node = tree
    while isinstance(node, lark.Tree) and len(node.children) == 1 and node.data != "ident":
        node = node.children[0]
    if isinstance(node, lark.Tree) and node.data == "ident":
        return str(node.children[0])
    return None


_HANDLERS: dict[str, Callable[[_Estimator, Ast], Estimate]] = {
    "expr": _Estimator.expr,
    "conditionalor": _Estimator.logical,
    "conditionaland": _Estimator.logical,
    "relation": _Estimator.relation,
    "addition": _Estimator.addition,
    "member_dot": _Estimator.member_dot,
    "member_index": _Estimator.member_index,
    "member_dot_arg": _Estimator.member_dot_arg,
    "primary": _Estimator.primary,
    "ident": _Estimator.ident,
    "dot_ident": _Estimator.ident,
    "ident_arg": _Estimator.ident_arg,
    "dot_ident_arg": _Estimator.ident_arg,
    "literal": _Estimator.literal,
}
