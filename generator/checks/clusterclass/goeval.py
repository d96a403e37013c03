"""Executing a parsed patch template (:mod:`.gotemplate`) on placeholder data, within bounds.

Functions of the subset: Go's ``not``, ``and``, ``or``, ``eq``, ``ne``, ``len`` and ``printf``
(verbs ``%s``, ``%v``, ``%d``, ``%q``, ``%%`` without flags), and sprig's ``quote``, ``squote``,
``default``, ``empty``, ``toString``, ``upper``, ``lower``, ``trim``, ``replace``, ``indent``,
``nindent``, ``toYaml`` and ``toJson``. Any other function raises
:class:`~.gotemplate.Unsupported`. What Go refuses at execution (a field of a missing value, a
function given the wrong type, comparing a number variable with an integer literal) raises
:class:`~.gotemplate.TemplateFailure`. Output is bounded by :data:`MAX_OUTPUT` characters and work
by :data:`MAX_STEPS` evaluations.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NoReturn

from generator.checks.clusterclass.goformat import (
    MISSING,
    go_print,
    go_quote,
    go_type,
    to_json,
    to_yaml,
    truth,
)
from generator.checks.clusterclass.gotemplate import (
    Block,
    Node,
    Operand,
    Pipeline,
    TemplateFailure,
    Unsupported,
    parse,
)
from generator.jsontypes import Json, JsonObject

MAX_OUTPUT = 256 * 1024
MAX_STEPS = 100_000


@dataclass(frozen=True, slots=True)
class Bounds:
    """How much one template may produce and how much work it may take: a ClusterClass comes
    from a repository, and a template is code (``range`` over ``range`` multiplies)."""

    output: int = MAX_OUTPUT  # characters of rendered text
    steps: int = MAX_STEPS  # evaluations


def _fail(message: str) -> TemplateFailure:
    return TemplateFailure(message)


def _string(name: str, value: Json) -> str:
    if not isinstance(value, str):
        return _raise(f"{name}: wrong type for value; expected string; got {go_type(value)}")
    return value


def _integer(name: str, value: Json) -> int:
    whole = isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if isinstance(value, bool) or not whole:
        return _raise(f"{name}: expected an integer, got {go_print(value)}")
    return int(value)


def _bounded(size: int) -> None:
    """Refuse to build a string longer than the whole output may be (before building it)."""
    if size > MAX_OUTPUT:
        msg = f"a value longer than {MAX_OUTPUT:,} characters"
        raise Unsupported(msg)


def _raise(message: str) -> NoReturn:
    raise _fail(message)


def _strval(value: Json) -> str:
    return value if isinstance(value, str) else go_print(value)


def _empty(value: Json) -> bool:
    return not truth(value)


def _default(args: list[Json]) -> Json:
    if not args:
        return _raise("default: wrong number of args: want at least 1 got 0")
    if len(args) == 1 or _empty(args[1]):
        return args[0]
    return args[1]


def _printf_one(verb: str, arg: Json) -> str:
    if verb == "v":
        return go_print(arg)
    kind_ok = {
        "s": isinstance(arg, str),
        "q": isinstance(arg, str),
        "d": isinstance(arg, int) and not isinstance(arg, bool),
    }
    if not kind_ok[verb]:
        shown = "<nil>" if arg is None else f"{go_type(arg)}={go_print(arg)}"
        return f"%!{verb}({shown})"
    return go_quote(arg) if verb == "q" else str(arg)


_VERB = re.compile(r"%(.)")


def _printf(args: list[Json]) -> str:
    pattern = _string("printf", args[0]) if args else _raise("printf: no format")
    rest = list(args[1:])
    used = 0

    def replace(match: re.Match[str]) -> str:
        nonlocal used
        verb = match.group(1)
        if verb == "%":
            return "%"
        if verb not in "svdq":
            msg = f"printf verb %{verb}"
            raise Unsupported(msg)
        if used >= len(rest):
            return f"%!{verb}(MISSING)"
        used += 1
        return _printf_one(verb, rest[used - 1])

    text = _VERB.sub(replace, pattern)
    extra = rest[used:]
    if extra:
        text += "%!(EXTRA " + ", ".join(f"{go_type(a)}={go_print(a)}" for a in extra) + ")"
    return text


def _compare(args: list[Json]) -> bool:
    if len(args) < 2:
        return _raise("eq: missing argument for comparison")
    first = args[0]
    for other in args[1:]:
        if first is None or other is None:
            msg = "comparison with nil"
            raise Unsupported(msg)
        same_kind = go_type(first) == go_type(other)
        if not same_kind or isinstance(first, list | dict):
            return _raise(
                f"incompatible types for comparison: {go_type(first)} and {go_type(other)}"
            )
        if first == other:
            return True
    return False


def _and(args: list[Json]) -> Json:
    if not args:
        return _raise("and: wrong number of args: want at least 1 got 0")
    for arg in args[:-1]:
        if not truth(arg):
            return arg
    return args[-1]


def _or(args: list[Json]) -> Json:
    if not args:
        return _raise("or: wrong number of args: want at least 1 got 0")
    for arg in args[:-1]:
        if truth(arg):
            return arg
    return args[-1]


def _len(args: list[Json]) -> int:
    if len(args) != 1 or not isinstance(args[0], str | list | dict):
        return _raise("len of a value that has no length")
    return len(args[0])


def _indent(args: list[Json], newline: bool) -> str:
    if len(args) != 2:
        return _raise("indent: wrong number of args: want 2")
    width, text = _integer("indent", args[0]), _string("indent", args[1])
    _bounded(len(text) + (text.count("\n") + 1) * max(width, 0))
    pad = " " * width
    text = pad + text.replace("\n", "\n" + pad)
    return "\n" + text if newline else text


def _replace(args: list[Json]) -> str:
    if len(args) != 3:
        return _raise("replace: wrong number of args: want 3")
    old, new, text = (_string("replace", arg) for arg in args)
    count = text.count(old) if old else len(text) + 1
    _bounded(len(text) + count * len(new))
    return text.replace(old, new)


def _one(name: str, convert: Callable[[Json], Json]) -> Callable[[list[Json]], Json]:
    def call(args: list[Json]) -> Json:
        if len(args) != 1:
            return _raise(f"{name}: wrong number of args: want 1 got {len(args)}")
        return convert(args[0])

    return call


FUNCTIONS: dict[str, Callable[[list[Json]], Json]] = {
    "not": _one("not", lambda v: not truth(v)),
    "and": _and,
    "or": _or,
    "eq": _compare,
    "ne": lambda args: not _compare(args) if len(args) == 2 else _raise("ne: want 2 args"),
    "len": _len,
    "printf": _printf,
    "quote": lambda args: " ".join(go_quote(_strval(a)) for a in args if a is not None),
    "squote": lambda args: " ".join(f"'{_strval(a)}'" for a in args if a is not None),
    "default": _default,
    "empty": _one("empty", _empty),
    "toString": _one("toString", _strval),
    "upper": _one("upper", lambda v: _string("upper", v).upper()),
    "lower": _one("lower", lambda v: _string("lower", v).lower()),
    "trim": _one("trim", lambda v: _string("trim", v).strip()),
    "replace": _replace,
    "indent": lambda args: _indent(args, newline=False),
    "nindent": lambda args: _indent(args, newline=True),
    "toYaml": _one("toYaml", to_yaml),
    "toJson": _one("toJson", to_json),
}


@dataclass(frozen=True, slots=True)
class Rendered:
    """The output text, and the top-level names read that the data does not define."""

    text: str
    undefined: tuple[str, ...]


@dataclass(slots=True)
class _Run:
    data: JsonObject
    bounds: Bounds
    out: list[str] = field(default_factory=list)
    size: int = 0
    steps: int = 0
    undefined: list[str] = field(default_factory=list)

    def step(self) -> None:
        self.steps += 1
        if self.steps > self.bounds.steps:
            msg = f"more than {self.bounds.steps:,} evaluation steps"
            raise Unsupported(msg)

    def emit(self, text: str) -> None:
        self.size += len(text)
        if self.size > self.bounds.output:
            msg = f"output longer than {self.bounds.output:,} characters"
            raise Unsupported(msg)
        self.out.append(text)

    def field(self, dot: Json, path: tuple[str, ...]) -> Json:
        current = dot
        for depth, name in enumerate(path):
            if current is MISSING or current is None:
                read = ".".join(path[:depth])
                if read in self.undefined:
                    return _raise(
                        f"{read} is not defined for this template (reading .{read}.{name})"
                    )
                return _raise(f"nil pointer evaluating .{read}.{name}")
            if not isinstance(current, dict):
                return _raise(f"can't evaluate field {name} in type {go_type(current)}")
            if name not in current and self._is_declared_level(current):
                self.undefined.append(".".join(path[: depth + 1]))
            current = current.get(name, MISSING)
        return current

    def _is_declared_level(self, mapping: JsonObject) -> bool:
        """Names at the top level and directly under ``builtin`` are known in full."""
        return mapping is self.data or mapping is self.data.get("builtin")

    def operand(self, operand: Operand, dot: Json) -> Json:
        self.step()
        if operand.kind == "dot":
            return dot
        if operand.kind == "field":
            return self.field(dot, operand.value)
        if operand.kind == "pipeline":
            return self.pipeline(operand.value, dot)
        if operand.kind == "function":  # a function name used as an argument calls it bare
            return self.command((operand,), dot, [])
        return operand.value

    def command(self, command: tuple[Operand, ...], dot: Json, piped: list[Json]) -> Json:
        head = command[0]
        if head.kind == "literal" and head.value is None and len(command) == 1:
            return _raise("nil is not a command")
        if head.kind != "function":
            if len(command) > 1 or piped:
                return _raise("can't give argument to non-function")
            return self.operand(head, dot)
        function = FUNCTIONS.get(head.value)
        if function is None:
            msg = f"function {head.value!r}"
            raise Unsupported(msg)
        args = [self.operand(arg, dot) for arg in command[1:]] + piped
        return function([None if arg is MISSING else arg for arg in args])

    def pipeline(self, pipeline: Pipeline, dot: Json) -> Json:
        result: Json = None
        for index, command in enumerate(pipeline.commands):
            result = self.command(command, dot, [result] if index else [])
        return result

    def nodes(self, nodes: list[Node], dot: Json) -> None:
        for node in nodes:
            self.step()
            if isinstance(node, str):
                self.emit(node)
            elif isinstance(node, Pipeline):
                value = self.pipeline(node, dot)
                self.emit("<no value>" if value is None else go_print(value))
            else:
                self.block(node, dot)

    def block(self, block: Block, dot: Json) -> None:
        (condition, body), rest = block.branches[0], block.branches[1:]
        assert condition is not None
        value = self.pipeline(condition, dot)
        if block.keyword == "range":
            self._range(value, body, rest, dot)
        elif truth(value):
            self.nodes(body, value if block.keyword == "with" else dot)
        else:
            self._otherwise(rest, dot)

    def _otherwise(self, rest: list[tuple[Pipeline | None, list[Node]]], dot: Json) -> None:
        for condition, body in rest:
            if condition is None or truth(self.pipeline(condition, dot)):
                self.nodes(body, dot)
                return

    def _range(
        self,
        value: Json,
        body: list[Node],
        rest: list[tuple[Pipeline | None, list[Node]]],
        dot: Json,
    ) -> None:
        if isinstance(value, dict):
            items = [value[key] for key in sorted(value)]
        elif isinstance(value, list) or value is MISSING or value is None:
            items = list(value) if isinstance(value, list) else []
        elif isinstance(value, int | float) and not isinstance(value, bool):
            msg = "range over a number"
            raise Unsupported(msg)
        else:
            items = _raise(f"range can't iterate over {go_print(value)}")
        for item in items:
            self.nodes(body, item)
        if not items:
            self._otherwise(rest, dot)


def render(text: str, data: JsonObject, bounds: Bounds | None = None) -> Rendered:
    """``text`` executed with ``data`` as dot; raises Unsupported or TemplateFailure (also past
    ``bounds``, by default :data:`MAX_OUTPUT` characters and :data:`MAX_STEPS` evaluations)."""
    run = _Run(data, bounds or Bounds())
    run.nodes(parse(text), data)
    return Rendered("".join(run.out), tuple(dict.fromkeys(run.undefined)))
