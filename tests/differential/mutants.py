"""Single-field mutants of valid manifests: the inputs the differential tests send to capzgen and
to upstream's own code (``capz-oracle``, ``kubectl-validate``).

A mutant is a whole, valid cluster (every document of its base file) with exactly one field of
one CAPZ document changed: replaced by a value of its own type that a webhook or a schema may
refuse, or added (values upstream's webhook tests use). The whole file travels with the change
because CAPZ's webhooks read the Cluster of the same file. Everything here is deterministic: the
same bases give the same mutants, in the same order, on every machine.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from generator.clusterctl.substitution import Inputs, generate_yaml

REPO = Path(__file__).resolve().parents[2]
GOLDEN = REPO / "tests" / "snapshots" / "golden"
TEMPLATES = REPO / "tests" / "data" / "upstream" / "corpus" / "capz-templates"
CRDS = REPO / "tests" / "data" / "upstream" / "crds"
CRD_FOLDERS = (CRDS / "capz-v1.26.0", CRDS / "capi-v1.13.3")

CAPZ_GROUP = "infrastructure.cluster.x-k8s.io"

# The flavors' output (ASO API, legacy API, ClusterClass with ASO templates) and CAPZ's released
# templates (legacy objects and templates, AzureClusterIdentity, the ASO API) with their variables
# set.
GOLDEN_BASES = ("aks", "aks-legacy", "aks-clusterclass", "aks-maintenance")
TEMPLATE_VALUES = {
    "AZURE_CLIENT_ID_USER_ASSIGNED_IDENTITY": "00000000-0000-0000-0000-000000000003",
    "AZURE_LOCATION": "westeurope",
    "AZURE_NODE_MACHINE_TYPE": "Standard_D2s_v3",
    "AZURE_SUBSCRIPTION_ID": "00000000-0000-0000-0000-000000000001",
    "AZURE_TENANT_ID": "00000000-0000-0000-0000-000000000002",
    "CLUSTER_CLASS_NAME": "aks-class",
    "CLUSTER_IDENTITY_NAME": "cluster-identity",
    "CLUSTER_NAME": "upstream",
    "KUBERNETES_VERSION": "v1.33.1",
    "ASO_CREDENTIAL_SECRET_NAME": "aso-credentials",
    "AZURE_RESOURCE_GROUP": "upstream-rg",
    "AZURE_SSH_PUBLIC_KEY_B64": "",
    "WORKER_MACHINE_COUNT": "2",
}


@dataclass(frozen=True)
class Base:
    """A valid input file: its name and documents."""

    name: str
    documents: tuple[Any, ...]


@dataclass(frozen=True)
class Mutant:
    """One field of one document of a base changed (``value`` None: the field removed)."""

    base: str
    document: int
    kind: str
    path: tuple[str | int, ...]
    value: Any
    documents: tuple[Any, ...]

    @property
    def name(self) -> str:
        """A file name that says what changed."""
        where = ".".join(str(part) for part in self.path)
        return f"{self.base}--{self.document}-{self.kind}--{where}--{_label(self.value)}"

    def text(self) -> str:
        """The mutant's YAML, one document after another."""
        return yaml.safe_dump_all(self.documents, sort_keys=False)


def _label(value: Any) -> str:
    text = "removed" if value is None else yaml.safe_dump(value, default_flow_style=True)
    cleaned = "".join(c if c.isalnum() or c in "-_." else "_" for c in text.strip())
    return cleaned[:40] or "empty"


def bases() -> list[Base]:
    """Every base file, parsed."""
    found = [
        Base(name, tuple(yaml.safe_load_all((GOLDEN / f"{name}.yaml").read_text())))
        for name in GOLDEN_BASES
    ]
    for path in sorted(TEMPLATES.glob("cluster-template-*.yaml")):
        name = "capz-" + path.stem.removeprefix("cluster-template-aks").lstrip("-")
        name = "capz-clusterclass" if name == "capz-clusterclass" else name.rstrip("-")
        text = generate_yaml(path.read_text(), source=path.name, inputs=Inputs(TEMPLATE_VALUES))
        found.append(Base(name, tuple(yaml.safe_load_all(text))))
    return [Base(b.name, tuple(d for d in b.documents if d is not None)) for b in found]


# Values a webhook or a schema may refuse, by the type of the value they replace.
STRING_VALUES = ("", "Not a valid value!")
INTEGER_VALUES = (-1, 100000)

# Fields added or set to values upstream's webhook tests reject or accept (CAPZ v1.26.0
# internal/webhooks/*_test.go), by kind; template kinds get the same under spec.template.spec.
CONTROL_PLANE_VALUES: tuple[tuple[tuple[str, ...], Any], ...] = (
    (("version",), "v1.33"),
    (("version",), "1.33.1"),
    (("version",), "v1.33.1-alpha.1"),
    (("dnsServiceIP",), "10.0.0.11"),
    (("dnsServiceIP",), "192.168.0.10"),
    (("dnsPrefix",), "-bad-prefix"),
    (("sshPublicKey",), "not-a-key"),
    (("loadBalancerProfile",), {"idleTimeoutInMinutes": 600}),
    (("loadBalancerProfile",), {"managedOutboundIPs": 101}),
    (("loadBalancerProfile",), {"allocatedOutboundPorts": 64001}),
    (("loadBalancerProfile",), {"managedOutboundIPs": 2, "outboundIPs": ["/a/b"]}),
    (("apiServerAccessProfile",), {"authorizedIPRanges": ["1.2.3.4"]}),
    (("apiServerAccessProfile",), {"authorizedIPRanges": ["1.2.3.4/32"]}),
    (("apiServerAccessProfile",), {"authorizedIPRanges": ["1.2.3.4/33"]}),
    (("apiServerAccessProfile",), {"enablePrivateCluster": False, "privateDNSZone": "System"}),
    (("networkPluginMode",), "overlay"),
    (("networkPolicy",), "cilium"),
    (("networkDataplane",), "cilium"),
    (("disableLocalAccounts",), True),
    (("identity",), {"type": "UserAssigned"}),
    (("oidcIssuerProfile",), {"enabled": False}),
    (("securityProfile",), {"workloadIdentity": {"enabled": True}}),
    (("fleetsMember",), {"name": "Not_A_Label"}),
    (("autoscalerProfile",), {"expander": "bogus"}),
    (("autoscalerProfile",), {"scanInterval": "10"}),
    (("autoUpgradeProfile",), {"upgradeChannel": "bogus"}),
    (("addonProfiles",), [{"name": "azurepolicy", "enabled": True}]),
    (("extensions",), [{"name": "ext", "extensionType": "t", "version": "1.0"}]),
    (("virtualNetwork",), {"name": "vnet", "cidrBlock": "10.0.0.0/99"}),
    (("kubeletUserAssignedIdentity",), "not-an-id"),
)
POOL_VALUES: tuple[tuple[tuple[str, ...], Any], ...] = (
    (("maxPods",), 251),
    (("maxPods",), 9),
    (("maxPods",), 30),
    (("osType",), "Windows"),
    (("name",), "toolongpoolname"),
    (("name",), "Pool0"),
    (("name",), "pöol"),
    (("nodeLabels",), {"kubernetes.azure.com/foo": "bar"}),
    (("nodePublicIPPrefixID",), "not-an-id"),
    (("enableNodePublicIP",), False),
    (("kubeletConfig",), {"cpuCfsQuotaPeriod": "100"}),
    (("kubeletConfig",), {"imageGcLowThreshold": 90, "imageGcHighThreshold": 80}),
    (("kubeletConfig",), {"allowedUnsafeSysctls": ["bad.sysctl"]}),
    (("linuxOSConfig",), {"swapFileSizeMB": 1024}),
    (("linuxOSConfig",), {"sysctls": {"netIpv4IPLocalPortRange": "80 70"}}),
    (("subnetName",), "Bad Name!"),
    (("scaling",), {"minSize": 5, "maxSize": 2}),
    (("sku",), ""),
    (("taints",), [{"effect": "NoSchedule", "key": "k"}]),
    (("scaleSetPriority",), "Spot"),
    (("spotMaxPrice",), "-2"),
)
LEGACY_OBJECT_KINDS = {
    "AzureManagedControlPlane": CONTROL_PLANE_VALUES,
    "AzureManagedMachinePool": POOL_VALUES,
}
LEGACY_TEMPLATE_KINDS = {
    "AzureManagedControlPlaneTemplate": CONTROL_PLANE_VALUES,
    "AzureManagedMachinePoolTemplate": POOL_VALUES,
}


def _leaves(node: Any, path: tuple[str | int, ...]) -> Iterator[tuple[tuple[str | int, ...], Any]]:
    """Every scalar below ``node`` with its path, in document order; the embedded ASO resources
    (``resources``) are left out: CAPZ stores them unchecked, so no webhook sees them."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "resources":
                continue
            yield from _leaves(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _leaves(value, (*path, index))
    else:
        yield path, node


def _replacements(value: Any) -> tuple[Any, ...]:
    if isinstance(value, bool):
        return (not value,)
    if isinstance(value, int):
        return INTEGER_VALUES
    if isinstance(value, str):
        return STRING_VALUES
    return ()


def _set(document: Any, path: tuple[str | int, ...], value: Any) -> Any:
    changed = copy.deepcopy(document)
    node = changed
    for part in path[:-1]:
        node = node.setdefault(part, {}) if isinstance(part, str) else node[part]
    if value is None:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return changed


def _mutant(base: Base, index: int, path: tuple[str | int, ...], value: Any) -> Mutant:
    documents = list(base.documents)
    documents[index] = _set(documents[index], path, value)
    return Mutant(base.name, index, documents[index]["kind"], path, value, tuple(documents))


def mutants_of(base: Base) -> Iterator[Mutant]:
    """The base's mutants: every scalar of the ``spec`` of each CAPZ document replaced by values
    of its type, then the curated values of the legacy kinds and their templates (a value the
    base already has is no mutant)."""
    for mutant in _candidates(base):
        if mutant.documents[mutant.document] != base.documents[mutant.document]:
            yield mutant


def _candidates(base: Base) -> Iterator[Mutant]:
    for index, document in enumerate(base.documents):
        api_version = str(document.get("apiVersion", ""))
        if not api_version.startswith(f"{CAPZ_GROUP}/"):
            continue
        kind = document.get("kind")
        for path, value in _leaves(document.get("spec", {}), ("spec",)):
            for replacement in _replacements(value):
                yield _mutant(base, index, path, replacement)
        if kind in LEGACY_OBJECT_KINDS:
            for rel, value in LEGACY_OBJECT_KINDS[kind]:
                yield _mutant(base, index, ("spec", *rel), value)
        if kind in LEGACY_TEMPLATE_KINDS:
            for rel, value in LEGACY_TEMPLATE_KINDS[kind]:
                yield _mutant(base, index, ("spec", "template", "spec", *rel), value)


def all_mutants() -> list[Mutant]:
    """Every mutant of every base, in order."""
    return [mutant for base in bases() for mutant in mutants_of(base)]
