"""Parsing a small subset of Go's ``text/template``: what ClusterClass patch templates use.

CAPI renders ``valueFrom.template`` (and ``enabledIf``) with Go's ``text/template`` plus the sprig
functions. capzgen does not embed Go; it understands this subset and says so for anything else:

* text, ``{{ pipeline }}`` actions, ``{{/* comments */}}``, and ``{{-`` / ``-}}`` trimming;
* operands: ``.`` and field paths (``.builtin.cluster.name``, ``.myVar.field``), string
  literals (``"..."`` and raw ```...```), numbers, ``true``, ``false``, ``nil``, and a
  parenthesised pipeline;
* commands: an operand, or a function and its arguments; pipes (``a | f b`` calls ``f b a``);
  the functions are listed in :mod:`.goeval`;
* ``{{ if }}`` / ``{{ else if }}`` / ``{{ else }}`` / ``{{ end }}``, ``{{ range }}`` and
  ``{{ with }}`` (each with an optional ``{{ else }}``), without variable declarations.

Template variables (``$x``, ``:=``), ``define``/``template``/``block``, ``break``/``continue``,
character literals and method chains on parenthesised values raise :class:`Unsupported`: the
caller reports the patch as not checked. Text that Go itself refuses to parse (an unclosed action,
an ``end`` without a block, a block without ``end``) raises :class:`TemplateFailure`. Nesting is
bounded by :data:`MAX_NESTING`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from generator.jsontypes import Json

MAX_NESTING = 32  # blocks and parentheses inside one another


class Unsupported(Exception):
    """The template uses something outside the subset; ``what`` names it for the warning."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what


class TemplateFailure(Exception):
    """Go's ``text/template`` would refuse the template (parse or execution error)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


# --- the tree ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Operand:
    """One argument: ``kind`` is ``field`` (``value`` the path), ``dot``, ``literal``, ``function``
    (``value`` the name) or ``pipeline`` (``value`` a :class:`Pipeline`)."""

    kind: str
    value: Json = None


@dataclass(frozen=True, slots=True)
class Pipeline:
    """Commands joined by ``|``: each command's result is the last argument of the next."""

    commands: tuple[tuple[Operand, ...], ...]


@dataclass(slots=True)
class Block:
    """``if``/``range``/``with``: ``branches`` pairs a condition (None for ``else``) with its body;
    ``range`` and ``with`` have one condition and an optional ``else``."""

    keyword: str
    branches: list[tuple[Pipeline | None, list[Node]]] = field(default_factory=list)


Node = str | Pipeline | Block  # text, an action that prints, a block


# --- lexing --------------------------------------------------------------------------------------

_TOKEN = re.compile(
    r"""(?P<space>\s+)
    |(?P<close>-?}})
    |(?P<string>"(?:[^"\\\n]|\\.)*")
    |(?P<raw>`[^`]*`)
    |(?P<number>-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?(?![\w.]))
    |(?P<field>(?:\.[A-Za-z_]\w*)+|\.)
    |(?P<ident>[A-Za-z_]\w*)
    |(?P<punct>[|()])
    |(?P<other>\$\w*|:=|=|,|'|.)""",
    re.VERBOSE,
)
_TRIM_SPACE = " \t\r\n"
_UNSUPPORTED_WORDS = {
    "define": "define",
    "template": "template",
    "block": "block",
    "break": "break",
    "continue": "continue",
}


@dataclass(frozen=True, slots=True)
class _Action:
    tokens: tuple[tuple[str, str], ...]  # (group, text)
    trim_left: bool
    trim_right: bool
    comment: bool = False


def _lex_action(text: str, start: int) -> tuple[_Action, int]:
    """The action starting at ``start`` (just after ``{{``) and the position after its ``}}``."""
    trim_left = text.startswith("-", start) and text[start + 1 : start + 2] in tuple(_TRIM_SPACE)
    pos = start + 2 if trim_left else start
    if text.startswith("/*", pos):
        end = text.find("*/", pos + 2)
        close = re.compile(r"\s*(-?)}}").match(text, end + 2) if end != -1 else None
        if close is None:
            msg = "unclosed comment"
            raise TemplateFailure(msg)
        return _Action((), trim_left, close.group(1) == "-", comment=True), close.end()
    tokens: list[tuple[str, str]] = []
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        assert match is not None  # the last alternative matches any character
        group, value = match.lastgroup or "other", match.group()
        pos = match.end()
        if group == "close":
            trim_right = value.startswith("-")
            if trim_right and (not tokens or tokens[-1][0] != "space"):
                msg = "'-}}' needs a space before it"  # Go reads '-' as part of an operand
                raise Unsupported(msg)
            words = tuple(t for t in tokens if t[0] != "space")
            return _Action(words, trim_left, trim_right), pos
        tokens.append((group, value))
    msg = "unclosed action: '{{' without '}}'"
    raise TemplateFailure(msg)


def _lex(text: str) -> list[str | _Action]:
    """Text pieces and actions in order, trimming applied to the text."""
    items: list[str | _Action] = []
    pos = 0
    trim_next = False
    while True:
        start = text.find("{{", pos)
        piece = text[pos:] if start == -1 else text[pos:start]
        if trim_next:
            piece = piece.lstrip(_TRIM_SPACE)
        if start == -1:
            items.append(piece)
            return items
        action, pos = _lex_action(text, start + 2)
        if action.trim_left:
            piece = piece.rstrip(_TRIM_SPACE)
        items.append(piece)
        trim_next = action.trim_right
        if not action.comment:
            items.append(action)


# --- parsing -------------------------------------------------------------------------------------


def _literal(group: str, value: str) -> Operand:
    if group == "string":
        try:
            return Operand("literal", json.loads(value))
        except ValueError:
            msg = f"string escape in {value}"
            raise Unsupported(msg) from None
    if group == "raw":
        return Operand("literal", value[1:-1])
    is_float = any(c in value for c in ".eE")
    return Operand("literal", float(value) if is_float else int(value))


_WORDS = {"true": True, "false": False, "nil": None}


class _Parser:
    """Turns one action's tokens into a :class:`Pipeline`."""

    def __init__(self, tokens: tuple[tuple[str, str], ...]) -> None:
        self.tokens = tokens
        self.pos = 0
        self.depth = 0

    def pipeline(self) -> Pipeline:
        commands: list[tuple[Operand, ...]] = []
        while True:
            operands: list[Operand] = []
            while self.pos < len(self.tokens) and self.tokens[self.pos][1] not in ("|", ")"):
                operands.append(self.operand())
            if not operands:
                msg = "missing value for command"
                raise TemplateFailure(msg)
            commands.append(tuple(operands))
            if self.pos < len(self.tokens) and self.tokens[self.pos][1] == "|":
                self.pos += 1
                continue
            return Pipeline(tuple(commands))

    def operand(self) -> Operand:
        group, value = self.tokens[self.pos]
        self.pos += 1
        if group == "field":
            return Operand("dot") if value == "." else Operand("field", tuple(value[1:].split(".")))
        if group in ("string", "raw", "number"):
            return _literal(group, value)
        if group == "ident":
            return (
                Operand("literal", _WORDS[value]) if value in _WORDS else Operand("function", value)
            )
        if value == "(":
            return self.parenthesised()
        msg = f"{value!r}" + (" (template variables)" if value.startswith(("$", ":=")) else "")
        raise Unsupported(msg)

    def parenthesised(self) -> Operand:
        self.depth += 1
        if self.depth > MAX_NESTING:
            msg = f"parentheses nested deeper than {MAX_NESTING}"
            raise Unsupported(msg)
        inner = self.pipeline()
        if self.pos >= len(self.tokens) or self.tokens[self.pos][1] != ")":
            msg = "unclosed left paren"
            raise TemplateFailure(msg)
        self.pos += 1
        self.depth -= 1
        if self.pos < len(self.tokens) and self.tokens[self.pos][0] == "field":
            msg = "a field of a parenthesised value"
            raise Unsupported(msg)
        return Operand("pipeline", inner)

    def whole(self) -> Pipeline:
        result = self.pipeline()
        if self.pos != len(self.tokens):
            msg = f"unexpected {self.tokens[self.pos][1]!r} in command"
            raise TemplateFailure(msg)
        return result


def _pipeline(tokens: tuple[tuple[str, str], ...]) -> Pipeline:
    return _Parser(tokens).whole()


class _Tree:
    """The block stack while parsing: the innermost open body receives the next nodes."""

    def __init__(self) -> None:
        self.root: list[Node] = []
        self.open: list[Block] = []

    def body(self) -> list[Node]:
        return self.open[-1].branches[-1][1] if self.open else self.root

    def start(self, keyword: str, condition: Pipeline) -> None:
        if len(self.open) >= MAX_NESTING:
            msg = f"blocks nested deeper than {MAX_NESTING}"
            raise Unsupported(msg)
        block = Block(keyword, [(condition, [])])
        self.body().append(block)
        self.open.append(block)

    def otherwise(self, condition: Pipeline | None) -> None:
        if not self.open or self.open[-1].branches[-1][0] is None:
            msg = "unexpected {{else}}"
            raise TemplateFailure(msg)
        if condition is not None and self.open[-1].keyword != "if":
            msg = f"{{{{else if}}}} in {{{{{self.open[-1].keyword}}}}}"
            raise Unsupported(msg)
        self.open[-1].branches.append((condition, []))

    def end(self) -> None:
        if not self.open:
            msg = "unexpected {{end}}"
            raise TemplateFailure(msg)
        self.open.pop()


def _control(tree: _Tree, action: _Action) -> bool:
    """Apply ``action`` to ``tree`` if it is a control word; whether it was one."""
    word = action.tokens[0][1] if action.tokens and action.tokens[0][0] == "ident" else ""
    rest = action.tokens[1:]
    if word in ("if", "range", "with"):
        tree.start(word, _pipeline(rest))
    elif word == "else":
        is_if = bool(rest) and rest[0] == ("ident", "if")
        tree.otherwise(_pipeline(rest[1:]) if is_if else None)
        if rest and not is_if:
            msg = "{{else}} followed by something other than if"
            raise Unsupported(msg)
    elif word == "end":
        tree.end()
    elif word in _UNSUPPORTED_WORDS:
        msg = f"{{{{{word}}}}}"
        raise Unsupported(msg)
    else:
        return False
    return True


def parse(text: str) -> list[Node]:
    """The tree of ``text``; raises :class:`Unsupported` or :class:`TemplateFailure`."""
    tree = _Tree()
    for item in _lex(text):
        if isinstance(item, str):
            if item:
                tree.body().append(item)
        elif not _control(tree, item):
            tree.body().append(_pipeline(item.tokens))
    if tree.open:
        msg = f"unexpected EOF: {{{{{tree.open[-1].keyword}}}}} without {{{{end}}}}"
        raise TemplateFailure(msg)
    return tree.root
