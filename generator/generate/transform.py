"""Transformations applied to parsed objects before validation.

``apply_target_namespace`` reproduces what ``clusterctl generate cluster --target-namespace`` does
(reference §9), so manifests moved between namespaces behave the same with either tool.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence

from generator.errors import CapzgenError, Location
from generator.jsontypes import Json, JsonObject, dig
from generator.model.kinds import CLUSTER_SCOPED_KINDS

_INJECT_CA = "cert-manager.io/inject-ca-from"
_WEBHOOK_API_VERSIONS = frozenset(
    {"admissionregistration.k8s.io/v1", "admissionregistration.k8s.io/v1beta1"}
)
_CRD_API_VERSIONS = frozenset({"apiextensions.k8s.io/v1", "apiextensions.k8s.io/v1beta1"})


def apply_target_namespace(objects: Sequence[Json], namespace: str) -> list[Json]:
    """Return copies of ``objects`` moved into ``namespace`` the way clusterctl moves them."""
    return [_move(obj, namespace, index) for index, obj in enumerate(objects)]


def _move(obj: Json, namespace: str, index: int) -> Json:
    if not isinstance(obj, dict):
        return obj
    obj = copy.deepcopy(obj)
    kind = obj.get("kind")
    metadata = obj.get("metadata")
    if not isinstance(metadata, dict):
        metadata = {}
        obj["metadata"] = metadata
    original_namespace = metadata.get("namespace")
    if kind == "Namespace":
        metadata["name"] = namespace
        return obj
    if kind not in CLUSTER_SCOPED_KINDS:
        metadata["namespace"] = namespace
    retarget = _RETARGET.get(kind)
    if retarget is not None:
        retarget(obj, namespace, index, original_namespace)
    return obj


# What else clusterctl changes for some kinds: (object, namespace, document index, the object's
# namespace before the move) -> None, editing the object's copy in place.


def _retarget_subjects(obj: JsonObject, namespace: str, index: int, original: Json) -> None:
    for subject in obj.get("subjects") or []:
        if isinstance(subject, dict) and subject.get("namespace"):
            subject["namespace"] = namespace


def _retarget_webhooks(obj: JsonObject, namespace: str, index: int, original: Json) -> None:
    _check_api_version(obj, _WEBHOOK_API_VERSIONS, index)
    _retarget_ca_annotation(obj["metadata"], namespace, index)
    for webhook in obj.get("webhooks") or []:
        service = dig(webhook, "clientConfig", "service")
        if isinstance(service, dict):
            service["namespace"] = namespace


def _retarget_conversion(obj: JsonObject, namespace: str, index: int, original: Json) -> None:
    _check_api_version(obj, _CRD_API_VERSIONS, index)
    _retarget_ca_annotation(obj["metadata"], namespace, index)
    service = dig(obj, "spec", "conversion", "webhook", "clientConfig", "service")
    if isinstance(service, dict):
        service["namespace"] = namespace


def _retarget_dns_names(obj: JsonObject, namespace: str, index: int, original: Json) -> None:
    if not isinstance(original, str) or not original:
        return
    names = dig(obj, "spec", "dnsNames")
    if isinstance(names, list):
        old, new = f".{original}.", f".{namespace}."
        dig(obj, "spec")["dnsNames"] = [
            n.replace(old, new, 1) if isinstance(n, str) else n for n in names
        ]


_RETARGET: dict[str, Callable[[JsonObject, str, int, Json], None]] = {
    "ClusterRoleBinding": _retarget_subjects,
    "RoleBinding": _retarget_subjects,
    "MutatingWebhookConfiguration": _retarget_webhooks,
    "ValidatingWebhookConfiguration": _retarget_webhooks,
    "CustomResourceDefinition": _retarget_conversion,
    "Certificate": _retarget_dns_names,
}


def _check_api_version(obj: JsonObject, allowed: frozenset[str], index: int) -> None:
    if obj.get("apiVersion") not in allowed:
        msg = (
            f"failed to patch {obj.get('kind')} with apiVersion {obj.get('apiVersion')!r} "
            "for the target namespace"
        )
        raise CapzgenError(
            msg,
            location=Location(document=index, kind=str(obj.get("kind")), path="apiVersion"),
        )


def _retarget_ca_annotation(metadata: JsonObject, namespace: str, index: int) -> None:
    annotations = metadata.get("annotations")
    if not isinstance(annotations, dict) or _INJECT_CA not in annotations:
        return
    value = str(annotations[_INJECT_CA])
    if value.count("/") != 1:
        msg = f"annotation {_INJECT_CA} must be <namespace>/<name>, got {value!r}"
        raise CapzgenError(
            msg,
            location=Location(document=index, path=f"metadata.annotations[{_INJECT_CA!r}]"),
        )
    annotations[_INJECT_CA] = f"{namespace}/{value.split('/', 1)[1]}"
