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
