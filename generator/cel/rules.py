"""CEL validation rules as CRDs declare them (``x-kubernetes-validations``), and what we can do with
each: evaluate it, or say why not.

A rule is *evaluable* when cel-python parses it and every function it calls is either standard CEL
(what cel-python implements) or one of :data:`generator.cel.extensions.EXTENSIONS`. A rule that
references ``oldSelf`` is a *transition rule*: the API server checks it only on updates, against
the stored object, so a manifest alone cannot be checked against it. Anything else is
*unsupported*, with the functions (or the syntax) responsible named, so that ``capzgen schemas list
--cel`` can show exactly which rules are not checked.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, TypeGuard

from generator.jsontypes import Json

if TYPE_CHECKING:
    from generator.cel.syntax import Ast, AstNode

VALIDATIONS = "x-kubernetes-validations"

# Macros are expanded by the evaluator rather than looked up as functions (``min`` is Kubernetes'
# list function, which cel-python evaluates the same way).
MACROS = frozenset({"has", "all", "exists", "exists_one", "map", "filter", "min"})
# Identifiers that name a function *library* in cel-go (``format.dns1123Label()``, ``sets.contains``):
# a call on one of them is a namespaced function, not a method of a variable.
NAMESPACES = frozenset(
    {"format", "sets", "math", "optional", "strings", "base64", "lists", "regex", "ext"}
)


class RuleStatus(StrEnum):
    """How capzgen treats a rule: evaluated, or skipped as unsupported or as a transition rule."""

    EVALUABLE = "evaluable"
    UNSUPPORTED = "unsupported"
    TRANSITION = "transition"


@dataclass(frozen=True, slots=True)
class CelRule:
    """One entry of ``x-kubernetes-validations``."""

    rule: str
    message: str | None = None
    message_expression: str | None = None
    field_path: str | None = None
    reason: str | None = None
    optional_old_self: bool = False

    @classmethod
    def parse(cls, entry: Json) -> CelRule | None:
        """The rule of one list entry; None for an entry without a string ``rule``."""
        if not isinstance(entry, Mapping) or not isinstance(entry.get("rule"), str):
            return None

        def text(key: str) -> str | None:
            value = entry.get(key)
            return value if isinstance(value, str) and value.strip() else None

        return cls(
            rule=entry["rule"],
            message=text("message"),
            message_expression=text("messageExpression"),
            field_path=text("fieldPath"),
            reason=text("reason"),
            optional_old_self=entry.get("optionalOldSelf") is True,
        )

    def failure_message(self, evaluated: str | None = None) -> str:
        """What the API server says when the rule is false: ``messageExpression``'s result, else
        ``message``, else ``failed rule: <rule>``; capzgen appends the rule text."""
        text = evaluated or self.message
        if text is None:
            return f"failed rule: {self.rule}"
        return f"{text} (rule: {self.rule})"


def rules_of(node: Json) -> list[CelRule]:
    """The rules a schema node carries (malformed entries are ignored)."""
    if not isinstance(node, Mapping):
        return []
    entries = node.get(VALIDATIONS)
    if not isinstance(entries, list):
        return []
    return [rule for rule in map(CelRule.parse, entries) if rule is not None]


@dataclass(frozen=True, slots=True)
class Analysis:
    """The verdict of :func:`analyze` on one rule text; ``detail`` is empty for evaluable rules."""

    status: RuleStatus
    detail: str = ""  # what is unsupported, or why the rule is not evaluated

    @property
    def evaluable(self) -> bool:
        """Whether capzgen compiles and runs the rule."""
        return self.status is RuleStatus.EVALUABLE


@functools.lru_cache(maxsize=1)
def known_functions() -> frozenset[str]:
    """Names an evaluable rule may call: cel-python's functions, the macros and the extensions."""
    # lazy: cel-python loads only when a rule is analysed (this module is on the walker's path)
    from celpy.evaluation import base_functions

    # lazy: as above
    from generator.cel.extensions import EXTENSIONS

    names = {name for name in base_functions if name.isidentifier()}
    return frozenset(names | MACROS | set(EXTENSIONS))


@functools.lru_cache(maxsize=4096)
def analyze(expression: str) -> Analysis:
    """Whether ``expression`` can be evaluated here (memoised: CRDs repeat their rules a lot)."""
    # lazy: cel-python loads only when a rule is analysed (this module is on the walker's path)
    from generator.cel.runtime import CelSyntaxError, parse

    try:
        tree = parse(expression)
    except CelSyntaxError as error:
        return syntax_error(str(error))
    return analyze_tree(tree)


def syntax_error(message: str) -> Analysis:
    """The verdict on a rule cel-python cannot parse."""
    return Analysis(RuleStatus.UNSUPPORTED, f"syntax cel-python cannot parse: {message}")


def analyze_tree(tree: Ast) -> Analysis:
    """The verdict on a parsed rule: transition, unsupported (naming the functions) or evaluable."""
    known = known_functions()
    missing: list[str] = []
    transition = False
    for name, kind in _references(tree):
        if kind == "ident":
            transition = transition or name == "oldSelf"
        elif name not in known and name not in missing:
            missing.append(name)
    if transition:
        return Analysis(
            RuleStatus.TRANSITION, "transition rule (uses oldSelf), not evaluated statically"
        )
    if missing:
        return Analysis(RuleStatus.UNSUPPORTED, f"unsupported function {', '.join(missing)}")
    return Analysis(RuleStatus.EVALUABLE)


def transition_evaluable(tree: Ast) -> bool:
    """Whether a transition rule can be evaluated on an update: every function it calls is one
    capzgen knows (``oldSelf`` is then bound to the old value)."""
    known = known_functions()
    return all(kind == "ident" or name in known for name, kind in _references(tree))


def _references(tree: Ast) -> list[tuple[str, str]]:
    """``(name, "call")`` for every function or method called, ``(name, "ident")`` for every
    identifier, in source order; a call on a library namespace is named ``namespace.function``."""
    found: list[tuple[int, str, str]] = []
    for node in tree.iter_subtrees():
        if node.data == "ident":
            found.append((_position(node.children[0]), _token(node.children[0]), "ident"))
        elif node.data in ("ident_arg", "dot_ident_arg"):
            found.append((_position(node.children[0]), _token(node.children[0]), "call"))
        elif node.data == "member_dot_arg":
            name = _token(node.children[1])
            namespace = _bare_ident(node.children[0])
            qualified = f"{namespace}.{name}" if namespace in NAMESPACES else name
            found.append((_position(node.children[1]), qualified, "call"))
    found.sort(key=lambda item: item[0])
    return [(name, kind) for _, name, kind in found]


def _position(child: AstNode) -> int:
    position = getattr(child, "start_pos", None)
    return position if isinstance(position, int) else 0


def _token(child: AstNode) -> str:
    return str(getattr(child, "value", child))


def _bare_ident(member: AstNode) -> str | None:
    """The identifier when ``member`` is nothing but an identifier (``format`` in
    ``format.dns1123Label()``)."""
    node = member
    while _is_tree(node) and node.data in ("member", "primary"):
        if len(node.children) != 1:
            return None
        node = node.children[0]
    if _is_tree(node) and node.data == "ident":
        return _token(node.children[0])
    return None


def _is_tree(node: AstNode) -> TypeGuard[Ast]:
    return hasattr(node, "data") and hasattr(node, "children")
