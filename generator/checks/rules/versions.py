"""API versions and Kubernetes versions (O8, §0, §5.1, K12).

ASO v2.18.0 (bundled with CAPZ v1.26.0) no longer serves several ManagedCluster, agent pool and
fleet versions that older templates embed; an apply of such a resource fails with "no matches for
kind". Kubernetes versions are compared as semver (optional leading ``v``).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator

from generator.checks.rules.base import LEGACY_CONTROL_PLANES, Located, Rule
from generator.findings import Finding, Gate, JsonPath, Severity
from generator.jsontypes import dig
from generator.model import kinds
from generator.model.manifests import ManifestSet, TopObject
from generator.model.values import known_str, parse_version
from generator.names import with_v_prefix

_MC_VERSIONS_REMOVED = ("v1api20210501", "v1api20230201", "v1api20231001", "v1api20231102preview")
# (group, kind, version) -> version to move to (O8).
REMOVED_VERSIONS: dict[tuple[str, str, str], str] = {
    **{(*kinds.MANAGED_CLUSTER, v): "v1api20240901" for v in _MC_VERSIONS_REMOVED},
    **{(*kinds.AGENT_POOL, v): "v1api20240901" for v in _MC_VERSIONS_REMOVED},
    (*kinds.FLEETS_MEMBER, "v1api20230315preview"): "v1api20250301",
}
# Served by ASO v2.18 but on their way out (O8): AKS retires the API 2026-07-01, ASO v2.19 drops it.
DEPRECATED_VERSIONS: dict[tuple[str, str, str], str] = {
    (*kinds.MANAGED_CLUSTER, "v1api20240402preview"): "v1api20240901",
    (*kinds.AGENT_POOL, "v1api20240402preview"): "v1api20240901",
}


def migrate_command(version: str, path: str) -> str:
    """The ``capzgen migrate --aso-version`` command line that moves ``path``'s resources to
    ``version``: the one place its text is built (finding hints, docs tests)."""
    shown = path if path and not path.startswith("<") else "PATH"
    return f"capzgen migrate --aso-version {version} {shlex.quote(shown)}"


REMOVED = Rule(
    "CAPZ-ASO-VERSION-REMOVED",
    "Embedded ASO apiVersions are served by ASO v2.18.0: ManagedCluster/ManagedClustersAgentPool "
    "v1api20210501, v1api20230201, v1api20231001, v1api20231102preview -> v1api20240901; FleetsMember "
    "v1api20230315preview -> v1api20250301 (O8)",
    Severity.ERROR,
    Gate.ADMISSION,
)


@REMOVED.checks
def _check_removed(ms: ManifestSet) -> Iterator[Finding]:
    for res in ms.resources:
        target = REMOVED_VERSIONS.get((res.group, res.kind, res.version))
        if target is not None:
            yield REMOVED.at(
                res,
                ("apiVersion",),
                f"{res.api_version} {res.kind} is not served by ASO v2.18.0 (CAPZ v1.26.0); use {res.group}/{target}",
                f"run `{migrate_command(target, res.top.document.source)}` (or `--aso-version served`)",
            )


DEPRECATED = Rule(
    "CAPZ-ASO-VERSION-DEPRECATED",
    "ManagedCluster/ManagedClustersAgentPool v1api20240402preview is dropped by ASO v2.19 and AKS (O8)",
    Severity.WARNING,
    Gate.PROVISIONING,
    why="admitted today; ASO v2.19 and AKS drop this version",
)


@DEPRECATED.checks
def _check_deprecated(ms: ManifestSet) -> Iterator[Finding]:
    for res in ms.resources:
        target = DEPRECATED_VERSIONS.get((res.group, res.kind, res.version))
        if target is not None:
            yield DEPRECATED.at(
                res,
                ("apiVersion",),
                f"{res.api_version} is removed in ASO v2.19 and retired by AKS on 2026-07-01; "
                f"move to {res.group}/{target}",
            )


CAPZ_ALPHA = Rule(
    "CAPZ-API-DEPRECATED",
    "AzureASOManaged* kinds use infrastructure.cluster.x-k8s.io/v1beta1, not the deprecated v1alpha1 (§0, §5.1)",
    Severity.WARNING,
    Gate.PROVISIONING,
    why="admitted today; CAPZ drops v1alpha1",
)


@CAPZ_ALPHA.checks
def _check_capz_alpha(ms: ManifestSet) -> Iterator[Finding]:
    for obj in ms.objects:
        if (
            obj.kind.startswith("AzureASOManaged")
            and obj.api_version == f"{kinds.CAPZ_GROUP}/v1alpha1"
        ):
            yield CAPZ_ALPHA.at(
                obj,
                ("apiVersion",),
                f"v1alpha1 is deprecated; use {kinds.CAPZ_API_VERSION} (same schema)",
            )


def _versions(ms: ManifestSet) -> Iterator[tuple[Located, JsonPath, object]]:
    """Every Kubernetes version field the tool knows, with its location."""
    for obj in ms.objects_of(kinds.ASO_CONTROL_PLANE):
        yield obj, ("spec", "version"), dig(obj.obj, "spec", "version")
    for obj in ms.objects_of(kinds.LEGACY_CONTROL_PLANE):
        yield obj, ("spec", "version"), dig(obj.obj, "spec", "version")
    # CAPZ's AzureManagedControlPlaneTemplate webhook runs validateVersion on its version too.
    for obj in ms.objects_of(kinds.ASO_CONTROL_PLANE_TEMPLATE, kinds.LEGACY_CONTROL_PLANE_TEMPLATE):
        path: JsonPath = ("spec", "template", "spec", "version")
        yield obj, path, dig(obj.obj, *path)
    for obj in ms.objects_of(kinds.MACHINE_POOL):
        path = ("spec", "template", "spec", "version")
        yield obj, path, dig(obj.obj, *path)
    for obj in ms.objects_of(kinds.CLUSTER):
        path = ("spec", "topology", "version")
        yield obj, path, dig(obj.obj, *path)
    for res in ms.resources_of(kinds.MANAGED_CLUSTER):
        yield res, ("spec", "kubernetesVersion"), dig(res.spec, "kubernetesVersion")
    for res in ms.resources_of(kinds.AGENT_POOL):
        yield res, ("spec", "orchestratorVersion"), dig(res.spec, "orchestratorVersion")


VERSION_FORMAT = Rule(
    "CAPZ-VERSION-FORMAT",
    "Kubernetes versions (control plane of either API, MachinePool, topology, kubernetesVersion, orchestratorVersion) "
    "look like [v]MAJOR.MINOR[.PATCH]; an AzureManagedControlPlane's needs the patch (CAPZ validateVersion) "
    "(K12)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="AKS, or CAPZ's controller, cannot read the version",
    split="Admission on AzureManagedControlPlane, MachinePool and Cluster topology versions, which CAPZ's and CAPI's webhooks check (not texts like 1.31.1.5, which their pattern admits)",
)

# The version pattern of CAPI's MachinePool and Cluster (topology) webhooks and of CAPZ's
# AzureManagedControlPlane webhook (util/version.KubeSemver), checked after their defaulters
# add a missing leading v.
_WEBHOOK_SEMVER = re.compile(
    r"^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)([-0-9a-zA-Z_.+]*)?$"
)
_WEBHOOK_VERSION_KINDS = LEGACY_CONTROL_PLANES | {kinds.MACHINE_POOL, kinds.CLUSTER}


def _format_gate(where: Located, text: str) -> Gate:
    """Admission where a webhook checks the version and refuses this one; else provisioning:
    AzureASOManagedControlPlane's webhook does not read the version (CAPZ's controller and AKS
    do), and the webhooks' pattern admits a few texts capzgen refuses (``1.31.1.5``)."""
    subject = where.subject
    if subject.embedded_path is not None or subject.kind not in _WEBHOOK_VERSION_KINDS:
        return Gate.PROVISIONING
    return Gate.PROVISIONING if webhook_accepts_version(text) else Gate.ADMISSION


def webhook_accepts_version(text: str) -> bool:
    """Whether CAPZ's AzureManagedControlPlane webhook (and CAPI's, on MachinePool and topology
    versions) admits ``text``: their defaulter adds a missing ``v``, then kubeSemver requires
    MAJOR.MINOR.PATCH (``v1.33`` is refused)."""
    return _WEBHOOK_SEMVER.match(with_v_prefix(text)) is not None


@VERSION_FORMAT.checks
def _check_format(ms: ManifestSet) -> Iterator[Finding]:
    for where, path, value in _versions(ms):
        text = known_str(value)
        if text is None:
            continue
        kind = where.kind if isinstance(where, TopObject) else None
        if kind in LEGACY_CONTROL_PLANES and not webhook_accepts_version(text):
            yield VERSION_FORMAT.at(
                where,
                path,
                f"{text!r} is not a semantic version vMAJOR.MINOR.PATCH like v1.31.1 or "
                f"1.31.1: CAPZ's {kind} webhook refuses it (validateVersion; a patch is "
                "required)",
                gate=Gate.ADMISSION,
            )
        elif parse_version(text) is None:
            yield VERSION_FORMAT.at(
                where,
                path,
                f"{text!r} is not a Kubernetes version like v1.31.1, 1.31.1 or 1.31",
                gate=_format_gate(where, text),
            )


def _version_of(obj: TopObject, *path: str) -> tuple[int, int, int | None] | None:
    return parse_version(dig(obj.obj, *path))


VERSION_SKEW = Rule(
    "CAPZ-VERSION-SKEW",
    "A MachinePool's version is not newer than its control plane's, has the same major and is at most "
    "2 minors behind (K12)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="AKS refuses a pool version outside the supported skew",
)


@VERSION_SKEW.checks
def _check_skew(ms: ManifestSet) -> Iterator[Finding]:
    for group in ms.clusters:
        if group.control_plane is None or group.control_plane.kind != kinds.ASO_CONTROL_PLANE:
            continue
        cp = _version_of(group.control_plane, "spec", "version")
        if cp is None:
            continue
        for pool in group.pools:
            mp = _version_of(pool.machine_pool, "spec", "template", "spec", "version")
            if mp is None:
                continue
            problem = _skew_problem(cp, mp)
            if problem is not None:
                yield VERSION_SKEW.at(
                    pool.machine_pool,
                    ("spec", "template", "spec", "version"),
                    f"{_show(mp)} {problem} control plane version {_show(cp)}",
                )


def _skew_problem(cp: tuple[int, int, int | None], mp: tuple[int, int, int | None]) -> str | None:
    if mp[0] != cp[0]:
        return "has another major version than the"
    both_patch = cp[2] is not None and mp[2] is not None
    newer = mp[:2] > cp[:2] or (both_patch and mp[:2] == cp[:2] and (mp[2] or 0) > (cp[2] or 0))
    if newer:
        return "is newer than the"
    if cp[1] - mp[1] > 2:
        return "is more than 2 minor versions behind the"
    return None


def _show(version: tuple[int, int, int | None]) -> str:
    return ".".join(str(part) for part in version if part is not None)
