"""clusterctl's wrapper around drone/envsubst (its "SimpleProcessor").

Before parsing, clusterctl rewrites the legacy spelling ``${ VAR }`` to ``${VAR}``; it then lists
the top-level variables with their defaults, refuses to substitute while a variable without
default has no value, and finally lets envsubst evaluate the (rewritten) text.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from generator.envsubst.encoding import to_bytes
from generator.envsubst.template import Lookup, Template, location_in, parse_template
from generator.errors import Location, MissingVariablesError

# RE2's \s is exactly [\t\n\f\r ] (no \v, no Unicode spaces); Python's \s is wider, hence the class.
_WS = r"[ \t\n\f\r]"
_LEGACY = re.compile(
    rf"\$\{{(?:{_WS}+[A-Za-z0-9_$]+{_WS}+|{_WS}+[A-Za-z0-9_$]+|[A-Za-z0-9_$]+{_WS}+)\}}"
)
_WS_RUN = re.compile(_WS)


@dataclass(frozen=True)
class _Region:
    """One rewritten ``${ VAR }``: where it sits in the rewritten and in the original text."""

    start: int  # offset in the rewritten text
    length: int  # length after rewriting
    origin: int  # offset in the original text
    original_length: int


@dataclass(frozen=True)
class _Rewrite:
    """Maps offsets in the rewritten text back to the original, so errors point at the file."""

    original: str
    regions: list[_Region]
    starts: list[int]

    def locate(self, offset: int) -> Location:
        index = bisect_right(self.starts, offset) - 1
        if index < 0:
            return location_in(self.original, offset)
        region = self.regions[index]
        inside = offset - region.start
        if inside < region.length:
            return location_in(self.original, region.origin + min(inside, region.original_length))
        after = inside - region.length
        return location_in(self.original, region.origin + region.original_length + after)


def _rewrite(text: str) -> tuple[str, _Rewrite | None]:
    if "${" not in text:
        return text, None
    pieces: list[str] = []
    regions: list[_Region] = []
    last = 0
    produced = 0
    for match in _LEGACY.finditer(text):
        before = text[last : match.start()]
        pieces.append(before)
        produced += len(before)
        compact = _WS_RUN.sub("", match.group())
        regions.append(_Region(produced, len(compact), match.start(), match.end() - match.start()))
        pieces.append(compact)
        produced += len(compact)
        last = match.end()
    if not regions:
        return text, None
    pieces.append(text[last:])
    return "".join(pieces), _Rewrite(text, regions, [region.start for region in regions])


def normalize_legacy(text: str) -> str:
    """Rewrite ``${ VAR }``, ``${ VAR}``, ``${VAR }`` (name chars ``[A-Za-z0-9_$]``) to ``${VAR}``.

    Applies everywhere, also after ``$$`` and inside defaults; forms with an operator are left
    alone (and then usually fail to parse), exactly like clusterctl's regular expression.
    """
    return _rewrite(text)[0]


def _parse_clusterctl(text: str) -> Template:
    rewritten, rewrite = _rewrite(text)
    return parse_template(rewritten, rewrite.locate if rewrite else None)


def inspect_variables(text: str) -> dict[str, str]:
    """clusterctl's variable map: legacy normalisation, parse, top-level names -> default.

    Syntax errors are located in ``text`` as given (before normalisation).
    """
    return _parse_clusterctl(text).variables()


def missing_variables(variables: Mapping[str, str], is_set: Callable[[str], bool]) -> list[str]:
    """Names without a recorded default that the variable store cannot resolve, byte-sorted."""
    missing = [name for name, default in variables.items() if not default and not is_set(name)]
    return sorted(missing, key=to_bytes)


def substitute(text: str, lookup: Lookup, is_set: Callable[[str], bool] | None = None) -> str:
    """clusterctl's ``Process``: normalise, parse, check for missing variables (all reported at
    once, nothing substituted), then evaluate with ``lookup`` (``None``/``""`` = unset)."""
    template = _parse_clusterctl(text)
    if is_set is not None:
        missing = missing_variables(template.variables(), is_set)
        if missing:
            raise MissingVariablesError(missing)
    return template.evaluate(lookup)
