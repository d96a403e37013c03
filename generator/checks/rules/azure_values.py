"""Values Azure and CAPZ accept: region names, VM size names, supported Kubernetes versions.

* CAPZ-AZURE-REGION: ARM takes a region's programmatic name in ``location`` (``westeurope``, not
  ``West Europe``); a name outside capzgen's list of public regions (``generator/data/
  azure-regions.yaml``) is a warning with the nearest names, since Azure opens new regions.
* CAPZ-VM-SIZE: AKS refuses an agent pool whose ``vmSize`` (legacy: AzureManagedMachinePool(Template)
  ``sku``) is no VM size; every size is named ``Standard_<family><vCPUs>[features][_version]``.
* CAPZ-VM-SIZE-KNOWN: a size name of that shape outside ``generator/data/azure-vm-sizes.txt`` is
  a warning: ARM refuses a size that does not exist, but the list ages as Azure adds sizes.
* CAPZ-K8S-VERSION-SUPPORTED: CAPZ v1.26.0 (Cluster API v1.13) supports workload clusters of the
  minor versions in ``generator/data/kubernetes-versions.yaml``; another version is a warning
  naming that range (AKS itself offers fewer, per region).
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.azure_data import (
    VM_SIZE_SHAPE,
    is_known_vm_size,
    is_vm_size_name,
    kubernetes_versions,
    nearest_regions,
    regions,
    regions_compiled,
    vm_sizes_compiled,
)
from generator.checks.rules.base import Located, Rule
from generator.checks.rules.versions import _versions as kubernetes_version_fields
from generator.checks.views import legacy_specs
from generator.findings import Finding, Gate, JsonPath, Severity
from generator.jsontypes import dig
from generator.model import kinds
from generator.model.manifests import ManifestSet
from generator.model.values import known_str, parse_version


def _locations(ms: ManifestSet) -> Iterator[tuple[Located, JsonPath, object]]:
    """Every region field: ``spec.location`` of ASO resources, the legacy control plane's and its
    template's (whose value every copy takes to Azure)."""
    for res in ms.resources:
        if res.spec is not None and "location" in res.spec:
            yield res, ("spec", "location"), res.spec["location"]
    for obj, spec in legacy_specs(ms, kinds.LEGACY_CONTROL_PLANE):
        yield obj, (*spec, "location"), dig(obj.obj, *spec, "location")


REGION = Rule(
    "CAPZ-AZURE-REGION",
    "location names an Azure public region by its programmatic name (westeurope); unknown names "
    "warn with the nearest ones, list in generator/data/azure-regions.yaml (O2, §4)",
    Severity.WARNING,
    Gate.PROVISIONING,
    why="ARM refuses an unknown location",
)


@REGION.checks
def _check_region(ms: ManifestSet) -> Iterator[Finding]:
    known = regions()
    for where, path, value in _locations(ms):
        text = known_str(value)
        if text is None or text in known:
            continue
        nearest = nearest_regions(text)
        guess = f"; did you mean {' or '.join(nearest)}?" if nearest else ""
        yield REGION.at(
            where,
            path,
            f"{text!r} is not an Azure public region (list of {regions_compiled()}){guess}",
        )


def _vm_sizes(ms: ManifestSet) -> Iterator[tuple[Located, JsonPath, object]]:
    for res in ms.resources_of(kinds.AGENT_POOL):
        yield res, ("spec", "vmSize"), dig(res.spec, "vmSize")
    for obj, spec in legacy_specs(ms, kinds.LEGACY_MACHINE_POOL):
        yield obj, (*spec, "sku"), dig(obj.obj, *spec, "sku")


VM_SIZE_RULE = Rule(
    "CAPZ-VM-SIZE",
    "Agent pool vmSize (legacy: AzureManagedMachinePool sku) is a VM size name: "
    "Standard_<family><vCPUs>[features][_version], in any case as Azure reads it (K9, §4)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="AKS refuses the VM size",
)


@VM_SIZE_RULE.checks
def _check_vm_size(ms: ManifestSet) -> Iterator[Finding]:
    for where, path, value in _vm_sizes(ms):
        text = known_str(value)
        if text is not None and not is_vm_size_name(text):
            yield VM_SIZE_RULE.at(where, path, f"{text!r} is not a VM size name ({VM_SIZE_SHAPE})")


VM_SIZE_KNOWN = Rule(
    "CAPZ-VM-SIZE-KNOWN",
    "Agent pool vmSize (legacy: AzureManagedMachinePool sku) is a VM size Azure offers, as "
    "generator/data/azure-vm-sizes.txt lists them, in any case (K9, §4)",
    Severity.WARNING,
    Gate.PROVISIONING,
    why="ARM refuses an unknown VM size",
)


@VM_SIZE_KNOWN.checks
def _check_vm_size_known(ms: ManifestSet) -> Iterator[Finding]:
    """A warning, not an error: the list is a snapshot and Azure adds sizes, so a size newer than
    the list must not block a manifest; a typo of the right shape (``Standard_D2s_v9``) still
    gets a word before ARM refuses the agent pool."""
    for where, path, value in _vm_sizes(ms):
        text = known_str(value)
        if text is not None and is_vm_size_name(text) and not is_known_vm_size(text):
            yield VM_SIZE_KNOWN.at(
                where,
                path,
                f"{text!r} is not a VM size capzgen knows (generator/data/azure-vm-sizes.txt, "
                f"compiled {vm_sizes_compiled()}); check the name, or ignore this for a newer size",
            )


SUPPORTED = Rule(
    "CAPZ-K8S-VERSION-SUPPORTED",
    "Kubernetes versions lie in the range CAPZ v1.26.0 supports for workload clusters "
    "as generator/data/kubernetes-versions.yaml records them (K12, §0)",
    Severity.WARNING,
    Gate.PROVISIONING,
    why="AKS or CAPZ v1.26.0 does not offer this version",
)


@SUPPORTED.checks
def _check_supported(ms: ManifestSet) -> Iterator[Finding]:
    supported = kubernetes_versions()
    for where, path, value in kubernetes_version_fields(ms):
        version = parse_version(value)
        if version is None or supported.contains(version[0], version[1]):
            continue
        yield SUPPORTED.at(
            where,
            path,
            f"Kubernetes {known_str(value)} is outside the versions CAPZ v1.26.0 supports "
            f"({supported.describe()}; {supported.source}, checked {supported.checked})",
        )
