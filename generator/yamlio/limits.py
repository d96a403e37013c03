"""Hard limits that keep hostile or broken input from exhausting time or memory."""

from __future__ import annotations

from typing import Final

MAX_BYTES: Final = 32 * 1024 * 1024
"""Largest file or stream read, checked while reading (the largest real manifests are ~5 MB)."""

MAX_DEPTH: Final = 128
"""Deepest nesting of mappings and sequences. CRD schemas nest ~40 levels; 128 is also ryaml's
own limit, so both parsers accept exactly the same documents."""

MAX_NODES: Final = 3_000_000
"""Most nodes (mappings, sequences, scalars) in one stream, those written in the text and the
copies made for aliases ("billion laughs") together. Counted while parsing, before the value is
built. Real inputs hold a node per 30-50 bytes (CRDs, manifests), under 1,200,000 nodes in a
full MAX_BYTES file; a 32 MiB list of 16 million one-digit numbers is refused. Dense runs of
simple entries are counted ahead of the parser where their collection opens
(:mod:`generator.yamlio.dense`), so such a list is refused in a fraction of a CPU-second, not
after reading 3,000,000 of its nodes."""

MAX_EXPANDED_BYTES: Final = 64 * 1024 * 1024
"""Largest size of one stream after alias expansion, counted as the characters of every scalar
(keys included) that aliases copy, on top of the text itself. An anchored 1 MB string aliased
3,000 times reads as a few KB of YAML but 3 GB of values for every later step (schema checks,
JSON, output), so it is refused while parsing."""
