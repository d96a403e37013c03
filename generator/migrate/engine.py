"""Reading the input, pairing the legacy objects of each cluster, and assembling the output.

Output order follows the input: every legacy object is replaced where it stood, an
AzureASOManagedCluster the input lacked follows its control plane, AzureClusterIdentities used by a
migrated control plane are dropped (the credential Secret replaces them), and everything else is
kept - with v1alpha1 references and removed ASO versions moved in every object.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from generator.capzbuild.values import normalized_name
from generator.errors import Location, MigrationError
from generator.findings import format_path
from generator.jsontypes import Json, JsonObject, dig
from generator.migrate import tables as t
from generator.migrate.adopt import adopt_all
from generator.migrate.build import strip_server_fields
from generator.migrate.capi import rewrite_machine_pool, rewrite_ref
from generator.migrate.checklist import adoption_checklist, version_checklist
from generator.migrate.cluster import convert_cluster_infra
from generator.migrate.control_plane import plan_cluster
from generator.migrate.credentials import credential_need, find_identity
from generator.migrate.legacy_groups import read_as_current
from generator.migrate.live import LiveCluster, find_live
from generator.migrate.machine_pool import convert_machine_pool
from generator.migrate.model import NOTE, MigrationResult, Origin
from generator.migrate.plan import ClusterPlan, Item, Notes, PoolPlan
from generator.migrate.versions import bump_object, rewrite_alpha
from generator.model.kinds import CLUSTER_NAME_LABEL, CLUSTER_SCOPED_KINDS
from generator.schemastore.store import SchemaStore
from generator.yamlio.load import load_documents


@dataclass(frozen=True)
class MigrationOptions:
    """``capzgen migrate``'s choices: target namespace, Secret name, output name in checklists."""

    namespace: str | None = None  # move every object there (the new namespace of §5.7)
    credential_secret: str | None = None  # default: the live one, else legacy <cluster>-aso-secret
    output_name: str = "<migrated manifests>"  # how the checklist refers to the output
    adopt: bool = False  # write the adoption objects of the procedure instead (needs namespace)
    live: tuple[LiveCluster, ...] = ()  # the old ManagedClusters (``--live``)
    schemas: SchemaStore | None = None  # to fit live status profiles onto the spec schema


def migrate_text(
    text: str, *, source: str, options: MigrationOptions | None = None
) -> MigrationResult:
    """Migrate every legacy object of ``text``; raises MigrationError (or YamlError) on bad input."""
    options = options or MigrationOptions()
    items = read_items(text, source)
    return _Migration(items, options, source).run()


# --- input --------------------------------------------------------------------------------------


def read_items(text: str, source: str) -> list[Item]:
    """The objects of ``text``, ``kind: List`` expanded; empty documents are skipped.

    Raises :class:`MigrationError` for a document that is not a Kubernetes object with apiVersion,
    kind and ``metadata.name``.
    """
    items: list[Item] = []
    for document in load_documents(text, source=source):
        obj = document.obj
        if obj is None:
            continue
        where = Location(file=source, line=document.start_line, document=document.index)
        if not isinstance(obj, dict):
            msg = f"document is a {type(obj).__name__}, not a Kubernetes object (a mapping)"
            raise MigrationError(
                msg,
                location=where,
            )
        if obj.get("kind") == "List" and isinstance(obj.get("items"), list):
            for index, entry in enumerate(obj["items"]):  # `kubectl get -o yaml` of several objects
                items.append(
                    _item(entry, source, document.index, document.start_line, f"items[{index}]")
                )
        else:
            items.append(_item(obj, source, document.index, document.start_line, ""))
    return items


def _item(obj: Json, source: str, index: int, line: int | None, prefix: str) -> Item:
    location = Location(file=source, line=line, document=index, path=prefix or None)
    if not isinstance(obj, dict):
        msg = "not a Kubernetes object (a mapping)"
        raise MigrationError(msg, location=location)
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api_version, str) or not api_version or not isinstance(kind, str) or not kind:
        msg = "not a Kubernetes object: apiVersion and kind must be non-empty strings"
        raise MigrationError(
            msg,
            location=location,
        )
    metadata = obj.get("metadata")
    name = metadata.get("name") if isinstance(metadata, dict) else None
    if not isinstance(name, str) or not name:
        msg = f"{kind} has no metadata.name"
        raise MigrationError(
            msg,
            location=Location(
                file=source, line=line, document=index, kind=kind, path="metadata.name"
            ),
        )
    return Item(copy.deepcopy(obj), Origin(source, index, line, kind, name))


def _is(item: Item, group: str, kind: str) -> bool:
    api_version = item.obj.get("apiVersion", "")
    return (
        item.kind == kind and isinstance(api_version, str) and api_version.startswith(f"{group}/")
    )


def _capz(item: Item, kind: str) -> bool:
    return _is(item, t.CAPZ_GROUP, kind)


def _capi(item: Item, kind: str) -> bool:
    return _is(item, "cluster.x-k8s.io", kind)


def _same_namespace(a: str | None, b: str | None) -> bool:
    return a is None or b is None or a == b


def _refers(ref: Json, kind: str, target: Item, owner_namespace: str | None) -> bool:
    if not isinstance(ref, dict) or ref.get("kind") != kind or ref.get("name") != target.name:
        return False
    namespace = ref.get("namespace") or owner_namespace
    return _same_namespace(namespace if isinstance(namespace, str) else None, target.namespace)


def _label(item: Item, key: str) -> str | None:
    value = dig(item.obj, "metadata", "labels", key)
    return value if isinstance(value, str) else None


# --- the migration --------------------------------------------------------------------------------


class _Migration:
    def __init__(self, items: list[Item], options: MigrationOptions, source: str) -> None:
        self.items = items
        self.options = options
        self.source = source
        self.notes = Notes()
        self.clusters = [i for i in items if _capi(i, "Cluster")]
        self.capi_pools = [i for i in items if _capi(i, "MachinePool")]
        self.identities = [i for i in items if _capz(i, t.LEGACY_IDENTITY)]
        self.plans: list[ClusterPlan] = []
        read_as_current(items, self.notes)

    def run(self) -> MigrationResult:
        replacements: dict[int, list[JsonObject]] = {}
        dropped: set[int] = set()
        self._plan_control_planes(replacements)
        self._convert_infra(replacements)
        pool_plans = self._convert_pools(replacements)
        self._rewrite_capi(replacements, pool_plans)
        dropped |= self._drop_identities()
        self._report_templates()

        objects: list[JsonObject] = []
        changed: list[bool] = []
        for index, item in enumerate(self.items):
            if index in dropped:
                continue
            if index in replacements:
                objects += replacements[index]
                changed += [True] * len(replacements[index])
            else:
                objects.append(copy.deepcopy(item.obj))
                changed.append(False)
        alpha, bumped = self._move_versions(objects, changed)
        if self.options.adopt:
            objects = self._adoption_objects()
        elif self.options.namespace:
            for obj in objects:
                _move_namespace(obj, self.options.namespace)
        if not self.plans and not alpha and not bumped:
            msg = (
                "nothing to migrate: no AzureManagedControlPlane, AzureManagedCluster or "
                "AzureManagedMachinePool, no infrastructure.cluster.x-k8s.io/v1alpha1 AzureASOManaged* "
                "object and no embedded ASO resource on a version ASO v2.18.0 no longer serves"
            )
            raise MigrationError(
                msg,
                location=Location(file=self.source),
            )
        return self._result(objects, alpha, bumped)

    # -- legacy conversion --

    def _plan_control_planes(self, replacements: dict[int, list[JsonObject]]) -> None:
        for index, item in enumerate(self.items):
            if not _capz(item, t.LEGACY_CONTROL_PLANE):
                continue
            cluster = self._cluster_for(item, "controlPlaneRef", t.LEGACY_CONTROL_PLANE)
            plan = plan_cluster(item, cluster, self._secret_for(item, cluster), self.notes)
            self._refuse_source_namespace(plan)
            self.plans.append(plan)
            replacements[index] = [plan.aso_control_plane]

    def _secret_for(self, cp: Item, cluster: Item | None) -> str:
        """The credential Secret keeps its name: given, from the live objects, else the one legacy
        CAPZ generated (``<cluster>-aso-secret``)."""
        if self.options.credential_secret:
            return self.options.credential_secret
        live = find_live(self.options.live, normalized_name(cp.name))
        if live is not None and live.credential_secret:
            return live.credential_secret
        return f"{cluster.name if cluster is not None else cp.name}-aso-secret"

    def _refuse_source_namespace(self, plan: ClusterPlan) -> None:
        if self.options.namespace and self.options.namespace == (plan.namespace or "default"):
            msg = (
                f"--namespace {self.options.namespace} is the namespace of the legacy cluster "
                f"{plan.cluster_name}: CAPZ's procedure adopts into a new namespace"
            )
            raise plan.control_plane.origin.error(
                msg, hint="choose a namespace that does not hold the old objects"
            )

    def _adoption_objects(self) -> list[JsonObject]:
        options = self.options
        return adopt_all(
            self.plans,
            options.namespace,
            options.live,
            options.schemas,
            self.notes,
            Location(file=self.source),
        )

    def _cluster_for(self, item: Item, ref_field: str, kind: str) -> Item | None:
        for cluster in self.clusters:
            if _refers(dig(cluster.obj, "spec", ref_field), kind, item, cluster.namespace):
                return cluster
        return self._cluster_named(_label(item, CLUSTER_NAME_LABEL), item.namespace)

    def _cluster_named(self, name: str | None, namespace: str | None) -> Item | None:
        if name is None:
            return None
        for cluster in self.clusters:
            if cluster.name == name and _same_namespace(cluster.namespace, namespace):
                return cluster
        return None

    def _plan_of_cluster(self, cluster: Item | None) -> ClusterPlan | None:
        if cluster is None:
            return None
        return next((p for p in self.plans if p.cluster is cluster), None)

    def _sole_plan(self, item: Item, what: str) -> ClusterPlan:
        if len(self.plans) == 1:
            return self.plans[0]
        reason = (
            "the input has no AzureManagedControlPlane"
            if not self.plans
            else (
                "no Cluster or MachinePool in the input links it to one of the "
                f"{len(self.plans)} AzureManagedControlPlanes"
            )
        )
        msg = f"cannot tell which cluster this {what} belongs to: {reason}"
        raise item.origin.error(
            msg,
            hint="migrate the whole cluster at once: its Cluster, AzureManagedControlPlane, "
            "AzureManagedCluster, MachinePools and AzureManagedMachinePools",
        )

    def _convert_infra(self, replacements: dict[int, list[JsonObject]]) -> None:
        done: set[int] = set()
        for index, item in enumerate(self.items):
            if not _capz(item, t.LEGACY_CLUSTER):
                continue
            cluster = self._cluster_for(item, "infrastructureRef", t.LEGACY_CLUSTER)
            plan = self._plan_of_cluster(cluster)
            if plan is None:
                unassigned = [p for p in self.plans if p.aso_cluster_name is None]
                if len(unassigned) == 1 and cluster is None:
                    plan = unassigned[0]
                else:
                    plan = self._sole_plan(item, t.LEGACY_CLUSTER)
            if plan.aso_cluster_name is not None:
                msg = f"a second AzureManagedCluster for AzureManagedControlPlane {plan.control_plane.name}"
                raise item.origin.error(msg)
            replacements[index] = [
                convert_cluster_infra(item, item.name, item.namespace, plan, self.notes)
            ]
            done.add(id(plan))
        for plan in self.plans:
            if id(plan) in done:
                continue
            ref = dig(plan.cluster.obj, "spec", "infrastructureRef") if plan.cluster else None
            ref_name = ref.get("name") if isinstance(ref, dict) else None
            name = ref_name if isinstance(ref_name, str) else plan.cluster_name
            infra = convert_cluster_infra(
                None, name, plan.control_plane.namespace, plan, self.notes
            )
            self.notes.note(
                plan.control_plane,
                "(object)",
                f"the input has no AzureManagedCluster for this control plane; added "
                f"AzureASOManagedCluster {name} for its ResourceGroup and VNet",
            )
            position = next(i for i, item in enumerate(self.items) if item is plan.control_plane)
            replacements[position].append(infra)

    def _convert_pools(self, replacements: dict[int, list[JsonObject]]) -> dict[int, PoolPlan]:
        by_item: dict[int, PoolPlan] = {}
        for index, item in enumerate(self.items):
            if not _capz(item, t.LEGACY_MACHINE_POOL):
                continue
            owner = next(
                (
                    mp
                    for mp in self.capi_pools
                    if _refers(
                        dig(mp.obj, "spec", "template", "spec", "infrastructureRef"),
                        t.LEGACY_MACHINE_POOL,
                        item,
                        mp.namespace,
                    )
                ),
                None,
            )
            cluster_name = dig(owner.obj, "spec", "clusterName") if owner else None
            if not isinstance(cluster_name, str):
                cluster_name = _label(item, CLUSTER_NAME_LABEL)
            plan = self._plan_of_cluster(self._cluster_named(cluster_name, item.namespace))
            if plan is None:
                plan = self._sole_plan(item, t.LEGACY_MACHINE_POOL)
            pool = convert_machine_pool(item, plan, self.notes)
            replacements[index] = [pool.converted]
            if owner is not None:
                by_item[id(owner)] = pool
                plan.machine_pool_names.append(owner.name)
                replicas = dig(owner.obj, "spec", "replicas")
                if isinstance(replicas, int) and not isinstance(replicas, bool):
                    plan.pool_replicas[pool.object_name] = replicas
        return by_item

    def _rewrite_capi(
        self, replacements: dict[int, list[JsonObject]], pools: dict[int, PoolPlan]
    ) -> None:
        namespace = self.options.namespace
        for index, item in enumerate(self.items):
            if _capi(item, "Cluster"):
                obj = copy.deepcopy(item.obj)
                spec = obj.get("spec")
                kinds = dict(t.LEGACY_TO_ASO_KIND)
                changed = False
                if isinstance(spec, dict):
                    for field in ("infrastructureRef", "controlPlaneRef"):
                        changed |= rewrite_ref(spec.get(field), kinds, namespace)
                if changed:
                    strip_server_fields(obj)
                    replacements[index] = [obj]
            elif _capi(item, "MachinePool"):
                ref = dig(item.obj, "spec", "template", "spec", "infrastructureRef")
                if isinstance(ref, dict) and ref.get("kind") == t.LEGACY_MACHINE_POOL:
                    replacements[index] = [
                        rewrite_machine_pool(item, pools.get(id(item)), namespace, self.notes)
                    ]

    def _drop_identities(self) -> set[int]:
        used = set()
        for plan in self.plans:
            found = find_identity(plan, self.identities)
            if found is not None and found[2] is not None:
                used.add(id(found[2]))
        dropped = set()
        for index, item in enumerate(self.items):
            if id(item) in used:
                dropped.add(index)
                self.notes.note(
                    item,
                    "(object)",
                    "left out: the ASO API authenticates with the credential Secret listed below "
                    "(keep the object if clusters that are not migrated still use it)",
                )
        return dropped

    def _report_templates(self) -> None:
        for item in self.items:
            if item.kind in t.LEGACY_TEMPLATES and _capz(item, item.kind):
                self.notes.unmapped(
                    item,
                    "(object)",
                    "legacy ClusterClass templates are not converted (the ASO API needs "
                    "AzureASOManaged*Templates filled by ClusterClass patches); kept unchanged - "
                    "start from `capzgen generate cluster --flavor aks-clusterclass`",
                )

    # -- version moves --

    def _move_versions(self, objects: list[JsonObject], changed: list[bool]) -> tuple[int, int]:
        alpha = bumped = 0
        for position, obj in enumerate(objects):
            kind = str(obj.get("kind"))
            name = str(dig(obj, "metadata", "name"))
            rewritten = rewrite_alpha(obj)
            for path in rewritten:
                self.notes.add(
                    NOTE,
                    kind,
                    name,
                    format_path(path) or "apiVersion",
                    f"{t.CAPZ_V1ALPHA1} -> {t.CAPZ_V1BETA1} (same schema)",
                )
            notes = bump_object(obj, kind, name)
            bumped += sum(1 for n in notes if n.category == NOTE and " -> " in n.reason)
            self.notes.items += notes
            if rewritten or notes:
                alpha += 1 if rewritten else 0
                if not changed[position]:
                    strip_server_fields(obj)
        return alpha, bumped

    # -- result --

    def _result(self, objects: list[JsonObject], alpha: int, bumped: int) -> MigrationResult:
        result = MigrationResult(objects=objects, notes=self.notes.items)
        for plan in self.plans:
            namespace = self.options.namespace or plan.namespace or "default"
            result.credentials.append(credential_need(plan, self.identities, namespace, self.notes))
            result.checklists.append(
                adoption_checklist(
                    plan, self.options.namespace, self.options.output_name, adopt=self.options.adopt
                )
            )
        if alpha or bumped:
            result.checklists.append(version_checklist(alpha, bumped))
        result.notes = self.notes.items
        result.summary = _summary(self.plans, alpha, bumped, len(result.unmapped))
        return result


def _summary(plans: Sequence[ClusterPlan], alpha: int, bumped: int, unmapped: int) -> str:
    parts = []
    if plans:
        names = ", ".join(p.cluster_name for p in plans)
        parts.append(
            f"{len(plans)} legacy cluster{'s' if len(plans) != 1 else ''} converted to the ASO API ({names})"
        )
    if alpha:
        parts.append(f"{alpha} object{'s' if alpha != 1 else ''} moved from v1alpha1 to v1beta1")
    if bumped:
        parts.append(
            f"{bumped} embedded resource{'s' if bumped != 1 else ''} moved to ASO versions v2.18.0 serves"
        )
    line = "migrate: " + "; ".join(parts)
    if unmapped:
        line += f"; {unmapped} field{'s' if unmapped != 1 else ''} not mapped (listed below)"
    return line


def _move_namespace(obj: JsonObject, namespace: str) -> None:
    if obj.get("kind") not in CLUSTER_SCOPED_KINDS:
        metadata = obj.setdefault("metadata", {})
        if isinstance(metadata, dict):
            metadata["namespace"] = namespace
    for ref in _refs(obj.get("spec")):
        ref["namespace"] = namespace
    topology = dig(obj, "spec", "topology")
    if isinstance(topology, dict) and topology.get("classNamespace"):
        topology["classNamespace"] = namespace


def _refs(node: Json) -> Iterable[JsonObject]:
    """Object references that name a namespace, anywhere in a spec (not inside embedded resources)."""
    if isinstance(node, dict):
        if {"kind", "name", "namespace"} <= node.keys() and "spec" not in node:
            yield node
        for key, value in node.items():
            if key != "resources":
                yield from _refs(value)
    elif isinstance(node, list):
        for item in node:
            yield from _refs(item)
