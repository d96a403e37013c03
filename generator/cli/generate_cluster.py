"""``capzgen generate cluster``: render a flavor or a clusterctl template, validate, emit."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import click

from generator.cli.common import (
    emit,
    load_values_file,
    parse_var_options,
    read_template,
)
from generator.cli.completion import complete_flavors, complete_paths, complete_var_names
from generator.cli.environment import current_settings, environ
from generator.cli.options import (
    KubeconformChoice,
    OutputChoice,
    ValidationChoice,
    bundle,
    check_rule_ids,
    config_option,
    flavors_dir_option,
    from_timeout_option,
    kubeconform_options,
    output_options,
    patch_option,
    schema_dir_option,
    validation_options,
)
from generator.cli.repo_config import generate_layers, repo_values_layer
from generator.cli.report_options import (
    ReportTarget,
    fail_on_option,
    report_findings,
    report_option,
)
from generator.cli.validated import validated_line
from generator.clusterctl.config import load_config
from generator.clusterctl.providers import CAPZ_VERSION, parse_infrastructure
from generator.clusterctl.substitution import Inputs, ValuesOrigin, as_printed
from generator.clusterctl.typed_values import merge_values, parse_set, set_value
from generator.errors import ExitCode, UsageError, ValidationFailed
from generator.generate.request import DEFAULT_FLAVOR, ClusterRequest
from generator.jsontypes import Json, JsonObject
from generator.names import is_semver, with_v_prefix

if TYPE_CHECKING:
    from generator.checks.context import CheckOptions
    from generator.generate.patches import PatchDocument
    from generator.generate.pipeline import ClusterResult
    from generator.output.gitops import FluxOptions


class ClusterFlags(NamedTuple):
    """The flags ``clusterctl generate cluster`` has, plus ``--flavor`` and ``--from-timeout``."""

    flavor: str | None
    infrastructure: str | None
    from_: str | None
    from_timeout: float
    kubernetes_version: str | None
    control_plane_machine_count: int | None
    worker_machine_count: int | None
    target_namespace: str | None


cluster_flags = bundle(
    "flags",
    ClusterFlags,
    [
        click.option(
            "-f",
            "--flavor",
            shell_complete=complete_flavors,
            help="Built-in or --flavors-dir flavor to render  [default: aks]",
        ),
        click.option(
            "-i",
            "--infrastructure",
            metavar="azure[:VERSION]",
            help=f"clusterctl's provider choice: only azure, at CAPZ {CAPZ_VERSION} (another "
            "patch release of that minor is rendered with a warning).",
        ),
        click.option(
            "--from",
            "from_",
            metavar="FILE|URL|-",
            shell_complete=complete_paths,
            help="A clusterctl template (e.g. CAPZ's cluster-template-aks-aso.yaml) instead of a "
            "flavor: a path, file://, https:// (GitHub blob and release URLs too) or - (stdin).",
        ),
        from_timeout_option,
        click.option(
            "--kubernetes-version", help="Value of KUBERNETES_VERSION (semantic version)."
        ),
        click.option(
            "--control-plane-machine-count",
            type=int,
            help="Value of CONTROL_PLANE_MACHINE_COUNT (at least 1), as clusterctl sets it; AKS "
            "flavors do not use it (AKS runs the control plane).",
        ),
        click.option("--worker-machine-count", type=int, help="Value of WORKER_MACHINE_COUNT."),
        click.option(
            "-n",
            "--target-namespace",
            help="Namespace of every object (and NAMESPACE); default 'default'.",
        ),
    ],
)


class ValueSources(NamedTuple):
    """``--var``, ``--values``, ``--set`` and ``--config``: variable values besides the
    environment."""

    var_items: tuple[str, ...]
    values_files: tuple[str, ...]
    set_items: tuple[str, ...]
    config: Path | None
    allow_unknown_vars: bool
    repo_values: JsonObject | None = None  # .capzgen.yaml's values (see repo_config)
    repo_file: str = ".capzgen.yaml"

    def inputs(self) -> Inputs:
        """Variable inputs: the run's environment, the clusterctl config, and the typed values:
        ``.capzgen.yaml``'s values, then the ``--values`` files merged in order, then each
        ``--set`` (helm's rules: see :mod:`generator.clusterctl.typed_values`)."""
        merged, origin = repo_values_layer(self.repo_values, self.repo_file, environ())
        for path in self.values_files:
            values, found = load_values_file(path)
            merged = merge_values(merged, values)
            origin = replace(found, values=values, under=origin)
        for item in self.set_items:
            where, value = parse_set(item)
            merged = set_value(merged, where, value)
            origin = ValuesOrigin(f"--set {item}", values=set_value({}, where, value), under=origin)
        return Inputs(
            environ=environ(),
            config=load_config(self.config, environ()),
            values_file=merged,
            values_origin=origin or ValuesOrigin(),
        )


value_sources = bundle(
    "values",
    ValueSources,
    [
        click.option(
            "--var",
            "var_items",
            multiple=True,
            metavar="KEY=VALUE",
            shell_complete=complete_var_names,
            help="Set a variable (repeatable; highest precedence).",
        ),
        click.option(
            "--values",
            "values_files",
            multiple=True,
            metavar="FILE",
            shell_complete=complete_paths,
            help="YAML file of typed variable values (lists and objects allowed); repeatable: "
            "later files override earlier ones, maps merge deeply, lists are replaced.",
        ),
        click.option(
            "--set",
            "set_items",
            multiple=True,
            metavar="PATH=VALUE",
            help="Set one typed value above the --values files, e.g. NODE_POOLS[0].replicas=3 "
            "(repeatable; VALUE is a YAML scalar, {a,b} a list).",
        ),
        config_option,
        click.option(
            "--allow-unknown-vars",
            is_flag=True,
            help="Accept --var and --values names the flavor (or template) does not use.",
        ),
    ],
)


@click.command("cluster")
@click.argument("name")
@cluster_flags
@value_sources
@click.option(
    "--list-variables",
    is_flag=True,
    help="List the required and optional variables (clusterctl's layout), with the values "
    "already given.",
)
@click.option(
    "--write-to",
    metavar="FILE",
    shell_complete=complete_paths,
    help="Write the manifests to FILE (atomically, only if valid).",
)
@output_options(fleet=False)
@click.option(
    "--check",
    is_flag=True,
    help="With --output-dir: write nothing, print the diff between the folder and what would be "
    "written, and exit 1 if they differ (the GitOps drift check for CI).",
)
@patch_option
@schema_dir_option
@flavors_dir_option
@validation_options
@kubeconform_options
@report_option
@fail_on_option
@generate_layers
def generate_cluster_command(
    name: str,
    flags: ClusterFlags,
    values: ValueSources,
    list_variables: bool,
    write_to: str | None,
    output: OutputChoice,
    check: bool,
    patch_files: tuple[str, ...],
    schema_dirs: tuple[Path, ...],
    flavors_dirs: tuple[Path, ...],
    validation: ValidationChoice,
    kubeconform: KubeconformChoice,
    report: ReportTarget | None,
    fail_on: str,
) -> int:
    """Generate a complete, validated cluster definition named NAME.

    \b
    Values, highest precedence first: flags and --var, the --values file, the environment,
    the clusterctl config file, then the flavor's (or template's) defaults.
    --patch files change the rendered objects before validation.
    Nothing is written unless every object validates.

    \b
    --output-dir DIR writes one file per object plus kustomization.yaml (and, with
    --layout flux, a Flux Kustomization) instead of printing; see docs/gitops-and-fleets.md.
    With --check, nothing is written: the diff against DIR is printed, and the exit status
    is 1 if they differ.
    """
    _check_flags(flags, output, write_to)
    if check and output.output_dir is None:
        msg = "--check needs --output-dir (the folder to compare)"
        raise UsageError(msg)
    flux = _flux(name, output)
    checks = validation.check_options(current_settings(), kubeconform, fail_on)
    request = _request(name, flags, values, patch_files, schema_dirs, flavors_dirs, checks)
    inputs = values.inputs()
    if list_variables:
        # lazy: the listing loads the pipeline's value resolution; only that flag needs it here
        from generator.generate.listing import list_cluster_variables

        click.echo(list_cluster_variables(request, inputs), nl=False)
        return int(ExitCode.OK)
    result = _generate(request, inputs, report)
    checked = validated_line(request.checks, result.objects, result.findings)
    return _output(result, output, write_to=write_to, check=check, flux=flux, checked=checked)


def _output(
    result: ClusterResult,
    output: OutputChoice,
    *,
    write_to: str | None,
    check: bool,
    flux: FluxOptions | None,
    checked: str,
) -> int:
    """Print, write or compare the cluster, then the line saying what was validated: last, after
    the output it vouches for was written (a failed write ends with its error instead)."""
    if output.output_dir is None:
        emit(as_printed(result.text), write_to)
    elif check:
        click.echo(checked, err=True)
        return _check_directory(output.output_dir, result.objects, flux)
    else:
        _write_directory(output, output.output_dir, result.objects, flux)
    click.echo(checked, err=True)
    return int(ExitCode.OK)


def _generate(
    request: ClusterRequest, inputs: Inputs, report: ReportTarget | None
) -> ClusterResult:
    """The cluster rendered and validated, its findings reported as ``--report`` says, whether
    it passes (warnings and info) or fails (then CI still gets the report of what failed)."""
    # lazy: the pipeline (Jinja, validator, schema store) costs ~40 ms; loaded when it runs
    from generator.generate.pipeline import PipelineContext, generate_cluster

    try:
        result = generate_cluster(request, inputs, context=PipelineContext(current_settings()))
    except ValidationFailed as failure:
        report_findings(report, failure.findings, None)
        raise
    report_findings(report, result.findings, len(result.objects))  # warnings only, on success
    return result


def _check_flags(flags: ClusterFlags, output: OutputChoice, write_to: str | None) -> None:
    """Flags that exclude each other, and ``-i`` (its warning, if any, goes to stderr)."""
    for other, given in (("--flavor", flags.flavor), ("--infrastructure", flags.infrastructure)):
        if flags.from_ is not None and given is not None:
            msg = f"invalid cluster template source: use either {other} or --from, not both"
            raise UsageError(msg)
    if flags.infrastructure is not None:
        choice = parse_infrastructure(flags.infrastructure)
        if choice.warning:
            click.echo(f"warning: {choice.warning}", err=True)
    if output.output_dir is not None and write_to is not None:
        msg = "use either --write-to or --output-dir, not both"
        raise UsageError(msg)
    output.check()


def _request(
    name: str,
    flags: ClusterFlags,
    values: ValueSources,
    patch_files: tuple[str, ...],
    schema_dirs: tuple[Path, ...],
    flavors_dirs: tuple[Path, ...],
    checks: CheckOptions,
) -> ClusterRequest:
    """The pipeline's request: reads the --from template and the --patch files, checks rule IDs."""
    template_text, template_source = (
        read_template(flags.from_, timeout=flags.from_timeout)
        if flags.from_ is not None
        else (None, "")
    )
    check_rule_ids(checks.validation.disabled_rules)
    return ClusterRequest(
        name=name,
        flavor=flags.flavor or (DEFAULT_FLAVOR if flags.from_ is None else None),
        template_text=template_text,
        template_source=template_source,
        kubernetes_version=_kubernetes_version(flags),
        control_plane_machine_count=flags.control_plane_machine_count,
        worker_machine_count=flags.worker_machine_count,
        target_namespace=flags.target_namespace,
        variables=parse_var_options(values.var_items),
        allow_unknown_vars=values.allow_unknown_vars,
        schema_dirs=schema_dirs,
        flavors_dirs=flavors_dirs,
        checks=checks,
        patches=_load_patches(patch_files),
    )


def _kubernetes_version(flags: ClusterFlags) -> str | None:
    """``--kubernetes-version``; for a flavor, ``1.31.1`` becomes ``v1.31.1`` with a note, as
    CAPZ's webhook will write it. A ``--from`` template gets the value as given, as clusterctl
    passes it (the cluster's webhook still adds the ``v``)."""
    version = flags.kubernetes_version
    if version is None or flags.from_ is not None or not is_semver(version):
        return version  # a malformed version is the flag check's to report
    normalized = with_v_prefix(version)
    if normalized != version:
        click.echo(
            f"note: --kubernetes-version {version} is written as {normalized} "
            "(CAPZ's webhook adds the v too)",
            err=True,
        )
    return normalized


def _flux(name: str, output: OutputChoice) -> FluxOptions | None:
    if output.output_dir is None:
        return None
    # lazy: generator.output.gitops costs ~4 ms of start-up; only --output-dir loads it
    from generator.cli.gitops_output import flux_options

    return flux_options(name, output, output.output_dir)


def _write_directory(
    output: OutputChoice, directory: Path, objects: list[Json], flux: FluxOptions | None
) -> None:
    # lazy: generator.output.gitops costs ~4 ms of start-up; only --output-dir loads it
    from generator.output.gitops import render_files, write_directory

    summary = write_directory(directory, render_files(objects, flux=flux), force=output.force)
    click.echo(f"{directory}: {summary.describe()}", err=True)


def _check_directory(directory: Path, objects: list[Json], flux: FluxOptions | None) -> int:
    """``--check``: the diff on stdout, a closing line on stderr, exit 1 when there is drift."""
    # lazy: only --check loads difflib and the drift report
    from generator.output.drift import drift_of

    # lazy: generator.output.gitops costs ~4 ms of start-up; only --output-dir loads it
    from generator.output.gitops import plan_directory, render_files

    plan = plan_directory(directory, render_files(objects, flux=flux), force=True)
    drift = drift_of([plan], [directory])
    click.echo("".join(drift.diff), nl=False)
    click.echo(f"{directory}: {drift.describe()}", err=True)
    return int(ExitCode.INVALID if drift.found else ExitCode.OK)


def _load_patches(patch_files: tuple[str, ...]) -> tuple[PatchDocument, ...]:
    if not patch_files:
        return ()
    # lazy: the patch model costs ~5 ms of start-up; only --patch loads it
    from generator.generate.patches import load_patch_files

    return load_patch_files(patch_files)
