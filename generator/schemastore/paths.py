"""Group, version and kind as path components: checked before any of them names a file.

Schemas are stored as ``<group>/<kind>_<version>.json`` (the cache, conversion memos,
kubeconform's layout), so a CRD whose ``spec.group`` is ``../../..`` or whose version holds a
``/`` would otherwise write wherever it says. Every name is checked against what the API server
itself accepts (:func:`crd_names_problem`, for CRDs) or against the catalog layout's alphabet
(:func:`gvk_path_problem`, for any GVK about to become a path); and every file written below a
folder is resolved and asserted to stay inside it (:func:`confined`), in case a check is missed.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from generator.errors import Location, SchemaStoreError
from generator.schemastore.types import GroupVersionKind

MAX_GROUP = 253  # a DNS-1123 subdomain
MAX_LABEL = 63  # a DNS-1035 label (versions), and the lower-cased kind (as the API server checks)

_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_SUBDOMAIN = re.compile(rf"^{_LABEL}(\.{_LABEL})*$")
_DNS1035 = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
_KIND = re.compile(r"^[A-Z][A-Za-z0-9]*$")
_PATH_KIND = re.compile(r"^[a-z0-9]+$")  # a kind as the layout writes it: lower-cased


def group_problem(group: str) -> str | None:
    """Why ``group`` is not a DNS-1123 subdomain (what ``spec.group`` must be), else None."""
    if len(group) > MAX_GROUP or not _SUBDOMAIN.match(group):
        return (
            f"{_shown(group)} is not a DNS-1123 subdomain (lower-case letters, digits, '-' "
            f"and '.', at most {MAX_GROUP} characters)"
        )
    return None


def version_problem(version: str) -> str | None:
    """Why ``version`` is not a DNS-1035 label (what a CRD version name must be), else None."""
    if len(version) > MAX_LABEL or not _DNS1035.match(version):
        return (
            f"{_shown(version)} is not a DNS-1035 label (a lower-case letter, then lower-case "
            f"letters, digits and '-', at most {MAX_LABEL} characters)"
        )
    return None


def kind_problem(kind: str) -> str | None:
    """Why ``kind`` is not a Kubernetes kind (``^[A-Z][A-Za-z0-9]*$``, bounded), else None."""
    if len(kind) > MAX_LABEL or not _KIND.match(kind):
        return (
            f"{_shown(kind)} is not a Kubernetes kind (an upper-case letter, then letters and "
            f"digits, at most {MAX_LABEL} characters)"
        )
    return None


def crd_names_problem(gvk: GroupVersionKind) -> tuple[str, str] | None:
    """The first of group, kind and version of a CRD that the API server would refuse, as
    (field, why), or None; the field is named as in the CRD (``spec.group`` ...)."""
    for field, problem in (
        ("spec.group", group_problem(gvk.group)),
        ("spec.names.kind", kind_problem(gvk.kind)),
        ("version name", version_problem(gvk.version)),
    ):
        if problem is not None:
            return field, problem
    return None


def gvk_path_problem(gvk: GroupVersionKind) -> str | None:
    """Why ``gvk`` cannot be laid out as ``<group>/<kind>_<version>.json``, else None.

    Looser than :func:`crd_names_problem` (catalog files carry the kind lower-cased, core kinds
    have no group), but every part is of an alphabet without ``/``, ``\\`` or ``..``.
    """
    if gvk.group and (problem := group_problem(gvk.group)) is not None:
        return f"group {problem}"
    if not _PATH_KIND.match(gvk.kind.lower()) or len(gvk.kind) > MAX_LABEL:
        return f"kind {_shown(gvk.kind)} cannot be a file name"
    if (problem := version_problem(gvk.version)) is not None:
        return f"version {problem}"
    return None


def confined(root: Path, relative: str) -> Path:
    """``root / relative``, once resolved (symbolic links followed) still inside ``root``;
    otherwise a :class:`SchemaStoreError` naming both. Defence in depth: the names are checked
    before they become paths, this catches what a check missed."""
    target = root / relative
    base = os.path.realpath(root)
    resolved = os.path.realpath(target)
    if os.path.isabs(relative) or os.path.commonpath([base, resolved]) != base or resolved == base:
        msg = f"refusing to write {relative!r}: it resolves outside {root}"
        raise SchemaStoreError(msg, location=Location(file=str(root)))
    return target


def _shown(value: str) -> str:
    """A name for messages: quoted, and cut short if a hostile input made it huge."""
    return repr(value if len(value) <= 80 else value[:80] + "...")
