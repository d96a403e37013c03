"""What validating one batch of the run found (:func:`generator.validate.passes.validate_batch`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from generator.findings import Finding


@dataclass(frozen=True, slots=True)
class BatchResult:
    """Findings of one batch: about its own documents, and about its guest copies of hubs;
    which documents have findings, and whether any finding is about no document."""

    home: list[Finding]
    guests: list[Finding]
    flagged: set[int] = field(default_factory=set)
    unplaced: bool = False
