"""AzureClusterIdentity + identityRef -> the keys of the ASO credential Secret (reference §5.6).

capzgen never writes the Secret: it names it in every ``credential-from`` annotation and lists, on
stderr, which key takes which value. IDs found in the manifests are shown; secrets are named by
where to copy them from.
"""

from __future__ import annotations

from collections.abc import Sequence

from generator.jsontypes import Json, JsonObject
from generator.migrate import tables as t
from generator.migrate.model import CredentialNeed, SecretKey
from generator.migrate.plan import ClusterPlan, Item, Notes


def find_identity(
    plan: ClusterPlan, identities: Sequence[Item]
) -> tuple[str, str, Item | None] | None:
    """(namespace, name, object or None) of the AzureClusterIdentity the control plane names."""
    ref = plan.control_plane.spec().get("identityRef")
    if not isinstance(ref, dict) or not isinstance(ref.get("name"), str):
        return None
    namespace = ref.get("namespace") or plan.control_plane.namespace or "default"
    for identity in identities:
        if identity.name == ref["name"] and (identity.namespace or "default") == namespace:
            return namespace, identity.name, identity
    return namespace, ref["name"], None


def credential_need(
    plan: ClusterPlan, identities: Sequence[Item], namespace: str, notes: Notes
) -> CredentialNeed:
    """The keys of the cluster's credential Secret and where each value comes from."""
    subscription = (
        f"{plan.subscription} (AzureManagedControlPlane spec.subscriptionID)"
        if plan.subscription
        else "(not in the manifests: the subscription legacy CAPZ used for this cluster)"
    )
    keys = [SecretKey("AZURE_SUBSCRIPTION_ID", subscription)]
    found = find_identity(plan, identities)
    if found is None:
        keys += [
            SecretKey("AZURE_TENANT_ID", "(no identityRef: the tenant of CAPZ's own credentials)"),
            SecretKey(
                "AZURE_CLIENT_ID", "(no identityRef: the client ID of CAPZ's own credentials)"
            ),
            SecretKey("AUTH_MODE", "workloadidentity or podidentity, as CAPZ authenticates"),
        ]
        return CredentialNeed(namespace, plan.credential_secret, plan.cluster_name, tuple(keys))
    keys += _identity_keys(plan, *found, notes)
    legacy_secret = f"{plan.control_plane.namespace or 'default'}/{plan.cluster_name}-aso-secret"
    hint = f"legacy CAPZ generated Secret {legacy_secret} with these keys; copying it is enough"
    return CredentialNeed(namespace, plan.credential_secret, plan.cluster_name, tuple(keys), hint)


def _identity_keys(
    plan: ClusterPlan, identity_ns: str, identity_name: str, identity: Item | None, notes: Notes
) -> list[SecretKey]:
    """Tenant, client and authentication keys from the AzureClusterIdentity (or, when the input
    lacks it, where to find them)."""
    where = f"AzureClusterIdentity {identity_ns}/{identity_name}"
    spec: JsonObject = identity.spec() if identity is not None else {}
    if identity is None:
        where += ", not in the input"
    keys = [
        SecretKey("AZURE_TENANT_ID", _value(spec.get("tenantID"), f"spec.tenantID of {where}")),
        SecretKey("AZURE_CLIENT_ID", _value(spec.get("clientID"), f"spec.clientID of {where}")),
    ]
    identity_type = spec.get("type")
    if identity is None:
        keys.append(
            SecretKey(
                "AUTH_MODE",
                f"from spec.type of {where}: workloadidentity (WorkloadIdentity), podidentity "
                "(UserAssignedMSI); a service principal needs AZURE_CLIENT_SECRET instead",
            )
        )
    elif identity_type in t.IDENTITY_AUTH_MODES:
        keys.append(
            SecretKey("AUTH_MODE", f"{t.IDENTITY_AUTH_MODES[identity_type]} ({identity_type})")
        )
    elif identity_type in ("ServicePrincipal", "ManualServicePrincipal"):
        secret = _mapping(spec.get("clientSecret"))
        keys.append(
            SecretKey(
                "AZURE_CLIENT_SECRET",
                f"key clientSecret of Secret {secret.get('namespace') or identity_ns}/{secret.get('name', '?')}",
            )
        )
    elif identity_type == "ServicePrincipalCertificate":
        secret = _mapping(spec.get("clientSecret"))
        origin = (
            f"Secret {secret.get('namespace') or identity_ns}/{secret['name']}"
            if secret.get("name")
            else f"the file at spec.certPath ({spec.get('certPath', '?')})"
        )
        keys.append(SecretKey("AZURE_CLIENT_CERTIFICATE", f"key certificate of {origin}"))
        keys.append(SecretKey("AZURE_CLIENT_CERTIFICATE_PASSWORD", f"key password of {origin}"))
    else:
        notes.unmapped(
            identity,
            "spec.type",
            f"{identity_type!r} has no ASO credential equivalent; fill Secret "
            f"{plan.credential_secret} with a client secret, certificate or workload identity",
        )
    return keys


def _value(value: Json, origin: str) -> str:
    return f"{value} ({origin})" if isinstance(value, str) and value else f"({origin})"


def _mapping(value: Json) -> JsonObject:
    return value if isinstance(value, dict) else {}
