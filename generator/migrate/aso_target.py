"""What ``--aso-version`` asks for: which API version each ASO kind moves to.

The flag takes one or more words (repeat it, or separate them with commas):

* a version (``v1api20250801``): every ASO kind whose schemas include that version moves to it;
  kinds without it stay where they are, so one flag can move ManagedCluster and its agent pools
  together while a FleetsMember in the same file keeps its version;
* ``Kind=version`` (``FleetsMember=v1api20250301``): that kind only; it wins over a bare version;
* ``served``: each resource on a version ASO no longer serves moves to the version the
  CAPZ-ASO-VERSION-REMOVED rule names (:data:`~generator.checks.rules.versions.REMOVED_VERSIONS`),
  everything else stays: the smallest move that makes ``validate`` accept the apiVersions;
* ``latest``: each kind moves to the newest non-preview ``v1apiYYYYMMDD`` version the schema store
  has for it.

The choice is checked against the versions the schema store has before anything is read, so a
typo is a usage error that lists what the store offers for that kind, never a silent no-op.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from generator.checks.rules.versions import REMOVED_VERSIONS
from generator.errors import UsageError
from generator.model.kinds import is_aso_group

SERVED = "served"
LATEST = "latest"
_WORD = re.compile(r"^[A-Za-z][A-Za-z0-9]*$")
_STABLE = re.compile(r"^v1api(\d{8})$")

# (group, kind) -> the versions the schema store has for it
Catalog = Mapping[tuple[str, str], frozenset[str]]


@dataclass(frozen=True)
class AsoTarget:
    """The parsed ``--aso-version`` words: one rule for all kinds and per-kind versions."""

    everywhere: str | None = None  # a version, SERVED or LATEST
    kinds: tuple[tuple[str, str], ...] = ()  # (Kind, version) pairs, in the order given

    def for_kind(self, kind: str) -> str | None:
        """The word that decides ``kind``'s target: its own pair, else the one for all kinds."""
        for name, version in self.kinds:
            if name == kind:
                return version
        return self.everywhere


def parse_target(words: Sequence[str]) -> AsoTarget:
    """Parse the flag's values (see the module docstring); raises UsageError on a malformed one."""
    everywhere: str | None = None
    kinds: dict[str, str] = {}
    for word in (part.strip() for text in words for part in text.split(",")):
        if not word:
            continue
        kind, equals, version = word.partition("=")
        if equals:
            if not _WORD.match(kind) or not _WORD.match(version):
                raise _bad(word, "expected Kind=version, e.g. FleetsMember=v1api20250301")
            if kinds.get(kind, version) != version:
                raise _bad(word, f"{kind} is given two versions")
            kinds[kind] = version
        elif not _WORD.match(word):
            raise _bad(word, "expected a version such as v1api20250801, served or latest")
        elif everywhere not in (None, word):
            raise _bad(word, f"a version for all kinds is already given ({everywhere})")
        else:
            everywhere = word
    if everywhere is None and not kinds:
        raise _bad(",".join(words), "no version given")
    return AsoTarget(everywhere, tuple(kinds.items()))


def _bad(word: str, why: str) -> UsageError:
    return UsageError(f"invalid --aso-version {word!r}: {why}")


def catalog_of(entries: Iterable[tuple[str, str, str]]) -> dict[tuple[str, str], frozenset[str]]:
    """The ASO kinds of ``(group, version, kind)`` schema entries and their versions."""
    found: dict[tuple[str, str], set[str]] = {}
    for group, version, kind in entries:
        if is_aso_group(group):
            found.setdefault((group, kind), set()).add(version)
    return {key: frozenset(versions) for key, versions in found.items()}


def check_kinds(target: AsoTarget, catalog: Catalog) -> None:
    """Refuse ``Kind=version`` for a version the schema store does not have for that kind; the
    hint lists the versions it has."""
    for kind, version in target.kinds:
        if version in (SERVED, LATEST):
            continue
        known = _versions_of_kind(kind, catalog)
        if version not in known:
            listed = ", ".join(sorted(known)) or "none"
            msg = (
                f"invalid --aso-version {kind}={version}: the schema store has no {kind} {version}"
            )
            raise UsageError(msg, hint=f"versions of {kind}: {listed}")


def check_everywhere(
    target: AsoTarget, catalog: Catalog, present: Iterable[tuple[str, str]]
) -> None:
    """Refuse a bare version no ASO kind of the store has; the message lists the versions of the
    kinds ``present`` in the input (of containerservice's kinds when there are none)."""
    version = target.everywhere
    if version is None or version in (SERVED, LATEST):
        return
    if not any(version in versions for versions in catalog.values()):
        shown = sorted(set(present) & catalog.keys()) or sorted(
            key for key in catalog if key[0] == "containerservice.azure.com"
        )
        details = [f"{kind}: {', '.join(sorted(catalog[(g, kind)]))}" for g, kind in shown]
        msg = f"invalid --aso-version {version}: no ASO kind in the schema store has that version"
        raise UsageError(msg, details=["versions the schema store has:", *details])


def _versions_of_kind(kind: str, catalog: Catalog) -> frozenset[str]:
    return frozenset(
        v for (_group, name), versions in catalog.items() if name == kind for v in versions
    )


def target_version(
    target: AsoTarget, group: str, kind: str, version: str, catalog: Catalog
) -> str | None:
    """The version a ``group/version`` ``kind`` resource moves to, or None to leave it."""
    word = target.for_kind(kind)
    if word is None:
        return None
    if word == SERVED:
        chosen: str | None = REMOVED_VERSIONS.get((group, kind, version))
    elif word == LATEST:
        chosen = _newest(catalog.get((group, kind), frozenset()))
    else:
        chosen = word if word in catalog.get((group, kind), frozenset()) else None
    return None if chosen in (None, version) else chosen


def _newest(versions: Iterable[str]) -> str | None:
    stable = sorted((match.group(1), v) for v in versions if (match := _STABLE.match(v)))
    return stable[-1][1] if stable else None
