"""The fleet file: checked against ``schemas/fleet.schema.json`` (overrides against the patch
schema), every problem reported at once, each cluster's settings resolved over the defaults."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache

import jsonschema_rs

from generator.errors import FleetError, Location
from generator.findings import format_path
from generator.generate.patches import PatchDocument, patch_from_data, schema_problems
from generator.generate.request import DEFAULT_FLAVOR
from generator.jsontypes import Json, JsonObject
from generator.resources import builtin_schemas_dir
from generator.yamlio.load import load_documents, read_source


@dataclass(frozen=True)
class FleetCluster:
    """One entry of ``clusters`` with the fleet's ``defaults`` applied: values deep-merged over the
    defaults' values, overrides after the defaults' ones."""

    name: str
    index: int  # position in ``clusters``
    flavor: str = DEFAULT_FLAVOR
    namespace: str | None = None
    kubernetes_version: str | None = None
    worker_machine_count: int | None = None
    values: Mapping[str, Json] = field(default_factory=dict)
    overrides: tuple[PatchDocument, ...] = ()


@dataclass(frozen=True)
class Fleet:
    """A checked fleet file: its source (``<stdin>`` for ``-``) and its clusters in file order."""

    source: str
    clusters: tuple[FleetCluster, ...]

    @property
    def names(self) -> list[str]:
        """The cluster names in file order, duplicates included (FLEET-001 reports those)."""
        return [c.name for c in self.clusters]


@cache
def _validator() -> jsonschema_rs.Validator:
    schema = json.loads((builtin_schemas_dir() / "fleet.schema.json").read_text(encoding="utf-8"))
    return jsonschema_rs.validator_for(schema)


def deep_merge(base: Mapping[str, Json], override: Mapping[str, Json]) -> JsonObject:
    """``override`` over ``base``: mappings merge recursively, anything else replaces, ``None``
    removes the key. Neither argument is modified."""
    merged = dict(base)
    for key, value in override.items():
        if value is None:
            merged.pop(key, None)
        elif isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def load_fleet(path: str) -> Fleet:
    """Read and parse the fleet file at ``path`` (``-`` for stdin); see :func:`parse_fleet`."""
    return parse_fleet(read_source(path), source="<stdin>" if path == "-" else path)


def parse_fleet(text: str, *, source: str) -> Fleet:
    """Check a fleet file against its schema (and its overrides against the patch schema),
    reporting every problem at once, then resolve each cluster's settings over the defaults."""
    documents = [d for d in load_documents(text, source=source) if d.obj is not None]
    if len(documents) != 1:
        msg = f"a fleet file holds one YAML document, not {len(documents)}"
        raise FleetError(
            msg,
            location=Location(file=source),
        )
    raw, index = documents[0].obj, documents[0].index
    problems = [
        f"{format_path(list(e.instance_path)) or '(top level)'}: {e.message}"
        for e in _validator().iter_errors(raw)
    ]
    if not problems:
        problems = _override_problems(raw)
    if problems:
        msg = "invalid fleet file"
        raise FleetError(
            msg,
            location=Location(file=source),
            details=problems,
            hint="see docs/gitops-and-fleets.md, Fleets (schema: schemas/fleet.schema.json)",
        )
    defaults = raw.get("defaults", {})
    shared = _overrides(defaults, source, index, "defaults")
    clusters = []
    for position, entry in enumerate(raw["clusters"]):
        settings = {**defaults, **entry}
        clusters.append(
            FleetCluster(
                name=entry["name"],
                index=position,
                flavor=settings.get("flavor", DEFAULT_FLAVOR),
                namespace=settings.get("namespace"),
                kubernetes_version=settings.get("kubernetesVersion"),
                worker_machine_count=settings.get("workerMachineCount"),
                values=deep_merge(defaults.get("values", {}), entry.get("values", {})),
                overrides=(
                    *shared,
                    *_overrides(entry, source, index, f"clusters[{position}]"),
                ),
            )
        )
    return Fleet(source=source, clusters=tuple(clusters))


def _override_problems(raw: Mapping[str, Json]) -> list[str]:
    problems = []
    names = {c["name"] for c in raw["clusters"]}
    places: list[tuple[Sequence[str | int], Mapping[str, Json]]] = [
        (("defaults",), raw.get("defaults", {}))
    ]
    places += [(("clusters", i), c) for i, c in enumerate(raw["clusters"])]
    for prefix, settings in places:
        for position, item in enumerate(settings.get("overrides", [])):
            where = (*prefix, "overrides", position)
            problems.extend(schema_problems(item, where))
            unknown = sorted(set(item.get("clusters", [])) - names)
            if unknown:
                problems.append(
                    f"{format_path([*where, 'clusters'])}: no cluster named {', '.join(unknown)}"
                )
    return problems


def _overrides(
    settings: Mapping[str, Json], source: str, index: int, prefix: str
) -> tuple[PatchDocument, ...]:
    return tuple(
        patch_from_data(item, source=source, index=index, where=f"{prefix}.overrides[{position}]")
        for position, item in enumerate(settings.get("overrides", []))
    )


def check_patch_selectors(fleet: Fleet, patches: Sequence[PatchDocument]) -> None:
    """A ``clusters:`` selector in a ``--patch`` file must name clusters of the fleet."""
    names = set(fleet.names)
    problems = [
        f"{p.source}: document {(p.index or 0) + 1}: no cluster named {', '.join(sorted(unknown))}"
        for p in patches
        if p.clusters is not None and (unknown := p.clusters - names)
    ]
    if problems:
        msg = "patch selects clusters that are not in the fleet"
        raise FleetError(
            msg,
            location=Location(file=fleet.source),
            details=problems,
        )
