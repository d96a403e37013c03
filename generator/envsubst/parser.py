"""A hand-written parser for the drone/envsubst template grammar (commit 179042472c46).

The grammar is defined by the quirks of drone's scanner, not by a clean specification, so the
rules below are stated as behaviour:

* Top level: text is copied; ``$$`` is one literal ``$`` (and that ``$`` never starts anything);
  ``${`` starts an expression; nothing else (``$VAR``, backslashes) is special.
* A NUL character is drone's end-of-input marker: nothing after the first NUL is ever read.
* After ``${`` comes ``#NAME}`` or a NAME (letters, decimal digits, ``_``; may start with a digit),
  and the character after the name selects the form. Argument runs stop at ``}`` (or ``/``) and
  before a nested ``${``; only replace arguments know escapes (``$$``, ``\\/``, ``\\\\``).
* One drone bug is kept on purpose: after ``${NAME:`` the scanner steps back by the width of the
  *following* character, so a multi-byte character (or the very end of the input) right after the
  colon makes the whole template fail with "bad substitution".

Nested expressions are parsed with an explicit stack instead of recursion, so pathological nesting
depth cannot raise ``RecursionError`` (drone itself has no depth limit).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum, auto

from generator.envsubst.encoding import go_width
from generator.envsubst.nodes import Expr, Node, Text

BAD_SUBSTITUTION = "bad substitution"
MISSING_CLOSING_BRACE = "missing closing brace"
BAD_VARIABLE_NAME = "unable to parse variable name"
BAD_FUNCTION_ARGUMENT = "unable to parse substitution within function"
# drone also defines "unable to parse default function", but no input can reach it.

_ASCII_NAME_RUN = re.compile(r"[A-Za-z0-9_]*")
_RUN_NOT_BRACE = re.compile(r"(?:[^}$]|\$(?!\{))*")
_RUN_NOT_BRACE_OR_COLON = re.compile(r"(?:[^:}$]|\$(?!\{))*")
_DEFAULT_AFTER_COLON = frozenset("=-?+")
_CASE_OPS = frozenset(",^")
_REPLACE_SECOND = frozenset("/#%")


class ParseError(Exception):
    """A template drone rejects; ``offset`` is where the offending top-level ``${`` starts."""

    def __init__(self, message: str, offset: int = -1) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset


class _Form(Enum):
    DEFAULT = auto()  # = := :- :? :+   any number of arguments up to "}"
    SUBSTRING = auto()  # :off  :off:len
    REMOVE = auto()  # # ## % %%       exactly one argument
    REPLACE = auto()  # / // /# /%     pattern, optional replacement


@dataclass(slots=True)
class _Open:
    """An expression whose arguments are still being read."""

    form: _Form
    op: str
    name: str
    start: int
    args: list[Node] = field(default_factory=list)
    phase: int = 0


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        nul = text.find("\0")
        self.end = nul if nul >= 0 else len(text)
        self.ends_at_nul = nul >= 0

    def char(self, index: int) -> str:
        """The character at ``index``, or ``""`` at (drone's) end of input."""
        return self.text[index] if index < self.end else ""

    def opens_expression(self, index: int) -> bool:
        return self.char(index) == "$" and self.char(index + 1) == "{"

    # --- top level ---------------------------------------------------------------------------

    def parse(self) -> list[Node]:
        text, end = self.text, self.end
        nodes: list[Node] = []
        pending: list[str] = []
        index = 0
        while True:
            dollar = text.find("$", index, end)
            if dollar < 0:
                pending.append(text[index:end])
                break
            following = self.char(dollar + 1)
            if following == "{":
                pending.append(text[index:dollar])
                literal = "".join(pending)
                if literal:
                    nodes.append(Text(literal))
                pending = []
                try:
                    expr, index = self.expression(dollar)
                except ParseError as error:
                    raise ParseError(error.message, dollar) from None
                nodes.append(expr)
            else:
                # "$$" keeps one "$" and swallows the second; a lone "$" is plain text.
                pending.append(text[index : dollar + 1])
                index = dollar + 2 if following == "$" else dollar + 1
        literal = "".join(pending)
        if literal:
            nodes.append(Text(literal))
        return nodes

    # --- expressions -------------------------------------------------------------------------

    def expression(self, start: int) -> tuple[Expr, int]:
        """Parse the expression whose ``$`` is at ``start``; return it and the index after it."""
        stack: list[_Open] = []
        opened, index = self.open(start)
        while True:
            if isinstance(opened, Expr):
                if not stack:
                    return opened, index
                stack[-1].args.append(opened)
            else:
                stack.append(opened)
            finished, index = self.advance(stack[-1], index)
            if finished is None:
                opened, index = self.open(index)
            else:
                stack.pop()
                opened = finished

    def name_end(self, index: int) -> int:
        text, end = self.text, self.end
        while True:
            match = _ASCII_NAME_RUN.match(text, index, end)
            index = match.end() if match else index
            if index < end and not text[index].isascii():
                char = text[index]
                if char.isalpha() or char.isdecimal():
                    index += 1
                    continue
            return index

    def open(self, start: int) -> tuple[Expr | _Open, int]:
        """Read ``${``, the name and the operator of an expression starting at ``start``."""
        index = start + 2
        if self.char(index) == "#":
            return self.open_length(start)
        name_end = self.name_end(index)
        if name_end == index:
            raise ParseError(BAD_VARIABLE_NAME)
        operator = _OPERATORS.get(self.char(name_end))
        if operator is None:
            raise ParseError(MISSING_CLOSING_BRACE)
        return operator(self, self.text[index:name_end], start, name_end)

    def open_length(self, start: int) -> tuple[Expr, int]:
        """``${#NAME}``: nothing may follow the name."""
        index = start + 3
        name_end = self.name_end(index)
        if name_end == index or self.char(name_end) != "}":
            raise ParseError(BAD_SUBSTITUTION)
        return Expr("#", self.text[index:name_end], (), start, name_end + 1), name_end + 1

    # One method per character that may follow the name: (name, start of the expression, index
    # of that character) -> the expression or the open form, and the index after the operator.

    def op_close(self, name: str, start: int, index: int) -> tuple[Expr | _Open, int]:
        return Expr("", name, (), start, index + 1), index + 1

    def op_colon(self, name: str, start: int, index: int) -> tuple[Expr | _Open, int]:
        after = self.char(index + 1)
        if after in _DEFAULT_AFTER_COLON:
            return _Open(_Form.DEFAULT, ":" + after, name, start), index + 2
        if (not after and not self.ends_at_nul) or (after and go_width(after) > 1):
            raise ParseError(BAD_SUBSTITUTION)  # drone's step-back bug, see module doc
        return _Open(_Form.SUBSTRING, ":", name, start), index + 1

    def op_equals(self, name: str, start: int, index: int) -> tuple[Expr | _Open, int]:
        return _Open(_Form.DEFAULT, "=", name, start), index + 1

    def op_case(self, name: str, start: int, index: int) -> tuple[Expr | _Open, int]:
        op_end = index + 2 if self.char(index + 1) in _CASE_OPS else index + 1
        if self.char(op_end) != "}":
            raise ParseError(BAD_SUBSTITUTION)
        return Expr(self.text[index:op_end], name, (), start, op_end + 1), op_end + 1

    def op_replace(self, name: str, start: int, index: int) -> tuple[Expr | _Open, int]:
        op_end = index + 2 if self.char(index + 1) in _REPLACE_SECOND else index + 1
        return _Open(_Form.REPLACE, self.text[index:op_end], name, start), op_end

    def op_remove(self, name: str, start: int, index: int) -> tuple[Expr | _Open, int]:
        op_end = index + 2 if self.char(index + 1) == self.text[index] else index + 1
        return _Open(_Form.REMOVE, self.text[index:op_end], name, start), op_end

    def advance(self, frame: _Open, index: int) -> tuple[Expr | None, int]:
        """Consume arguments of ``frame`` until it is complete (return it) or a nested ``${``
        starts (return ``None`` and the index of that ``$``)."""
        if frame.form is _Form.DEFAULT:
            return self.advance_default(frame, index)
        if frame.form is _Form.SUBSTRING:
            return self.advance_substring(frame, index)
        if frame.form is _Form.REMOVE:
            return self.advance_remove(frame, index)
        return self.advance_replace(frame, index)

    @staticmethod
    def close(frame: _Open, after: int) -> tuple[Expr, int]:
        return Expr(frame.op, frame.name, tuple(frame.args), frame.start, after), after

    def plain_run(self, pattern: re.Pattern[str], index: int) -> int:
        match = pattern.match(self.text, index, self.end)
        return match.end() if match else index

    def advance_default(self, frame: _Open, index: int) -> tuple[Expr | None, int]:
        while True:
            char = self.char(index)
            if char == "}":
                return self.close(frame, index + 1)
            if not char:
                raise ParseError(BAD_FUNCTION_ARGUMENT)
            if self.opens_expression(index):
                return None, index
            run_end = self.plain_run(_RUN_NOT_BRACE, index)
            frame.args.append(Text(self.text[index:run_end]))
            index = run_end

    def argument(self, frame: _Open, index: int, pattern: re.Pattern[str]) -> tuple[bool, int]:
        """Read one plain argument; True when it is a nested expression still to be parsed."""
        frame.phase += 1
        if self.opens_expression(index):
            return True, index
        run_end = self.plain_run(pattern, index)
        if run_end == index:
            raise ParseError(BAD_FUNCTION_ARGUMENT)
        frame.args.append(Text(self.text[index:run_end]))
        return False, run_end

    def advance_substring(self, frame: _Open, index: int) -> tuple[Expr | None, int]:
        if frame.phase == 0:
            nested, index = self.argument(frame, index, _RUN_NOT_BRACE_OR_COLON)
            if nested:
                return None, index
        if frame.phase == 1:
            char = self.char(index)
            if char == "}":
                return self.close(frame, index + 1)
            if char != ":":
                raise ParseError(BAD_SUBSTITUTION)
            while self.char(index) == ":":
                index += 1
            frame.phase = 2
        if frame.phase == 2:
            nested, index = self.argument(frame, index, _RUN_NOT_BRACE)
            if nested:
                return None, index
        return self.closing_brace(frame, index)

    def advance_remove(self, frame: _Open, index: int) -> tuple[Expr | None, int]:
        if frame.phase == 0:
            nested, index = self.argument(frame, index, _RUN_NOT_BRACE)
            if nested:
                return None, index
        return self.closing_brace(frame, index)

    def advance_replace(self, frame: _Open, index: int) -> tuple[Expr | None, int]:
        if frame.phase == 0:
            nested, index = self.escaped_argument(frame, index, "/")
            if nested:
                return None, index
        if frame.phase == 1:
            if self.char(index) != "/":
                raise ParseError(BAD_SUBSTITUTION)
            while self.char(index) == "/":
                index += 1
            if self.char(index) == "}":
                return self.close(frame, index + 1)
            frame.phase = 2
        if frame.phase == 2:
            nested, index = self.escaped_argument(frame, index, "}")
            if nested:
                return None, index
        return self.closing_brace(frame, index)

    def closing_brace(self, frame: _Open, index: int) -> tuple[Expr, int]:
        if self.char(index) != "}":
            raise ParseError(BAD_SUBSTITUTION)
        return self.close(frame, index + 1)

    def escaped_argument(self, frame: _Open, index: int, stop: str) -> tuple[bool, int]:
        """A replace argument: stops at ``stop`` or before ``${``; ``$$``, ``\\/`` and ``\\\\``
        each stand for their second character."""
        frame.phase += 1
        if self.opens_expression(index):
            return True, index
        text, end = self.text, self.end
        pieces: list[str] = []
        segment = cursor = index
        while cursor < end:
            char = text[cursor]
            if char == "$":
                following = self.char(cursor + 1)
                if following == "{":
                    break
                if following == "$":
                    pieces.append(text[segment : cursor + 1])
                    cursor += 2
                    segment = cursor
                    continue
            elif char == "\\":
                following = self.char(cursor + 1)
                if following in ("/", "\\"):
                    pieces.append(text[segment:cursor])
                    segment = cursor + 1
                    cursor += 2
                    continue
            elif char == stop:
                break
            cursor += 1
        if cursor == index:
            raise ParseError(BAD_FUNCTION_ARGUMENT)
        pieces.append(text[segment:cursor])
        frame.args.append(Text("".join(pieces)))
        return False, cursor


_Operator = Callable[[_Parser, str, int, int], tuple[Expr | _Open, int]]
_OPERATORS: dict[str, _Operator] = {
    "}": _Parser.op_close,
    ":": _Parser.op_colon,
    "=": _Parser.op_equals,
    ",": _Parser.op_case,
    "^": _Parser.op_case,
    "/": _Parser.op_replace,
    "#": _Parser.op_remove,
    "%": _Parser.op_remove,
}


def parse_nodes(text: str) -> list[Node]:
    """Parse ``text``; raise :class:`ParseError` with drone's message and the offending offset."""
    return _Parser(text).parse()
