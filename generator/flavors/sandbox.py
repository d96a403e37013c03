"""The Jinja sandbox flavors render in, with bounds on what one expression may build.

Jinja's :class:`~jinja2.sandbox.SandboxedEnvironment` stops templates from reaching Python's
internals and caps ``range()``, but a user's flavor can still ask for ``"x" * 10**9``,
``10 ** 10 ** 8``, ``"%1000000000d" % 1`` or ``"a" | center(10**9)``: gigabytes or minutes from a
few bytes of template. Every operation that can grow a value by a number the template supplies is
checked here before it runs; a violation is a :class:`~jinja2.exceptions.SecurityError`, which the
renderer reports as the template's mistake. The bounds are far above what a manifest needs
(a rendered flavor is at most a few hundred kilobytes).
"""

from __future__ import annotations

import math
import operator
import os
import re
import string
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader
from jinja2 import filters as jinja_filters
from jinja2.exceptions import SecurityError
from jinja2.runtime import Context
from jinja2.sandbox import SandboxedEnvironment

MAX_BUILT_LENGTH = 1 << 20  # characters of a string, or items of a list, one operation may build
MAX_WIDTH = 10_000  # a padding or format width
MAX_POWER_BITS = 4_096  # bits of an integer power's result
MAX_TEMPLATE_CHARACTERS = 4 * 1024 * 1024  # one template file
_WIDTH_METHODS = frozenset({"center", "ljust", "rjust", "zfill", "expandtabs"})
_PERCENT_WIDTH = re.compile(r"%[-+ #0]*(\d+|\*)?(?:\.(\d+|\*))?")
_BINOPS: dict[str, Callable[[Any, Any], Any]] = {
    "*": operator.mul,
    "**": operator.pow,
    "%": operator.mod,
}


def _refuse(what: str) -> SecurityError:
    return SecurityError(f"{what} is larger than a flavor may build")


def _check_width(width: Any, what: str) -> None:
    if isinstance(width, int) and width > MAX_WIDTH:
        raise _refuse(f"{what} width {width}")  # noqa: EM102 - _refuse builds the message


def _repeats(sequence: Any, count: Any) -> int:
    """How many items ``sequence * count`` would hold (0 when it is not a repetition)."""
    if isinstance(sequence, str | list | tuple) and isinstance(count, int):
        return len(sequence) * max(count, 0)
    return 0


def _check_repeat(left: Any, right: Any) -> None:
    if max(_repeats(left, right), _repeats(right, left)) > MAX_BUILT_LENGTH:
        raise _refuse("a repeated value")  # noqa: EM101 - _refuse builds the message


def _power_bits(base: Any, exponent: Any) -> float:
    if isinstance(base, int) and isinstance(exponent, int) and exponent > 0 and abs(base) > 1:
        return exponent * math.log2(abs(base))
    return 0.0


def _check_power(base: Any, exponent: Any) -> None:
    if _power_bits(base, exponent) > MAX_POWER_BITS:
        raise _refuse(f"{base} ** {exponent}")  # noqa: EM102 - _refuse builds the message


def _check_percent(template: Any) -> None:
    if not isinstance(template, str):
        return
    for match in _PERCENT_WIDTH.finditer(template):
        for part in match.groups():
            if part == "*":
                msg = "a '*' width in %-formatting is not allowed in a flavor"
                raise SecurityError(msg)
            if part is not None:
                _check_width(int(part), "format")


def _check_format_spec(text: str) -> None:
    for _, _, spec, _ in string.Formatter().parse(text):
        if spec and "{" in spec:
            msg = "a format width taken from an argument is not allowed in a flavor"
            raise SecurityError(msg)
        for digits in re.findall(r"\d+", spec or ""):
            _check_width(int(digits), "format")


class BoundedSandbox(SandboxedEnvironment):
    """A sandbox whose operators, string methods, padding filters and formatting are bounded."""

    intercepted_binops = frozenset(_BINOPS)

    def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
        """``*``, ``**`` and ``%`` with the size checks of this module, then as Python does."""
        if operator == "*":
            _check_repeat(left, right)
        elif operator == "**":
            _check_power(left, right)
        elif operator == "%":
            _check_percent(left)
        return _BINOPS[operator](left, right)

    def call(
        __self,
        __context: Context,
        __obj: Any,
        *args: Any,
        **kwargs: Any,
    ) -> Any:
        """String methods that pad to a width are bounded before the sandbox calls them."""
        if getattr(__obj, "__self__", None).__class__ is str and args:
            name = getattr(__obj, "__name__", "")
            if name in _WIDTH_METHODS:
                _check_width(args[0], f"str.{name}")
        return super().call(__context, __obj, *args, **kwargs)

    def wrap_str_format(self, value: Any) -> Callable[..., str] | None:
        """``str.format`` / ``format_map`` as the sandbox wraps them, with every width in the
        format string bounded before it runs."""
        wrapped = super().wrap_str_format(value)
        if wrapped is None:
            return None
        _check_format_spec(value.__self__)
        return wrapped


def _bounded_center(value: str, width: int = 80) -> str:
    _check_width(width, "center")
    return jinja_filters.do_center(value, width)


def _bounded_indent(s: str, width: int | str = 4, first: bool = False, blank: bool = False) -> str:
    _check_width(width if isinstance(width, int) else len(width), "indent")
    return jinja_filters.do_indent(s, width, first, blank)


def install_bounded_filters(environment: SandboxedEnvironment) -> None:
    """Replace Jinja's padding filters by bounded ones (they call ``str`` methods directly, out
    of the sandbox's reach). ``wordwrap`` cannot grow its input, so it stays."""
    environment.filters["center"] = _bounded_center
    environment.filters["indent"] = _bounded_indent


class ConfinedLoader(FileSystemLoader):
    """Jinja's file loader, refusing a template whose real path (symlinks resolved) is outside
    the search-path folder it was found in: a flavor folder with a link to ``/etc/passwd`` or to
    another project must not make capzgen read it. Template files are also size-bounded."""

    def get_source(
        self, environment: Environment, template: str
    ) -> tuple[str, str, Callable[[], bool]]:
        """The template's text, as :class:`FileSystemLoader` finds it, once its place is checked."""
        contents, filename, uptodate = super().get_source(environment, template)
        real = Path(os.path.realpath(filename))
        roots = [Path(os.path.realpath(folder)) for folder in self.searchpath]
        if not any(real.is_relative_to(root) for root in roots):
            msg = f"template {template!r} resolves to {real}, outside the flavor folders"
            raise SecurityError(msg)
        if len(contents) > MAX_TEMPLATE_CHARACTERS:
            msg = f"template {template!r} is larger than {MAX_TEMPLATE_CHARACTERS:,} characters"
            raise SecurityError(msg)
        return contents, filename, uptodate
