"""What every checker is given: the documents, their indexed view, the schemas and the options.

Kept apart from :mod:`generator.checks.engine` so that checkers can name these types without
importing the engine that runs them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from generator.documents import Document
from generator.findings import Finding, Severity
from generator.schemastore.types import SchemaLookup

# Only runs with --kubeconform load the wrapper (~6 ms of start-up); the document model is the
# workers' (the parent of a -j N run never builds one).
if TYPE_CHECKING:
    from generator.kubeconform.process import KubeconformOptions
    from generator.model.manifests import ManifestSet


@dataclass(frozen=True)
class ValidationOptions:
    """What a validation run checks: the rules to skip and whether schemas and CEL are used.

    ``ignore_missing_schemas`` turns a missing schema from an error into a warning.
    """

    disabled_rules: frozenset[str] = frozenset()
    ignore_missing_schemas: bool = False
    schemas: bool = True  # False (or no store): skip JSON Schema validation, keep the rules
    cel: bool = True  # evaluate the CRDs' CEL rules (x-kubernetes-validations), as the API server
    cache_root: Path | None = None  # where the CEL grammar analysis may be cached
    # The kinds of the whole input when the documents validated are one batch of it; None: the
    # documents are the whole input.
    present_kinds: frozenset[str] | None = None


@dataclass(frozen=True)
class CheckOptions:
    """Everything about how a command checks what it produces or reads, built once by the CLI
    and carried unchanged to every path (``generate cluster``/``fleet``, ``validate``, ``migrate``,
    ``adopt``).

    Kept apart from :class:`ValidationOptions` on purpose: those are pickled to worker processes
    and fingerprinted by the result cache, and neither whether to validate nor how kubeconform
    runs (its binary, time limit and environment) changes capzgen's own findings.
    """

    validate: bool = True  # False: --no-validate (a flavor's render-time checks still run)
    validation: ValidationOptions = ValidationOptions()
    kubeconform: KubeconformOptions | None = None  # --kubeconform: its second opinion, merged
    fail_on: Severity = Severity.ERROR  # --fail-on: the least severe finding that fails the run


class CheckContext(NamedTuple):
    """One validation run's input, built once and handed to every checker (a ``NamedTuple``:
    immutable, and cheaper than a frozen dataclass to define on every command's start-up path)."""

    documents: Sequence[Document]
    manifests: ManifestSet
    store: SchemaLookup | None  # None when schema validation is off or there is no store
    options: ValidationOptions

    def enabled(self, rule_id: str) -> bool:
        """Whether findings of ``rule_id`` are wanted (``--disable-rule`` not given for it)."""
        return rule_id not in self.options.disabled_rules


Checker = Callable[[CheckContext], Iterable[Finding]]
"""A check over a whole run: returns its findings, leaving out those of disabled rules."""
