"""``capzgen generate yaml`` and ``capzgen generate cluster``."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import click

from generator.cli.common import (
    emit,
    environ,
    load_values_file,
    parse_var_options,
    schema_dir_option,
)
from generator.errors import UsageError, ValidationFailed
from generator.findings import Finding


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
@schema_dir_option
@click.option(
    "--flavors-dir",
    "flavors_dirs",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Extra flavors folder, searched before the built-in flavors (repeatable).",
)
@click.option("--no-validate", is_flag=True, help="Skip validation (not recommended).")
@click.option(
    "--disable-rule",
    "disabled_rules",
    multiple=True,
    metavar="ID",
    help="Disable a validation rule (repeatable).",
)
@click.option(
    "--no-cel", is_flag=True, help="Do not evaluate the CRDs' CEL rules (x-kubernetes-validations)."
)
@click.option(
    "--kubeconform",
    "use_kubeconform",
    is_flag=True,
    help="Also validate with kubeconform (if installed), offline, with capzgen's schemas.",
)
@click.option(
    "--kubeconform-timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=60.0,
    show_default=True,
    metavar="SECONDS",
    help="Stop kubeconform after this long (its findings are then missing).",
)
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
    schema_dirs: tuple[Path, ...],
    flavors_dirs: tuple[Path, ...],
    no_validate: bool,
    disabled_rules: tuple[str, ...],
    no_cel: bool,
    use_kubeconform: bool,
    kubeconform_timeout: float,
) -> None:
    """Generate a complete, validated cluster definition named NAME.

    \b
    Values, highest precedence first: flags and --var, the --values file, the environment,
    the clusterctl config file, then the flavor's (or template's) defaults.
    Nothing is written unless every object validates.
    """
    from generator.pipeline import ClusterRequest, Inputs, generate_cluster

    if from_ is not None and flavor is not None:
        raise UsageError("invalid cluster template source: use either --flavor or --from, not both")
    template_text, template_source = _read_template(from_) if from_ is not None else (None, "")
    _check_rules(disabled_rules)
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
        kubeconform=use_kubeconform,
        kubeconform_timeout=kubeconform_timeout,
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
    emit(result.text, write_to)


def _print_findings(findings: Sequence[Finding]) -> None:
    for finding in findings:
        click.echo(finding.to_text(), err=True)


def _check_rules(disabled_rules: tuple[str, ...]) -> None:
    if not disabled_rules:
        return
    from generator.validate.engine import known_rule_ids

    known = set(known_rule_ids())
    unknown = sorted(set(disabled_rules) - known)
    if unknown:
        raise UsageError(
            f"unknown rule id(s): {', '.join(unknown)}",
            hint="`capzgen validate --list-rules` shows every rule",
        )
