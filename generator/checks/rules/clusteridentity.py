"""AzureClusterIdentity, the credential of the legacy API (reference §5.6, CAPZ CRD descriptions).

CAPZ reads the identity named by an AzureManagedControlPlane's ``identityRef`` and turns it into
ASO's credential Secret. Two mistakes surface only when CAPZ first reconciles: a ServicePrincipal
type without the Secret holding its password or certificate (or a Secret given to a type that
reads none), and an ``allowedNamespaces`` list that leaves out the cluster's own namespace. Fields
that only one type reads are refused at admission by CAPZ's webhook (validateAzureClusterIdentity).
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.checks.rules.base import Rule
from generator.findings import Finding, Gate, Severity
from generator.jsontypes import dig
from generator.model import kinds
from generator.model.manifests import ManifestSet, Ref
from generator.model.values import as_dict, as_list, known_str

# Types that read spec.clientSecret (§5.6); ServicePrincipalCertificate may read certPath instead.
SECRET_TYPES = ("ServicePrincipal", "ManualServicePrincipal", "ServicePrincipalCertificate")


SECRET = Rule(
    "CAPZ-IDENTITY-SECRET",
    "AzureClusterIdentity types ServicePrincipal, ManualServicePrincipal, "
    "ServicePrincipalCertificate have a clientSecret (or, for certificates, certPath); other types "
    "have none (§5.6, CRD)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="CAPZ's controller cannot authenticate with the identity",
)


@SECRET.checks
def _check_secret(ms: ManifestSet) -> Iterator[Finding]:
    for identity in ms.objects_of(kinds.CLUSTER_IDENTITY):
        identity_type = known_str(dig(identity.spec, "type"))
        if identity_type is None:
            continue
        secret = as_dict(dig(identity.spec, "clientSecret"))
        has_secret = bool(secret) and known_str((secret or {}).get("name")) != ""
        if identity_type in SECRET_TYPES and not has_secret:
            if identity_type == "ServicePrincipalCertificate" and dig(identity.spec, "certPath"):
                continue
            yield SECRET.at(
                identity,
                ("spec", "clientSecret"),
                f"is required by type {identity_type}: the Secret with the service principal's "
                "password or certificate",
            )
        elif identity_type not in SECRET_TYPES and has_secret:
            yield SECRET.at(
                identity,
                ("spec", "clientSecret"),
                f"is not used by type {identity_type}; only {', '.join(SECRET_TYPES)} read a Secret",
            )


NAMESPACE = Rule(
    "CAPZ-IDENTITY-NAMESPACE",
    "An AzureClusterIdentity whose allowedNamespaces is a list (no selector) lists the namespace of "
    "every AzureManagedControlPlane whose identityRef names it (§5.6, CRD allowedNamespaces)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="CAPZ's controller refuses the identity to that namespace",
)


@NAMESPACE.checks
def _check_namespace(ms: ManifestSet) -> Iterator[Finding]:
    for control_plane in ms.objects_of(kinds.LEGACY_CONTROL_PLANE):
        ref = Ref.parse(dig(control_plane.spec, "identityRef"), ("spec", "identityRef"))
        namespace = known_str(control_plane.namespace)
        if ref is None or ref.kind != kinds.CLUSTER_IDENTITY or namespace is None:
            continue
        identity_namespace = known_str(dig(control_plane.spec, "identityRef", "namespace"))
        identity = ms.find(kinds.CLUSTER_IDENTITY, ref.name, identity_namespace or namespace)
        allowed = as_dict(dig(identity.spec, "allowedNamespaces")) if identity else None
        if identity is None or allowed is None or allowed.get("selector"):
            continue
        listed = [known_str(item) for item in as_list(allowed.get("list")) or []]
        if listed and None not in listed and namespace not in listed:
            yield NAMESPACE.at(
                identity,
                ("spec", "allowedNamespaces", "list"),
                f"does not contain {namespace!r}, the namespace of {control_plane.ref()} whose "
                "identityRef names this identity: CAPZ refuses it the identity",
            )


# Fields that only one identity type reads (CAPZ validateAzureClusterIdentity).
_TYPE_FIELDS = (
    ("resourceID", "UserAssignedMSI"),
    ("userAssignedIdentityCredentialsPath", "UserAssignedIdentityCredential"),
    ("userAssignedIdentityCredentialsCloudType", "UserAssignedIdentityCredential"),
)


TYPE_FIELDS = Rule(
    "CAPZ-IDENTITY-FIELDS",
    "AzureClusterIdentity resourceID only with type UserAssignedMSI, userAssignedIdentityCredentials"
    "Path/CloudType only with UserAssignedIdentityCredential (§5.6; CAPZ validateAzureClusterIdentity)",
    Severity.ERROR,
    Gate.ADMISSION,
)


@TYPE_FIELDS.checks
def _check_type_fields(ms: ManifestSet) -> Iterator[Finding]:
    for identity in ms.objects_of(kinds.CLUSTER_IDENTITY):
        identity_type = known_str(dig(identity.spec, "type"))
        if identity_type is None:
            continue
        for key, owner in _TYPE_FIELDS:
            if identity_type != owner and dig(identity.spec, key):
                yield TYPE_FIELDS.at(
                    identity,
                    ("spec", key),
                    f"is only read by type {owner}, not {identity_type}",
                )
