"""``capzgen generate yaml`` and ``capzgen generate cluster``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from generator.cli.common import (
    check_rule_ids,
    emit,
    environ,
    ignore_missing_schemas_option,
    kubeconform_options,
    load_values_file,
    parse_var_options,
    schema_dir_option,
)
from generator.errors import UsageError, ValidationFailed
from generator.findings import Finding, hint_lines

if TYPE_CHECKING:
    from generator.gitops import FluxOptions
    from generator.patches import PatchDocument


@click.group()
def generate() -> None:
    """Render templates or flavors into manifests."""


def _read_template(location: str) -> tuple[str, str]:
    from generator.yamlio.load import read_source

    if location.strip() == "":
        raise UsageError("unable to read custom template. Please specify a template source")
    if location.startswith("file://"):
        location = location[len("file://") :]
    elif "://" in location:
        raise UsageError(
            f"unable to read content from {location!r}: only local files, file:// URLs and '-' are supported"
        )
    return read_source(location), ("<stdin>" if location == "-" else location)


def _load_config(config: Path | None) -> dict[str, object]:
    from generator.clusterctl_config import load_config

    return load_config(config)


@generate.command("yaml")
@click.option(
    "--from", "from_", default="-", show_default=True, metavar="FILE|-", help="Template to process."
)
@click.option(
    "--config", type=click.Path(path_type=Path), help="clusterctl config file with variable values."
)
@click.option(
    "--list-variables", is_flag=True, help="List the template's variables instead of rendering."
)
def generate_yaml_command(from_: str, config: Path | None, list_variables: bool) -> None:
    """Substitute ${VAR} placeholders in a template, exactly as `clusterctl generate yaml` does.

    Values come from the environment (names upper-cased), then the clusterctl config file
    (--config, else $XDG_CONFIG_HOME/cluster-api/clusterctl.yaml, else ~/.cluster-api/clusterctl.yaml),
    then defaults written in the template. Missing values are reported together.
    """
    from generator.pipeline import Inputs, generate_yaml, list_yaml_variables

    text, source = _read_template(from_)
    if list_variables:
        click.echo(list_yaml_variables(text), nl=False)
        return
    inputs = Inputs(environ=environ(), config=_load_config(config))
    click.echo(generate_yaml(text, source=source, inputs=inputs), nl=False)


flavors_dir_option = click.option(
    "--flavors-dir",
    "flavors_dirs",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Extra flavors folder, searched before the built-in flavors (repeatable).",
)


def validation_options(function: Callable[..., Any]) -> Callable[..., Any]:
    for option in reversed(
        [
            click.option(
                "--no-validate",
                is_flag=True,
                help="Skip validating the output (not recommended; a flavor's render-time checks "
                "still run).",
            ),
            click.option(
                "--disable-rule",
                "disabled_rules",
                multiple=True,
                metavar="ID",
                help="Disable a validation rule (repeatable).",
            ),
            click.option(
                "--no-cel",
                is_flag=True,
                help="Do not evaluate the CRDs' CEL rules (x-kubernetes-validations).",
            ),
            ignore_missing_schemas_option,
        ]
    ):
        function = option(function)
    return function


def output_dir_options(function: Callable[..., Any]) -> Callable[..., Any]:
    for option in reversed(
        [
            click.option(
                "--output-dir",
                type=click.Path(path_type=Path, file_okay=False),
                metavar="DIR",
                help="Write one file per object plus kustomization.yaml into DIR (GitOps).",
            ),
            click.option(
                "--layout",
                type=click.Choice(["plain", "flux"]),
                default="plain",
                show_default=True,
                help="With --output-dir: flux also writes flux-kustomization.yaml.",
            ),
            click.option(
                "--flux-source",
                metavar="[KIND/][NAMESPACE/]NAME",
                help="The Flux Kustomization's sourceRef  [default: GitRepository/flux-system]",
            ),
            click.option(
                "--flux-path",
                metavar="PATH",
                help="The Flux Kustomization's spec.path  [default: DIR relative to its Git "
                "work tree, else to the current directory]",
            ),
            click.option(
                "--force",
                is_flag=True,
                help="With --output-dir: overwrite or delete files that were edited or that "
                "capzgen did not write.",
            ),
        ]
    ):
        function = option(function)
    return function


patch_option = click.option(
    "--patch",
    "patch_files",
    multiple=True,
    metavar="FILE",
    help="JSON merge patch / JSON Patch documents applied before validation (repeatable).",
)


def _check_output_flags(
    output_dir: Path | None,
    layout: str,
    flux_source: str | None,
    flux_path: str | None,
    force: bool,
) -> None:
    if output_dir is None:
        used = [
            flag for flag, value in (("--layout", layout != "plain"), ("--force", force)) if value
        ]
        if used:
            raise UsageError(f"{' and '.join(used)} need --output-dir")
    if layout != "flux" and (flux_source is not None or flux_path is not None):
        raise UsageError("--flux-source and --flux-path need --layout flux")


def _flux_options(
    name: str, output_dir: Path, layout: str, flux_source: str | None, flux_path: str | None
) -> FluxOptions | None:
    from generator.gitops import (
        FluxOptions,
        default_flux_path,
        normalise_flux_path,
        parse_flux_source,
    )

    if layout != "flux":
        return None
    kind, namespace, source_name = parse_flux_source(flux_source or "flux-system")
    path = normalise_flux_path(flux_path) if flux_path else default_flux_path(output_dir)
    return FluxOptions(
        name=name,
        path=path,
        source_kind=kind,
        source_name=source_name,
        source_namespace=namespace,
    )


def _load_patches(patch_files: Sequence[str]) -> tuple[PatchDocument, ...]:
    if not patch_files:
        return ()
    from generator.patches import load_patch_files

    return load_patch_files(patch_files)


@generate.command("cluster")
@click.argument("name")
@click.option("-f", "--flavor", help="Built-in or --flavors-dir flavor to render  [default: aks]")
@click.option(
    "--from",
    "from_",
    metavar="FILE|-",
    help="A clusterctl template (e.g. CAPZ's cluster-template-aks-aso.yaml) instead of a flavor.",
)
@click.option("--kubernetes-version", help="Value of KUBERNETES_VERSION (semantic version).")
@click.option("--worker-machine-count", type=int, help="Value of WORKER_MACHINE_COUNT.")
@click.option(
    "-n", "--target-namespace", help="Namespace of every object (and NAMESPACE); default 'default'."
)
@click.option(
    "--var",
    "var_items",
    multiple=True,
    metavar="KEY=VALUE",
    help="Set a variable (repeatable; highest precedence).",
)
@click.option(
    "--values",
    "values_file",
    metavar="FILE",
    help="YAML file of typed variable values (lists and objects allowed).",
)
@click.option(
    "--config", type=click.Path(path_type=Path), help="clusterctl config file with variable values."
)
@click.option(
    "--list-variables", is_flag=True, help="List variables with type, default and description."
)
@click.option(
    "--write-to", metavar="FILE", help="Write the manifests to FILE (atomically, only if valid)."
)
@output_dir_options
@patch_option
@schema_dir_option
@flavors_dir_option
@validation_options
@kubeconform_options
def generate_cluster_command(
    name: str,
    flavor: str | None,
    from_: str | None,
    kubernetes_version: str | None,
    worker_machine_count: int | None,
    target_namespace: str | None,
    var_items: tuple[str, ...],
    values_file: str | None,
    config: Path | None,
    list_variables: bool,
    write_to: str | None,
    output_dir: Path | None,
    layout: str,
    flux_source: str | None,
    flux_path: str | None,
    force: bool,
    patch_files: tuple[str, ...],
    schema_dirs: tuple[Path, ...],
    flavors_dirs: tuple[Path, ...],
    no_validate: bool,
    disabled_rules: tuple[str, ...],
    no_cel: bool,
    ignore_missing_schemas: bool,
    use_kubeconform: bool,
    kubeconform_timeout: float,
) -> None:
    """Generate a complete, validated cluster definition named NAME.

    \b
    Values, highest precedence first: flags and --var, the --values file, the environment,
    the clusterctl config file, then the flavor's (or template's) defaults.
    --patch files change the rendered objects before validation.
    Nothing is written unless every object validates.

    \b
    --output-dir DIR writes one file per object plus kustomization.yaml (and, with
    --layout flux, a Flux Kustomization) instead of printing; see the README, "GitOps output".
    """
    from generator.pipeline import ClusterRequest, Inputs, generate_cluster

    if from_ is not None and flavor is not None:
        raise UsageError("invalid cluster template source: use either --flavor or --from, not both")
    if output_dir is not None and write_to is not None:
        raise UsageError("use either --write-to or --output-dir, not both")
    _check_output_flags(output_dir, layout, flux_source, flux_path, force)
    flux = _flux_options(name, output_dir, layout, flux_source, flux_path) if output_dir else None
    template_text, template_source = _read_template(from_) if from_ is not None else (None, "")
    check_rule_ids(disabled_rules)
    request = ClusterRequest(
        name=name,
        flavor=flavor or ("aks" if from_ is None else None),
        template_text=template_text,
        template_source=template_source,
        kubernetes_version=kubernetes_version,
        worker_machine_count=worker_machine_count,
        target_namespace=target_namespace,
        variables=parse_var_options(var_items),
        schema_dirs=schema_dirs,
        flavors_dirs=flavors_dirs,
        validate=not no_validate,
        disabled_rules=frozenset(disabled_rules),
        cel=not no_cel,
        ignore_missing_schemas=ignore_missing_schemas,
        kubeconform=use_kubeconform,
        kubeconform_timeout=kubeconform_timeout,
        patches=_load_patches(patch_files),
    )
    inputs = Inputs(
        environ=environ(),
        config=_load_config(config),
        values_file=load_values_file(values_file) if values_file else {},
    )
    if list_variables:
        from generator.listing import list_cluster_variables

        click.echo(list_cluster_variables(request, inputs), nl=False)
        return
    try:
        result = generate_cluster(request, inputs)
    except ValidationFailed as failure:
        _print_findings(failure.findings)
        raise
    _print_findings(result.findings)  # warnings only, on success
    if output_dir is None:
        emit(result.text, write_to)
        return
    from generator.gitops import render_files, write_directory

    summary = write_directory(output_dir, render_files(result.objects, flux=flux), force=force)
    click.echo(f"{output_dir}: {summary.describe()}", err=True)


@generate.command("fleet")
@click.argument("fleet_file", metavar="FLEET.yaml")
@click.option(
    "--output-dir",
    required=True,
    type=click.Path(path_type=Path, file_okay=False),
    metavar="DIR",
    help="Write each cluster into DIR/<name>/ (one file per object plus kustomization.yaml).",
)
@click.option(
    "--layout",
    type=click.Choice(["plain", "flux"]),
    default="plain",
    show_default=True,
    help="flux also writes DIR/<name>/flux-kustomization.yaml.",
)
@click.option(
    "--flux-source",
    metavar="[KIND/][NAMESPACE/]NAME",
    help="The Flux Kustomizations' sourceRef  [default: GitRepository/flux-system]",
)
@click.option(
    "--flux-path",
    metavar="PATH",
    help="spec.path of DIR (each cluster: PATH/<name>)  [default: DIR relative to its Git "
    "work tree, else to the current directory]",
)
@click.option(
    "--force",
    is_flag=True,
    help="Overwrite or delete files that were edited or that capzgen did not write.",
)
@patch_option
@click.option(
    "--config", type=click.Path(path_type=Path), help="clusterctl config file with variable values."
)
@schema_dir_option
@flavors_dir_option
@validation_options
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(min=1),
    metavar="N",
    help="Worker processes  [default: the number of CPU cores]",
)
def generate_fleet_command(
    fleet_file: str,
    output_dir: Path,
    layout: str,
    flux_source: str | None,
    flux_path: str | None,
    force: bool,
    patch_files: tuple[str, ...],
    config: Path | None,
    schema_dirs: tuple[Path, ...],
    flavors_dirs: tuple[Path, ...],
    no_validate: bool,
    disabled_rules: tuple[str, ...],
    no_cel: bool,
    ignore_missing_schemas: bool,
    jobs: int | None,
) -> None:
    """Render every cluster of FLEET.yaml into DIR/<name>/, validated together.

    \b
    Each cluster's settings (flavor, namespace, kubernetesVersion, workerMachineCount,
    values, overrides) apply over the file's defaults; values are deep-merged.
    Clusters render in parallel; every cluster is validated, and no two clusters may share
    a name, resource group or DNS prefix. Nothing is written unless all of it is valid.
    """
    import sys

    from generator.fleet import (
        DISABLEABLE_FLEET_RULES,
        FleetOptions,
        load_fleet,
        raise_for_problems,
        render_fleet,
        write_fleet,
    )

    _check_output_flags(output_dir, layout, flux_source, flux_path, force)
    check_rule_ids(disabled_rules, extra=DISABLEABLE_FLEET_RULES)
    fleet = load_fleet(fleet_file)
    flux = _flux_options("", output_dir, layout, flux_source, flux_path)
    options = FleetOptions(
        schema_dirs=schema_dirs,
        flavors_dirs=flavors_dirs,
        validate=not no_validate,
        disabled_rules=frozenset(disabled_rules),
        cel=not no_cel,
        ignore_missing_schemas=ignore_missing_schemas,
        patches=_load_patches(patch_files),
        environ=environ(),
        config=_load_config(config),
        flux=flux,
        jobs=jobs,
    )
    if sys.stderr.isatty():
        with click.progressbar(
            length=len(fleet.clusters), label="Rendering clusters", file=sys.stderr
        ) as bar:
            result = render_fleet(fleet, options, progress=bar.update)
    else:
        result = render_fleet(fleet, options)
    _print_findings(result.findings)
    raise_for_problems(result)
    summary = write_fleet(result, output_dir, force=force)
    click.echo(
        f"fleet {fleet_file}: {result.summary()}; {output_dir}: {summary.describe()}", err=True
    )


def _print_findings(findings: Sequence[Finding]) -> None:
    for finding in findings:
        click.echo(finding.to_text(), err=True)
    for line in hint_lines(findings):
        click.echo(line, err=True)
