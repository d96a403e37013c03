"""``capzgen adopt --from-az``: adoption objects for an AKS cluster CAPZ never managed."""

from __future__ import annotations

from pathlib import Path

import click

from generator.cli.environment import current_settings
from generator.cli.migrate_output import deliver, refuse, schema_store, validate_output
from generator.cli.options import check_options
from generator.cli.report_options import ReportTarget, fail_on_option, report_also, report_option
from generator.errors import Location, UsageError, YamlError
from generator.findings import fails
from generator.jsontypes import Json
from generator.migrate.az import AzInput, adopt_from_az
from generator.names import is_dns1123_label, is_dns1123_subdomain
from generator.yamlio.load import load_json, read_source


@click.command("adopt")
@click.option(
    "--from-az",
    "from_az",
    metavar="FILE",
    required=True,
    help="The JSON `az aks show -g RG -n NAME -o json` prints ('-' for stdin).",
)
@click.option(
    "--node-pools",
    metavar="FILE",
    help="The JSON of `az aks nodepool list -g RG --cluster-name NAME -o json` "
    "[default: the agentPoolProfiles of --from-az].",
)
@click.option("-n", "--namespace", metavar="NS", required=True, help="Namespace to adopt into.")
@click.option(
    "--credential-secret",
    metavar="NAME",
    help="ASO credential Secret the objects name  [default: <cluster>-aso-credentials]",
)
@click.option("--write-to", metavar="FILE", help="Write the manifests to FILE instead of stdout.")
@click.option(
    "--output",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="json: one JSON document on stdout with manifests, notes and checklist steps.",
)
@click.option(
    "--schema-dir",
    "schema_dirs",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Extra schemas (as for `capzgen validate`).",
)
@fail_on_option
@report_option
def adopt(
    from_az: str,
    node_pools: str | None,
    namespace: str,
    credential_secret: str | None,
    write_to: str | None,
    output: str,
    schema_dirs: tuple[Path, ...],
    fail_on: str,
    report: ReportTarget | None,
) -> int:
    """Write the objects that make CAPZ adopt an existing AKS cluster.

    \b
    In apply order: the ResourceGroup, the ManagedCluster annotated
    sigs.k8s.io/cluster-api-provider-azure-adopt: "true" (every field of ASO's ManagedCluster
    v1api20240901 found in the az output, read-only ones dropped) and one adopted
    ManagedClustersAgentPool per node pool. CAPZ then creates the Cluster, AzureASOManaged*
    objects and MachinePools. Unmapped fields and the steps to follow go to stderr; the output is
    validated first and nothing is written when it is invalid.
    """
    if not is_dns1123_label(namespace):
        msg = f"invalid --namespace {namespace!r}: must be a DNS-1123 label"
        raise UsageError(msg)
    if credential_secret is not None and not is_dns1123_subdomain(credential_secret):
        msg = f"invalid --credential-secret {credential_secret!r}: must be a Secret name"
        raise UsageError(msg)
    cluster, cluster_source = _read_json(from_az, dict, "an object (az aks show)")
    pools = None
    pools_source = ""
    if node_pools is not None:
        pools, pools_source = _read_json(node_pools, list, "a list (az aks nodepool list)")
    given = AzInput(cluster, pools, cluster_source, pools_source)
    store = schema_store(schema_dirs)
    checks = check_options(current_settings(), fail_on=fail_on)
    result = adopt_from_az(given, store, namespace, credential_secret)
    checked = validate_output(result.text(), "<adoption manifests>", store, checks)
    report_also(report, checked.findings, None)
    if fails(checked.findings, checks.fail_on):
        return refuse(checked, [])
    notes = result.report() + "".join(f"{f.to_text()}\n" for f in checked.findings)  # as migrate
    deliver(result.text(), write_to, notes, result.report_data() if output == "json" else None)
    return 0


def _read_json(path: str, expected: type, what: str) -> tuple[Json, str]:
    source = "<stdin>" if path == "-" else path
    value = load_json(read_source(path), source=source)
    if not isinstance(value, expected):
        msg = f"expected {what}, got {type(value).__name__}"
        raise YamlError(msg, location=Location(file=source))
    return value, source
