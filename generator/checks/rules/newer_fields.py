"""ManagedCluster settings that an older ASO API version does not have.

ASO serves a ManagedCluster in several API versions, and the pinned CAPZ release's templates use
``v1api20240901``. Node auto-provisioning and the ``Automatic`` SKU only exist from
``v1api20250801`` on (and in ``v20251002preview``): written into a ``v1api20240901`` object,
the API server refuses the unknown field or the enum value (when the document is applied, or
when CAPZ's controller creates the ManagedCluster it embeds). The schema check says so in its own
words; this rule says which version the setting needs, at the field and at ``apiVersion``, so
that a flavor's render-time check names both the variable behind the setting and the one behind
the version (:mod:`generator.flavors.origins`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final, final

from generator.checks.rules.base import Rule
from generator.findings import Finding, Gate, JsonPath, Severity, format_path
from generator.jsontypes import Json, dig
from generator.model import kinds
from generator.model.manifests import ManifestSet

NEWER_VERSION = "v1api20250801"
"""The first stable ManagedCluster version with every setting of :data:`_NEWER_SETTINGS`."""

OLDER_VERSIONS = frozenset({"v1api20240901"})
"""ManagedCluster versions ASO still serves that lack them (older ones are not served, O8)."""


@final
class _Setting:
    """A spec field new in :data:`NEWER_VERSION`; with ``value``, only that value of it is new."""

    path: Final[JsonPath]
    value: Final[str | None]

    def __init__(self, path: JsonPath, value: str | None = None) -> None:
        self.path, self.value = path, value

    def present_in(self, spec: Json) -> bool:
        found = dig(spec, *self.path)
        if found is None:
            return False
        return self.value is None or found == self.value


# From the v1api20240901 and v1api20250801 ManagedCluster schemas of the bundle.
_NEWER_SETTINGS = (
    _Setting(("nodeProvisioningProfile",)),
    _Setting(("sku", "name"), "Automatic"),
    _Setting(("aiToolchainOperatorProfile",)),
    _Setting(("bootstrapProfile",)),
    _Setting(("kind",)),
    _Setting(("securityProfile", "customCATrustCertificates")),
)

NEWER_FIELD = Rule(
    "CAPZ-MC-API-VERSION-FIELD",
    "A ManagedCluster written in containerservice.azure.com/v1api20240901 sets nothing that only "
    f"{NEWER_VERSION} and later have: nodeProvisioningProfile, sku.name Automatic, "
    "aiToolchainOperatorProfile, bootstrapProfile, kind, securityProfile.customCATrustCertificates (O8)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="the API server refuses the ManagedCluster when CAPZ's controller creates it",
    split="Admission on a top-level ManagedCluster document: the API server refuses it when it is applied",
)


@NEWER_FIELD.checks
def _check_newer_fields(ms: ManifestSet) -> Iterator[Finding]:
    for res in ms.resources_of(kinds.MANAGED_CLUSTER):
        if res.version not in OLDER_VERSIONS or res.spec is None:
            continue
        newer = [setting for setting in _NEWER_SETTINGS if setting.present_in(res.spec)]
        # Embedded in a CAPZ object, whose schema keeps its resources as they are, the
        # ManagedCluster only meets its own schema when CAPZ's controller creates it.
        gate = Gate.ADMISSION if res.parent is None else None
        for setting in newer:
            what = "the value Automatic" if setting.value else "the field"
            yield NEWER_FIELD.at(
                res,
                ("spec", *setting.path),
                f"{what} exists only in {kinds.CONTAINERSERVICE}/{NEWER_VERSION} and later; "
                f"this ManagedCluster is {res.version}",
                hint=f"write the ManagedCluster (and its agent pools) as {NEWER_VERSION}",
                gate=gate,
            )
        if newer:
            names = ", ".join(format_path(("spec", *s.path)) for s in newer)
            yield NEWER_FIELD.at(
                res,
                ("apiVersion",),
                f"is {res.api_version}, which has no {names}; {NEWER_VERSION} or later has",
                gate=gate,
            )
