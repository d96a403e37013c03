"""``capzgen migrate``: legacy AzureManaged* manifests -> the AzureASOManaged* API."""

from __future__ import annotations

import click

from generator.cli.common import emit
from generator.cli.completion import complete_paths
from generator.errors import UsageError
from generator.migrate import MigrationOptions, migrate_text
from generator.names import is_dns1123_label, is_dns1123_subdomain
from generator.yamlio.load import read_source


@click.command("migrate")
@click.argument("source", metavar="FILE|-", shell_complete=complete_paths)
@click.option(
    "--write-to",
    metavar="FILE",
    help="Write the migrated manifests to FILE (atomically) instead of stdout.",
)
@click.option(
    "-n",
    "--namespace",
    metavar="NS",
    help="Put every migrated object into namespace NS (CAPZ's procedure adopts into a new namespace).",
)
@click.option(
    "--credential-secret",
    metavar="NAME",
    help="ASO credential Secret named by every embedded resource  [default: <cluster>-aso-credentials]",
)
def migrate(
    source: str, write_to: str | None, namespace: str | None, credential_secret: str | None
) -> None:
    """Convert legacy AKS manifests in FILE (or stdin) to CAPZ's ASO-based API.

    \b
    * AzureManagedControlPlane/Cluster/MachinePool -> AzureASOManaged* with embedded
      ResourceGroup, VirtualNetwork, ManagedCluster, ManagedClustersAgentPools (and FleetsMember,
      Extensions, PrivateEndpoints when used); Cluster and MachinePool references follow;
      asoManaged*Patches are applied as JSON merge patches.
    * AzureASOManaged* v1alpha1 (and every reference to them) -> v1beta1.
    * Embedded ASO resources on apiVersions ASO v2.18.0 no longer serves -> served versions.

    The manifests go to stdout (or --write-to). On stderr: fields that could not be mapped
    ("unmapped: Kind/name: path: reason"), the keys of the ASO credential Secret to create, and
    the steps still to do on the live management cluster. Nothing is applied anywhere.
    """
    if namespace is not None and not is_dns1123_label(namespace):
        msg = f"invalid --namespace {namespace!r}: must be a DNS-1123 label"
        raise UsageError(msg)
    if credential_secret is not None and not is_dns1123_subdomain(credential_secret):
        msg = f"invalid --credential-secret {credential_secret!r}: must be a Secret name (DNS-1123 subdomain)"
        raise UsageError(msg)
    text = read_source(source)
    name = "<stdin>" if source == "-" else source
    target = (write_to or "").strip()
    options = MigrationOptions(
        namespace=namespace,
        credential_secret=credential_secret,
        output_name=target if target not in ("", "-") else "<the migrated manifests>",
    )
    result = migrate_text(text, source=name, options=options)
    emit(result.text(), write_to)
    click.echo(result.report(), err=True, nl=False)
