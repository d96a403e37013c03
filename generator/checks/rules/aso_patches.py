"""Option-7 patches of the legacy API (reference §5.3, §5.4; CAPZ ``azure/services/aso/aso.go``).

``AzureManagedControlPlane.spec.asoManagedClusterPatches`` and
``AzureManagedMachinePool.spec.asoManagedClustersAgentPoolPatches`` (and the same fields of their
Templates, under ``spec.template.spec``) are strings, JSON or YAML, each an RFC 7386 JSON merge
patch that CAPZ applies in order to the whole ManagedCluster / ManagedClustersAgentPool it builds
(``{"spec": {...}}``). The CRDs take any string, so a typo reaches AKS, or is dropped by ASO,
only once the cluster reconciles. Here each patch is:

* parsed (``CAPZ-ASO-PATCH-JSON``): a string CAPZ cannot read as a JSON object, with the line and
  column of the mistake inside the patch;
* checked for fields CAPZ sets itself (``CAPZ-ASO-PATCH-OWNED``, a warning): name, owner,
  location, ``kubernetesVersion`` and ``agentPoolProfiles`` of the ManagedCluster; name, owner,
  ``orchestratorVersion`` and ``count`` of an agent pool. A patch wins over CAPZ's value and makes
  it fight CAPZ's own reconciliation;
* applied, in order, to the object CAPZ would build (:mod:`generator.capzbuild`, the mapping
  ``capzgen migrate`` uses), and the result validated against the schema
  (``CAPZ-ASO-PATCH-SCHEMA``): what the patches add that the schema refuses, a misspelt field or
  a wrong type, reported on the patch that wrote it.

Which schema: ``containerservice.azure.com/v1api20240901``, the version CAPZ v1.26.0's released
templates embed and the built-in bundle ships. CAPZ v1.26.0 itself builds ``v1api20250801``
(``v20251002preview`` with ``enablePreviewFeatures``), for which no schema is available here. So
a field unknown to ``v1api20240901`` is an error only when no shipped ManagedCluster /
ManagedClustersAgentPool version has it; a field that another shipped version (a preview) has is
only a warning (``CAPZ-ASO-PATCH-VERSION``) saying it could not be checked. Without a schema
store (``--no-schemas``, a flavor's render-time checks) only the parse and ownership checks run.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final, final

from generator.capzbuild.patches import PatchProblem, apply_patches, patched_paths
from generator.capzbuild.tables import CONTAINER_SERVICE_API
from generator.checks.rules.aso_patch_targets import (
    Patch,
    Patched,
    Unbuildable,
    build,
    patched_objects,
)
from generator.checks.rules.base import Rule
from generator.findings import Finding, Gate, JsonPath, Severity, format_path
from generator.jsontypes import dig
from generator.model.manifests import ManifestSet
from generator.model.values import is_templated
from generator.schemastore.types import SchemaHandle, SchemaLookup, SchemaViolation

# The other ManagedCluster / ManagedClustersAgentPool versions the built-in bundle ships
# (schemas/sources.yaml): a field one of them has is a real AKS field, just not a v1api20240901 one.
OTHER_SHIPPED_VERSIONS = (
    "v1api20240402preview",
    "v1api20231102preview",
    "v1api20231001",
    "v1api20230201",
    "v1api20210501",
)
_GROUP = CONTAINER_SERVICE_API.rpartition("/")[0]


PATCH_JSON = Rule(
    "CAPZ-ASO-PATCH-JSON",
    "Each asoManagedClusterPatches / asoManagedClustersAgentPoolPatches entry is JSON or YAML "
    "holding an object, a JSON merge patch CAPZ can apply (§5.3, §5.4 option 7; CAPZ aso.go)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="CAPZ's controller cannot apply the patch",
)


@PATCH_JSON.checks
def _check_json(ms: ManifestSet) -> Iterator[Finding]:
    for patched in patched_objects(ms):
        for patch in patched.patches:
            if isinstance(patch.value, PatchProblem):
                yield PATCH_JSON.at(patched.obj, patch.path, patch.value.describe())


PATCH_OWNED = Rule(
    "CAPZ-ASO-PATCH-OWNED",
    "A patch does not set what CAPZ sets itself: name, owner, location, kubernetesVersion, "
    "agentPoolProfiles; a pool's name, owner, orchestratorVersion, count (§5.3, §5.4, C5-C12)",
    Severity.WARNING,
    Gate.PROVISIONING,
    why="CAPZ's controller overwrites what the patch sets",
)


@PATCH_OWNED.checks
def _check_owned(ms: ManifestSet) -> Iterator[Finding]:
    for patched in patched_objects(ms):
        owned = patched.target.owned
        for patch in patched.merge_patches:
            assert isinstance(patch.value, dict)
            hits = {
                field: source
                for path in patched_paths(patch.value)
                for field, source in owned.items()
                if _related(path, field)
            }
            for field, source in hits.items():
                yield PATCH_OWNED.at(
                    patched.obj,
                    patch.path,
                    f"{format_path(field)}: CAPZ sets this field of the {patched.target.aso_kind} "
                    f"from {source}; a patch overrides CAPZ's value and conflicts with its "
                    "reconciliation",
                    hint="set it through the CAPZ field instead, and leave it out of the patch",
                )


def _related(a: JsonPath, b: JsonPath) -> bool:
    """Whether one path lies inside the other (or they are the same)."""
    n = min(len(a), len(b))
    return a[:n] == b[:n]


@final
class _Outcome:
    """What validating one object's patched result found: errors and unverifiable fields."""

    def __init__(self) -> None:
        self.errors: Final[list[Finding]] = []
        self.unverified: Final[list[Finding]] = []


PATCH_SCHEMA = Rule(
    "CAPZ-ASO-PATCH-SCHEMA",
    "The ManagedCluster / agent pool CAPZ builds, with the patches applied in order, matches the "
    "containerservice v1api20240901 schema (§5.3, §5.4 option 7)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="ASO refuses the resource CAPZ's controller builds from the patches",
)


@PATCH_SCHEMA.checks_with_schemas
def _check_schema(ms: ManifestSet, store: SchemaLookup | None) -> Iterator[Finding]:
    for outcome in _outcomes(ms, store):
        yield from outcome.errors


PATCH_VERSION = Rule(
    "CAPZ-ASO-PATCH-VERSION",
    "A patched field v1api20240901 lacks but another shipped version has cannot be checked: "
    "CAPZ v1.26.0 sends v1api20250801, which has no schema here (§0, §5.3 option 7)",
    Severity.WARNING,
    Gate.PROVISIONING,
    why="CAPZ's controller sends an API version capzgen has no schema for",
)


@PATCH_VERSION.checks_with_schemas
def _check_version(ms: ManifestSet, store: SchemaLookup | None) -> Iterator[Finding]:
    for outcome in _outcomes(ms, store):
        yield from outcome.unverified


def _outcomes(ms: ManifestSet, store: SchemaLookup | None) -> Iterator[_Outcome]:
    if store is None:
        return
    for patched in patched_objects(ms):
        patches = patched.merge_patches
        handle = store.lookup(CONTAINER_SERVICE_API, patched.target.aso_kind)
        if not patches or handle is None:
            continue  # nothing CAPZ could apply; no schema: the bundle always has one
        try:
            base = build(ms, patched)
        except Unbuildable:
            continue  # a legacy field of the wrong shape, which the CRD schema reports
        yield _validate(patched, patches, base, handle, store)


def _validate(
    patched: Patched,
    patches: list[Patch],
    base: dict[str, object],
    handle: SchemaHandle,
    store: SchemaLookup,
) -> _Outcome:
    """The violations the patches bring (those of the object built without them are not theirs),
    each reported on the last patch that wrote at or under its path."""
    result = apply_patches(base, [p.value for p in patches if isinstance(p.value, dict)])
    before = {(v.path, v.message) for v in handle.iter_violations(base)}
    outcome = _Outcome()
    for violation in handle.iter_violations(result):
        if (violation.path, violation.message) in before or is_templated(
            dig(result, *violation.path)
        ):
            continue
        patch = _author(violation.path, patches)
        known_in = _versions_knowing(violation, patched, result, store)
        where = format_path(violation.path)
        if known_in:
            outcome.unverified.append(
                PATCH_VERSION.at(
                    patched.obj,
                    patch.path,
                    f"{where}: not a field of {CONTAINER_SERVICE_API} {patched.target.aso_kind}, "
                    f"only of {', '.join(known_in)}: CAPZ v1.26.0 sends v1api20250801 "
                    "(v20251002preview with enablePreviewFeatures), which capzgen has no schema "
                    "for; not checked",
                )
            )
            continue
        unknown = " (in no shipped version)" if _is_unknown_field(violation) else ""
        outcome.errors.append(
            PATCH_SCHEMA.at(
                patched.obj,
                patch.path,
                f"{where}: {violation.message}{unknown} "
                f"[{CONTAINER_SERVICE_API} {patched.target.aso_kind}]",
            )
        )
    return outcome


def _author(path: JsonPath, patches: list[Patch]) -> Patch:
    """The last patch that set something at, above or under ``path`` (else the last patch)."""
    for patch in reversed(patches):
        assert isinstance(patch.value, dict)
        if any(_related(path, written) for written in patched_paths(patch.value)):
            return patch
    return patches[-1]


def _is_unknown_field(violation: SchemaViolation) -> bool:
    return violation.message.startswith("unknown field")


def _versions_knowing(
    violation: SchemaViolation, patched: Patched, result: dict[str, object], store: SchemaLookup
) -> list[str]:
    """The other shipped versions whose schema has the field ``violation`` calls unknown."""
    if not _is_unknown_field(violation):
        return []
    knowing = []
    for version in OTHER_SHIPPED_VERSIONS:
        other = store.lookup(f"{_GROUP}/{version}", patched.target.aso_kind)
        if other is None:
            continue
        path = violation.path
        unknown = (v.path for v in other.iter_violations(result) if _is_unknown_field(v))
        if all(path[: len(u)] != u for u in unknown):  # neither the field nor a parent unknown
            knowing.append(version)
    return knowing
