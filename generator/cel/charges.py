"""What each step of a CEL evaluation costs, as cel-go counts it (``interpreter/runtimecost.go``).

Shared by the run-time meter (:mod:`generator.cel.metered`) and the static estimate
(:mod:`generator.cel.cost`), so that the estimate bounds what the meter counts. No cel-python here:
the estimate runs without it.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from celpy.evaluation import Result

ITERATION_COST = {"all": 3, "exists": 3, "exists_one": 2, "map": 12, "filter": 13}
LIST_LITERAL_COST = 10
MAP_LITERAL_COST = 30
TRAVERSAL = 0.1
REGEX_FACTOR = 0.25
# Kubernetes library functions that walk their string or list receiver.
TRAVERSING = frozenset(
    {
        "charAt",
        "indexOf",
        "lastIndexOf",
        "lowerAscii",
        "upperAscii",
        "replace",
        "split",
        "substring",
        "trim",
        "join",
        "isSorted",
        "sum",
        "max",
        "find",
        "findAll",
    }
)


def size_of(value: Result) -> int:
    """cel-go's ``actualSize``: the length of a string, bytes, list or map; 1 for anything else."""
    if isinstance(value, (str, bytes, list, dict)):
        return len(value)
    return 1


def traversal(size: int, factor: float = TRAVERSAL) -> int:
    """The cost of walking ``size`` elements (cel-go rounds up)."""
    return math.ceil(size * factor)


def call_cost(name: str, args: tuple[Result, ...]) -> int:
    """What cel-go charges for calling ``name`` with ``args``: 1, or a traversal of the operands
    for the functions whose work grows with them (:mod:`generator.cel.metered` lists them)."""
    if not args:
        return 1
    if name in ("_==_", "_!=_", "_<_", "_<=_", "_>_", "_>=_") and len(args) == 2:
        return traversal(min(size_of(args[0]), size_of(args[1])))
    if name == "_+_" and len(args) == 2 and isinstance(args[0], (str, bytes)):
        return traversal(size_of(args[0]) + size_of(args[1]))
    if name in ("startsWith", "endsWith"):
        return traversal(size_of(args[0]))
    if name == "_in_" and len(args) == 2 and isinstance(args[1], list):
        return len(args[1])
    if name == "contains" and len(args) == 2 and isinstance(args[0], str):
        return traversal(size_of(args[0])) * traversal(size_of(args[1]))
    if name in ("matches", "find", "findAll") and len(args) >= 2:
        return traversal(1 + size_of(args[0])) * traversal(size_of(args[1]), REGEX_FACTOR)
    if name in TRAVERSING:
        receiver = args[0]
        return 1 + (len(receiver) if isinstance(receiver, list) else traversal(size_of(receiver)))
    return 1
