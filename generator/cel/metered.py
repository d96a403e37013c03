"""cel-python's interpreter with cel-go's run-time cost tracking and short-circuit evaluation.

cel-go charges each step of an evaluation (``interpreter/runtimecost.go``) and the API server
stops an evaluation past its limits (:mod:`generator.cel.limits`). This evaluator charges the same
steps on a :class:`~generator.cel.limits.Meter`:

* an identifier or a field selection: 1; a constant: 0; ``has()``: 1;
* a function, method or operator call: 1, except the ones whose work grows with their operands:
  string comparison and equality ``ceil(0.1 * min(sizes))``, string concatenation
  ``ceil(0.1 * (a + b))``, ``startsWith``/``endsWith`` ``ceil(0.1 * size)``, ``contains``
  ``ceil(0.1 * size) * ceil(0.1 * size(sub))``, ``matches`` ``ceil(0.1 * (1 + size)) *
  ceil(0.25 * size(regex))``, ``in`` a list: the list's size; the Kubernetes string and list
  library functions one plus a traversal of their receiver;
* a list literal 10, a map literal 30;
* each iteration of a macro its loop overhead (``all``/``exists`` 3, ``exists_one`` 2, ``map`` 12,
  ``filter`` 13, as the macros expand in cel-go) on top of the predicate's own cost.

cel-go also stops early where the result is known: ``false && x``, ``true || x`` and an ``all``
that met a false item or an ``exists`` that met a true one. cel-python evaluates both sides and
every item; that gives the same results (CEL's logic absorbs errors the same way) but not the same
cost, so the short-circuits are restored here, which also makes evaluation faster.
"""

from __future__ import annotations

import contextvars
import functools
from collections.abc import Iterable, Mapping
from typing import Any

import lark
from celpy import celtypes, googleapis
from celpy.evaluation import (
    Activation,
    CELEvalError,
    CELFunction,
    Context,
    Evaluator,
    Result,
    Result_Function,
    base_functions,
)

from generator.cel.charges import ITERATION_COST, LIST_LITERAL_COST, MAP_LITERAL_COST, call_cost
from generator.cel.extensions import EXTENSIONS
from generator.cel.limits import Meter
from generator.cel.syntax import Ast, subtree

_METER: contextvars.ContextVar[Meter | None] = contextvars.ContextVar("capzgen_cel_meter")

_FREE = frozenset({"_&&_", "_||_", "_?_:_"})  # their cost is their operands'


def _metered(name: str, function: CELFunction) -> CELFunction:
    @functools.wraps(function)
    def call(*args: Result) -> Result:
        meter = _METER.get(None)
        if meter is not None:
            meter.charge(call_cost(name, args))
        return function(*args)

    return call


@functools.lru_cache(maxsize=1)
def metered_functions() -> Mapping[str, CELFunction]:
    """cel-python's functions and capzgen's extensions, each charging its call on the meter."""
    every = {**base_functions, **EXTENSIONS}
    # Types (``int``, ``double`` ...) stay themselves: names resolve to them in ``type(x) == int``.
    return {
        name: function if name in _FREE or isinstance(function, type) else _metered(name, function)
        for name, function in every.items()
    }


class MeteredEvaluator(Evaluator):
    """cel-python's evaluator charging cel-go's costs, with cel-go's short-circuits."""

    def __init__(
        self,
        ast: Ast,
        activation: Activation,
        meter: Meter,
        scope: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(ast, activation)
        self.meter = meter
        self.loop_cost = 0  # charged by each evaluate(): the overhead of one macro iteration
        self._macro_loop_cost = 0  # the loop cost of the macro being evaluated
        # Variables (``self``, macro variables) by name: cel-python's own name resolution costs
        # tens of microseconds per identifier, and cloning its activation per item more. (Any:
        # they arrive as cel-python's ``Context``, which also admits name containers, so no
        # narrower type fits both evaluate() and ident_value().)
        self._outer: Mapping[str, Any] = scope or {}
        self._vars: Mapping[str, Any] = self._outer

    def sub_evaluator(self, ast: Ast) -> Evaluator:
        """The evaluator of a macro's predicate: one evaluate() per item."""
        nested = MeteredEvaluator(ast, self.activation, self.meter, self._vars)
        nested.loop_cost = self._macro_loop_cost
        return nested

    def evaluate(self, context: Context | None = None) -> Any:
        """Evaluate with ``context``'s variables added to the enclosing ones (charging the loop
        overhead when this evaluates one item of a macro).

        As cel-python's, the result is a value or a type (``type(x)``), never an error."""
        if self.loop_cost:
            self.meter.charge(self.loop_cost)
        self._vars = {**self._outer, **context} if context else self._outer
        value: Result = self.visit(self.ast)
        if isinstance(value, CELEvalError):
            raise value
        return value

    def ident_value(self, name: str, root_scope: bool = False) -> Result_Function:
        """An identifier: 1."""
        self.meter.charge(1)
        found: Result_Function
        found = self._vars[name] if name in self._vars else super().ident_value(name, root_scope)
        return found

    def relation(self, tree: Ast) -> Result:
        """Comparisons and ``in``, without cel-python's per-call cast to a subscripted type.

        (Levels with one child are gone from streamlined trees, see
        :func:`generator.cel.runtime.parse`; cel-python handles any that are left.)
        """
        operator_tree, right_tree = tree.children if len(tree.children) == 2 else (None, None)
        operator = operator_tree if isinstance(operator_tree, lark.Tree) else None
        name = _RELATIONS.get(operator.data) if operator is not None else None
        if operator is None or name is None or not isinstance(right_tree, lark.Tree):
            plain: Result = super().relation(tree)
            return plain
        left: Result = self.visit(subtree(operator.children[0]))
        right: Result = self.visit(right_tree)
        function = self.activation.resolve_function(name)
        try:
            return function(left, right)
        except TypeError as error:
            message = (
                f"found no matching overload for {operator.data!r} "
                f"applied to '({type(left)}, {type(right)})'"
            )
            value = CELEvalError(message, error.__class__, error.args, tree=tree)
            value.__cause__ = error
            return value

    def member_dot(self, tree: Ast) -> Result:
        """A field selection: 1."""
        self.meter.charge(1)
        value: Result = super().member_dot(tree)
        return value

    def macro_has_eval(self, exprlist: Ast) -> celtypes.BoolType:
        """``has()``: 1."""
        self.meter.charge(1)
        present: celtypes.BoolType = super().macro_has_eval(exprlist)
        return present

    def primary(self, tree: Ast) -> Result:
        """List and map literals cost their construction."""
        child = tree.children[0] if len(tree.children) == 1 else None
        if isinstance(child, lark.Tree):
            if child.data == "list_lit":
                self.meter.charge(LIST_LITERAL_COST)
            elif child.data == "map_lit":
                self.meter.charge(MAP_LITERAL_COST)
        value: Result = super().primary(tree)
        return value

    def literal(self, tree: Ast) -> Result:
        """A constant: 0, and converted once (CEL values are immutable)."""
        value: Result = getattr(tree, _LITERAL, _UNSET)
        if value is _UNSET:
            value = super().literal(tree)
            if not isinstance(value, CELEvalError):
                setattr(tree, _LITERAL, value)
        return value

    def conditionaland(self, tree: Ast) -> Result:
        """``a && b``: ``b`` is not evaluated when ``a`` is false."""
        return self._logical(tree, "_&&_", stop_at=False)

    def conditionalor(self, tree: Ast) -> Result:
        """``a || b``: ``b`` is not evaluated when ``a`` is true."""
        return self._logical(tree, "_||_", stop_at=True)

    def _logical(self, tree: Ast, operator: str, *, stop_at: bool) -> Result:
        left: Result = self.visit(subtree(tree.children[0]))
        if len(tree.children) != 2:
            return left
        if isinstance(left, celtypes.BoolType) and bool(left) is stop_at:
            return left
        right: Result = self.visit(subtree(tree.children[1]))
        return _combine(operator, left, right, tree)

    def member_dot_arg(self, tree: Ast) -> Result:
        """Macros charge their loop overhead per item; ``all``/``exists`` stop early."""
        name = tree.children[1]
        macro = str(name.value) if isinstance(name, lark.Token) else ""
        outer, self._macro_loop_cost = self._macro_loop_cost, ITERATION_COST.get(macro, 0)
        try:
            if macro in ("all", "exists"):
                return self._quantifier(tree, stop_at=macro == "exists")
            value: Result = super().member_dot_arg(tree)
            return value
        finally:
            self._macro_loop_cost = outer

    def _quantifier(self, tree: Ast, *, stop_at: bool) -> Result:
        items: Result = self.visit(subtree(tree.children[0]))
        if isinstance(items, CELEvalError):
            return items
        predicate = self.build_ss_macro_eval(tree)
        operator = "_||_" if stop_at else "_&&_"
        result: Result = celtypes.BoolType(not stop_at)
        for item in _iterable(items):
            result = _combine(operator, result, predicate(item), tree)
            if isinstance(result, celtypes.BoolType) and bool(result) is stop_at:
                break
        return result


_LITERAL = "capzgen_literal"  # where a literal node keeps its converted value
_UNSET = CELEvalError("unset")  # never kept by a literal (errors are not), so it marks "not yet"
_RELATIONS = {
    "relation_lt": "_<_",
    "relation_le": "_<=_",
    "relation_ge": "_>=_",
    "relation_gt": "_>_",
    "relation_eq": "_==_",
    "relation_ne": "_!=_",
    "relation_in": "_in_",
}


def _iterable(items: Result) -> Iterable[celtypes.Value]:
    if isinstance(items, (list, dict)):
        return items
    msg = f"no such overload: cannot iterate over {type(items).__name__}"
    raise TypeError(msg)


def _combine(operator: str, left: Result, right: Result, tree: Ast) -> Result:
    function = base_functions[operator]
    try:
        return function(left, right)
    except TypeError as error:
        message = (
            f"found no matching overload for {operator} applied to '({type(left)}, {type(right)})'"
        )
        value = CELEvalError(message, error.__class__, error.args, tree=tree)
        value.__cause__ = error
        return value


def evaluate(
    tree: Ast,
    self_value: celtypes.Value,
    meter: Meter,
    old_value: celtypes.Value | None = None,
) -> Result:
    """The value (or type) of the expression ``tree`` for ``self`` (and ``oldSelf``, for a
    transition rule on an update), its cost charged on ``meter``; raises the
    :class:`CELEvalError` the expression gives."""
    activation = Activation(annotations=dict(googleapis), functions=dict(metered_functions()))
    variables = {"self": self_value}
    if old_value is not None:
        variables["oldSelf"] = old_value
    evaluator = MeteredEvaluator(tree, activation, meter, variables)
    token = _METER.set(meter)
    try:
        value: Result = evaluator.evaluate()
        return value
    finally:
        _METER.reset(token)
