"""A cheap lower bound of the nodes in a dense run of simple entries, so that an input far over
the node bound is refused before it is parsed.

The precise parser counts every node as it reads, but reading costs a few microseconds of Python
per node: a 32 MiB list of 16 million numbers (``[0,0,0,...]``) would take seconds of CPU to reach
the bound of 3,000,000 nodes. When the parser opens a collection, this module looks at the text
right there, where the parser's own position tells the context (inside a flow collection, or at
the first entry of a block collection), and counts with regular expressions running in C how many
nodes the entries that follow hold at least:

* in a flow collection, each entry (a plain scalar of safe characters, a ``key: value`` pair of
  them, or a flow collection of them one level deep) followed by a comma is at least one node, and
  every ``[`` or ``{`` among them one more;
* in a block sequence, each ``- scalar`` line at the sequence's own indentation is one node;
* in a block mapping, each ``key: scalar`` line at the mapping's own indentation is two nodes.

Entries are only counted where nothing can make them something else: no quotes, comments, block
scalars, anchors, aliases, tags or document markers are matched, so the count never exceeds the
nodes the parser would build (a lower bound; anything unusual simply ends the run). The matching
is possessive (no backtracking) and done in chunks, so its cost is linear in the text it covers
and stops as soon as the bound is proven.
"""

from __future__ import annotations

import functools
import re
from typing import Final

# A plain scalar of characters that mean nothing else in flow or block context; its first
# character keeps it from being ``---``, ``...``, an indicator or a comment.
_SCALAR: Final = r"[-+]?[A-Za-z0-9_][A-Za-z0-9_./+=~^$-]*+"
# In flow context, quoted scalars too, on one line and without a comma or bracket (so that every
# comma and bracket of a run is structure) nor an escape.
_FLOW_SCALAR: Final = rf"""(?:{_SCALAR}|"[^"\\\r\n,\[\]{{}}]*+"|'[^'\r\n,\[\]{{}}]*+')"""
_WS: Final = r"[ \t\r\n]*+"
_PAIR: Final = rf"{_FLOW_SCALAR}(?:[ \t]*+:[ \t]++{_FLOW_SCALAR})?+"
_INNER: Final = rf"{_WS}(?:{_PAIR}{_WS},{_WS})*+(?:{_PAIR}{_WS})?+"
_FLOW_ENTRY: Final = rf"(?:{_PAIR}|\[{_INNER}\]|\{{{_INNER}\}})"
CHUNK: Final = 65_536  # entries matched per regular-expression call


@functools.cache
def _flow_run() -> re.Pattern[str]:
    return re.compile(rf"(?:{_WS}{_FLOW_ENTRY}{_WS},){{1,{CHUNK}}}+")


@functools.cache
def _block_run(column: int, pairs: bool) -> re.Pattern[str]:
    entry = rf"{_SCALAR}[ \t]*+:[ \t]++{_SCALAR}" if pairs else rf"-[ \t]++{_SCALAR}"
    return re.compile(rf"(?:{entry}[ \t]*+\r?\n {{{column}}}(?=[-A-Za-z0-9_+])){{1,{CHUNK}}}+")


def flow_nodes(text: str, start: int, needed: int) -> tuple[int, int]:
    """``(nodes, end)``: at least ``nodes`` nodes are in the flow collection whose first entry
    starts at ``start``, in ``text[start:end]``; counting stops once ``needed`` is passed."""
    pattern = _flow_run()
    found, position = 0, start
    while found <= needed:
        match = pattern.match(text, position)
        if match is None:
            break
        end = match.end()
        found += text.count(",", position, end)
        found += text.count("[", position, end) + text.count("{", position, end)
        position = end
    return found, position


def block_nodes(text: str, start: int, column: int, *, pairs: bool, needed: int) -> tuple[int, int]:
    """``(nodes, end)`` for the block sequence (or mapping, with ``pairs``) whose first entry
    starts at ``start`` in column ``column``; counting stops once ``needed`` is passed."""
    pattern = _block_run(column, pairs)
    found, position = 0, start
    per_line = 2 if pairs else 1
    while found <= needed:
        match = pattern.match(text, position)
        if match is None:
            break
        end = match.end()
        found += per_line * text.count("\n", position, end)
        position = end
    return found, position
