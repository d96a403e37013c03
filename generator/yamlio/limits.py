"""Hard limits that keep hostile or broken input from exhausting time or memory."""

from __future__ import annotations

from typing import Final

MAX_BYTES: Final = 32 * 1024 * 1024
"""Largest file or stream read, checked while reading (the largest real manifests are ~5 MB)."""

MAX_DEPTH: Final = 128
"""Deepest nesting of mappings and sequences. CRD schemas nest ~40 levels; 128 is also ryaml's
own limit, so both parsers accept exactly the same documents."""

MAX_NODES: Final = 2_000_000
"""Most nodes alias expansion may add to one stream ("billion laughs"). Nodes written out in
the text are already bounded by MAX_BYTES, so only the copies made for aliases are counted."""
