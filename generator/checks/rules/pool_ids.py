"""Names and resource IDs a legacy AzureManagedMachinePool gives as plain strings.

The ASO agent pool refers to its subnet and public IP prefix through resource references (their
form is ASO-REFERENCE's, their targets CAPZ-POOL-SUBNET-REF's); the legacy pool writes a subnet
name and a prefix resource ID, which CAPZ's AzureManagedMachinePool webhook checks at create time
(its template's webhook only the prefix ID):
``validateMPSubnetName`` (2-80 characters, alphanumeric at both ends, letters, digits, '.', '_'
and '-' between) and ``validateNodePublicIPPrefixID`` (a Microsoft.Network/publicIPPrefixes ID).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from generator.checks.rules.base import Rule
from generator.checks.views import legacy_specs
from generator.findings import Finding, Gate, Severity
from generator.jsontypes import dig
from generator.model import kinds
from generator.model.manifests import ManifestSet
from generator.model.values import known_str

_SUBNET_NAME = re.compile(r"^[a-zA-Z0-9][a-zA-Z0-9._-]{0,78}[a-zA-Z0-9]$")
_PREFIX_ID = re.compile(
    r"^/?subscriptions/[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}/resourcegroups/[^/]+"
    r"/providers/microsoft\.network/publicipprefixes/[^/]+$",
    re.IGNORECASE,
)


SUBNET_NAME = Rule(
    "CAPZ-POOL-SUBNET-NAME",
    "AzureManagedMachinePool subnetName is 2-80 letters, digits, '.', '_' or '-', alphanumeric at "
    "both ends (§4.8, §5.4; CAPZ validateMPSubnetName)",
    Severity.ERROR,
    Gate.ADMISSION,
)


@SUBNET_NAME.checks
def _check_subnet_name(ms: ManifestSet) -> Iterator[Finding]:
    for obj in ms.objects_of(kinds.LEGACY_MACHINE_POOL):
        value = known_str(dig(obj.spec, "subnetName"))
        if value is not None and not _SUBNET_NAME.match(value):
            yield SUBNET_NAME.at(
                obj,
                ("spec", "subnetName"),
                f"{value!r} must be 2-80 letters, digits, '.', '_' or '-', starting and ending "
                "with a letter or digit",
            )


PREFIX_ID = Rule(
    "CAPZ-POOL-PUBLICIP-ID",
    "AzureManagedMachinePool nodePublicIPPrefixID is a Microsoft.Network/publicIPPrefixes resource "
    "ID (K6, §5.4; CAPZ validateNodePublicIPPrefixID)",
    Severity.ERROR,
    Gate.ADMISSION,
)


@PREFIX_ID.checks
def _check_prefix_id(ms: ManifestSet) -> Iterator[Finding]:
    # The machine pool template's webhook checks the ID too (its subnetName it leaves alone).
    for obj, spec in legacy_specs(ms, kinds.LEGACY_MACHINE_POOL):
        value = known_str(dig(obj.obj, *spec, "nodePublicIPPrefixID"))
        if value is not None and not _PREFIX_ID.match(value):
            yield PREFIX_ID.at(
                obj,
                (*spec, "nodePublicIPPrefixID"),
                f"{value!r} is not a public IP prefix ID: /subscriptions/<uuid>/resourceGroups/"
                "<group>/providers/Microsoft.Network/publicIPPrefixes/<name>",
            )
