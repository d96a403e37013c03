"""ASO credentials: the ``credential-from`` annotation and the Secret it names (R12, §1.6, O7).

CAPZ installs ASO's global credential Secret with empty values, so every embedded resource needs
a per-resource (annotation) or per-namespace (``aso-credential``) Secret. When the Secret is part
of the validated set its shape is checked too: ASO refuses to start a reconcile without the three
IDs and with an unknown ``AUTH_MODE``.
"""

from __future__ import annotations

import base64
import binascii
from collections import Counter
from collections.abc import Iterator

from generator.checks.rules.base import Rule
from generator.findings import Finding, Gate, Severity
from generator.jsontypes import Json
from generator.model import kinds
from generator.model.manifests import AsoResource, ManifestSet, TopObject
from generator.model.values import as_dict, is_templated

_KEY = kinds.CREDENTIAL_ANNOTATION
_ANNOTATION_PATH = ("metadata", "annotations", _KEY)
REQUIRED_KEYS = ("AZURE_SUBSCRIPTION_ID", "AZURE_TENANT_ID", "AZURE_CLIENT_ID")
AUTH_MODES = ("workloadidentity", "podidentity")


def _embedded(ms: ManifestSet) -> Iterator[AsoResource]:
    return (res for res in ms.resources if res.parent is not None)


MISSING = Rule(
    "CAPZ-CRED-MISSING",
    "Every embedded resource carries serviceoperator.azure.com/credential-from (R12, §1.6)",
    Severity.WARNING,
    Gate.PROVISIONING,
    why="ASO falls back to its global credential",
)


@MISSING.checks
def _check_missing(ms: ManifestSet) -> Iterator[Finding]:
    for res in _embedded(ms):
        if _KEY not in res.annotations:
            yield MISSING.at(
                res,
                ("metadata", "annotations"),
                f"has no {_KEY} annotation: ASO falls back to Secret {kinds.DEFAULT_CREDENTIAL_SECRET!r} in the "
                "namespace, then to the global Secret CAPZ installs empty",
            )


VALUE = Rule(
    "CAPZ-CRED-VALUE",
    "The credential-from annotation is a non-empty Secret name without '/' (R12)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="ASO finds no credential Secret by that name",
)


@VALUE.checks
def _check_value(ms: ManifestSet) -> Iterator[Finding]:
    for res in _embedded(ms):
        annotations = res.annotations
        if _KEY not in annotations:
            continue
        value = annotations[_KEY]
        if not isinstance(value, str) or not value.strip():
            yield VALUE.at(res, _ANNOTATION_PATH, "must name a Secret (a non-empty string)")
        elif "/" in value:
            yield VALUE.at(
                res,
                _ANNOTATION_PATH,
                f"{value!r} must be a plain Secret name in the resource's namespace, without '/'",
            )


CONSISTENT = Rule(
    "CAPZ-CRED-CONSISTENT",
    "All embedded resources of one Cluster use the same credential Secret (§1.6)",
    Severity.WARNING,
    Gate.PROVISIONING,
    why="ASO uses different credentials for one cluster's resources",
)


@CONSISTENT.checks
def _check_consistent(ms: ManifestSet) -> Iterator[Finding]:
    for group in ms.clusters:
        named = [
            (res, value)
            for member in group.members()
            for res in member.resources
            if isinstance(value := res.annotations.get(_KEY), str) and not is_templated(value)
        ]
        if len({value for _, value in named}) < 2:
            continue
        usual = Counter(value for _, value in named).most_common(1)[0][0]
        for res, value in named:
            if value != usual:
                yield CONSISTENT.at(
                    res,
                    _ANNOTATION_PATH,
                    f"is {value!r} while the other resources of Cluster {group.cluster.name!r} use {usual!r}",
                )


def _decoded(value: Json, encoded: bool) -> str | None:
    if not isinstance(value, str):
        return None
    if not encoded:
        return value
    try:
        return base64.b64decode(value, validate=True).decode("utf-8", errors="replace")
    except (binascii.Error, ValueError):
        return None


def _secret_problems(secret: TopObject) -> Iterator[Finding]:
    data = as_dict(secret.obj.get("data")) or {}
    string_data = as_dict(secret.obj.get("stringData")) or {}
    values: dict[str, tuple[tuple[str, str], str | None]] = {}
    for field, mapping, encoded in (("data", data, True), ("stringData", string_data, False)):
        for key, value in mapping.items():
            values[key] = (
                (field, key),
                _decoded(value, encoded),
            )  # stringData wins, as in the API server
    for key in REQUIRED_KEYS:
        if key not in values:
            yield SECRET.at(
                secret,
                ("stringData" if string_data or not data else "data",),
                f"has no {key} (required by ASO)",
            )
        elif values[key][1] == "":
            yield SECRET.at(
                secret,
                values[key][0],
                f"{key} is empty: ASO needs all of {', '.join(REQUIRED_KEYS)}",
            )
    if "AUTH_MODE" in values:
        path, mode = values["AUTH_MODE"]
        if mode is not None and mode not in ("", *AUTH_MODES) and not is_templated(mode):
            yield SECRET.at(
                secret, path, f"AUTH_MODE {mode!r} is not one of {', '.join(AUTH_MODES)}"
            )


SECRET = Rule(
    "CAPZ-CRED-SECRET",
    "A credential Secret in the set is in the resources' namespace and has AZURE_SUBSCRIPTION_ID, "
    "AZURE_TENANT_ID, AZURE_CLIENT_ID in data or stringData; AUTH_MODE is workloadidentity or podidentity "
    "(R12, §1.6, O7)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="ASO cannot authenticate with the Secret",
)


@SECRET.checks
def _check_secret(ms: ManifestSet) -> Iterator[Finding]:
    checked: set[TopObject] = set()
    misplaced: set[tuple[str | None, str]] = set()  # reported once per namespace and name
    for res in _embedded(ms):
        value = res.annotations.get(_KEY, kinds.DEFAULT_CREDENTIAL_SECRET)
        if not isinstance(value, str) or not value or is_templated(value) or "/" in value:
            continue
        secret = ms.find(kinds.SECRET, value, res.namespace)
        if secret is not None:
            if secret not in checked:
                checked.add(secret)
                yield from _secret_problems(secret)
            continue
        elsewhere = ms.find_any_namespace(kinds.SECRET, value)
        if elsewhere and _KEY in res.annotations and (res.namespace, value) not in misplaced:
            misplaced.add((res.namespace, value))
            namespaces = ", ".join(sorted({obj.namespace or "<none>" for obj in elsewhere}))
            yield SECRET.at(
                res,
                _ANNOTATION_PATH,
                f"Secret {value!r} is in namespace {namespaces}, not in {res.namespace or '<none>'}: "
                "ASO looks it up in the resource's namespace",
            )
