"""Rule descriptions as a user reads them: without capzgen's internal reference IDs.

Each rule's description ends with where its requirement comes from, in bracketed reference IDs
(``K9``, ``C19``, ``§4.4``) that point into the design notes capzgen was built from. The tests hold
every rule to citing them, but a user has no such notes and cannot look an ID up, so what
``--list-rules`` and docs/rules.md show keeps only the words that mean something on their own:
upstream names (``CAPZ validateMPSubnetName``, ``ASO nodeTaints``) and explanations.
"""

from __future__ import annotations

import re

_ID = r"(?:§\d+(?:\.\d+)*|\b[RCOKWP]\d+(?:[–-][RCOKWP]?\d+)?\b)"
_IDS = rf"{_ID}(?:(?:\s*,\s*|\s+and\s+){_ID})*"
# a clause that is only IDs, possibly with a few words tied to them ("for templates", "ownership")
_BARE = re.compile(rf"^\s*{_IDS}(?:\s+(?:for templates|ownership))?\s*$")
_LEADING = re.compile(rf"^\s*{_IDS}\s*:\s*")  # "§1.8: CAPZ identifies..." -> the explanation
_ANY = re.compile(rf"\s*,?\s*{_ID}\s*,?")
_GROUP = re.compile(r"\(([^()]*)\)")


def _clause(text: str) -> str:
    if _BARE.match(text):
        return ""
    text = _LEADING.sub("", text)
    return _ANY.sub(lambda m: ", " if m.group(0).strip().endswith(",") else "", text).strip(" ,")


def _group(match: re.Match[str]) -> str:
    inner = match.group(1)
    if not re.search(_ID, inner):
        return match.group(0)
    clauses = [kept for clause in inner.split(";") if (kept := _clause(clause))]
    return f"({'; '.join(clauses)})" if clauses else ""


def public_text(description: str) -> str:
    """``description`` with the internal reference IDs taken out of its bracketed parts (a part
    left empty goes, brackets and all)."""
    return re.sub(r"\s+(?=[.,;]|$)", "", _GROUP.sub(_group, description)).strip()
