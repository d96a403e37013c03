"""Rules never raise: any field may be missing or of any type. Hypothesis replaces values at
random places of a complete cluster (and of the ClusterClass template) and the engine must still
return findings instead of failing."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.checks import ValidationOptions, validate_documents
from generator.documents import Document

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**40), max_value=2**40),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(
        ["", "{{ .builtin.cluster.name }}", "System", "Windows", "v1.31.1", "a/b", "10.0.0.0/33"]
    ),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=6,
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every container slot of ``value`` (dict keys and list indices), depth first."""
    out: list[tuple[Any, ...]] = []
    if isinstance(value, dict):
        for key, item in value.items():
            out.append((*prefix, key))
            out.extend(_paths(item, (*prefix, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            out.append((*prefix, index))
            out.extend(_paths(item, (*prefix, index)))
    return out


def _mutate(objs: list[Any], data: st.DataObject) -> list[Any]:
    objs = copy.deepcopy(objs)
    for _ in range(data.draw(st.integers(min_value=1, max_value=4))):
        paths = [(i, *p) for i, obj in enumerate(objs) for p in _paths(obj)]
        if not paths:
            break
        path = data.draw(st.sampled_from(paths))
        parent: Any = objs
        for part in path[:-1]:
            parent = parent[part]
        if data.draw(st.booleans()) and isinstance(parent, dict):
            del parent[path[-1]]
        else:
            parent[path[-1]] = data.draw(VALUES)
    return objs


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_rules_never_raise(
    data: st.DataObject, template_docs: Callable[[str], list[Document]]
) -> None:
    flavor = data.draw(st.sampled_from(["aks-aso", "aks-aso-maintenance", "aks-aso-clusterclass"]))
    objs = _mutate([doc.obj for doc in template_docs(flavor)], data)
    documents = [Document("fuzz.yaml", index, obj) for index, obj in enumerate(objs)]
    findings = validate_documents(documents, None, ValidationOptions(schemas=False))
    assert all(finding.message for finding in findings)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_schema_checks_never_raise(
    data: st.DataObject,
    template_docs: Callable[[str], list[Document]],
    make_store: Callable[[], Any],
) -> None:
    objs = _mutate([doc.obj for doc in template_docs("aks-aso")], data)
    documents = [Document("fuzz.yaml", index, obj) for index, obj in enumerate(objs)]
    validate_documents(documents, make_store(), ValidationOptions(ignore_missing_schemas=True))


LEGACY_PATCHED = [
    {
        "apiVersion": "cluster.x-k8s.io/v1beta1",
        "kind": "Cluster",
        "metadata": {"name": "demo"},
        "spec": {
            "clusterNetwork": {"services": {"cidrBlocks": ["10.0.0.0/16"]}},
            "controlPlaneRef": {"kind": "AzureManagedControlPlane", "name": "demo"},
        },
    },
    {
        "apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1",
        "kind": "AzureManagedControlPlane",
        "metadata": {"name": "demo"},
        "spec": {
            "location": "westeurope",
            "sshPublicKey": "c3NoLXJzYSBBQUFB",
            "aadProfile": {"managed": True, "adminGroupObjectIDs": ["a"]},
            "disableLocalAccounts": True,
            "oidcIssuerProfile": {"enabled": True},
            "addonProfiles": [{"name": "azurepolicy", "enabled": True, "config": {"a": "b"}}],
            "autoscalerProfile": {"expander": "random", "scanInterval": "10s"},
            "loadBalancerProfile": {"outboundIPs": ["id"], "managedOutboundIPs": 2},
            "sku": {"tier": "Paid"},
            "additionalTags": {"team": "a"},
            "asoManagedClusterPatches": [
                '{"spec": {"disableLocalAcounts": true, "location": "eastus"}}',
                "spec:\n  tags: {b: c}\n",
            ],
        },
    },
    {
        "apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1",
        "kind": "AzureManagedMachinePoolTemplate",
        "metadata": {"name": "pool"},
        "spec": {
            "template": {
                "spec": {
                    "mode": "System",
                    "scaling": {"minSize": 1, "maxSize": 3},
                    "taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}],
                    "spotMaxPrice": "500m",
                    "linuxOSConfig": {"sysctls": {"netIpv4TCPFinTimeout": 30}},
                    "subnetName": "other",
                    "asoManagedClustersAgentPoolPatches": ['{"spec": {"count": "x"}}'],
                }
            }
        },
    },
]


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_option7_patch_rules_never_raise(
    data: st.DataObject, make_store: Callable[[], Any]
) -> None:
    """The legacy spec is mapped to the object CAPZ builds before the patches are checked: any
    value of any type must end in findings, never in an exception."""
    objs = _mutate(LEGACY_PATCHED, data)
    documents = [Document("fuzz.yaml", index, obj) for index, obj in enumerate(objs)]
    findings = validate_documents(
        documents, make_store(), ValidationOptions(ignore_missing_schemas=True)
    )
    assert all(finding.message for finding in findings)


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_clusterclass_patch_checks_never_raise(
    data: st.DataObject, make_store: Callable[[], Any]
) -> None:
    # A ClusterClass with variables and patches (templates, variables, values), mutated anywhere.
    path = Path(__file__).parent / "examples" / "valid" / "clusterclass-patches.yaml"
    objs = _mutate(list(yaml.safe_load_all(path.read_text())), data)
    documents = [Document("fuzz.yaml", index, obj) for index, obj in enumerate(objs)]
    store = make_store() if data.draw(st.booleans()) else None
    findings = validate_documents(
        documents, store, ValidationOptions(schemas=store is not None, ignore_missing_schemas=True)
    )
    assert all(finding.message for finding in findings)
