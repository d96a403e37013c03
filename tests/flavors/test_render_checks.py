"""Render-time checks are the validator's rules: through the CLI every rule a flavor's variables
can break stops `generate cluster` before anything is written, with exit code 1 and one message
naming the variable, the problem and the rule; a flavor without origins names the rendered field.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from generator.errors import FlavorError
from generator.flavors.catalog import FlavorCatalog

RG = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/shared/providers"
IDENTITY_ID = f"{RG}/Microsoft.ManagedIdentity/userAssignedIdentities/aks-cp"
ZONE_ID = f"{RG}/Microsoft.Network/privateDnsZones/privatelink.eastus.azmk8s.io"
IP_ID = f"{RG}/Microsoft.Network/publicIPAddresses/egress"
LEGACY = {
    "AZURE_SUBSCRIPTION_ID": "00000000-0000-0000-0000-000000000000",
    "CLUSTER_IDENTITY_NAME": "cluster-identity",
}
TENANCY = {
    **LEGACY,
    "AZURE_TENANT_ID": "22222222-2222-2222-2222-222222222222",
    "AZURE_CLIENT_ID_USER_ASSIGNED_IDENTITY": "33333333-3333-3333-3333-333333333333",
}
SYSTEM = {"name": "system", "mode": "System"}

# rule -> (flavor, values, the line naming the variable). One case per rule a flavor's variables
# can break; CAPZ-POOL-MAXPODS, CAPZ-POOL-NODELABELS and the like are refused earlier by the
# variables' JSON Schemas.
CASES: dict[str, tuple[str, dict[str, Any], str]] = {
    "CAPZ-POOL-SYSTEM": (
        "aks",
        {"NODE_POOLS": [{"name": "apps", "mode": "User"}]},
        "NODE_POOLS: Cluster 'my-cluster' has no agent pool with mode: System (1 pool found); "
        "AKS requires at least one (CAPZ-POOL-SYSTEM) "
        "[provisioning: AKS refuses a cluster without a System pool]",
    ),
    "CAPZ-POOL-SYSTEM-LINUX": (
        "aks",
        {"NODE_POOLS": [{"name": "win", "mode": "System", "osType": "Windows"}]},
        "NODE_POOLS[0].osType: a System pool must run Linux, not Windows (CAPZ-POOL-SYSTEM-LINUX) "
        "[provisioning: AKS refuses a System pool that is not Linux]",
    ),
    "CAPZ-POOL-SPOT-SYSTEM": (
        "aks",
        {"NODE_POOLS": [{**SYSTEM, "spot": {}}]},
        "NODE_POOLS[0].spot: Spot is not allowed for a System pool: AKS runs System pools on "
        "regular VMs (CAPZ-POOL-SPOT-SYSTEM) "
        "[provisioning: AKS refuses a Spot System pool]",
    ),
    "CAPZ-POOL-NAME": (
        "aks",
        {"NODE_POOLS": [SYSTEM, {"name": "windows", "mode": "User", "osType": "Windows"}]},
        "NODE_POOLS[1].name: 'windows' is 7 characters; a Windows pool name has at most 6 "
        "(CAPZ-POOL-NAME) "
        "[provisioning: AKS refuses the pool name]",
    ),
    "CAPZ-POOL-OSSKU": (
        "aks",
        {"NODE_POOLS": [{**SYSTEM, "osSKU": "Windows2022"}]},
        "NODE_POOLS[0].osSKU: Windows2022 is a Windows image but the pool's osType is Linux (the "
        "default); set osType: Windows (CAPZ-POOL-OSSKU) "
        "[provisioning: AKS refuses the OS SKU for this OS type]",
    ),
    "CAPZ-POOL-AUTOSCALE": (
        "aks",
        {
            "NODE_POOLS": [
                SYSTEM,
                {"name": "apps", "mode": "User", "autoscaling": {"minCount": 5, "maxCount": 3}},
            ]
        },
        "NODE_POOLS[1].autoscaling.minCount: 5 is above maxCount 3 (CAPZ-POOL-AUTOSCALE) "
        "[provisioning: AKS refuses the autoscaling bounds]",
    ),
    "CAPZ-POOL-SCALESET": (
        "aks",
        {"NODE_POOLS": [{**SYSTEM, "replicas": 0}]},
        "NODE_POOLS[0].replicas: is 0; it becomes the node count of "
        "ManagedClustersAgentPool/my-cluster-system, which as a System pool allows 1 to 1000 "
        "(CAPZ-POOL-SCALESET) "
        "[provisioning: AKS refuses the scale set settings]",
    ),
    "CAPZ-RES-DUPLICATE": (
        "aks",
        {"NODE_POOLS": [SYSTEM, {"name": "system", "mode": "User"}]},
        "NODE_POOLS[1].name: MachinePool 'my-cluster-system' is already defined "
        "(MachinePool/my-cluster-system): objects are identified by group, kind, namespace and "
        "name, so one would silently replace the other (CAPZ-RES-DUPLICATE) "
        "[provisioning: the apply overwrites one with the other, or two objects fight over one resource]",
    ),
    "CAPZ-POOL-SUBNET-REF": (
        "aks",
        {"NODE_POOLS": [{**SYSTEM, "subnet": "nodes"}]},
        "NODE_POOLS[0].subnet: VirtualNetworksSubnet 'my-cluster-nodes' is not in the validated "
        "set in namespace default (CAPZ-POOL-SUBNET-REF) "
        "[provisioning: ASO waits for the missing subnet and never creates the pool]",
    ),
    "CAPZ-MC-LOCAL-ACCOUNTS": (
        "aks",
        {"AKS_DISABLE_LOCAL_ACCOUNTS": True},
        "AKS_DISABLE_LOCAL_ACCOUNTS: requires AKS-managed Entra ID (aadProfile.managed: true) "
        "(CAPZ-MC-LOCAL-ACCOUNTS) "
        "[provisioning: AKS refuses disabling local accounts without managed Entra ID]",
    ),
    "CAPZ-MC-APISERVER": (
        "aks",
        {"AKS_PRIVATE_DNS_ZONE": ZONE_ID, "AKS_CONTROL_PLANE_IDENTITY_ID": IDENTITY_ID},
        "AKS_PRIVATE_DNS_ZONE: a custom private DNS zone requires enablePrivateCluster: true "
        "(CAPZ-MC-APISERVER) "
        "[provisioning: AKS refuses the API server access profile]",
    ),
    "CAPZ-MC-PRIVATE-DNS-IDENTITY": (
        "aks",
        {"AKS_PRIVATE_CLUSTER": True, "AKS_PRIVATE_DNS_ZONE": ZONE_ID},
        "AKS_PRIVATE_DNS_ZONE: a custom private DNS zone needs a user-assigned control-plane "
        "identity (identity type UserAssigned, with Private DNS Zone Contributor on the zone); the "
        "identity is SystemAssigned (CAPZ-MC-PRIVATE-DNS-IDENTITY) "
        "[provisioning: AKS refuses a custom private DNS zone without a user-assigned identity]",
    ),
    "CAPZ-MC-NETWORK-PLUGIN": (
        "aks",
        {"AKS_NETWORK_PLUGIN": "kubenet", "AKS_NETWORK_PLUGIN_MODE": "overlay"},
        "AKS_NETWORK_PLUGIN_MODE: overlay requires networkPlugin: azure, not kubenet "
        "(CAPZ-MC-NETWORK-PLUGIN) "
        "[provisioning: AKS refuses the network plugin combination]",
    ),
    "CAPZ-NET-POD-CIDR": (
        "aks",
        {"AKS_POD_CIDR": "192.168.0.0/16"},
        "AKS_POD_CIDR: 192.168.0.0/16 is not used: Azure CNI without overlay gives pods addresses "
        "from the node subnet (ManagedCluster/my-cluster has networkPlugin azure and no "
        "networkPluginMode) (CAPZ-NET-POD-CIDR) "
        "[provisioning: AKS refuses a pods CIDR with plain Azure CNI]",
    ),
    "CAPZ-NET-CIDR-OVERLAP": (
        "aks",
        {
            "AKS_NETWORK_PLUGIN_MODE": "overlay",
            "AKS_POD_CIDR": "10.0.0.0/8",
            "AKS_SERVICE_CIDR": "10.1.0.0/16",
        },
        "AKS_POD_CIDR: pod CIDR 10.0.0.0/8 (Cluster/my-cluster spec.clusterNetwork.pods.cidrBlocks[0]) "
        "overlaps service CIDR 10.1.0.0/16 (Cluster/my-cluster "
        "spec.clusterNetwork.services.cidrBlocks[0]): pod and service addresses must be distinct "
        "(CAPZ-NET-CIDR-OVERLAP) "
        "[provisioning: AKS refuses overlapping address ranges]",
    ),
    "CAPZ-MC-DNSSERVICEIP": (
        "aks",
        {"AKS_DNS_SERVICE_IP": "172.17.0.10", "AKS_SERVICE_CIDR": "172.16.0.0/16"},
        "AKS_DNS_SERVICE_IP: 172.17.0.10 is outside the service CIDR 172.16.0.0/16 "
        "(CAPZ-MC-DNSSERVICEIP) "
        "[provisioning: AKS refuses a DNS service IP outside the service CIDR]",
    ),
    "CAPZ-MC-LOADBALANCER": (
        "aks",
        {"AKS_LOAD_BALANCER_PROFILE": {"managedOutboundIPs": 1, "outboundIPs": [IP_ID]}},
        "AKS_LOAD_BALANCER_PROFILE.outboundIPs: only one of managedOutboundIPs, outboundIPs, "
        "outboundIPPrefixes may be set (found managedOutboundIPs, outboundIPs) "
        "(CAPZ-MC-LOADBALANCER) "
        "[provisioning: AKS refuses more than one kind of outbound IP]",
    ),
    "CAPZ-MC-OUTBOUND": (
        "aks",
        {"AKS_OUTBOUND_TYPE": "userDefinedRouting"},
        "AKS_SUBNET_ID: is required: outboundType userDefinedRouting of ManagedCluster/my-cluster "
        "needs every pool on your own subnet (one with its route table) (CAPZ-MC-OUTBOUND) "
        "[provisioning: AKS refuses the outbound type with these subnets]",
    ),
    "CAPZ-MC-FEDERATION": (
        "aks",
        {"AKS_WORKLOAD_IDENTITIES": [{"name": "app", "serviceAccount": "apps/app"}]},
        "AKS_WORKLOAD_IDENTITIES[0]: trusts the OIDC issuer of ManagedCluster/my-cluster, which "
        "does not enable workload identity (securityProfile.workloadIdentity.enabled: true), so no "
        "pod can use the identity (CAPZ-MC-FEDERATION) "
        "[provisioning: Entra ID refuses the workloads' tokens: the credential trusts another issuer]",
    ),
    "CAPZ-CRED-SECRET": (
        "aks",
        {
            "ASO_CREDENTIAL_SECRET_CREATE": True,
            "AZURE_SUBSCRIPTION_ID": "00000000-0000-0000-0000-000000000000",
            "AZURE_TENANT_ID": "22222222-2222-2222-2222-222222222222",
        },
        "AZURE_CLIENT_ID: AZURE_CLIENT_ID is empty: ASO needs all of AZURE_SUBSCRIPTION_ID, "
        "AZURE_TENANT_ID, AZURE_CLIENT_ID (CAPZ-CRED-SECRET) "
        "[provisioning: ASO cannot authenticate with the Secret]",
    ),
    "CAPZ-IDENTITY-SECRET": (
        "aks-multi-tenancy",
        {**TENANCY, "CLUSTER_IDENTITY_TYPE": "ServicePrincipal"},
        "AZURE_CLUSTER_IDENTITY_SECRET_NAME: is required by type ServicePrincipal: the Secret with "
        "the service principal's password or certificate (CAPZ-IDENTITY-SECRET) "
        "[provisioning: CAPZ's controller cannot authenticate with the identity]",
    ),
    "CAPZ-IDENTITY-NAMESPACE": (
        "aks-multi-tenancy",
        {**TENANCY, "CLUSTER_IDENTITY_ALLOWED_NAMESPACES": {"list": ["team-a"]}},
        "CLUSTER_IDENTITY_ALLOWED_NAMESPACES.list: does not contain 'default', the namespace of "
        "AzureManagedControlPlane/my-cluster whose identityRef names this identity: CAPZ refuses "
        "it the identity (CAPZ-IDENTITY-NAMESPACE) "
        "[provisioning: CAPZ's controller refuses the identity to that namespace]",
    ),
}
# The same rules on the legacy objects (one view per pool and cluster for both APIs).
LEGACY_CASES: dict[str, tuple[str, dict[str, Any], str]] = {
    "CAPZ-POOL-SYSTEM": (
        "aks-legacy",
        {**LEGACY, "NODE_POOLS": [{"name": "apps", "mode": "User"}]},
        "NODE_POOLS: Cluster 'my-cluster' has no agent pool with mode: System (1 pool found); "
        "AKS requires at least one (CAPZ-POOL-SYSTEM) "
        "[provisioning: AKS refuses a cluster without a System pool]",
    ),
    "CAPZ-POOL-AUTOSCALE": (
        "aks-legacy",
        {**LEGACY, "NODE_POOLS": [{**SYSTEM, "autoscaling": {"minCount": 0, "maxCount": 3}}]},
        "NODE_POOLS[0].autoscaling.minCount: is 0; a System pool keeps at least 1 node, so "
        "autoscaling starts at 1 (CAPZ-POOL-AUTOSCALE) "
        "[provisioning: AKS refuses the autoscaling bounds]",
    ),
    "CAPZ-MC-NETWORK-PLUGIN": (
        "aks-legacy",
        {**LEGACY, "AKS_NETWORK_PLUGIN": "kubenet", "AKS_NETWORK_POLICY": "azure"},
        "AKS_NETWORK_POLICY: azure (Azure Network Policy Manager) requires networkPlugin: azure, "
        "not kubenet (CAPZ-MC-NETWORK-PLUGIN) "
        "[provisioning: AKS refuses the network plugin combination]",
    ),
    "CAPZ-ASO-PATCH-JSON": (
        "aks-legacy",
        {**LEGACY, "ASO_MANAGED_CLUSTER_PATCHES": ['{"spec": {"disableLocalAccounts": true']},
        "ASO_MANAGED_CLUSTER_PATCHES[0]: not valid JSON: Expecting ',' delimiter (line 1, "
        "column 39 of the patch) (CAPZ-ASO-PATCH-JSON) "
        "[provisioning: CAPZ's controller cannot apply the patch]",
    ),
}
# Option-7 patches of the pools, in the multi-tenancy flavor (it extends aks-legacy).
LEGACY_CASES["CAPZ-ASO-PATCH-JSON-POOL"] = (
    "aks-multi-tenancy",
    {
        **TENANCY,
        "NODE_POOLS": [{**SYSTEM, "asoManagedClustersAgentPoolPatches": ["[1]"]}],
    },
    'NODE_POOLS[0].asoManagedClustersAgentPoolPatches[0]: must be a JSON object ({"spec": '
    "{...}}), not a list (CAPZ-ASO-PATCH-JSON) "
    "[provisioning: CAPZ's controller cannot apply the patch]",
)


def generate(run_cli: Any, tmp_path: Path, flavor: str, values: dict[str, Any], *extra: str) -> Any:
    values_file = tmp_path / "values.yaml"
    values_file.write_text(yaml.safe_dump(values), encoding="utf-8")
    return run_cli(
        [
            "generate",
            "cluster",
            "my-cluster",
            "--flavor",
            flavor,
            "--kubernetes-version",
            "v1.33.1",
            "--var",
            "AZURE_LOCATION=eastus",
            "--values",
            str(values_file),
            *extra,
        ]
    )


@pytest.mark.parametrize(
    ("flavor", "values", "line"),
    [*CASES.values(), *LEGACY_CASES.values()],
    ids=[*CASES, *(f"legacy-{rule}" for rule in LEGACY_CASES)],
)
def test_cli_names_the_variable_and_exits_1(
    run_cli: Any, tmp_path: Path, flavor: str, values: dict[str, Any], line: str
) -> None:
    result = generate(run_cli, tmp_path, flavor, values)
    assert result.exit_code == 1, result.stderr
    assert result.stdout == ""  # nothing is written
    lines = result.stderr.splitlines()
    assert lines[0].startswith("Error: ") and f"with the values of flavor '{flavor}'" in lines[0]
    assert f"  {line}" in lines
    assert "Traceback" not in result.stderr


def test_every_rule_id_of_the_cases_exists() -> None:
    from generator.checks.rules import RULES

    assert set(CASES) | set(LEGACY_CASES) - {"CAPZ-ASO-PATCH-JSON-POOL"} <= set(RULES)


def test_checks_run_without_validation_and_honour_disabled_rules(
    run_cli: Any, tmp_path: Path
) -> None:
    """--no-validate skips the validation of the output, not the flavor's checks (as before, when
    they were Jinja); --disable-rule skips a rule at render time too."""
    flavor, values, line = CASES["CAPZ-POOL-NAME"]
    result = generate(run_cli, tmp_path, flavor, values, "--no-validate")
    assert result.exit_code == 1 and f"  {line}" in result.stderr.splitlines()
    result = generate(
        run_cli, tmp_path, flavor, values, "--no-validate", "--disable-rule", "CAPZ-POOL-NAME"
    )
    assert result.exit_code == 0, result.stderr
    assert "azureName: windows" in result.stdout


# --- flavors without origins, placeholders --------------------------------------------------------


@pytest.fixture
def user_flavors(tmp_path: Path) -> Path:
    """A user flavor with no origins: one agent pool whose name is a variable."""
    folder = tmp_path / "flavors" / "pool"
    folder.mkdir(parents=True)
    (folder / "flavor.yaml").write_text(
        "name: pool\n"
        "description: One agent pool\n"
        "templates: [pool.yaml.j2]\n"
        "variables:\n"
        "  POOL: {type: string, description: Pool name}\n",
        encoding="utf-8",
    )
    (folder / "pool.yaml.j2").write_text(
        '{% import "_lib/aso.j2" as aso %}\n'
        "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1\n"
        "kind: AzureASOManagedMachinePool\n"
        "metadata:\n"
        "  name: pool\n"
        "spec:\n"
        "  resources:\n"
        '  - {{ aso.agent_pool("pool", cluster="c", pool={"name": POOL, "mode": "User"}, '
        'credential="aso-credentials", vm_size="Standard_D2s_v3") | indent(4) }}\n',
        encoding="utf-8",
    )
    return tmp_path / "flavors"


def test_a_flavor_without_origins_names_the_rendered_field(user_flavors: Path) -> None:
    from tests.flavors.flavor_testing import render_text

    with pytest.raises(FlavorError) as caught:
        render_text("pool", {"POOL": "Pool_1"}, [user_flavors])
    assert caught.value.details == (
        "AzureASOManagedMachinePool/pool > ManagedClustersAgentPool/pool: spec.azureName: 'Pool_1' must "
        "start with a lower-case letter and contain only lower-case letters and digits "
        "(CAPZ-POOL-NAME) [provisioning: AKS refuses the pool name]",
    )


def test_placeholders_are_not_judged(run_cli: Any, user_flavors: Path) -> None:
    """`flavors show` renders POOL as ${POOL}: no rule may judge it (it is no valid pool name)."""
    result = run_cli(["flavors", "show", "pool", "--flavors-dir", str(user_flavors)])
    assert result.exit_code == 0, result.stderr
    assert "+ ManagedClustersAgentPool/pool" in result.stdout


def test_exported_structural_defaults_are_checked(tmp_path: Path) -> None:
    """Structural variables render with their defaults in export mode, and those are checked."""
    from generator.generate.release import ReleaseRequest, build_release

    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "flavor.yaml").write_text(
        "name: mine\nextends: aks\ndescription: Without a System pool\n"
        "templates: [cluster.yaml.j2]\n"
        "variables:\n"
        "  NODE_POOLS:\n"
        "    type: array\n"
        "    description: Pools\n"
        "    default: [{name: apps, mode: User}]\n",
        encoding="utf-8",
    )
    (folder / "cluster.yaml.j2").write_text('{% extends "_lib/aks.yaml.j2" %}\n', encoding="utf-8")
    with pytest.raises(FlavorError) as caught:
        build_release(ReleaseRequest(version="v0.1.0", flavors_dirs=[tmp_path]))
    details = list(caught.value.details)
    assert "mine: 1 problem with the values of flavor 'mine'" in details
    assert (
        "  NODE_POOLS: Cluster '${CLUSTER_NAME}' has no agent pool with mode: System (1 pool "
        "found); AKS requires at least one (CAPZ-POOL-SYSTEM) [provisioning: AKS refuses a cluster without a System pool]"
    ) in details


# --- origins in the metadata ----------------------------------------------------------------------


def _flavor_with_origins(tmp_path: Path, origins: str) -> Path:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "flavor.yaml").write_text(
        "name: mine\ndescription: d\ntemplates: [t.yaml.j2]\n"
        "variables:\n  NAME: {type: string, description: n}\n" + origins,
        encoding="utf-8",
    )
    (folder / "t.yaml.j2").write_text("kind: {{ NAME | yaml }}\n", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(
    ("origins", "message"),
    [
        (
            "origins: [{kind: Cluster, name: '{NAME}', fields: {metadata.name: OTHER}}]\n",
            "origins name undeclared variables",
        ),
        (
            "origins: [{kind: Cluster, name: '{NAME}', fields: {'spec..x': NAME}}]\n",
            "invalid origins: origins[0]: 'spec..x' is not a path",
        ),
        (
            "origins: [{kind: Cluster, name: '{NAME}', fields: {'spec[*]': NAME}}]\n",
            "invalid origins: origins[0]: 'spec[*]': [*] is only allowed in variable paths",
        ),
        ("origins: [{kind: Cluster, name: x}]\n", "invalid flavor metadata"),
    ],
    ids=["undeclared", "malformed-path", "wildcard-in-field", "schema"],
)
def test_bad_origins_are_metadata_errors(tmp_path: Path, origins: str, message: str) -> None:
    with pytest.raises(FlavorError, match=message.replace("[", r"\[").replace("*", r"\*")):
        FlavorCatalog([_flavor_with_origins(tmp_path, origins)]).get("mine")


def test_builtin_origins_name_declared_variables() -> None:
    catalog = FlavorCatalog()
    assert {name: len(catalog.get(name).origins) > 0 for name in catalog.names()} == {
        "aks": True,
        "aks-automatic": True,
        "aks-clusterclass": False,
        "aks-legacy": True,
        "aks-maintenance": True,
        "aks-multi-tenancy": True,
        "aks-topology": False,
    }


def test_option7_patches_are_validated_in_the_generated_output(
    run_cli: Any, tmp_path: Path
) -> None:
    """Readable patches pass the render-time checks (they have no schema store); the validation
    of the output applies them to what CAPZ builds and checks the result."""
    values = {
        **LEGACY,
        "ASO_MANAGED_CLUSTER_PATCHES": ['{"spec": {"disableLocalAcounts": true}}'],
        "NODE_POOLS": [
            {**SYSTEM, "asoManagedClustersAgentPoolPatches": ['{"spec": {"maxPods": "many"}}']}
        ],
    }
    result = generate(run_cli, tmp_path, "aks-legacy", values)
    assert result.exit_code == 1, result.stderr
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    why = "[provisioning: ASO refuses the resource CAPZ's controller builds from the patches]"
    assert lines[:2] == [
        "<generated>:27: AzureManagedControlPlane/my-cluster: spec.asoManagedClusterPatches[0]: "
        'spec.disableLocalAcounts: unknown field "disableLocalAcounts" (in no shipped version) '
        "[containerservice.azure.com/v1api20240901 ManagedCluster] (CAPZ-ASO-PATCH-SCHEMA) "
        f"{why}",
        "<generated>:76: AzureManagedMachinePool/my-cluster-system: "
        'spec.asoManagedClustersAgentPoolPatches[0]: spec.maxPods: expected integer, got string "many" '
        "[containerservice.azure.com/v1api20240901 ManagedClustersAgentPool] (CAPZ-ASO-PATCH-SCHEMA) "
        f"{why}",
    ]


def test_a_valid_cluster_runs_the_rules_once(
    run_cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the output validated, the render-time check waits for an error there: a valid
    cluster runs the rules once, an invalid one twice (the second names the variable)."""
    import generator.checks.engine as engine
    import generator.validate.check as check

    calls: list[int] = []
    real = engine.validate_documents

    def counted(documents: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(len(documents))
        return real(documents, *args, **kwargs)

    monkeypatch.setattr(engine, "validate_documents", counted)  # the render-time check's
    monkeypatch.setattr(check, "validate_documents", counted)  # the output's
    assert generate(run_cli, tmp_path, "aks", {}).exit_code == 0
    assert len(calls) == 1
    calls.clear()
    flavor, values, line = CASES["CAPZ-POOL-NAME"]
    result = generate(run_cli, tmp_path, flavor, values)
    assert result.exit_code == 1 and f"  {line}" in result.stderr.splitlines()
    assert len(calls) == 2
