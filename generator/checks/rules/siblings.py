"""The other ASO kinds CAPZ installs by default: fleet members, extensions, maintenance windows
(K26–K28), plus which kinds need extra set-up (C20, C21, §4.0).
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.checks.rules.base import LEGACY_CONTROL_PLANES, Rule
from generator.checks.views import legacy_specs
from generator.findings import Finding, Gate, JsonPath, Severity
from generator.jsontypes import dig
from generator.model import kinds
from generator.model.manifests import ManifestSet
from generator.model.values import as_dict, as_list, known_str
from generator.names import DNS1123_LABEL as _FLEET_NAME
from generator.names import DNS1123_SUBDOMAIN as _RFC1123

FLEET = Rule(
    "CAPZ-FLEET-NAME",
    "FleetsMember name (azureName, else metadata.name; legacy spec.fleetsMember.name) and spec.group "
    "are lower-case DNS labels of at most 50 (K26; CAPZ validateFleetsMember)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="ARM refuses the fleet member name",
    webhook_kinds=LEGACY_CONTROL_PLANES,
)


@FLEET.checks
def _check_fleet(ms: ManifestSet) -> Iterator[Finding]:
    yield from _check_legacy_fleet(ms)
    for res in ms.resources_of(kinds.FLEETS_MEMBER):
        spec = res.spec or {}
        fields: list[JsonPath] = [
            ("spec", "azureName") if spec.get("azureName") is not None else ("metadata", "name")
        ]
        fields.append(("spec", "group"))
        for path in fields:
            value = known_str(dig(res.obj, *path))
            if value is not None and (len(value) > 50 or not _FLEET_NAME.match(value)):
                yield FLEET.at(
                    res,
                    path,
                    f"{value!r} must be at most 50 lower-case letters, digits or '-', alphanumeric at both ends",
                )


def _check_legacy_fleet(ms: ManifestSet) -> Iterator[Finding]:
    """CAPZ's validateFleetsMember: the legacy spec.fleetsMember.name is a lower-case DNS label."""
    path = ("spec", "fleetsMember", "name")
    for obj in ms.objects_of(kinds.LEGACY_CONTROL_PLANE):
        value = known_str(dig(obj.obj, *path))
        if value and (len(value) > 50 or not _FLEET_NAME.match(value)):
            yield FLEET.at(
                obj,
                path,
                f"{value!r} must be at most 50 lower-case letters, digits or '-', alphanumeric at both ends",
            )


_SCOPE_FIELDS = {
    "Cluster": ("releaseNamespace", "targetNamespace"),
    "Namespace": ("targetNamespace", "releaseNamespace"),
}


def _check_legacy_extension(ms: ManifestSet) -> Iterator[Finding]:
    """CAPZ's validateAKSExtensions on the legacy spec.extensions list (autoUpgradeMinorVersion
    defaults to true there), which the control plane template's webhook runs on its list too."""
    for obj, spec in legacy_specs(ms, kinds.LEGACY_CONTROL_PLANE):
        for index, item in enumerate(as_list(dig(obj.obj, *spec, "extensions")) or []):
            extension = as_dict(item) or {}
            base: JsonPath = (*spec, "extensions", index)
            if (
                extension.get("version") is not None
                and extension.get("autoUpgradeMinorVersion") is not False
            ):
                yield EXTENSION.at(
                    obj, (*base, "version"), "is only allowed with autoUpgradeMinorVersion: false"
                )
            scope = as_dict(extension.get("scope")) or {}
            needed, forbidden = _SCOPE_FIELDS.get(known_str(scope.get("scopeType")) or "", ("", ""))
            if needed and not scope.get(needed):
                yield EXTENSION.at(
                    obj,
                    (*base, "scope", needed),
                    f"is required with scopeType {scope['scopeType']}",
                )
            if forbidden and scope.get(forbidden):
                yield EXTENSION.at(
                    obj,
                    (*base, "scope", forbidden),
                    f"is not allowed with scopeType {scope['scopeType']}",
                )


EXTENSION = Rule(
    "CAPZ-EXTENSION",
    "Extension: version only with autoUpgradeMinorVersion: false, releaseTrain not with it; cluster scope "
    "needs releaseNamespace, namespace scope targetNamespace; the same on the legacy spec.extensions (K27; "
    "CAPZ validateAKSExtensions)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="ARM refuses the extension settings",
    webhook_kinds=LEGACY_CONTROL_PLANES,
)


@EXTENSION.checks
def _check_extension(ms: ManifestSet) -> Iterator[Finding]:
    yield from _check_legacy_extension(ms)
    for res in ms.resources_of(kinds.EXTENSION):
        spec = res.spec or {}
        auto = spec.get("autoUpgradeMinorVersion")
        if spec.get("version") is not None and auto is not False:
            yield EXTENSION.at(
                res, ("spec", "version"), "is only allowed with autoUpgradeMinorVersion: false"
            )
        if spec.get("releaseTrain") is not None and auto is False:
            yield EXTENSION.at(
                res, ("spec", "releaseTrain"), "is not allowed with autoUpgradeMinorVersion: false"
            )
        scope = as_dict(spec.get("scope")) or {}
        cluster, namespace = as_dict(scope.get("cluster")), as_dict(scope.get("namespace"))
        if cluster is not None and namespace is not None:
            yield EXTENSION.at(
                res, ("spec", "scope"), "set either scope.cluster or scope.namespace, not both"
            )
        if cluster is not None and cluster.get("releaseNamespace") is None:
            yield EXTENSION.at(
                res, ("spec", "scope", "cluster"), "cluster scope needs releaseNamespace"
            )
        if namespace is not None and namespace.get("targetNamespace") is None:
            yield EXTENSION.at(
                res, ("spec", "scope", "namespace"), "namespace scope needs targetNamespace"
            )


_MAINTENANCE = {
    "default": ("timeInWeek", "notAllowedTime"),
    "aksManagedAutoUpgradeSchedule": ("maintenanceWindow",),
    "aksManagedNodeOSUpgradeSchedule": ("maintenanceWindow",),
}
_MAINTENANCE_FIELDS = ("timeInWeek", "notAllowedTime", "maintenanceWindow")


MAINTENANCE = Rule(
    "CAPZ-MAINTENANCE",
    "MaintenanceConfiguration name is default, aksManagedAutoUpgradeSchedule or "
    "aksManagedNodeOSUpgradeSchedule with the fields that name uses (K28)",
    Severity.WARNING,
    Gate.PROVISIONING,
    why="AKS refuses or ignores the maintenance configuration",
)


@MAINTENANCE.checks
def _check_maintenance(ms: ManifestSet) -> Iterator[Finding]:
    for res in ms.resources_of(kinds.MAINTENANCE_CONFIGURATION):
        spec = res.spec or {}
        path: JsonPath = (
            ("spec", "azureName") if spec.get("azureName") is not None else ("metadata", "name")
        )
        name = known_str(dig(res.obj, *path))
        if name is None:
            continue
        if name not in _MAINTENANCE:
            yield MAINTENANCE.at(
                res,
                path,
                f"{name!r} is not an AKS maintenance configuration name ({', '.join(_MAINTENANCE)})",
            )
            continue
        for key in _MAINTENANCE_FIELDS:
            if key not in _MAINTENANCE[name] and spec.get(key) is not None:
                yield MAINTENANCE.at(
                    res,
                    ("spec", key),
                    f"is not used by the {name!r} configuration (it uses {', '.join(_MAINTENANCE[name])})",
                )


_POLICIES = ("manage", "skip", "detach-on-delete")
_POLICY_PATH = ("metadata", "annotations", kinds.RECONCILE_POLICY_ANNOTATION)


POLICY = Rule(
    "CAPZ-RECONCILE-POLICY",
    "serviceoperator.azure.com/reconcile-policy is manage, skip or detach-on-delete (O6)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="ASO's controller refuses the annotation value",
)


@POLICY.checks
def _check_policy(ms: ManifestSet) -> Iterator[Finding]:
    for res in ms.resources:
        value = res.annotations.get(kinds.RECONCILE_POLICY_ANNOTATION)
        if value is not None and value not in _POLICIES and known_str(value) != "":
            yield POLICY.at(res, _POLICY_PATH, f"{value!r} is not one of {', '.join(_POLICIES)}")


POLICY_PAUSE = Rule(
    "CAPZ-RECONCILE-POLICY-PAUSE",
    "Embedded resources do not pin reconcile-policy to manage/detach-on-delete, which breaks pausing (C18)",
    Severity.WARNING,
    Gate.PROVISIONING,
    why="pausing the cluster does not stop ASO",
)


@POLICY_PAUSE.checks
def _check_policy_pause(ms: ManifestSet) -> Iterator[Finding]:
    for res in ms.resources:
        value = res.annotations.get(kinds.RECONCILE_POLICY_ANNOTATION)
        if res.parent is not None and value in ("manage", "detach-on-delete"):
            yield POLICY_PAUSE.at(
                res,
                _POLICY_PATH,
                f"{value!r} makes pausing the cluster (and clusterctl move) fail: CAPZ must set 'skip' while paused",
                hint="leave the annotation out unless it is 'skip'",
            )


DEFAULT_KINDS = Rule(
    "CAPZ-ASO-KIND",
    "Embedded ASO kinds outside CAPZ's default CRD set need ADDITIONAL_ASO_CRDS and an aggregated "
    "ClusterRole (C20, C21, §4.0)",
    Severity.WARNING,
    Gate.PROVISIONING,
    why="CAPZ's controller may not create this kind",
)


@DEFAULT_KINDS.checks
def _check_default_kinds(ms: ManifestSet) -> Iterator[Finding]:
    for res in ms.resources:
        if res.parent is None or not res.kind or not kinds.is_aso_group(res.group):
            continue
        if res.group_kind not in kinds.DEFAULT_ASO_KINDS:
            yield DEFAULT_KINDS.at(
                res,
                ("kind",),
                f"{res.group}/{res.kind} is not installed by CAPZ by default: add it to ADDITIONAL_ASO_CRDS and grant "
                "CAPZ access with a ClusterRole labelled cluster.x-k8s.io/aggregate-to-capz-manager",
            )


CLUSTER_NAME = Rule(
    "CAPZ-CLUSTER-NAME",
    "Cluster metadata.name is an RFC 1123 name of at most 63 characters (P1, R3)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="CAPI labels the cluster's objects with its name, a label value of at most 63 characters",
    split="Admission when the name is no RFC 1123 subdomain (the API server refuses it); the 63-character bound is CAPI's",
)


@CLUSTER_NAME.checks
def _check_cluster_name(ms: ManifestSet) -> Iterator[Finding]:
    for cluster in ms.objects_of(kinds.CLUSTER):
        name = known_str(cluster.name)
        if name is not None and (len(name) > 63 or not _RFC1123.match(name)):
            yield CLUSTER_NAME.at(
                cluster,
                ("metadata", "name"),
                f"{name!r} must be at most 63 lower-case letters, digits, '-' or '.', alphanumeric at both ends",
                # The API server itself refuses a name that is no RFC 1123 subdomain; one of 64
                # to 253 characters it admits, and CAPI fails on the label later.
                gate=Gate.ADMISSION if not _RFC1123.match(name) or len(name) > 253 else None,
            )
