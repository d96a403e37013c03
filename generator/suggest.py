"""Suggestions ("did you mean ...?"): the one helper every closed set of names uses.

Variable names, flavor names, enum values, object fields, Azure regions: a person who mistypes one
gets the nearest members of the set. Nearness is the optimal-string-alignment form of the
Damerau-Levenshtein distance (insertions, deletions, substitutions and swaps of two neighbouring
characters each cost one), computed on a folded form of both words (case ignored, ``-``/``_``/
spaces dropped), so ``vmsize`` finds ``vmSize`` and ``West Europe`` finds ``westeurope``.
"""

from __future__ import annotations

from collections.abc import Iterable

# Longer words tolerate more edits; a third of the length, at least 2, keeps "ask" -> "aks" and
# "AZURE_NODE_MACHNE_TYPE" -> "AZURE_NODE_MACHINE_TYPE" while refusing unrelated names.
_MIN_DISTANCE = 2
_LENGTH_SHARE = 3
_FOLDED_AWAY = str.maketrans("", "", "-_ .")


def fold(word: str) -> str:
    """``word`` as it is compared: lower case without ``-``, ``_``, ``.`` and spaces."""
    return word.lower().translate(_FOLDED_AWAY)


def distance(first: str, second: str) -> int:
    """Edits (insert, delete, substitute, swap two neighbours) turning ``first`` into ``second``."""
    if first == second:
        return 0
    previous_row: list[int] = []
    row = list(range(len(second) + 1))
    for i, left in enumerate(first, start=1):
        before, previous_row, row = previous_row, row, [i] + [0] * len(second)
        for j, right in enumerate(second, start=1):
            cost = 0 if left == right else 1
            row[j] = min(previous_row[j] + 1, row[j - 1] + 1, previous_row[j - 1] + cost)
            if i > 1 and j > 1 and left == second[j - 2] and first[i - 2] == right:
                row[j] = min(row[j], before[j - 2] + 1)
    return row[-1]


def closest(word: str, candidates: Iterable[str], *, limit: int = 3) -> list[str]:
    """Up to ``limit`` members of ``candidates`` near ``word``, nearest first (ties by name).

    A candidate equal to ``word`` once folded comes first; nothing is returned when no candidate
    is within a third of the word's length (at least two edits).
    """
    target = fold(word)
    allowed = max(_MIN_DISTANCE, len(target) // _LENGTH_SHARE)
    scored = []
    for candidate in set(candidates):
        if candidate == word:
            continue
        folded = fold(candidate)
        score = distance(target, folded)
        # A word that merely extends or truncates a candidate ("NODE_POOL" / "NODE_POOLS") counts
        # as near as one edit, provided it is at least half of the other (and four characters).
        if _affix(target, folded):
            score = min(score, 1)
        if score > allowed:
            continue
        scored.append((score, candidate))
    return [candidate for _, candidate in sorted(scored)[:limit]]


def _affix(target: str, folded: str) -> bool:
    shorter, longer = sorted((target, folded), key=len)
    shares_most = len(shorter) >= 4 and 2 * len(shorter) >= len(longer)
    return shares_most and (longer.startswith(shorter) or longer.endswith(shorter))


def did_you_mean(word: str, candidates: Iterable[str], *, limit: int = 1) -> str:
    """``"; did you mean X?"`` (or ``X or Y``) for the nearest candidates, ``""`` when none is near."""
    found = closest(word, candidates, limit=limit)
    if not found:
        return ""
    return f"; did you mean {' or '.join(found)}?"
