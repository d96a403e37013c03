"""The parsed form of a CEL expression, named once for the modules that walk it.

cel-python's Lark grammar builds trees whose leaves are Lark tokens; naming that type here lets the
parser, the AST cache, the analysis, the cost estimate and the evaluator say "a CEL parse tree"
rather than an untyped ``lark.Tree``.
"""

from __future__ import annotations

from typing import TypeAlias

import lark

Ast: TypeAlias = "lark.Tree[lark.Token]"
AstNode: TypeAlias = "lark.Tree[lark.Token] | lark.Token"


def subtree(node: AstNode) -> Ast:
    """``node`` where the grammar puts an expression (an operand, a macro's predicate).

    The grammar never puts a token there; one would be a parser defect, reported as an error
    rather than walked."""
    if isinstance(node, lark.Tree):
        return node
    msg = f"expected a CEL expression, found the token {node!r}"
    raise TypeError(msg)


# Levels of the grammar that cel-go's parser does not count as nesting: wrappers around the
# operator node below them (``addition`` around ``addition_add`` ...) and argument lists.
_UNCOUNTED = frozenset({"primary", "exprlist", "addition", "multiplication", "relation", "unary"})


def nesting_depth(tree: Ast, limit: int) -> int:
    """The nesting of ``tree`` as cel-go's parser counts it (one level per operator, call,
    selection, index, parenthesis or literal inside another), measured without recursion so any
    tree can be measured; the count stops just past ``limit``."""
    deepest = 0
    stack: list[tuple[Ast, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if node.data not in _UNCOUNTED:
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    return deepest
        stack.extend((child, depth) for child in node.children if isinstance(child, lark.Tree))
    return deepest
