"""cel-python as capzgen uses it: one environment, programs compiled once per rule text, values
converted the way the API server types them.

Kubernetes gives ``self`` the CEL type its schema declares, so the conversion follows the schema:
``type: number`` makes an int a double, ``format: date-time``/``duration`` strings become
timestamps/durations, and property names of objects with declared properties are escaped
(``x-y`` is ``self.x__dash__y``, ``namespace`` is ``self.__namespace__``). Values of maps
(``additionalProperties``) and of schema-less subtrees are converted as plain JSON.
"""

from __future__ import annotations

import datetime
import functools
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import celpy
import lark
from celpy import celtypes
from celpy.celparser import CELParser
from celpy.evaluation import CELEvalError, Result

from generator.cel import metered
from generator.cel.limits import (
    MAX_EXPRESSION_CODE_POINTS,
    MAX_EXPRESSION_DEPTH,
    CostExceeded,
    CostLimits,
    Meter,
)
from generator.cel.syntax import Ast, nesting_depth
from generator.cel.values import types_of
from generator.jsontypes import Json, JsonObject


class CelSyntaxError(ValueError):
    """Text cel-python cannot parse (first line of the parser's message)."""


class CelLimitError(CelSyntaxError):
    """An expression over cel-go's parser limits (length or nesting): the API server does not
    compile it, so it refuses the CRD (:mod:`generator.cel.limits`)."""


def limit_problem(expression: str) -> str | None:
    """Why the API server would not compile ``expression`` because of its length, or None.

    Checked before parsing: a longer text is refused without being read further."""
    if len(expression) > MAX_EXPRESSION_CODE_POINTS:
        return (
            f"the expression is {len(expression):,} characters long, over the API server's "
            f"limit of {MAX_EXPRESSION_CODE_POINTS:,} (cel-go's expression size limit)"
        )
    return None


def depth_problem(tree: Ast) -> str | None:
    """Why the API server would not compile the expression of ``tree`` because of its nesting."""
    if nesting_depth(tree, MAX_EXPRESSION_DEPTH) > MAX_EXPRESSION_DEPTH:
        return (
            f"the expression nests deeper than {MAX_EXPRESSION_DEPTH} levels, the API server's "
            "limit (cel-go's parser recursion limit)"
        )
    return None


class CelEvaluationError(Exception):
    """A rule that failed at run time (no such key, no such overload, division by zero ...)."""


class CelBeyondEvaluator(CelEvaluationError):
    """A rule this interpreter could not finish (too deep for its recursion, out of memory):
    not a verdict on the object, so the rule counts as not evaluated."""


@functools.lru_cache(maxsize=1)
def _environment() -> celpy.Environment:
    # Only its parser is used: programs run on generator.cel.metered's evaluator, which counts
    # cel-go's costs. celpy.Environment() sets the recursion limit to 2500 as a side effect;
    # never lower it.
    limit = sys.getrecursionlimit()
    preload_parser(None)
    environment = celpy.Environment()
    sys.setrecursionlimit(max(limit, sys.getrecursionlimit()))
    return environment


def preload_parser(cache_dir: Path | None) -> None:
    """Build cel-python's Lark parser with Lark's on-disk grammar cache in ``cache_dir``.

    Analysing the CEL grammar costs about 0.15 s per process, more than the rest of a one-cluster
    validation; Lark can cache the analysis, but cel-python does not ask it to. We construct the
    same parser (same grammar and options) with ``cache=`` in capzgen's cache directory. The
    parser is process-wide (cel-python keeps it in a class attribute), so the first call wins.
    Without a folder, or on any problem, cel-python builds its own.
    """
    if CELParser.CEL_PARSER is not None or cache_dir is None:
        return
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        grammar = (Path(celpy.__file__).parent / "cel.lark").read_text(encoding="utf-8")
        CELParser.CEL_PARSER = lark.Lark(
            grammar,
            parser="lalr",
            start="expr",
            debug=True,
            g_regex_flags=re.M,
            lexer_callbacks={"IDENT": CELParser.ambiguous_literals},
            propagate_positions=True,
            maybe_placeholders=False,
            priority="invert",
            tree_class=lark.Tree,
            cache=str(
                cache_dir
                / f"cel-grammar-{celpy.__version__ if hasattr(celpy, '__version__') else 'x'}.lark"
            ),
        )
    except Exception:  # pragma: no cover - falls back to cel-python's own construction
        CELParser.CEL_PARSER = None


@functools.lru_cache(maxsize=4096)
def parse(expression: str) -> Ast:
    """The parse tree of ``expression``, memoised by text; raises :class:`CelSyntaxError`, and
    :class:`CelLimitError` for an expression the API server refuses for its length (checked
    before parsing) or its nesting (checked before anything walks the tree)."""
    problem = limit_problem(expression)
    if problem is not None:
        raise CelLimitError(problem)
    try:
        tree: Ast = _environment().compile(expression)
    except RecursionError as error:
        raise CelLimitError(_TOO_DEEP) from error
    except Exception as error:  # CELParseError, and lark errors for exotic input
        first = str(error).strip().splitlines()
        raise CelSyntaxError(first[0] if first else type(error).__name__) from error
    streamlined = _streamlined(tree)
    problem = depth_problem(streamlined)
    if problem is not None:
        raise CelLimitError(problem)
    return streamlined


_TOO_DEEP = (
    f"the expression nests deeper than {MAX_EXPRESSION_DEPTH} levels, the API server's limit"
)


# Grammar levels that, with one child, only hand its value on (``expr`` without ``?:``,
# ``relation`` without an operator ...): cel-python visits each of them for every operand.
_PASS_THROUGH = frozenset(
    {
        "expr",
        "conditionalor",
        "conditionaland",
        "relation",
        "addition",
        "multiplication",
        "unary",
        "member",
    }
)


def _streamlined(tree: Ast) -> Ast:
    """``tree`` with the pass-through levels left out and node names as plain strings.

    An operand such as ``x`` is nine nested nodes in the grammar; evaluating it visits all of
    them. Dropping the ones that only hand a value on gives the same results with a fraction of
    the visits, and plain-string names (Lark uses Tokens, compared in Python code) make each
    dispatch cheaper. ``fieldinits`` (message literals) visits its children's children, so
    its children stay as parsed.
    """
    for node in tree.iter_subtrees():
        node.data = str(node.data)
        if node.data == "fieldinits":
            continue
        node.children = [
            _skip_pass_through(child) if isinstance(child, lark.Tree) else child
            for child in node.children
        ]
    balanced: set[int] = set()
    for node in reversed(list(tree.iter_subtrees())):  # every parent before its children
        if node.data in _CHAINS and id(node) not in balanced:
            balanced.update(map(id, _balance(node)))
    return _skip_pass_through(tree)


# ``a && b && c`` parses left-deep (one level per operand); cel-go builds a balanced tree
# (``parser/helper.go``, ``balancer``), so a long chain does not nest there, nor here.
_CHAINS = frozenset({"conditionaland", "conditionalor"})


def _balance(top: Ast) -> list[Ast]:
    """Rebuild the left-deep chain of ``top``'s operator as a balanced tree, reusing its nodes
    (returned, so that they are not taken for chains of their own)."""
    links: list[Ast] = []
    operands: list[lark.Tree[lark.Token] | lark.Token] = []
    node: lark.Tree[lark.Token] | lark.Token = top
    while isinstance(node, lark.Tree) and node.data == top.data and len(node.children) == 2:
        links.append(node)
        operands.append(node.children[1])
        node = node.children[0]
    if len(links) < 3:
        return links
    operands.append(node)
    operands.reverse()  # source order
    spare = links[1:]  # ``top`` stays the root, so its parent's reference holds

    def build(low: int, high: int, into: Ast | None) -> lark.Tree[lark.Token] | lark.Token:
        if high - low == 1:
            return operands[low]
        middle = (low + high + 1) // 2
        link = into if into is not None else spare.pop()
        link.children = [build(low, middle, None), build(middle, high, None)]
        return link

    build(0, len(operands), top)
    return links


def _skip_pass_through(node: Ast) -> Ast:
    while (
        isinstance(node, lark.Tree)
        and node.data in _PASS_THROUGH
        and len(node.children) == 1
        and isinstance(node.children[0], lark.Tree)
    ):
        node = node.children[0]
    return node


@dataclass(frozen=True, eq=False)
class Program:
    """A parsed CEL expression, evaluated with cel-go's cost accounting on a meter."""

    expression: str
    tree: Ast

    def evaluate(
        self,
        self_value: celtypes.Value,
        meter: Meter | None = None,
        old_value: celtypes.Value | None = None,
    ) -> Result:
        """The result for ``self`` (and ``oldSelf`` when given); raises
        :class:`CelEvaluationError` for a run-time error and
        :class:`~generator.cel.limits.CostExceeded` when ``meter`` says a limit is passed."""
        if meter is None:
            meter = Meter(CostLimits())
        try:
            result = metered.evaluate(self.tree, self_value, meter, old_value)
        except CostExceeded:
            raise
        except CELEvalError as error:
            raise CelEvaluationError(describe_error(error)) from error
        except RecursionError as error:
            msg = "the expression nests too deeply for capzgen's evaluator"
            raise CelBeyondEvaluator(msg) from error
        except MemoryError as error:
            msg = "the evaluation ran out of memory"
            raise CelBeyondEvaluator(msg) from error
        except Exception as error:  # a cel-python defect must not stop validation
            msg = f"{type(error).__name__}: {error}"
            raise CelEvaluationError(msg) from error
        if isinstance(result, CELEvalError):
            raise CelEvaluationError(describe_error(result))
        return result


@functools.lru_cache(maxsize=4096)
def compile_program(expression: str) -> Program:
    """The program for ``expression``, parsed once per process (raises CelSyntaxError)."""
    return Program(expression, parse(expression))


def is_bool(value: Result) -> bool:
    """Whether a rule's result is a CEL bool."""
    return isinstance(value, (bool, celtypes.BoolType))


def describe_error(error: BaseException) -> str:
    """cel-python errors carry (message, exception class, args): keep the message and the detail."""
    args = error.args
    message = str(args[0]) if args else type(error).__name__
    if message == "no such overload" and len(args) > 2 and args[2]:
        detail = args[2][0] if isinstance(args[2], tuple) and args[2] else args[2]
        message = f"no such overload ({str(detail).splitlines()[0][:160]})"
    return message


# --- values ----------------------------------------------------------------------------------

_RESERVED = frozenset(
    {
        "true",
        "false",
        "null",
        "in",
        "as",
        "break",
        "const",
        "continue",
        "else",
        "for",
        "function",
        "if",
        "import",
        "let",
        "loop",
        "package",
        "namespace",
        "return",
        "var",
        "void",
        "while",
    }
)
_PLAIN_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@functools.lru_cache(maxsize=8192)
def escape_property(name: str) -> str:
    """Kubernetes' escaping of property names in CEL (``__`` first, then ``.``, ``-``, ``/``)."""
    if name in _RESERVED:
        return f"__{name}__"
    if _PLAIN_NAME.match(name) and "__" not in name:
        return name
    return (
        name.replace("__", "__underscores__")
        .replace(".", "__dot__")
        .replace("-", "__dash__")
        .replace("/", "__slash__")
    )


def to_cel(value: Json, schema: Json = None) -> celtypes.Value:
    """``value`` as the API server's CEL sees it, typed by ``schema`` where one is known."""
    node = schema if isinstance(schema, Mapping) else None
    if isinstance(value, bool):
        return celtypes.BoolType(value)
    if isinstance(value, str):
        return _string(value, node)
    if isinstance(value, int):
        return _integer(value, node)
    if isinstance(value, float):
        return celtypes.DoubleType(value)
    if value is None:
        return None
    if isinstance(value, dict):
        return _object(value, node)
    if isinstance(value, list):
        items = node.get("items") if node is not None else None
        return celtypes.ListType([to_cel(item, items) for item in value])
    return _temporal(value)


def _integer(value: int, node: Mapping[str, Json] | None) -> celtypes.Value:
    """An integer is a CEL double where the schema says ``number`` but not ``integer``."""
    if node is not None and "number" in types_of(node) and "integer" not in types_of(node):
        return celtypes.DoubleType(float(value))
    return celtypes.IntType(value)


def _temporal(value: Json) -> celtypes.Value:
    """Timestamps, and dates as their ISO text; any other type cannot be given to CEL."""
    if isinstance(value, datetime.datetime):
        return celtypes.TimestampType(value)
    if isinstance(value, datetime.date):
        return celtypes.StringType(value.isoformat())
    msg = f"a {type(value).__name__} value cannot be given to CEL"
    raise TypeError(msg)


def _string(value: str, node: Mapping[str, Json] | None) -> celtypes.Value:
    fmt = node.get("format") if node is not None else None
    try:
        if fmt == "date-time":
            return celtypes.TimestampType(value)
        if fmt == "duration":
            return celtypes.DurationType(value)
    except (ValueError, TypeError):
        pass  # not a valid timestamp/duration: the schema check says so; CEL sees the string
    return celtypes.StringType(value)


def _object(value: JsonObject, node: Mapping[str, Json] | None) -> celtypes.MapType:
    properties = node.get("properties") if node is not None else None
    if not isinstance(properties, Mapping):
        properties = None
    additional = node.get("additionalProperties") if node is not None else None
    extra = additional if isinstance(additional, Mapping) else None
    out: dict[celtypes.Value, celtypes.Value] = {}
    for key, item in value.items():
        name = str(key)
        if properties is not None and name in properties:
            out[celtypes.StringType(escape_property(name))] = to_cel(item, properties[name])
        else:
            out[celtypes.StringType(name)] = to_cel(item, extra)
    return celtypes.MapType(out)
