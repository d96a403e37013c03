"""``capzgen migrate``: legacy AzureManaged* manifests -> the AzureASOManaged* API, or (``--adopt``)
the adoption objects of CAPZ's migration procedure."""

from __future__ import annotations

from pathlib import Path

import click

from generator.cli.completion import complete_paths
from generator.cli.environment import current_settings
from generator.cli.migrate_aso import AsoRun, run_aso_migration
from generator.cli.migrate_output import deliver, refuse, schema_store, validate_output
from generator.cli.options import check_options
from generator.cli.report_options import ReportTarget, fail_on_option, report_also, report_option
from generator.errors import UsageError
from generator.findings import fails
from generator.migrate import MigrationOptions, MigrationResult, migrate_text
from generator.migrate.engine import read_items
from generator.migrate.live import LiveCluster, read_live
from generator.migrate.patch_origin import explain, patch_paths
from generator.names import is_dns1123_label, is_dns1123_subdomain
from generator.validate.check import CheckReport
from generator.yamlio.load import read_source


@click.command("migrate")
@click.argument("source", metavar="FILE|DIR|-", shell_complete=complete_paths)
@click.option(
    "--aso-version",
    "aso_versions",
    multiple=True,
    metavar="VERSION",
    help="Move ASO resources (embedded and standalone) to VERSION instead of converting legacy "
    "objects: a version for every kind that has it (v1api20250801), Kind=version, `served` (the "
    "version each removed one moves to) or `latest`; repeat or separate with commas.",
)
@click.option(
    "--in-place",
    is_flag=True,
    help="With --aso-version: write the changed files back (a DIR all at once, or not at all).",
)
@click.option(
    "--drop-removed",
    is_flag=True,
    help="With --aso-version: drop the fields the target version has no place for (listed); "
    "without it such a field refuses the move (exit 1, nothing written).",
)
@click.option(
    "--write-to",
    metavar="FILE",
    help="Write the migrated manifests to FILE (atomically) instead of stdout.",
)
@click.option(
    "-n",
    "--namespace",
    metavar="NS",
    help="The NEW namespace for every migrated object (required for legacy clusters: CAPZ's "
    "procedure adopts into a namespace other than the old one).",
)
@click.option(
    "--adopt",
    is_flag=True,
    help="Write the adoption objects of CAPZ's procedure (ResourceGroup, ManagedCluster, agent "
    "pools, in apply order) instead of AzureASOManaged* manifests.",
)
@click.option(
    "--live",
    "live_path",
    metavar="FILE",
    help="`kubectl get managedcluster.containerservice.azure.com/NAME -o json` of the old cluster "
    "(or a List of its ASO objects): agentPoolProfiles and the credential Secret come from it.",
)
@click.option(
    "--credential-secret",
    metavar="NAME",
    help="ASO credential Secret named by every resource  [default: the live objects' "
    "credential-from, else <cluster>-aso-secret as legacy CAPZ named it]",
)
@click.option(
    "--output",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="json: one JSON document on stdout with the manifests (unless --write-to), notes, "
    "credential keys and checklist steps.",
)
@click.option(
    "--schema-dir",
    "schema_dirs",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Extra schemas for validating the output (as for `capzgen validate`).",
)
@click.option(
    "--ignore-missing-schemas",
    is_flag=True,
    help="Validate the output even if some kinds have no schema (they are reported as skipped).",
)
@fail_on_option
@report_option
def migrate(
    source: str,
    aso_versions: tuple[str, ...],
    in_place: bool,
    drop_removed: bool,
    write_to: str | None,
    namespace: str | None,
    adopt: bool,
    live_path: str | None,
    credential_secret: str | None,
    output: str,
    schema_dirs: tuple[Path, ...],
    ignore_missing_schemas: bool,
    fail_on: str,
    report: ReportTarget | None,
) -> int:
    """Convert legacy AKS manifests in FILE (or stdin) to CAPZ's ASO-based API.

    \b
    * AzureManagedControlPlane/Cluster/MachinePool (also the exp.infrastructure.cluster.x-k8s.io
      group of older docs) -> AzureASOManaged* with embedded ResourceGroup, VirtualNetwork,
      ManagedCluster, ManagedClustersAgentPools (and FleetsMember, Extensions, PrivateEndpoints
      when used); Cluster and MachinePool references follow; asoManaged*Patches are applied.
    * --adopt: instead, the objects CAPZ's procedure applies in the new namespace: ResourceGroup,
      ManagedCluster (adopt annotation, agentPoolProfiles), ManagedClustersAgentPools.
    * AzureASOManaged* v1alpha1 (and every reference to them) -> v1beta1.
    * Embedded ASO resources on apiVersions ASO v2.18.0 no longer serves -> served versions.
    * --aso-version VERSION: ASO resources in FILE or every YAML file of DIR -> VERSION, fields
      compared between the two versions' schemas (renamed and removed ones listed).

    The output is validated first; when it is invalid only the findings are printed (exit 1) and
    nothing is written. On stderr: unmapped fields, the credential Secret's keys and the checklist
    of CAPZ's procedure for the live management cluster. Nothing is applied anywhere.
    """
    _check_names(namespace, credential_secret, adopt=adopt)
    store = schema_store(schema_dirs)
    checks = check_options(
        current_settings(), ignore_missing_schemas=ignore_missing_schemas, fail_on=fail_on
    )
    if aso_versions or in_place or drop_removed:
        _aso_only(aso_versions, bool(adopt or live_path or namespace or credential_secret))
        json_out = output == "json"
        args = (source, aso_versions, in_place, write_to, json_out, store, checks, report)
        return run_aso_migration(AsoRun(*args, drop_removed))
    text = read_source(source)
    name = "<stdin>" if source == "-" else source
    target = (write_to or "").strip()
    output_name = target if target not in ("", "-") else "<the migrated manifests>"
    options = MigrationOptions(
        namespace, credential_secret, output_name, adopt, _live(live_path), store
    )
    result = migrate_text(text, source=name, options=options)
    if result.credentials and namespace is None:
        msg = "migrating a legacy cluster needs -n/--namespace: the new namespace to adopt it into"
        raise UsageError(msg)
    checked = validate_output(result.text(), "<migrated manifests>", store, checks)
    report_also(report, checked.findings, None)
    if fails(checked.findings, checks.fail_on):
        return refuse(checked, explain(checked.findings, patch_paths(read_items(text, name))))
    return _deliver(result, checked, write_to, json_output=output == "json")


def _deliver(
    result: MigrationResult, checked: CheckReport, write_to: str | None, *, json_output: bool
) -> int:
    """Write the converted manifests; the notes and the output's findings go to stderr."""
    notes = result.report() + "".join(f"{f.to_text()}\n" for f in checked.findings)
    deliver(result.text(), write_to, notes, result.report_data() if json_output else None)
    return 0


def _aso_only(aso_versions: tuple[str, ...], legacy_flags: bool) -> None:
    """``--aso-version`` moves ASO resources; the legacy conversion's flags mean nothing there."""
    if not aso_versions:
        msg = (
            "--in-place and --drop-removed need --aso-version "
            "(the legacy conversion writes with --write-to)"
        )
        raise UsageError(msg)
    if legacy_flags:
        msg = "--aso-version cannot be combined with -n, --adopt, --live or --credential-secret"
        raise UsageError(msg)


def _check_names(namespace: str | None, credential_secret: str | None, *, adopt: bool) -> None:
    if adopt and namespace is None:
        msg = "--adopt needs -n/--namespace: the new namespace CAPZ adopts the cluster into"
        raise UsageError(msg)
    if namespace is not None and not is_dns1123_label(namespace):
        msg = f"invalid --namespace {namespace!r}: must be a DNS-1123 label"
        raise UsageError(msg)
    if credential_secret is not None and not is_dns1123_subdomain(credential_secret):
        msg = f"invalid --credential-secret {credential_secret!r}: must be a Secret name (DNS-1123 subdomain)"
        raise UsageError(msg)


def _live(path: str | None) -> tuple[LiveCluster, ...]:
    if path is None:
        return ()
    name = "<stdin>" if path == "-" else path
    return tuple(read_live(read_items(read_source(path), name), name))
