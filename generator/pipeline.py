"""The generate pipeline: resolve variables -> render Jinja -> substitute ``${VAR}`` -> parse ->
transform -> validate -> emit. Each stage lives in its own module; this one only wires them.

Functions here return results or raise domain errors; they never print or write files (the CLI
does), so tests can drive the whole pipeline directly.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from generator.errors import CapzgenError, Location, UsageError, ValidationFailed, YamlError
from generator.findings import Finding
from generator.variables import (
    Layer,
    VariableStore,
    config_layer,
    environment_layer,
    override_layer,
)

log = logging.getLogger(__name__)

_DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_DNS1123_SUBDOMAIN = re.compile(
    r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
)
_SEMVER = re.compile(
    r"^v?(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)"
    r"(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$"
)
GENERATED_SOURCE = "<generated>"


@dataclass(frozen=True)
class Inputs:
    """Where variable values come from besides flags (kept apart so tests control them)."""

    environ: Mapping[str, str]
    config: Mapping[str, Any] = field(default_factory=dict)
    values_file: Mapping[str, Any] = field(default_factory=dict)


def base_layers(inputs: Inputs) -> list[Layer]:
    """Environment, then clusterctl config file: the order ``clusterctl`` uses."""
    return [environment_layer(inputs.environ), config_layer(inputs.config)]


# --- generate yaml -------------------------------------------------------------------------------


def substitute_template(text: str, store: VariableStore, *, source: str) -> str:
    """clusterctl's substitution; a syntax error is reported with the file it came from."""
    from dataclasses import replace

    from generator.envsubst import substitute
    from generator.errors import TemplateSyntaxError

    try:
        return substitute(text, store.lookup, store.is_set)
    except TemplateSyntaxError as error:
        error.location = replace(error.location or Location(), file=source)
        raise


def parse_objects(text: str, source: str) -> list[Any]:
    """Documents of a substituted template as objects; empty documents are dropped (clusterctl)."""
    from generator.yamlio.load import load_documents

    objects = []
    for document in load_documents(text, source=source):
        if document.obj is None:
            continue
        if not isinstance(document.obj, dict):
            raise YamlError(
                f"document is a {type(document.obj).__name__}, not a mapping (a Kubernetes object)",
                location=Location(file=source, line=document.start_line, document=document.index),
            )
        objects.append(document.obj)
    return objects


def generate_yaml(text: str, *, source: str, inputs: Inputs) -> str:
    """``clusterctl generate yaml``: substitute, parse and re-serialise the template."""
    from generator.yamlio.emit import dump_documents

    store = VariableStore(base_layers(inputs))
    return dump_documents(parse_objects(substitute_template(text, store, source=source), source))


def list_yaml_variables(text: str) -> str:
    from generator.envsubst import format_yaml_variable_list, inspect_variables

    return format_yaml_variable_list(inspect_variables(text))


# --- generate cluster ----------------------------------------------------------------------------


@dataclass(frozen=True)
class ClusterRequest:
    name: str
    flavor: str | None = "aks"
    template_text: str | None = None  # --from: a clusterctl template (no Jinja)
    template_source: str = "<template>"
    kubernetes_version: str | None = None
    worker_machine_count: int | None = None
    target_namespace: str | None = None
    variables: Mapping[str, str] = field(default_factory=dict)  # --var KEY=VALUE
    schema_dirs: Sequence[Path] = ()
    flavors_dirs: Sequence[Path] = ()
    validate: bool = True
    disabled_rules: frozenset[str] = frozenset()
    cel: bool = True  # evaluate the CRDs' CEL rules
    kubeconform: bool = False  # also run kubeconform (a second opinion) when it is installed
    kubeconform_timeout: float = 60.0  # seconds


@dataclass
class ClusterResult:
    text: str
    objects: list[Any]
    findings: list[Finding]
    variables: dict[str, Any]


def check_special_flags(request: ClusterRequest) -> None:
    """The flag checks clusterctl makes, in clusterctl's order (reference §3)."""
    if request.target_namespace is not None and not _is_label(request.target_namespace):
        raise UsageError(
            f"invalid target-namespace {request.target_namespace!r}: must be a DNS-1123 label "
            "(lower-case alphanumerics and '-', at most 63 characters)"
        )
    if len(request.name) > 253 or not _DNS1123_SUBDOMAIN.match(request.name):
        raise UsageError(
            f"invalid cluster name {request.name!r}: must be a DNS-1123 subdomain "
            "(lower-case alphanumerics, '-' and '.', at most 253 characters)"
        )
    if request.kubernetes_version and not _SEMVER.match(request.kubernetes_version):
        raise UsageError(
            f"invalid KubernetesVersion {request.kubernetes_version!r}. Please use a semantic version number"
        )
    if request.worker_machine_count is not None and request.worker_machine_count < 0:
        raise UsageError(
            "invalid WorkerMachineCount. Please use a number greater than or equal to 0"
        )


def _is_label(value: str) -> bool:
    return len(value) <= 63 and bool(_DNS1123_LABEL.match(value))


def flag_overrides(
    request: ClusterRequest, *, clusterctl_counts: VariableStore | None
) -> dict[str, str]:
    """Values the command line sets explicitly; they beat every other source.

    With ``clusterctl_counts`` (a ``--from`` template), the machine counts are always injected as
    clusterctl does (flag, else environment/config, else 0/1), so ``${WORKER_MACHINE_COUNT:=2}``
    renders exactly like ``clusterctl generate cluster``. Flavors declare typed defaults instead.
    """
    values: dict[str, str] = {"CLUSTER_NAME": request.name}
    values["NAMESPACE"] = request.target_namespace or "default"
    if request.kubernetes_version:
        values["KUBERNETES_VERSION"] = request.kubernetes_version
    if request.worker_machine_count is not None:
        values["WORKER_MACHINE_COUNT"] = str(request.worker_machine_count)
    if clusterctl_counts is not None:
        for name, fallback, minimum in (
            ("CONTROL_PLANE_MACHINE_COUNT", "1", 1),
            ("WORKER_MACHINE_COUNT", "0", 0),
        ):
            if name in values:
                continue
            text = clusterctl_counts.lookup(name)
            if text is None:
                values[name] = fallback
                continue
            try:
                number = int(text, 10)
            except ValueError:
                raise CapzgenError(f"invalid value for {name} set: {text!r}") from None
            if number < minimum:
                raise CapzgenError(
                    f"invalid {name}: must be a number greater than or equal to {minimum}"
                )
            values[name] = str(number)
    values.update(request.variables)
    return values


def build_store(request: ClusterRequest, inputs: Inputs) -> VariableStore:
    base = base_layers(inputs)
    overrides = flag_overrides(
        request,
        clusterctl_counts=VariableStore(base) if request.template_text is not None else None,
    )
    return VariableStore(
        [
            override_layer(overrides, "command line"),
            override_layer(inputs.values_file, "values file"),
            *base,
        ]
    )


def render_request(request: ClusterRequest, store: VariableStore) -> tuple[str, dict[str, Any]]:
    """Jinja (flavors only) then ``${VAR}`` substitution; returns text and the typed values used."""
    if request.template_text is not None:
        return substitute_template(request.template_text, store, source=request.template_source), {}
    from generator.flavors.catalog import FlavorCatalog
    from generator.flavors.render import render_flavor
    from generator.flavors.values import resolve_values

    catalog = FlavorCatalog(request.flavors_dirs)
    flavor = catalog.get(request.flavor or "aks")
    values, _sources = resolve_values(flavor, store)
    log.info("rendering flavor %s", flavor.name)
    rendered = render_flavor(flavor, values, catalog.template_search_path(flavor))
    return substitute_template(rendered, store, source=f"<flavor {flavor.name}>"), values


def generate_cluster(request: ClusterRequest, inputs: Inputs) -> ClusterResult:
    """Render, validate and serialise one cluster; raises ValidationFailed on error findings."""
    from generator.transform import apply_target_namespace
    from generator.yamlio.emit import dump_documents

    check_special_flags(request)
    store = build_store(request, inputs)
    text, values = render_request(request, store)
    objects = parse_objects(text, GENERATED_SOURCE)
    if request.target_namespace:
        objects = apply_target_namespace(objects, request.target_namespace)
    output = dump_documents(objects)
    findings: list[Finding] = []
    if request.validate:
        findings = validate_output(output, request)
    return ClusterResult(text=output, objects=objects, findings=findings, variables=values)


def validate_output(output: str, request: ClusterRequest) -> list[Finding]:
    """Validate the serialised output, so finding line numbers point into what would be written."""
    from generator.check import SourceText, check_sources
    from generator.schemastore.store import SchemaStore
    from generator.validate.engine import ValidationOptions

    store = SchemaStore.from_search_path(list(request.schema_dirs))
    kubeconform = None
    if request.kubeconform:
        from generator.kubeconform import KubeconformOptions

        kubeconform = KubeconformOptions(timeout=request.kubeconform_timeout)
    report = check_sources(
        [SourceText(GENERATED_SOURCE, output)],
        store,
        ValidationOptions(disabled_rules=request.disabled_rules, cel=request.cel),
        kubeconform=kubeconform,
    )
    if report.has_errors:
        raise ValidationFailed(
            report.findings, summary=f"generated manifests are invalid ({report.summary()})"
        )
    return report.findings
