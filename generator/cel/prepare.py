"""Getting the rules of one schema ready to run: parse, analyse, estimate, as the API server does
when the CRD is written.

Trees come from the schema's :class:`~generator.cel.astcache.AstFile` when an earlier run stored
them; cel-python's parser is built (from Lark's grammar cache in the same folder) only for texts
that are not there. Each rule's worst-case cost (:mod:`generator.cel.cost`) times the number of
times it can run in one object is what the API server compares with its limit per rule, and the
sum over the schema with its limit per CRD (:mod:`generator.cel.limits`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from generator.cel.astcache import AstFile
from generator.cel.cost import estimate_cost
from generator.cel.rules import Analysis, CelRule, RuleStatus, analyze_tree, syntax_error
from generator.cel.runtime import (
    CelLimitError,
    CelSyntaxError,
    Program,
    depth_problem,
    limit_problem,
    parse,
    preload_parser,
)
from generator.cel.syntax import Ast
from generator.jsontypes import Json


class RuleToPrepare(Protocol):
    """What preparing needs of a rule placed in its schema (:class:`generator.cel.tree.CompiledRule`
    is one): the tree module loads this one lazily, so this one does not import it back."""

    @property
    def rule(self) -> CelRule:
        """The rule as the schema states it."""
        ...

    @property
    def schema(self) -> Mapping[str, Json]:
        """The schema node that types ``self``."""
        ...

    @property
    def cardinality(self) -> int:
        """The most times the rule runs in one object."""
        ...


@dataclass(frozen=True, eq=False)
class Prepared:
    """One rule ready to run: its analysis, its programs when evaluable, its estimated cost.

    ``cost`` is the worst case of one evaluation (None when the rule does not parse) and
    ``total`` that times the rule's cardinality, the figure the API server limits;
    ``message_program`` is None unless a ``messageExpression`` is evaluable too.
    """

    analysis: Analysis
    program: Program | None
    message_program: Program | None
    cost: int | None
    total: int
    refused: Refusal | None = None


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a rule is not evaluated although it must be: ``api_server`` when the API server does
    not compile it either (over cel-go's length or nesting limit: the CRD is refused), else the
    rule is beyond what capzgen can evaluate. Either way the object cannot pass."""

    reason: str
    api_server: bool


@dataclass(frozen=True, slots=True)
class RuleSetCost:
    """The estimated cost of all rules of a schema (rules and message expressions)."""

    total: int


class _Trees:
    """Parse trees by text: from the cache file, else parsed (and stored for the next run)."""

    def __init__(self, cache_folder: Path | None, texts: Sequence[str]) -> None:
        self.cache_folder = cache_folder
        self.file = AstFile(cache_folder, texts)
        self.parser_ready = False

    def get(self, text: str) -> Ast | str | Refusal:
        """The tree of ``text``, the message of its syntax error, or why the API server refuses
        it (its length is checked before anything else, its nesting before the tree is used)."""
        problem = limit_problem(text)
        if problem is not None:
            return Refusal(problem, api_server=True)
        stored = self.file.get(text)
        if stored is not None:
            if isinstance(stored, str):
                return stored
            problem = depth_problem(stored)
            return stored if problem is None else Refusal(problem, api_server=True)
        if not self.parser_ready:
            preload_parser(self.cache_folder)
            self.parser_ready = True
        try:
            found: Ast | str = parse(text)
        except CelLimitError as error:
            return Refusal(str(error), api_server=True)
        except CelSyntaxError as error:
            found = str(error)
        self.file.put(text, found)
        return found


def prepare_rules(
    rules: Sequence[RuleToPrepare], root: Mapping[str, Json], cache_folder: Path | None
) -> tuple[dict[int, Prepared], RuleSetCost]:
    """Every rule of one schema prepared (by ``id`` of its rule), and the schema's total cost."""
    texts = [r.rule.rule for r in rules]
    texts += [r.rule.message_expression for r in rules if r.rule.message_expression]
    trees = _Trees(cache_folder, texts)
    prepared = {id(rule): _prepare(rule, root, trees) for rule in rules}
    trees.file.save()
    return prepared, RuleSetCost(sum(p.total for p in prepared.values()))


_TOO_DEEP_HERE = Refusal("the expression nests too deeply for capzgen's evaluator", False)


def _prepare(compiled: RuleToPrepare, root: Mapping[str, Json], trees: _Trees) -> Prepared:
    try:
        return _prepare_tree(compiled, root, trees)
    except RecursionError:  # within the API server's nesting limit, beyond this interpreter's
        return _refused(_TOO_DEEP_HERE)


def _refused(refusal: Refusal) -> Prepared:
    return Prepared(Analysis(RuleStatus.UNSUPPORTED, refusal.reason), None, None, None, 0, refusal)


def _prepare_tree(compiled: RuleToPrepare, root: Mapping[str, Json], trees: _Trees) -> Prepared:
    rule = compiled.rule
    tree = trees.get(rule.rule)
    if isinstance(tree, Refusal):
        return _refused(tree)
    if isinstance(tree, str):
        return Prepared(syntax_error(tree), None, None, None, 0)
    analysis = analyze_tree(tree)
    cost = estimate_cost(tree, compiled.schema, root)
    cardinality = compiled.cardinality
    total = cost * cardinality
    program = Program(rule.rule, tree) if analysis.evaluable else None
    message_program = None
    if rule.message_expression is not None:
        message_tree = trees.get(rule.message_expression)
        if isinstance(message_tree, Refusal):
            reason = f"its messageExpression: {message_tree.reason}"
            return _refused(Refusal(reason, message_tree.api_server))
        if not isinstance(message_tree, str):
            total += estimate_cost(message_tree, compiled.schema, root) * cardinality
            if analyze_tree(message_tree).evaluable:
                message_program = Program(rule.message_expression, message_tree)
    return Prepared(analysis, program, message_program, cost, total)
