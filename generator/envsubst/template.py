"""A parsed template: evaluation (drone's Execute) and top-level variable inspection.

Evaluation follows drone: the arguments of an expression are evaluated first (nested variables
are looked up even when the outer value makes them unnecessary), then the variable itself is
looked up, then the operator runs. Substituted values are never parsed again.
"""

from __future__ import annotations

from collections.abc import Callable

from generator.envsubst.nodes import Expr, Node, Text
from generator.envsubst.operations import NegativeSubstring, apply
from generator.envsubst.parser import ParseError, parse_nodes
from generator.errors import CapzgenError, Location, TemplateSyntaxError

Lookup = Callable[[str], str | None]
Locator = Callable[[int], Location]


def location_in(text: str, offset: int) -> Location:
    """1-based line and column (in characters) of ``offset`` in ``text``."""
    line_start = text.rfind("\n", 0, offset) + 1
    return Location(line=text.count("\n", 0, offset) + 1, column=offset - line_start + 1)


class Template:
    """The result of :func:`parse`; immutable and reusable for any number of evaluations."""

    __slots__ = ("_locate", "_nodes", "_text")

    def __init__(self, nodes: tuple[Node, ...], text: str, locate: Locator | None = None) -> None:
        self._nodes = nodes
        self._text = text
        self._locate: Locator = locate or (lambda offset: location_in(text, offset))

    @property
    def nodes(self) -> tuple[Node, ...]:
        """The parsed text and ``${...}`` expressions, in source order."""
        return self._nodes

    def evaluate(self, lookup: Lookup) -> str:
        """Substitute every expression. ``lookup`` returning ``None`` or ``""`` both mean unset.

        Raises :class:`CapzgenError` for ``${A:off:len}`` whose end (offset + length, with Go's
        wrapping int64 arithmetic) lies before the offset but not past the value's end — a
        negative length, or an overflowing sum: drone slices out of range there and clusterctl
        crashes with a Go panic, so there is no output to imitate; capzgen stops with an error
        naming the expression instead.
        """
        cache: dict[str, str] = {}

        def value_of(name: str) -> str:
            try:
                return cache[name]
            except KeyError:
                found = cache[name] = lookup(name) or ""
                return found

        parts: list[str] = []
        for node in self._nodes:
            if type(node) is Text:
                parts.append(node.value)
            else:
                assert isinstance(node, Expr)
                parts.append(self._evaluate_expr(node, value_of))
        return "".join(parts)

    def _evaluate_expr(self, root: Expr, value_of: Callable[[str], str]) -> str:
        if not root.args:
            return self._apply(root, value_of, [])
        # Post-order walk with an explicit stack: nesting depth is unbounded in drone.
        stack: list[tuple[Expr, list[str]]] = [(root, [])]
        while True:
            expr, values = stack[-1]
            if len(values) < len(expr.args):
                arg = expr.args[len(values)]
                if type(arg) is Text:
                    values.append(arg.value)
                else:
                    assert isinstance(arg, Expr)
                    if arg.args:
                        stack.append((arg, []))
                    else:
                        values.append(self._apply(arg, value_of, []))
                continue
            stack.pop()
            result = self._apply(expr, value_of, values)
            if not stack:
                return result
            stack[-1][1].append(result)

    def _apply(self, expr: Expr, value_of: Callable[[str], str], args: list[str]) -> str:
        value = value_of(expr.name)
        try:
            return apply(expr.op, value, args)
        except NegativeSubstring as problem:
            source = self._text[expr.start : expr.end]
            msg = (
                f"{source}: the substring would end before it starts ({problem}); clusterctl "
                "would crash here with a Go panic (slice bounds out of range)"
            )
            raise CapzgenError(
                msg,
                location=self._locate(expr.start),
                hint="use a length of 0 or more, or an offset+length beyond the value's end",
            ) from None

    def variables(self) -> dict[str, str]:
        """Top-level variable names in first-occurrence order, each with the default clusterctl
        records for it (``""`` = none).

        clusterctl looks only at top-level expressions (nested ones are neither listed nor
        checked) and, whatever the operator, concatenates the arguments as the "default": text
        as-is, a nested expression as ``${NAME}``. So ``${A/x/y}`` records ``xy`` and
        ``${A:1:2}`` records ``12``.
        """
        found: dict[str, str] = {}
        for node in self._nodes:
            if isinstance(node, Expr) and node.name not in found:
                found[node.name] = "".join(
                    arg.value if isinstance(arg, Text) else "${" + arg.name + "}"
                    for arg in node.args
                )
        return found

    def __repr__(self) -> str:
        return f"Template({len(self._nodes)} nodes)"


def parse_template(text: str, locate: Locator | None = None) -> Template:
    """Parse ``text``; syntax errors carry the location given by ``locate`` (default: in text)."""
    try:
        nodes = parse_nodes(text)
    except ParseError as error:
        where = locate(error.offset) if locate else location_in(text, error.offset)
        raise TemplateSyntaxError(error.message, location=where) from None
    return Template(tuple(nodes), text, locate)


def parse(text: str) -> Template:
    """Parse with drone/envsubst's grammar.

    Raises :class:`TemplateSyntaxError` carrying drone's exact message (e.g.
    ``missing closing brace``) and the 1-based line/column of the ``$`` that starts the offending
    top-level expression. No other exception escapes, whatever the input.
    """
    return parse_template(text)
