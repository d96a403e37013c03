"""The parsed form of a template: literal text and ``${...}`` expressions.

An expression keeps its operator exactly as drone/envsubst names it (``""`` for plain ``${A}``,
``":="``, ``"//"``, ``"#"`` ...) because evaluation and variable inspection both dispatch on it,
and its offsets so that evaluation-time problems can point at the template.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Text:
    """Literal text, with ``$$`` (and, in replace arguments, ``\\/`` ``\\\\``) already unescaped."""

    value: str


@dataclass(frozen=True, slots=True)
class Expr:
    """``${name<op>args}``; each argument is one text run or one nested expression."""

    op: str
    name: str
    args: tuple[Text | Expr, ...]
    start: int  # offset of the "$" in the parsed text
    end: int  # offset just after the closing "}"


Node = Text | Expr
