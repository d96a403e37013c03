"""AKS Automatic: the settings an ``Automatic`` SKU cluster cannot be created with.

AKS Automatic preconfigures a cluster and keeps some of that configuration fixed (Microsoft Learn,
"What is Azure Kubernetes Service (AKS) Automatic?",
https://learn.microsoft.com/azure/aks/intro-aks-automatic): nodes come from node
auto-provisioning, Kubernetes authorization is Entra ID with Azure RBAC and local accounts
disabled, workload identity and the OIDC issuer are on, and the control plane runs on the
Standard tier. A ManagedCluster that says ``sku.name: Automatic`` and turns one of these off in
writing is refused by AKS when ASO creates it; what the manifest leaves out AKS fills in.
The network and agent pools that node auto-provisioning needs are
:mod:`generator.checks.rules.node_provisioning`'s rules, which count an Automatic cluster as
node auto-provisioned.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final, final

from generator.checks.rules.base import Rule
from generator.checks.rules.node_provisioning import AUTOMATIC_SKU
from generator.findings import Finding, Gate, JsonPath, Severity
from generator.jsontypes import Json, dig
from generator.model import kinds
from generator.model.manifests import ManifestSet
from generator.model.values import is_templated


@final
class _Fixed:
    """A spec field AKS Automatic fixes: the values it refuses there, and what it needs."""

    path: Final[JsonPath]
    refused: Final[tuple[Json, ...]]
    needed: Final[str]

    def __init__(self, path: JsonPath, refused: tuple[Json, ...], needed: str) -> None:
        self.path, self.refused, self.needed = path, refused, needed

    def refuses(self, value: Json) -> bool:
        return not is_templated(value) and any(
            value == r and type(value) is type(r) for r in self.refused
        )


_FIXED = (
    _Fixed(("nodeProvisioningProfile", "mode"), ("Manual",), "Auto (node auto-provisioning)"),
    # Free only: whether Premium (long-term support) is refused is not documented clearly enough.
    _Fixed(("sku", "tier"), ("Free",), "the Standard tier"),
    _Fixed(("disableLocalAccounts",), (False,), "true (local accounts disabled)"),
    _Fixed(("aadProfile", "managed"), (False,), "true (managed Entra ID integration)"),
    _Fixed(("aadProfile", "enableAzureRBAC"), (False,), "true (Azure RBAC for Kubernetes)"),
    _Fixed(("oidcIssuerProfile", "enabled"), (False,), "true (the OIDC issuer)"),
    _Fixed(("securityProfile", "workloadIdentity", "enabled"), (False,), "true"),
    _Fixed(("networkProfile", "networkPlugin"), ("kubenet", "none"), "azure (Azure CNI overlay)"),
)

AUTOMATIC = Rule(
    "CAPZ-MC-AUTOMATIC",
    "A ManagedCluster of sku.name Automatic does not turn off what AKS Automatic fixes: node "
    "auto-provisioning (mode Manual), the Standard tier (not Free), disabled local accounts, Entra ID with "
    "Azure RBAC, the OIDC issuer, workload identity, Azure CNI, not kubenet or none (§4.1, §4.2, §4.4, §4.6, §4.16)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="AKS refuses to create an Automatic cluster with it",
)


@AUTOMATIC.checks
def _check_automatic(ms: ManifestSet) -> Iterator[Finding]:
    for res in ms.resources_of(kinds.MANAGED_CLUSTER):
        spec = res.spec
        if spec is None or dig(spec, "sku", "name") != AUTOMATIC_SKU:
            continue
        for fixed in _FIXED:
            value = dig(spec, *fixed.path)
            if fixed.refuses(value):
                yield AUTOMATIC.at(
                    res,
                    ("spec", *fixed.path),
                    f"is {str(value).lower() if isinstance(value, bool) else repr(value)}; "
                    f"AKS Automatic needs {fixed.needed}",
                    hint="leave it out (AKS Automatic sets it) or write what it needs",
                )
