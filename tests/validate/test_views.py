"""The normalised views the pool and cluster rules run on: one shape for both CAPZ APIs."""

from __future__ import annotations

from collections.abc import Callable

from generator.checks import fields
from generator.checks.fields import FieldReader, as_bool, read_field
from generator.checks.views import UNKNOWN, Api, views_of
from generator.documents import Document
from generator.model.manifests import ManifestSet
from generator.model.values import known_str

Parse = Callable[..., list[Document]]

LEGACY = """
apiVersion: cluster.x-k8s.io/v1beta1
kind: Cluster
metadata: {name: demo, namespace: default}
spec:
  clusterNetwork: {services: {cidrBlocks: [10.1.0.0/16]}}
  controlPlaneRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedControlPlane, name: demo}
  infrastructureRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedCluster, name: demo}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedControlPlane
metadata: {name: demo, namespace: default}
spec:
  location: westeurope
  version: v1.31.1
  networkPlugin: kubenet
  apiServerAccessProfile: {enablePrivateCluster: true, privateDNSZone: system}
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachinePool
metadata: {name: pool0, namespace: default}
spec:
  clusterName: demo
  replicas: 3
  template:
    spec:
      clusterName: demo
      bootstrap: {dataSecretName: ""}
      infrastructureRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedMachinePool, name: pool0}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedMachinePool
metadata: {name: pool0, namespace: default}
spec: {mode: System, sku: Standard_D2s_v3, scaling: {minSize: 1, maxSize: 4}}
"""


def test_legacy_objects_project_onto_the_views(parse: Parse) -> None:
    ms = ManifestSet(parse(LEGACY))
    views = views_of(ms)
    (pool,) = views.pools_of(ms.clusters[0])
    assert pool.api is Api.LEGACY and pool.is_system
    # CAPZ names a legacy pool after its object when spec.name is left out.
    assert (pool.name.value, pool.name.rel) == ("pool0", ("metadata", "name"))
    assert (pool.autoscaling.value, pool.min_count.value, pool.max_count.value) == (True, 1, 4)
    assert pool.min_count.rel == ("spec", "scaling", "minSize")
    assert pool.replicas.value == 3 and pool.replicas.owner is pool.machine_pool
    assert pool.subnet.raw is UNKNOWN and pool.subnet.unknown
    control_plane = views.control_plane_of(ms.clusters[0])
    assert control_plane is not None and control_plane.api is Api.LEGACY
    assert control_plane.network_plugin.value == "kubenet"
    assert control_plane.private_dns_zone.path == (
        "spec",
        "apiServerAccessProfile",
        "privateDNSZone",
    )
    assert control_plane.dns_prefix.value == "demo"  # CAPZ's default: the control plane's name
    assert views_of(ms) is views  # built once per set


def test_aso_fields_are_located_inside_the_embedding_object(
    template_docs: Callable[[str], list[Document]],
) -> None:
    ms = ManifestSet(template_docs("aks-aso"))
    views = views_of(ms)
    pools = views.pools_of(ms.clusters[0])
    assert [pool.api for pool in pools] == [Api.ASO, Api.ASO]
    assert pools[0].name.path == ("spec", "resources", 0, "spec", "azureName")
    assert pools[0].name.subject.embedded_kind == "ManagedClustersAgentPool"
    control_plane = views.control_plane_of(ms.clusters[0])
    assert control_plane is not None
    assert control_plane.network_plugin.path == (
        "spec",
        "resources",
        0,
        "spec",
        "networkProfile",
        "networkPlugin",
    )


def test_templates_and_placeholders_are_unknown(parse: Parse) -> None:
    text = LEGACY.replace("mode: System", "mode: '${POOL_MODE}'").replace(
        "networkPlugin: kubenet", "networkPlugin: '{{ .plugin }}'"
    )
    ms = ManifestSet(parse(text))
    (pool,) = views_of(ms).pools
    assert pool.mode.unknown and pool.mode.value is None and not pool.is_system
    (control_plane,) = views_of(ms).control_planes
    assert control_plane.network_plugin.unknown and control_plane.network_plugin.value is None


def test_objects_without_a_spec_have_no_view(
    parse: Parse, template_docs: Callable[[str], list[Document]]
) -> None:
    legacy = ManifestSet(parse(LEGACY.replace("spec: {mode: System", "status: {mode: System")))
    assert views_of(legacy).pools == ()
    assert views_of(legacy).pools_of(legacy.clusters[0]) == ()
    no_control_plane = LEGACY.replace(
        "spec:\n  location: westeurope", "status:\n  location: westeurope"
    )
    ms = ManifestSet(parse(no_control_plane))
    assert views_of(ms).control_planes == ()
    assert views_of(ms).control_plane_of(ms.clusters[0]) is None
    assert len(views_of(ms).pools) == 1
    aso = template_docs("aks-aso")
    for doc in aso:
        for resource in (doc.obj.get("spec") or {}).get("resources") or []:
            if resource["kind"] in ("ManagedCluster", "ManagedClustersAgentPool"):
                del resource["spec"]
    ms = ManifestSet(aso)
    assert views_of(ms).pools == ()
    assert views_of(ms).control_planes == ()
    assert views_of(ms).pools_of(ms.clusters[0]) == ()


def test_a_standalone_agent_pool_is_named_after_its_object(parse: Parse) -> None:
    """ASO defaults azureName to metadata.name; CAPZ reads the raw azureName of the pools it
    embeds (C14), so only those have no fallback."""
    docs = parse(
        """
apiVersion: containerservice.azure.com/v1api20240901
kind: ManagedClustersAgentPool
metadata: {name: pool2, namespace: default}
spec: {mode: User, owner: {name: demo}}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureASOManagedMachinePool
metadata: {name: demo-pool3, namespace: default}
spec:
  resources:
  - apiVersion: containerservice.azure.com/v1api20240901
    kind: ManagedClustersAgentPool
    metadata: {name: pool3}
    spec: {mode: User, owner: {name: demo}}
"""
    )
    standalone, embedded = views_of(ManifestSet(docs)).pools
    assert (standalone.name.value, standalone.name.rel) == ("pool2", ("metadata", "name"))
    assert not embedded.name.is_set and embedded.name.rel == ("spec", "azureName")


def test_settings_only_one_api_has(parse: Parse) -> None:
    """Legacy pools have no pod subnet or upgrade settings; legacy clusters get Azure RBAC from
    aadProfile.managed (CAPZ sends enableAzureRBAC equal to it) and list their add-ons."""
    docs = parse(
        LEGACY.replace(
            "  location: westeurope\n",
            "  location: westeurope\n  aadProfile: {managed: true, adminGroupObjectIDs: []}\n"
            "  addonProfiles: [{name: azurepolicy, enabled: true}]\n",
        )
    )
    views = views_of(ManifestSet(docs))
    (pool,) = views.pools
    assert not pool.pod_subnet.is_set and not pool.max_surge.is_set
    (cp,) = views.control_planes
    assert (cp.azure_rbac.value, cp.azure_rbac.rel) == (True, ("spec", "aadProfile", "managed"))
    assert cp.addon_profiles.value == [{"name": "azurepolicy", "enabled": True}]


def test_a_field_reader_reads_siblings_below_one_node(parse: Parse) -> None:
    """Settings read from a shared parent carry their full path; a parent that is missing or
    not a mapping has no settings, and an absent setting has no value whatever the converter
    makes of None."""
    ms = ManifestSet(parse(LEGACY.replace("privateDNSZone: system", "privateDNSZone: [system]")))
    (control_plane,) = ms.objects_of("AzureManagedControlPlane")
    spec = FieldReader.at(control_plane, "spec")
    access = spec.below("apiServerAccessProfile")
    private = access.read(as_bool, "enablePrivateCluster")
    assert (private.raw, private.value) == (True, True)
    assert private.rel == ("spec", "apiServerAccessProfile", "enablePrivateCluster")
    assert private == read_field(control_plane, private.rel, as_bool)
    zone = access.read(known_str, "privateDNSZone")  # written, but of the wrong type
    assert (zone.raw, zone.value) == (["system"], None) and zone.is_set
    for missing in (spec.below("location", "deeper"), spec.below("nowhere")):
        field = missing.read(lambda raw: "converted", "setting")
        assert (field.raw, field.value, field.is_set) == (None, None, False)
        assert field.rel == (*missing.base, "setting") and field.owner is control_plane


def test_field_paths_are_shared_up_to_a_bound(parse: Parse) -> None:
    """Fields of different objects at the same place share one path tuple; past the bound on
    remembered paths, paths are still right, just not shared."""
    ms = ManifestSet(parse(LEGACY + "---\n" + LEGACY.replace("name: demo", "name: other")))
    first, second = (
        FieldReader.at(obj, "spec") for obj in ms.objects_of("AzureManagedControlPlane")
    )
    assert first.read(known_str, "location").rel is second.read(known_str, "location").rel
    assert 0 < len(fields.SHARED_PATHS) <= fields.SHARED_PATHS.limit
    full = fields.SharedPaths(limit=1)
    kept = full.joined(("spec",), ("location",))
    assert full.joined(("spec",), ("location",)) is kept
    unshared = full.joined(("spec",), ("networkPlugin",))
    assert unshared == ("spec", "networkPlugin") and len(full) == 1
    assert full.joined(("spec",), ("networkPlugin",)) is not unshared


LEGACY_TEMPLATES = """
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedControlPlaneTemplate
metadata: {name: demo-control-plane, namespace: default}
spec:
  template:
    spec:
      location: westeurope
      version: v1.31.1
      loadBalancerProfile: {idleTimeoutInMinutes: 600}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedMachinePoolTemplate
metadata: {name: pool0, namespace: default}
spec:
  template:
    spec: {mode: System, sku: Standard_D2s_v3, maxPods: 251}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedMachinePoolTemplate
metadata: {name: broken, namespace: default}
spec: {template: 3}
"""


def test_legacy_templates_are_read_at_their_template_spec(parse: Parse) -> None:
    views = views_of(ManifestSet(parse(LEGACY_TEMPLATES)))
    (cp,) = views.control_planes
    (pool,) = views.pools  # a template whose spec.template.spec is no mapping has no view
    assert cp.api is Api.LEGACY and cp.in_template and cp.group is None
    assert cp.load_balancer.path == ("spec", "template", "spec", "loadBalancerProfile")
    # The template class spec has no dnsPrefix: each copy's defaults to its own name.
    assert not cp.dns_prefix.is_set and cp.dns_prefix.rel == (
        "spec",
        "template",
        "spec",
        "dnsPrefix",
    )
    # CAPZ's template webhook checks the template's own name (validateName).
    assert cp.aks_name.value == "demo-control-plane"
    assert pool.in_template and pool.machine_pool is None and pool.is_system
    assert (pool.max_pods.value, pool.max_pods.path) == (
        251,
        ("spec", "template", "spec", "maxPods"),
    )
    # The template webhook's defaulter names the pool after the template, like the object's.
    assert (pool.name.value, pool.name.rel) == ("pool0", ("metadata", "name"))
    assert pool.os_sku.rel == ("spec", "template", "spec", "osSKU")


def test_resources_embedded_in_aso_templates_are_in_templates(parse: Parse) -> None:
    text = """
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureASOManagedMachinePoolTemplate
metadata: {name: pool0, namespace: default}
spec:
  template:
    spec:
      resources:
      - apiVersion: containerservice.azure.com/v1api20240901
        kind: ManagedClustersAgentPool
        metadata: {name: pool0}
        spec: {azureName: pool0, mode: System, owner: {name: demo}}
"""
    (pool,) = views_of(ManifestSet(parse(text))).pools
    assert pool.api is Api.ASO and pool.in_template
    assert pool.mode.path == ("spec", "template", "spec", "resources", 0, "spec", "mode")
