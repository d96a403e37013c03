"""One GVK a schema source offers, and how to load its schema (shared by every kind of source)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from generator.jsontypes import JsonObject
from generator.schemastore.types import GroupVersionKind


def gvk_key(gvk: GroupVersionKind) -> tuple[str, str, str]:
    """How sources index a GVK: group, version and the kind lower-cased."""
    return (gvk.group, gvk.version, gvk.kind.lower())


@dataclass(frozen=True)
class SchemaEntry:
    """One GVK a source offers. ``exact_kind`` is False when only the lower-cased kind is known."""

    gvk: GroupVersionKind
    source: str
    exact_kind: bool
    load: Callable[[], JsonObject] = field(repr=False, compare=False)
    pinned: str | None = field(default=None, compare=False)  # project@release, when known
    # Known to have no $ref outside itself (checked when the bundle was built): the store need
    # not walk it again.
    self_contained: bool = field(default=False, compare=False)

    def matches(self, gvk: GroupVersionKind) -> bool:
        """Whether the entry serves ``gvk``, ignoring the kind's case when only that is known."""
        if self.exact_kind:
            return self.gvk == gvk
        return gvk_key(self.gvk) == gvk_key(gvk)

    def display_kind(self) -> str:
        """The kind in its proper case when it can be found, else as indexed (for listings)."""
        if self.exact_kind:
            return self.gvk.kind
        # lazy: the catalog reader loads only for listings of catalog files (schemas list)
        from generator.schemastore.catalog import peek_kind

        return peek_kind(Path(self.source)) or self.gvk.kind
