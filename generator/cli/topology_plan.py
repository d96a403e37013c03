"""``capzgen topology plan FILE|DIR...``: the objects CAPI's topology controller would create or
change for each Cluster with a ``spec.topology`` in the inputs, validated, then printed or
written (``--write-to`` one file, ``--output-dir`` one file per object), never half-written."""

from __future__ import annotations

from pathlib import Path

import click

from generator.cli.common import emit
from generator.cli.completion import complete_paths
from generator.cli.environment import current_settings
from generator.cli.options import (
    KubeconformChoice,
    ValidationChoice,
    check_rule_ids,
    kubeconform_options,
    schema_dir_option,
    validation_options,
)
from generator.cli.report_options import (
    ReportTarget,
    fail_on_option,
    report_findings,
    report_option,
)
from generator.cli.validated import validated_line
from generator.errors import ExitCode, UsageError, ValidationFailed
from generator.topology.compare import render_changes, summary
from generator.topology.run import PlanRequest, PlanResult, run_against, run_plan


@click.command("plan")
@click.argument(
    "paths", nargs=-1, required=True, metavar="FILE|DIR...", shell_complete=complete_paths
)
@click.option(
    "--write-to",
    metavar="FILE",
    shell_complete=complete_paths,
    help="Write the planned objects to FILE (atomically, only if valid).",
)
@click.option(
    "--output-dir",
    type=click.Path(path_type=Path, file_okay=False),
    metavar="DIR",
    help="Write one file per planned object plus kustomization.yaml into DIR.",
)
@click.option(
    "--force",
    is_flag=True,
    help="With --output-dir: overwrite or delete files that were edited or that capzgen did "
    "not write.",
)
@click.option(
    "--against",
    metavar="REV|OLD_PATH",
    help="Print what changes from the plan of the inputs at a git revision (HEAD~1, main, a "
    "tag) or in OLD_PATH: a diff per object, and the changes CAPZ's, ASO's and CAPI's update "
    "and delete rules refuse (exit 1). Nothing is written.",
)
@schema_dir_option
@validation_options
@kubeconform_options
@report_option
@fail_on_option
def plan_command(
    paths: tuple[str, ...],
    write_to: str | None,
    output_dir: Path | None,
    force: bool,
    against: str | None,
    schema_dirs: tuple[Path, ...],
    validation: ValidationChoice,
    kubeconform: KubeconformChoice,
    report: ReportTarget | None,
    fail_on: str,
) -> int:
    """Plan the objects of each Cluster with spec.topology in FILE|DIR... (the Cluster, its
    ClusterClass and the class's templates; - reads stdin).

    \b
    The objects are those CAPI's topology controller would create or change: the Cluster with
    its references, the control plane and infrastructure cluster cloned from the class's
    templates, and per machine pool a MachinePool, its infrastructure machine pool and its
    bootstrap config; the class's inline patches are applied with the Cluster's variables and
    CAPI's builtin values (external patches are reported, not evaluated). Random name suffixes
    are written as 00000. The plan is validated like `generate cluster` output; nothing is
    written unless it validates.
    """
    _check_flags(write_to, output_dir, force=force, against=against)
    checks = validation.check_options(current_settings(), kubeconform, fail_on)
    check_rule_ids(checks.validation.disabled_rules)
    request = PlanRequest(paths=paths, schema_dirs=schema_dirs, checks=checks)
    if against is not None:
        return _compare(request, against, report)
    try:
        result = run_plan(request, current_settings())
    except ValidationFailed as failure:
        report_findings(report, failure.findings, None)
        raise
    report_findings(report, result.findings, len(result.objects))
    if output_dir is None:
        emit(result.text, write_to)
    else:
        _write_directory(output_dir, result, force=force)
    click.echo(validated_line(checks, result.objects, result.findings), err=True)
    return int(ExitCode.OK)


def _check_flags(
    write_to: str | None, output_dir: Path | None, *, force: bool, against: str | None
) -> None:
    """Flags that exclude each other, or need another."""
    if write_to is not None and output_dir is not None:
        msg = "use either --write-to or --output-dir, not both"
        raise UsageError(msg)
    if force and output_dir is None:
        msg = "--force needs --output-dir"
        raise UsageError(msg)
    if against is not None and (write_to is not None or output_dir is not None):
        msg = "--against prints a diff and writes nothing: leave out --write-to and --output-dir"
        raise UsageError(msg)


def _compare(request: PlanRequest, against: str, report: ReportTarget | None) -> int:
    """``--against``: the diff on stdout, the findings and a closing line on stderr; exit 1
    when an update or delete rule refuses a change."""
    try:
        result = run_against(request, against, current_settings())
    except ValidationFailed as failure:
        report_findings(report, failure.findings, None)
        raise
    click.echo(render_changes(result.changes), nl=False)
    report_findings(report, result.findings, None)
    refused = f"; {result.refused} refused by the update and delete rules" if result.refused else ""
    click.echo(f"topology plan against {against}: {summary(result.changes)}{refused}", err=True)
    return int(ExitCode.INVALID if result.refused else ExitCode.OK)


def _write_directory(directory: Path, result: PlanResult, *, force: bool) -> None:
    # lazy: generator.output.gitops costs ~4 ms of start-up; only --output-dir loads it
    from generator.output.gitops import render_files, write_directory

    summary = write_directory(directory, render_files(result.objects), force=force)
    click.echo(f"{directory}: {summary.describe()}", err=True)
