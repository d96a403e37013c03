"""The parse-tree vocabulary: operands are subtrees, and a token where one belongs is a defect."""

from __future__ import annotations

import lark
import pytest

from generator.cel.runtime import parse
from generator.cel.syntax import subtree


def test_a_subtree_is_handed_back_as_it_is() -> None:
    tree = parse("self.a && self.b")
    operand = tree.children[0]
    assert subtree(operand) is operand


def test_a_token_where_an_expression_belongs_is_refused() -> None:
    with pytest.raises(TypeError, match="expected a CEL expression, found the token"):
        subtree(lark.Token("IDENT", "self"))
