"""What the parts of one stream share when the loader reads them one by one.

Kept apart from :mod:`generator.yamlio.precise` (libyaml's parser, through PyYAML) so that the
loader can account for a stream without loading PyYAML when ryaml reads all of it.
"""

from __future__ import annotations

from typing import NamedTuple


class Budget:
    """What one stream has used of the node and expanded-size bounds so far.

    A stream read in parts (one call per document that needs this parser) shares one budget,
    so the bounds hold for the whole stream, not for each part. (A plain class: a dataclass costs
    ten times as much to define, on the start-up of every command that reads YAML.)
    """

    __slots__ = ("chars", "nodes")

    def __init__(self, nodes: int = 0, chars: int = 0) -> None:
        self.nodes = nodes
        self.chars = chars


class Part(NamedTuple):
    """Where a part of a stream starts: its first line (1-based) and its first document index."""

    line: int = 1
    document: int = 0
