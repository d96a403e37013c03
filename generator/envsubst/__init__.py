"""clusterctl's ``${VAR}`` substitution: drone/envsubst (commit 179042472c46) as wrapped by
clusterctl v1.13.3, reproduced byte for byte.

* :func:`parse` / :class:`Template` — drone's grammar and evaluation.
* :func:`normalize_legacy`, :func:`inspect_variables`, :func:`missing_variables`,
  :func:`substitute` — clusterctl's wrapper (legacy ``${ VAR }``, variable map, missing check).
* :func:`go_quote` — Go's ``%q``; :mod:`generator.envsubst.listing` formats the
  ``--list-variables`` output of both commands with it (imported from there, so that substituting
  does not load the listing's tab writer).

Text is a Python ``str`` decoded with ``errors="surrogateescape"``; byte-based operations work on
the original bytes, so invalid UTF-8 passes through unchanged.
"""

from __future__ import annotations

from generator.envsubst.clusterctl import (
    inspect_variables,
    missing_variables,
    normalize_legacy,
    substitute,
)
from generator.envsubst.quote import go_quote
from generator.envsubst.template import Template, parse

__all__ = [
    "Template",
    "go_quote",
    "inspect_variables",
    "missing_variables",
    "normalize_legacy",
    "parse",
    "substitute",
]
