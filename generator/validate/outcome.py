"""What validating one batch of the run found (:func:`generator.validate.passes.validate_batch`)."""

from __future__ import annotations

from typing import Final, final

from generator.findings import Finding


@final
class BatchResult:
    """Findings of one batch: about its own documents, and about its guest copies of hubs;
    which documents have findings, and whether any finding is about no document."""

    __slots__ = ("flagged", "guests", "home", "unplaced")

    def __init__(
        self,
        home: list[Finding],
        guests: list[Finding],
        flagged: set[int] | None = None,
        unplaced: bool = False,
    ) -> None:
        # A plain class: imported before the workers fork, where a dataclass cost ~0.4 ms.
        self.home: Final = home
        self.guests: Final = guests
        self.flagged: Final[set[int]] = set() if flagged is None else flagged
        self.unplaced: Final = unplaced
