"""The ASO resources legacy CAPZ created beside the ManagedCluster from control plane fields:
a FleetsMember (``spec.fleetsMember``) and Extensions (``spec.extensions``)."""

from __future__ import annotations

import copy

from generator.capzbuild.reader import SpecReader
from generator.capzbuild.values import fleet_id, normalized_name
from generator.jsontypes import Json, JsonObject
from generator.migrate import tables as t
from generator.migrate.build import embedded, named_item, set_if
from generator.migrate.plan import ClusterPlan, Item, Notes


def fleets_member(
    r: SpecReader, plan: ClusterPlan, cp: Item, notes: Notes, tags: JsonObject | None
) -> list[JsonObject]:
    """The FleetsMember for ``spec.fleetsMember``, as a list of at most one resource.

    The fleet's ARM ID needs the manager's name and resource group and the subscription; when one is
    missing the field is reported as ``unmapped`` and nothing is created.
    """
    if r.peek("fleetsMember") is None:
        return []
    name = r.text("fleetsMember.name") or plan.cluster_name
    group = r.text("fleetsMember.group") or t.DEFAULT_FLEET_GROUP
    manager = r.text("fleetsMember.managerName")
    manager_group = r.text("fleetsMember.managerResourceGroup")
    if manager is None or manager_group is None or plan.subscription is None:
        missing = [
            label
            for label, value in (
                ("spec.fleetsMember.managerName", manager),
                ("spec.fleetsMember.managerResourceGroup", manager_group),
                ("spec.subscriptionID", plan.subscription),
            )
            if value is None
        ]
        notes.unmapped(
            cp,
            "spec.fleetsMember",
            f"the fleet's ARM ID needs {', '.join(missing)}; add a FleetsMember "
            f"({t.FLEETS_MEMBER_API}) with owner.armId by hand",
        )
        return []
    object_name = normalized_name(name)
    spec: JsonObject = {
        "azureName": name,
        "clusterResourceReference": {
            "group": "containerservice.azure.com",
            "kind": "ManagedCluster",
            "name": plan.mc_name,
        },
        "group": group,
        "owner": {"armId": fleet_id(plan.subscription, manager_group, manager)},
    }
    plan.legacy_aso_objects.append(("FleetsMember", object_name))
    notes.note(
        cp,
        "spec.fleetsMember",
        f"FleetsMember uses {t.FLEETS_MEMBER_API}, for which capzgen has no schema; validate with "
        "--ignore-missing-schemas or import the ASO CRD",
    )
    return [
        embedded(t.FLEETS_MEMBER_API, "FleetsMember", object_name, plan.credential_secret, spec)
    ]


def extensions(r: SpecReader, plan: ClusterPlan, cp: Item, notes: Notes) -> list[JsonObject]:
    """One ASO Extension per ``spec.extensions`` entry, owned by the ManagedCluster.

    Raises :class:`MigrationError` for an entry that is not a mapping or has no name; fields the
    Extension has no place for are reported as ``unmapped``.
    """
    out: list[JsonObject] = []
    for index, raw in enumerate(r.sequence("extensions")):
        base = f"extensions[{index}]"
        out.append(_extension(r, base, raw, plan, cp, notes))
        r.take(base)
    return out


def _extension(
    r: SpecReader, base: str, raw: Json, plan: ClusterPlan, cp: Item, notes: Notes
) -> JsonObject:
    """The ASO Extension for ``spec.extensions[i]`` (``base``)."""
    er, name = named_item(r, base, raw, cp, "an extension")
    spec: JsonObject = {
        "azureName": name,
        "owner": {
            "group": "containerservice.azure.com",
            "kind": "ManagedCluster",
            "name": plan.mc_name,
        },
    }
    auto_upgrade = er.boolean("autoUpgradeMinorVersion")
    spec["autoUpgradeMinorVersion"] = True if auto_upgrade is None else auto_upgrade
    for key in ("extensionType", "releaseTrain", "version"):
        set_if(spec, key, er.text(key))
    settings = er.mapping("configurationSettings")
    if settings:
        spec["configurationSettings"] = copy.deepcopy(settings)
    set_if(spec, "identity.type", er.text("identity"))
    set_if(spec, "aksAssignedIdentity.type", er.text("aksAssignedIdentityType"))
    if er.mapping("plan") is not None:
        spec["plan"] = _extension_plan(er, cp)
    _extension_scope(er, spec, cp, notes)
    object_name = normalized_name(f"{plan.mc_name}-{name}")
    extension = embedded(t.EXTENSION_API, "Extension", object_name, plan.credential_secret, spec)
    for path in er.leftovers():
        notes.unmapped(cp, path, "no field of the ASO Extension corresponds")
    return extension


def _extension_plan(er: SpecReader, cp: Item) -> JsonObject:
    """The marketplace plan; legacy CAPZ named it after the control plane and the product."""
    product = er.text("plan.product")
    plan_out: JsonObject = {
        "name": er.text("plan.name") or f"{cp.name}-{product}",
    }
    for key in ("product", "publisher", "promotionCode", "version"):
        set_if(plan_out, key, er.text(f"plan.{key}"))
    return plan_out


def _extension_scope(er: SpecReader, spec: JsonObject, cp: Item, notes: Notes) -> None:
    """``scope``: only the namespace field of the chosen scope type carries over."""
    scope_type = er.text("scope.scopeType")
    release_ns, target_ns = er.text("scope.releaseNamespace"), er.text("scope.targetNamespace")
    if scope_type == "Cluster":
        set_if(spec, "scope.cluster.releaseNamespace", release_ns)
    elif scope_type == "Namespace":
        set_if(spec, "scope.namespace.targetNamespace", target_ns)
    for field_name, value, used_by in (
        ("releaseNamespace", release_ns, "Cluster"),
        ("targetNamespace", target_ns, "Namespace"),
    ):
        if value is not None and scope_type != used_by:
            notes.unmapped(
                cp,
                er.where(f"scope.{field_name}"),
                f"ignored: only scopeType {used_by} uses it (legacy CAPZ ignored it too)",
            )
