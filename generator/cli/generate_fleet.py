"""``capzgen generate fleet``: many clusters from one file, validated together."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from generator.cli.completion import complete_paths
from generator.cli.environment import current_settings, environ
from generator.cli.gitops_output import flux_options
from generator.cli.options import (
    KubeconformChoice,
    OutputChoice,
    ValidationChoice,
    check_rule_ids,
    config_option,
    flavors_dir_option,
    jobs_option,
    kubeconform_options,
    output_options,
    patch_option,
    schema_dir_option,
    validation_options,
)
from generator.cli.progress import ProgressBar
from generator.cli.report_options import (
    ReportTarget,
    fail_on_option,
    report_findings,
    report_option,
)
from generator.clusterctl.config import load_config
from generator.errors import ExitCode
from generator.fleet.file import Fleet, load_fleet
from generator.fleet.render import (
    FleetOptions,
    FleetResult,
    plan_fleet,
    raise_for_problems,
    render_fleet,
    write_fleet,
)
from generator.fleet.rules import DISABLEABLE_FLEET_RULES
from generator.generate.patches import load_patch_files


@click.command("fleet")
@click.argument("fleet_file", metavar="FLEET.yaml", shell_complete=complete_paths)
@output_options(fleet=True)
@patch_option
@config_option
@schema_dir_option
@flavors_dir_option
@validation_options
@kubeconform_options
@jobs_option("Render the clusters")
@report_option
@fail_on_option
@click.option(
    "--allow-unknown-vars",
    is_flag=True,
    help="Accept values names the cluster's flavor does not use.",
)
@click.option(
    "--check",
    is_flag=True,
    help="Write nothing: print the diff between --output-dir and what would be written, and "
    "exit 1 if they differ (the GitOps drift check for CI).",
)
def generate_fleet_command(
    fleet_file: str,
    output: OutputChoice,
    patch_files: tuple[str, ...],
    config: Path | None,
    schema_dirs: tuple[Path, ...],
    flavors_dirs: tuple[Path, ...],
    validation: ValidationChoice,
    kubeconform: KubeconformChoice,
    jobs: int | None,
    report: ReportTarget | None,
    fail_on: str,
    allow_unknown_vars: bool,
    check: bool,
) -> int:
    """Render every cluster of FLEET.yaml into DIR/<name>/, validated together.

    \b
    Each cluster's settings (flavor, namespace, kubernetesVersion, workerMachineCount,
    values, overrides) apply over the file's defaults; values are deep-merged.
    Clusters render in parallel; every cluster is validated, and no two clusters may share
    a name, resource group or DNS prefix. Nothing is written unless all of it is valid.
    With --kubeconform, kubeconform checks every cluster too, as for generate cluster.
    With --check, nothing is written: the diff against DIR is printed (exit 1 if any).
    """
    output_dir = output.output_dir
    assert output_dir is not None  # required for fleets
    output.check()
    check_rule_ids(validation.disabled_rules, extra=DISABLEABLE_FLEET_RULES)
    fleet = load_fleet(fleet_file)
    settings = current_settings()
    options = FleetOptions(
        schema_dirs=schema_dirs,
        flavors_dirs=flavors_dirs,
        checks=validation.check_options(settings, kubeconform, fail_on),
        patches=load_patch_files(patch_files) if patch_files else (),
        settings=settings,
        config=load_config(config, environ()),
        flux=flux_options("", output, output_dir),
        jobs=jobs,
        output_dir=None if check else output_dir,  # a check renders all and leaves the folder
        allow_unknown_vars=allow_unknown_vars,
    )
    result = _rendered(fleet, options)
    report_findings(report, result.findings, result.objects)
    raise_for_problems(result)
    if check:
        return _check_drift(fleet_file, result, output_dir)
    summary = write_fleet(result, output_dir, force=output.force)
    skipped = sum(1 for outcome in result.outcomes if outcome.skipped)
    note = (
        f" ({skipped} cluster{'s' if skipped != 1 else ''} unchanged, not rendered)"
        if skipped
        else ""
    )
    click.echo(
        f"fleet {fleet_file}: {result.summary()}; {output_dir}: {summary.describe()}{note}",
        err=True,
    )
    return int(ExitCode.OK)


def _rendered(fleet: Fleet, options: FleetOptions) -> FleetResult:
    """The fleet rendered, with a progress bar on a terminal."""
    if not sys.stderr.isatty():
        return render_fleet(fleet, options)
    with ProgressBar(len(fleet.clusters), sys.stderr) as bar:
        return render_fleet(fleet, options, progress=bar.update)


def _check_drift(fleet_file: str, result: FleetResult, output_dir: Path) -> int:
    """``--check``: the diff on stdout, a closing line on stderr, exit 1 when there is drift."""
    # lazy: only --check loads difflib and the drift report
    from generator.output.drift import drift_of

    plans = plan_fleet(result, output_dir, force=True)
    roots = [output_dir, *(output_dir / outcome.name for outcome in result.outcomes)]
    drift = drift_of(plans, roots)
    click.echo("".join(drift.diff), nl=False)
    click.echo(
        f"fleet {fleet_file}: {result.summary()}; {output_dir}: {drift.describe()}", err=True
    )
    return int(ExitCode.INVALID if drift.found else ExitCode.OK)
