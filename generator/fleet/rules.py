"""The cross-cluster rules of a fleet, over facts each cluster's objects reveal: FLEET-001 no two
clusters share a name; FLEET-002 no two share a resource group (ResourceGroup ``spec.azureName``,
else ``metadata.name``; case-insensitive, as Azure); FLEET-003 no two share a ManagedCluster
``spec.dnsPrefix`` (case-insensitive)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from generator.findings import Finding, Gate, JsonPath, Severity, Subject
from generator.fleet.file import Fleet
from generator.jsontypes import Json

FLEET_RULES: dict[str, str] = {
    "FLEET-001": "no two clusters of a fleet share a name",
    "FLEET-002": "no two clusters of a fleet share an Azure resource group",
    "FLEET-003": "no two clusters of a fleet share a ManagedCluster DNS prefix",
}
FLEET_WHY: dict[str, str] = {
    "FLEET-001": "both are admitted, and one cluster's objects overwrite the other's",
    "FLEET-002": "Azure shares the group: deleting one cluster deletes the other's resources",
    "FLEET-003": "AKS admits both, and the clusters' API server names collide",
}
"""Who fails each fleet rule: all are provisioning (:class:`Gate`), as each cluster alone is
admitted and the clash shows only in Azure or on the management cluster once both exist."""
DISABLEABLE_FLEET_RULES = ("FLEET-002", "FLEET-003")  # clusters may sit in different subscriptions


@dataclass(frozen=True)
class Fact:
    """A resource group or DNS prefix a cluster uses, and where it was found."""

    rule: str
    value: str
    subject: Subject
    path: JsonPath


class ClusterFacts(Protocol):
    """A rendered cluster as the rules see it."""

    @property
    def name(self) -> str:
        """The cluster's name, as the fleet file gives it."""
        ...

    @property
    def facts(self) -> Sequence[Fact]:
        """The resource groups and DNS prefixes the cluster's objects use."""
        ...


def facts(objects: Sequence[Json], source: str) -> Iterator[Fact]:
    """The resource groups and DNS prefixes one cluster's objects use, embedded resources included.

    ``source`` is the file name findings will carry (see
    :func:`~generator.fleet.render.cluster_source`).
    """
    for index, obj in enumerate(objects):
        if not isinstance(obj, dict):
            continue
        top = Subject(file=source, document=index, kind=_text(obj.get("kind")), name=_name_of(obj))
        yield from _facts_of(obj, top, ())
        spec = obj.get("spec")
        resources = spec.get("resources") if isinstance(spec, dict) else None
        for position, resource in enumerate(resources if isinstance(resources, list) else []):
            path: JsonPath = ("spec", "resources", position)
            if isinstance(resource, dict):
                yield from _facts_of(resource, top.embedded(path, resource), path)


def _facts_of(obj: Mapping[str, Json], subject: Subject, base: JsonPath) -> Iterator[Fact]:
    spec = obj.get("spec")
    spec = spec if isinstance(spec, dict) else {}
    kind = obj.get("kind")
    if kind == "ResourceGroup":
        azure_name = _text(spec.get("azureName"))
        if azure_name:
            yield Fact("FLEET-002", azure_name, subject, (*base, "spec", "azureName"))
        elif _name_of(obj):
            yield Fact("FLEET-002", str(_name_of(obj)), subject, (*base, "metadata", "name"))
    elif kind == "ManagedCluster":
        prefix = _text(spec.get("dnsPrefix"))
        if prefix:
            yield Fact("FLEET-003", prefix, subject, (*base, "spec", "dnsPrefix"))


def _text(value: Json) -> str | None:
    return value if isinstance(value, str) and value else None


def _name_of(obj: Mapping[str, Json]) -> str | None:
    metadata = obj.get("metadata")
    return _text(metadata.get("name")) if isinstance(metadata, dict) else None


def cross_cluster_findings(
    fleet: Fleet, outcomes: Sequence[ClusterFacts], disabled: frozenset[str] = frozenset()
) -> list[Finding]:
    """FLEET-001..003: each later cluster that reuses a name, resource group or DNS prefix gets
    an error finding naming the first cluster that used it."""
    findings = []
    first_index: dict[str, int] = {}
    for cluster in fleet.clusters:
        if cluster.name in first_index:
            findings.append(
                Finding(
                    severity=Severity.ERROR,
                    rule="FLEET-001",
                    message=(
                        f"clusters[{first_index[cluster.name]}] and clusters[{cluster.index}] "
                        f"are both named {cluster.name!r}"
                    ),
                    subject=Subject(file=fleet.source, document=0, kind="Fleet", name=cluster.name),
                    path=("clusters", cluster.index, "name"),
                    gate=Gate.PROVISIONING,
                    why=FLEET_WHY["FLEET-001"],
                )
            )
        else:
            first_index[cluster.name] = cluster.index
    seen_names: set[str] = set()
    owners: dict[tuple[str, str], str] = {}
    what = {"FLEET-002": "resource group", "FLEET-003": "DNS prefix"}
    for outcome in outcomes:
        if outcome.name in seen_names:  # a duplicate name shares everything; FLEET-001 says so
            continue
        seen_names.add(outcome.name)
        used: set[tuple[str, str]] = set()
        for fact in outcome.facts:
            if fact.rule in disabled:
                continue
            key = (fact.rule, fact.value.casefold())
            owner = owners.get(key)
            if owner is not None and owner != outcome.name and key not in used:
                findings.append(
                    Finding(
                        severity=Severity.ERROR,
                        rule=fact.rule,
                        message=(
                            f"clusters {owner!r} and {outcome.name!r} both use "
                            f"{what[fact.rule]} {fact.value!r}"
                        ),
                        subject=fact.subject,
                        path=fact.path,
                        gate=Gate.PROVISIONING,
                        why=FLEET_WHY[fact.rule],
                    )
                )
            used.add(key)
            owners.setdefault(key, outcome.name)
    return findings
