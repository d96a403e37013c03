"""CAPZ's update checks that are more than "this field is immutable": a version downgrade, AAD
switched off, profiles that may be turned off but not removed, and the last System pool turned
into a User pool (CAPZ v1.26.0, ``internal/webhooks/azuremanagedcontrolplane_validation.go`` and
``azuremanagedmachinepool_webhook.go``). The plain immutable fields are a table in
:mod:`~generator.checks.rules.immutable`.
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.checks.changes import Change
from generator.checks.rules.base import LEGACY_CONTROL_PLANES, LEGACY_POOLS, Rule
from generator.checks.rules.immutable import spec_base
from generator.checks.views import views_of
from generator.findings import Finding, Gate, JsonPath, Operation, Severity
from generator.jsontypes import Json, JsonObject, dig
from generator.model import kinds
from generator.model.manifests import AsoResource, ManifestSet, TopObject
from generator.names import parse_kubernetes_version

VERSION_DOWNGRADE = Rule(
    "CAPZ-UPDATE-VERSION-DOWNGRADE",
    "on update: the Kubernetes version of a control plane is not lowered "
    "(CAPZ azuremanagedcontrolplane_validation.go:validateAzureManagedControlPlaneK8sVersionUpdate; "
    "AKS for a ManagedCluster's kubernetesVersion)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="AKS refuses a Kubernetes version downgrade",
    webhook_kinds=LEGACY_CONTROL_PLANES,
    operation=Operation.UPDATE,
)


def _lower(old: Json, new: Json) -> bool:
    """Whether ``new`` is a lower version than ``old`` (unparsable versions are not compared)."""
    if not isinstance(old, str) or not isinstance(new, str):
        return False
    before, after = parse_kubernetes_version(old), parse_kubernetes_version(new)
    if before is None or after is None:
        return False
    return (after[0], after[1], after[2] or 0) < (before[0], before[1], before[2] or 0)


@VERSION_DOWNGRADE.checks_update
def _check_downgrade(change: Change) -> Iterator[Finding]:
    if change.new.kind in LEGACY_CONTROL_PLANES:
        path = (*spec_base(change.new.kind), "version")
        old, new = dig(change.old.obj, *path), dig(change.new.obj, *path)
        if _lower(old, new):
            yield VERSION_DOWNGRADE.at(change, path, f"version {new} is lower than {old}")
    for old_res, new_res in embedded_pairs(change, kinds.MANAGED_CLUSTER):
        old, new = (
            dig(old_res, "spec", "kubernetesVersion"),
            dig(new_res.obj, "spec", "kubernetesVersion"),
        )
        if _lower(old, new):
            yield VERSION_DOWNGRADE.at(
                new_res,
                ("spec", "kubernetesVersion"),
                f"kubernetesVersion {new} is lower than {old}",
            )


def embedded_pairs(
    change: Change, group_kind: kinds.GroupKind
) -> Iterator[tuple[JsonObject, AsoResource]]:
    """The ASO resources of ``group_kind`` in both revisions of ``change``: ``(old object, new
    resource)``."""
    for old, new in change.resource_pairs():
        if new.group_kind == group_kind:
            yield old.obj, new


AAD = Rule(
    "CAPZ-UPDATE-AAD",
    "on update: AAD, once enabled on an AzureManagedControlPlane(Template), is not removed, "
    "not switched from managed and keeps an admin group "
    "(CAPZ azuremanagedcontrolplane_validation.go:validateAzureManagedControlPlaneAADProfileUpdateAndLocalAccounts)",
    Severity.ERROR,
    Gate.ADMISSION,
    operation=Operation.UPDATE,
)


@AAD.checks_update
def _check_aad(change: Change) -> Iterator[Finding]:
    if change.new.kind not in LEGACY_CONTROL_PLANES:
        return
    path = (*spec_base(change.new.kind), "aadProfile")
    old, new = dig(change.old.obj, *path), dig(change.new.obj, *path)
    if old is None:
        return
    if not isinstance(new, dict):
        yield AAD.at(change, path, "AAD cannot be disabled once enabled (aadProfile was set)")
        return
    if dig(old, "managed") is True and dig(new, "managed") is not True:
        yield AAD.at(change, (*path, "managed"), "aadProfile.managed cannot go back to false")
    if not dig(new, "adminGroupObjectIDs"):
        yield AAD.at(
            change,
            (*path, "adminGroupObjectIDs"),
            "an AAD-enabled cluster keeps at least one admin group",
        )


PROFILES = Rule(
    "CAPZ-UPDATE-MCP-PROFILES",
    "on update: AzureManagedControlPlane(Template) settings that may be turned off but not "
    "removed or changed: dnsPrefix, addon profiles, API server access (but authorizedIPRanges), "
    "the Azure CNI overlay with a network policy, upgrade channel, OIDC issuer, fleet member "
    "name, extensions, security profiles (CAPZ azuremanagedcontrolplane_webhook.go:ValidateUpdate)",
    Severity.ERROR,
    Gate.ADMISSION,
    operation=Operation.UPDATE,
)


@PROFILES.checks_update
def _check_profiles(change: Change) -> Iterator[Finding]:
    if change.new.kind not in LEGACY_CONTROL_PLANES:
        return
    base = spec_base(change.new.kind)
    old, new = dig(change.old.obj, *base), dig(change.new.obj, *base)
    if not isinstance(old, dict) or not isinstance(new, dict):
        return
    for rel, message in _profile_problems(old, new, change.old.name or ""):
        yield PROFILES.at(change, (*base, *rel), message)


def _profile_problems(
    old: JsonObject, new: JsonObject, old_name: str
) -> Iterator[tuple[JsonPath, str]]:
    prefix = new.get("dnsPrefix")
    if prefix is not None and prefix != old.get("dnsPrefix", old_name):
        yield ("dnsPrefix",), f"dnsPrefix cannot change (was {old.get('dnsPrefix', old_name)!r})"
    kept = {dig(item, "name") for item in new.get("addonProfiles") or [] if isinstance(item, dict)}
    for item in old.get("addonProfiles") or []:
        name = dig(item, "name")
        if name not in kept:
            yield (
                ("addonProfiles",),
                f"addon profile {name!r} cannot be removed; set enabled: false",
            )
    if _access(old) != _access(new):
        yield (
            ("apiServerAccessProfile",),
            "only authorizedIPRanges of apiServerAccessProfile can change",
        )
    yield from _switch_problems(old, new)
    yield from _security_problems(old, new)
    yield from _extension_problems(old, new)


def _switch_problems(old: JsonObject, new: JsonObject) -> Iterator[tuple[JsonPath, str]]:
    """Settings that may be switched one way only, or not unset."""
    if (
        old.get("networkPluginMode") != "overlay"
        and new.get("networkPluginMode") == "overlay"
        and old.get("networkPolicy") is not None
    ):
        yield (
            ("networkPluginMode",),
            "the overlay mode cannot be enabled while networkPolicy is set",
        )
    if dig(old, "autoUpgradeProfile", "upgradeChannel") is not None and (
        dig(new, "autoUpgradeProfile", "upgradeChannel") is None
    ):
        yield (
            ("autoUpgradeProfile", "upgradeChannel"),
            "the upgrade channel cannot be unset; set it to none",
        )
    if (
        dig(old, "oidcIssuerProfile", "enabled") is True
        and dig(new, "oidcIssuerProfile", "enabled") is False
    ):
        yield ("oidcIssuerProfile", "enabled"), "the OIDC issuer cannot be disabled"
    old_fleet, new_fleet = dig(old, "fleetsMember", "name"), dig(new, "fleetsMember")
    if old_fleet and isinstance(new_fleet, dict) and new_fleet.get("name") != old_fleet:
        yield ("fleetsMember", "name"), f"the fleet member name cannot change (was {old_fleet!r})"
    if (
        old.get("disableLocalAccounts") is None
        and new.get("disableLocalAccounts") is not None
        and new.get("aadProfile") is None
    ):
        yield ("disableLocalAccounts",), "disableLocalAccounts needs an AAD-enabled cluster"


def _access(spec: JsonObject) -> tuple[Json, Json, Json]:
    profile = spec.get("apiServerAccessProfile")
    return (
        dig(profile, "enablePrivateCluster"),
        dig(profile, "privateDNSZone"),
        dig(profile, "enablePrivateClusterPublicFQDN"),
    )


_SECURITY = ("azureKeyVaultKms", "workloadIdentity", "imageCleaner", "defender")


def _security_problems(old: JsonObject, new: JsonObject) -> Iterator[tuple[JsonPath, str]]:
    for name in _SECURITY:
        if (
            dig(old, "securityProfile", name) is not None
            and dig(new, "securityProfile", name) is None
        ):
            yield (
                ("securityProfile", name),
                f"securityProfile.{name} cannot be removed; disable it instead",
            )


_EXTENSION_FIELDS = ("extensionType", "plan", "releaseTrain", "version")


def _extension_problems(old: JsonObject, new: JsonObject) -> Iterator[tuple[JsonPath, str]]:
    before = {
        dig(item, "name"): item for item in old.get("extensions") or [] if isinstance(item, dict)
    }
    for index, item in enumerate(new.get("extensions") or []):
        previous = before.get(dig(item, "name"))
        if not isinstance(item, dict) or previous is None:
            continue
        for name in _EXTENSION_FIELDS:  # compared only when both sides set them
            if (
                item.get(name) is not None
                and previous.get(name) is not None
                and item[name] != previous[name]
            ):
                yield ("extensions", index, name), f"an extension's {name} cannot change"
        for name in ("scope", "identity"):
            if item.get(name) != previous.get(name):
                yield ("extensions", index, name), f"an extension's {name} cannot change"


POOL_MODE = Rule(
    "CAPZ-UPDATE-POOL-MODE",
    "on update: the last System pool of a Cluster is not turned into a User pool "
    "(CAPZ azuremanagedmachinepool_webhook.go, azuremanagedmachinepooltemplate_webhook.go:ValidateUpdate, validateLastSystemNodePool)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="AKS refuses a cluster without a System pool",
    webhook_kinds=LEGACY_POOLS,
    operation=Operation.UPDATE,
)


@POOL_MODE.checks_update
def _check_pool_mode(change: Change) -> Iterator[Finding]:
    if change.new.kind in LEGACY_POOLS:
        path = (*spec_base(change.new.kind), "mode")
        was, now = dig(change.old.obj, *path), dig(change.new.obj, *path)
        if was == "System" and now != "System" and not has_system_pool(change.new_set, change.new):
            yield POOL_MODE.at(change, path, _LAST_SYSTEM)
    for old_res, new_res in embedded_pairs(change, kinds.AGENT_POOL):
        was, now = dig(old_res, "spec", "mode"), dig(new_res.obj, "spec", "mode")
        if was == "System" and now != "System" and not has_system_pool(change.new_set, change.new):
            yield POOL_MODE.at(new_res, ("spec", "mode"), _LAST_SYSTEM)


_LAST_SYSTEM = "the last System pool of its Cluster cannot become a User pool"


def has_system_pool(ms: ManifestSet, pool_object: TopObject) -> bool:
    """Whether the Cluster ``pool_object``'s pool belongs to still has a System pool in ``ms``
    (True when the Cluster cannot be found: nothing to compare with)."""
    views = views_of(ms)
    for group in ms.clusters:
        pools = views.pools_of(group)
        owners = {pool.owner for pool in pools}
        if pool_object in owners or any(getattr(o, "top", None) is pool_object for o in owners):
            return any(pool.is_system or pool.mode.unknown for pool in pools)
    return True
