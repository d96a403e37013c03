"""The API server's CEL cost limits, and the run-time meter that enforces them here.

Kubernetes bounds ``x-kubernetes-validations`` twice (numbers from the Kubernetes source):

* when a CRD is written, a worst-case *estimate* per rule, computed from the schema's ``maxItems``,
  ``maxProperties`` and ``maxLength`` (unbounded lists, maps and strings are bounded by what fits
  into one 3 MiB request) and multiplied by the number of times the rule can run in one object
  (the product of the bounds of the lists and maps around it). A rule over
  ``StaticEstimatedCostLimit`` (10,000,000), or all rules of a CRD together over
  ``StaticEstimatedCRDCostLimit`` (100,000,000), makes the API server refuse the CRD
  (``k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go``);
* when an object is validated, the *actual* cost: one evaluation stops past ``PerCallLimit``
  (1,000,000, "roughly 0.1 second") and all evaluations of one object past
  ``RuntimeCELCostBudget`` (10,000,000, "roughly 1 second"); ``MaxRequestSizeBytes`` is 3 MiB
  (``k8s.io/apiserver/pkg/apis/cel/config.go``).

Before any of that, the expression itself is bounded, as cel-go's parser bounds it (Kubernetes'
CEL environment, ``k8s.io/apiserver/pkg/cel/environment``, sets neither option, so cel-go's
defaults in ``github.com/google/cel-go/parser/parser.go`` ``NewParser`` apply): an expression
longer than ``expressionSizeCodePointLimit`` (100,000 code points) or nesting deeper than
``maxRecursionDepth`` (250) does not compile, so the API server refuses the CRD. cel-go parses
``a && b && c ...`` and ``a || b || ...`` as balanced trees, so such chains do not nest; capzgen
balances them the same way (:func:`generator.cel.runtime.parse`) and measures the nesting of its
own parse tree, which has at least as many levels as cel-go's.

cel-python is a few hundred times slower per cost unit than cel-go, so a wall-clock bound per
object is added as a safety net: a manifest must never make capzgen hang, whatever its CEL
costs. A rule stopped there was not evaluated, so the file cannot pass: it is an error, like every
rule that could not be evaluated within a budget.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

STATIC_ESTIMATED_COST_LIMIT = 10_000_000
STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000
PER_CALL_LIMIT = 1_000_000
RUNTIME_CEL_COST_BUDGET = 10_000_000
MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024
MAX_EXPRESSION_CODE_POINTS = 100_000  # cel-go parser: expressionSizeCodePointLimit
MAX_EXPRESSION_DEPTH = 250  # cel-go parser: maxRecursionDepth

# Seconds of CEL evaluation per object before capzgen gives up on it (see the module docstring).
WALL_SECONDS_PER_OBJECT = 10.0
_CLOCK_EVERY = 512  # charges between two looks at the clock

# What an evaluation went past (CostExceeded.scope).
CALL, OBJECT, TIME = "call", "object", "time"


@dataclass(frozen=True, slots=True)
class CostLimits:
    """The limits one validation applies; the defaults are the API server's."""

    static_per_rule: int = STATIC_ESTIMATED_COST_LIMIT
    static_per_crd: int = STATIC_ESTIMATED_CRD_COST_LIMIT
    per_call: int = PER_CALL_LIMIT
    per_object: int = RUNTIME_CEL_COST_BUDGET
    wall_seconds: float = WALL_SECONDS_PER_OBJECT


class CostExceeded(Exception):
    """An evaluation went past a limit; ``scope`` is :data:`CALL`, :data:`OBJECT` or :data:`TIME`."""

    def __init__(self, scope: str, cost: int, limit: float) -> None:
        super().__init__(scope, cost, limit)
        self.scope = scope
        self.cost = cost
        self.limit = limit


class Meter:
    """The run-time cost of one object's CEL evaluations, as cel-go's cost tracker counts it.

    :meth:`start_call` begins one rule evaluation; :meth:`charge` adds cost and raises
    :class:`CostExceeded` past the per-call limit, the per-object budget or the wall-clock bound.
    """

    def __init__(self, limits: CostLimits) -> None:
        self.limits = limits
        self.total = 0
        self.call = 0
        self._deadline = time.monotonic() + limits.wall_seconds
        self._until_clock = 0

    def start_call(self) -> None:
        """A new evaluation: the per-call count starts again (the object's total goes on)."""
        self.call = 0

    def charge(self, cost: int) -> None:
        """Add ``cost``; raise :class:`CostExceeded` when a limit is passed."""
        self.call += cost
        if self.call > self.limits.per_call:
            self.total += cost
            raise CostExceeded(CALL, self.call, self.limits.per_call)
        self.replay(cost)

    def replay(self, cost: int) -> None:
        """Count ``cost`` towards the object's budget only (a remembered evaluation's cost)."""
        self.total += cost
        if self.total > self.limits.per_object:
            raise CostExceeded(OBJECT, self.total, self.limits.per_object)
        self._until_clock -= 1
        if self._until_clock <= 0:
            self._until_clock = _CLOCK_EVERY
            if time.monotonic() > self._deadline:
                raise CostExceeded(TIME, self.total, self.limits.wall_seconds)
