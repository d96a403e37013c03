"""Target namespace application, as clusterctl does it (reference §9)."""

from __future__ import annotations

from typing import Any

import pytest

from generator.errors import CapzgenError
from generator.generate.transform import apply_target_namespace


def obj(kind: str, api_version: str = "v1", **extra: Any) -> dict[str, Any]:
    return {
        "apiVersion": api_version,
        "kind": kind,
        "metadata": {"name": "x", "namespace": "default"},
        **extra,
    }


def test_namespaced_objects_are_moved_and_originals_untouched() -> None:
    original = obj("Cluster", "cluster.x-k8s.io/v1beta1")
    (moved,) = apply_target_namespace([original], "team-a")
    assert moved["metadata"]["namespace"] == "team-a"
    assert original["metadata"]["namespace"] == "default"


def test_metadata_is_created_when_absent() -> None:
    (moved,) = apply_target_namespace([{"apiVersion": "v1", "kind": "ConfigMap"}], "ns")
    assert moved["metadata"] == {"namespace": "ns"}


def test_namespace_objects_are_renamed_and_cluster_scoped_kinds_left_alone() -> None:
    ns, role = apply_target_namespace(
        [obj("Namespace"), {"kind": "ClusterRole", "metadata": {"name": "r"}}], "ns"
    )
    assert ns["metadata"]["name"] == "ns"
    assert "namespace" not in role["metadata"]


def test_binding_subjects_with_a_namespace_are_moved() -> None:
    binding = obj(
        "ClusterRoleBinding",
        "rbac.authorization.k8s.io/v1",
        subjects=[
            {"kind": "ServiceAccount", "name": "a", "namespace": "old"},
            {"kind": "User", "name": "u"},
        ],
    )
    (moved,) = apply_target_namespace([binding], "ns")
    assert moved["subjects"][0]["namespace"] == "ns"
    assert "namespace" not in moved["subjects"][1]


def test_webhook_ca_annotation_and_service_namespace() -> None:
    hook = obj(
        "ValidatingWebhookConfiguration",
        "admissionregistration.k8s.io/v1",
        webhooks=[{"clientConfig": {"service": {"name": "svc", "namespace": "old"}}}],
    )
    hook["metadata"]["annotations"] = {"cert-manager.io/inject-ca-from": "old/cert"}
    (moved,) = apply_target_namespace([hook], "ns")
    assert moved["metadata"]["annotations"]["cert-manager.io/inject-ca-from"] == "ns/cert"
    assert moved["webhooks"][0]["clientConfig"]["service"]["namespace"] == "ns"


def test_unknown_webhook_api_version_is_an_error() -> None:
    with pytest.raises(CapzgenError, match="failed to patch"):
        apply_target_namespace(
            [obj("MutatingWebhookConfiguration", "admissionregistration.k8s.io/v2")], "ns"
        )


def test_certificate_dns_names_follow_the_namespace() -> None:
    cert = obj(
        "Certificate",
        "cert-manager.io/v1",
        spec={"dnsNames": ["svc.default.svc", "svc.default.svc.cluster.local"]},
    )
    (moved,) = apply_target_namespace([cert], "ns")
    assert moved["spec"]["dnsNames"] == ["svc.ns.svc", "svc.ns.svc.cluster.local"]


def test_crd_conversion_webhook_and_ca_annotation() -> None:
    crd = obj(
        "CustomResourceDefinition",
        "apiextensions.k8s.io/v1",
        spec={"conversion": {"webhook": {"clientConfig": {"service": {"namespace": "old"}}}}},
    )
    crd["metadata"]["annotations"] = {"cert-manager.io/inject-ca-from": "old/cert"}
    plain = obj("CustomResourceDefinition", "apiextensions.k8s.io/v1", spec={})
    moved, moved_plain = apply_target_namespace([crd, plain], "ns")
    assert moved["spec"]["conversion"]["webhook"]["clientConfig"]["service"]["namespace"] == "ns"
    assert moved["metadata"]["annotations"]["cert-manager.io/inject-ca-from"] == "ns/cert"
    assert moved["metadata"]["namespace"] == "default"  # cluster-scoped: left as it was
    assert moved_plain["spec"] == {}


@pytest.mark.parametrize(
    ("objects", "message"),
    [
        ([obj("CustomResourceDefinition", "apiextensions.k8s.io/v2")], "failed to patch"),
        (
            [
                obj(
                    "MutatingWebhookConfiguration",
                    "admissionregistration.k8s.io/v1",
                    metadata={"annotations": {"cert-manager.io/inject-ca-from": "cert"}},
                )
            ],
            "must be <namespace>/<name>",
        ),
    ],
)
def test_webhook_and_crd_problems(objects: list[Any], message: str) -> None:
    with pytest.raises(CapzgenError, match=message):
        apply_target_namespace(objects, "ns")


def test_certificate_without_a_namespace_and_odd_values_are_kept() -> None:
    names = ["svc.default.svc", 7]
    unnamespaced = {"kind": "Certificate", "metadata": {}, "spec": {"dnsNames": names}}
    odd = obj("Certificate", spec={"dnsNames": names})
    no_list = obj("Certificate", spec={"dnsNames": "svc.default.svc"})
    webhook_without_service = obj(
        "ValidatingWebhookConfiguration",
        "admissionregistration.k8s.io/v1",
        webhooks=[{"clientConfig": {"url": "https://x"}}, "junk"],
    )
    moved = apply_target_namespace(
        [unnamespaced, odd, no_list, webhook_without_service, "not an object"], "ns"
    )
    assert moved[0]["spec"]["dnsNames"] == names
    assert moved[1]["spec"]["dnsNames"] == ["svc.ns.svc", 7]
    assert moved[2]["spec"]["dnsNames"] == "svc.default.svc"
    assert moved[3]["webhooks"] == webhook_without_service["webhooks"]
    assert moved[4] == "not an object"
