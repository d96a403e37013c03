"""The generate pipeline: resolve variables -> render Jinja -> substitute ``${VAR}`` -> parse ->
transform -> patch (``--patch``) -> validate -> emit. Each stage lives in its own module; this one
only wires them.

Functions here return results or raise domain errors; they never print or write files (the CLI
does), so tests can drive the whole pipeline directly.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from jinja2.sandbox import SandboxedEnvironment

from generator.clusterctl.substitution import (
    Inputs,
    ValuesOrigin,
    base_layers,
    parse_objects,
    substitute_template,
)
from generator.clusterctl.variables import (
    VariableStore,
    namespace_default_layer,
    namespace_flag,
    override_layer,
)
from generator.errors import CapzgenError, UsageError, ValidationFailed
from generator.findings import Finding, fails
from generator.flavors.catalog import FlavorCatalog
from generator.flavors.checks import RenderCheck
from generator.flavors.model import Flavor
from generator.flavors.render import build_environment, render_flavor
from generator.flavors.values import VALUES_FILE_LABEL, resolve_values
from generator.generate.provenance import PatchChange, attribute_findings
from generator.generate.request import DEFAULT_FLAVOR, ClusterRequest
from generator.generate.transform import apply_target_namespace
from generator.generate.unknown_vars import (
    check_names,
    flavor_names,
    supplied_names,
    template_names,
)
from generator.jsontypes import Json, JsonObject
from generator.names import is_dns1123_label, is_dns1123_subdomain, is_semver
from generator.schemastore.store import SchemaStore
from generator.settings import Settings
from generator.validate.check import CheckReport, SourceText, check_sources
from generator.yamlio.emit import object_texts

log = logging.getLogger(__name__)

NO_SETTINGS = Settings()

GENERATED_SOURCE = "<generated>"


@dataclass
class ClusterResult:
    """One cluster generated: YAML text, objects, warning findings and the typed values used.

    ``findings`` holds warnings only: an error finding raises instead. ``variables`` is empty for a
    ``--from`` template.
    """

    text: str
    objects: list[Json]
    findings: list[Finding]
    variables: JsonObject


@dataclass
class RenderedCluster:
    """A cluster rendered, namespaced and patched, not yet validated; ``changes`` lists the
    fields patches changed (so that findings on them name the patch)."""

    text: str
    objects: list[Json]
    variables: JsonObject
    changes: tuple[PatchChange, ...] = ()
    object_texts: tuple[str, ...] = ()  # each object's YAML, when ``text`` is them joined
    # The flavor's render-time check, left for when the validation of ``text`` finds an error
    # (None: it ran already, or this is no flavor).
    render_check: RenderCheck | None = None
    # A --from template got WORKER_MACHINE_COUNT=0 from clusterctl's fallback (no flag, no
    # --var, nothing in the environment or config): see :func:`worker_count_hints`.
    worker_count_defaulted: bool = False

    def explain_errors(self) -> None:
        """Before reporting error findings of the output: the render-time check, which names
        the variables behind them (raises its FlavorError, if it has one)."""
        if self.render_check is not None:
            self.render_check.run()


class PipelineContext:
    """What is worth building once when many clusters are rendered in one process (fleets):
    flavor catalogs, loaded flavors, Jinja environments (compiled templates) and schema stores
    (compiled schemas), all built with the same :class:`~generator.settings.Settings`. Without
    one, every call builds its own with the pure default settings (no cache, empty environment).
    """

    def __init__(self, settings: Settings = NO_SETTINGS) -> None:
        self.settings = settings
        self._catalogs: dict[tuple[Path, ...], FlavorCatalog] = {}
        self._flavors: dict[tuple[tuple[Path, ...], str], Flavor] = {}
        self._environments: dict[tuple[Path, ...], SandboxedEnvironment] = {}
        self._stores: dict[tuple[Path, ...], SchemaStore] = {}

    def catalog(self, flavors_dirs: Sequence[Path]) -> FlavorCatalog:
        """The flavor catalog of ``flavors_dirs``, built once per folder list."""
        key = tuple(flavors_dirs)
        if key not in self._catalogs:
            self._catalogs[key] = FlavorCatalog(key)
        return self._catalogs[key]

    def flavor(self, flavors_dirs: Sequence[Path], name: str) -> Flavor:
        """Flavor ``name`` from :meth:`catalog`, loaded once (raises like ``get``)."""
        key = (tuple(flavors_dirs), name)
        if key not in self._flavors:
            self._flavors[key] = self.catalog(flavors_dirs).get(name)
        return self._flavors[key]

    def environment(self, search_path: Sequence[Path]) -> SandboxedEnvironment:
        """The Jinja environment of a search path, built once (compiled templates are kept)."""
        key = tuple(search_path)
        if key not in self._environments:
            self._environments[key] = build_environment(
                key, cache_dir=self.settings.cache_dir("jinja")
            )
        return self._environments[key]

    def schema_store(self, schema_dirs: Sequence[Path]) -> SchemaStore:
        """The schema store of ``schema_dirs``, built once (compiled schemas are kept)."""
        key = tuple(schema_dirs)
        if key not in self._stores:
            self._stores[key] = SchemaStore.from_search_path(list(key), self.settings)
        return self._stores[key]


def check_special_flags(request: ClusterRequest) -> None:
    """The flag checks clusterctl makes, in clusterctl's order (reference §3)."""
    if request.target_namespace is not None and not is_dns1123_label(request.target_namespace):
        msg = (
            f"invalid target-namespace {request.target_namespace!r}: must be a DNS-1123 label "
            "(lower-case alphanumerics and '-', at most 63 characters)"
        )
        raise UsageError(msg)
    if not is_dns1123_subdomain(request.name):
        msg = (
            f"invalid cluster name {request.name!r}: must be a DNS-1123 subdomain "
            "(lower-case alphanumerics, '-' and '.', at most 253 characters)"
        )
        raise UsageError(msg)
    if request.kubernetes_version and not is_semver(request.kubernetes_version):
        msg = f"invalid KubernetesVersion {request.kubernetes_version!r}. Please use a semantic version number"
        raise UsageError(msg)
    count = request.control_plane_machine_count
    if count is not None and count < 1:
        msg = "invalid ControlPlaneMachineCount. Please use a number greater than or equal to 1"
        raise UsageError(msg)
    if request.worker_machine_count is not None and request.worker_machine_count < 0:
        msg = "invalid WorkerMachineCount. Please use a number greater than or equal to 0"
        raise UsageError(msg)


def flag_overrides(
    request: ClusterRequest, *, clusterctl_counts: VariableStore | None
) -> dict[str, str]:
    """Values the command line sets explicitly; they beat every other source.

    With ``clusterctl_counts`` (a ``--from`` template), the machine counts are always injected as
    clusterctl does (flag, else environment/config, else 0/1), so ``${WORKER_MACHINE_COUNT:=2}``
    renders exactly like ``clusterctl generate cluster``. Flavors declare typed defaults instead.
    """
    values: dict[str, str] = {"CLUSTER_NAME": request.name}
    values.update(namespace_flag(request.target_namespace))  # its default: a layer of its own
    if request.kubernetes_version:
        values["KUBERNETES_VERSION"] = request.kubernetes_version
    if request.control_plane_machine_count is not None:
        values["CONTROL_PLANE_MACHINE_COUNT"] = str(request.control_plane_machine_count)
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
                msg = f"invalid value for {name} set: {text!r}"
                raise CapzgenError(msg) from None
            if number < minimum:
                msg = f"invalid {name}: must be a number greater than or equal to {minimum}"
                raise CapzgenError(msg)
            values[name] = str(number)
    values.update(request.variables)
    return values


def build_store(request: ClusterRequest, inputs: Inputs) -> VariableStore:
    """The variable lookup for ``request``: command line, values file, then environment and config.

    For a ``--from`` template the machine counts are filled in as clusterctl does (see
    :func:`flag_overrides`).
    """
    base = base_layers(inputs)
    overrides = flag_overrides(
        request,
        clusterctl_counts=VariableStore(base) if request.template_text is not None else None,
    )
    return VariableStore(
        [
            override_layer(overrides, "command line"),
            override_layer(inputs.values_file, VALUES_FILE_LABEL),
            namespace_default_layer(request.target_namespace),
            *base,
        ]
    )


def render_request(
    request: ClusterRequest,
    store: VariableStore,
    *,
    context: PipelineContext | None = None,
    values_origin: ValuesOrigin | None = None,
) -> tuple[str, JsonObject, RenderCheck | None]:
    """Jinja (flavors only) then ``${VAR}`` substitution; returns the text, the typed values
    used and, when the output will be validated (``request.checks.validate``), the flavor's render-time
    check left for later."""
    if request.template_text is not None:
        text = substitute_template(request.template_text, store, source=request.template_source)
        return text, {}, None
    context = context or PipelineContext()
    catalog = context.catalog(request.flavors_dirs)
    flavor = context.flavor(request.flavors_dirs, request.flavor or DEFAULT_FLAVOR)
    disabled_rules = request.checks.validation.disabled_rules
    locate = values_origin.where if values_origin is not None else None
    values, _sources = resolve_values(flavor, store, locate=locate)
    log.info("rendering flavor %s", flavor.name)
    search_path = catalog.template_search_path(flavor)
    rendered = render_flavor(
        flavor,
        values,
        search_path,
        environment=context.environment(search_path),
        disabled_rules=disabled_rules,
        check=not request.checks.validate,
    )
    later = (
        RenderCheck(flavor, values, rendered, disabled_rules) if request.checks.validate else None
    )
    return substitute_template(rendered, store, source=f"<flavor {flavor.name}>"), values, later


def check_unknown_variables(
    request: ClusterRequest, inputs: Inputs, *, context: PipelineContext | None = None
) -> None:
    """Refuse ``--var``/values names the flavor does not declare or the template does not use
    (see :mod:`generator.generate.unknown_vars`); a template that cannot be parsed is left to the
    substitution, which says where."""
    given = supplied_names(request.variables, inputs.values_file, inputs.values_origin)
    if not given:
        return
    if request.template_text is not None:
        known = template_names(request.template_text)
        if known is not None:
            check_names(given, known, owner=f"template {request.template_source}")
        return
    flavor = (context or PipelineContext()).flavor(
        request.flavors_dirs, request.flavor or DEFAULT_FLAVOR
    )
    check_names(given, flavor_names(flavor), owner=f"flavor {flavor.name}")


def render_cluster(
    request: ClusterRequest, inputs: Inputs, *, context: PipelineContext | None = None
) -> RenderedCluster:
    """Render -> substitute -> parse -> target namespace -> patches -> serialise; no validation.

    ``generate cluster`` (stdout, ``--write-to``, ``--output-dir``) and fleets share this stage.
    """
    check_special_flags(request)
    if not request.allow_unknown_vars:
        check_unknown_variables(request, inputs, context=context)
    store = build_store(request, inputs)
    text, values, render_check = render_request(
        request, store, context=context, values_origin=inputs.values_origin
    )
    objects = parse_objects(text, GENERATED_SOURCE)
    if request.target_namespace:
        objects = apply_target_namespace(objects, request.target_namespace)
    changes: list[PatchChange] = []
    if request.patches:
        # lazy: the patch model costs ~5 ms of start-up; only runs with patches load it
        from generator.generate.patches import apply_patches

        objects = apply_patches(objects, request.patches, cluster=request.name, changes=changes)
    texts, text = object_texts(objects)
    return RenderedCluster(
        text=text,
        objects=objects,
        variables=values,
        changes=tuple(changes),
        object_texts=tuple(texts),
        render_check=render_check,
        worker_count_defaulted=worker_count_defaulted(request, inputs),
    )


def worker_count_defaulted(request: ClusterRequest, inputs: Inputs) -> bool:
    """Whether a ``--from`` template's WORKER_MACHINE_COUNT is clusterctl's fallback 0: given
    by no flag, no ``--var`` and neither the environment nor the config file (the values file
    cannot set it: the fallback sits in the command-line layer above it)."""
    return (
        request.template_text is not None
        and request.worker_machine_count is None
        and "WORKER_MACHINE_COUNT" not in request.variables
        and VariableStore(base_layers(inputs)).lookup("WORKER_MACHINE_COUNT") is None
    )


WORKER_COUNT_HINT = (
    "WORKER_MACHINE_COUNT is 0 because --worker-machine-count was not given (clusterctl's "
    "default, which also overrides a ${WORKER_MACHINE_COUNT:=N} default in the template): "
    "pass --worker-machine-count N (at least 1 when the pool is a System pool)"
)


def worker_count_hints(findings: Sequence[Finding], rendered: RenderedCluster) -> list[Finding]:
    """``findings`` with the worker-count hint on each error about a ``replicas`` field that is
    0 in the rendered objects, when that 0 is clusterctl's fallback: three of CAPZ's AKS
    templates then give their System pool no nodes, and the rule that refuses it cannot know
    that the missing flag is the cause."""
    if not rendered.worker_count_defaulted:
        return list(findings)
    hinted = []
    for finding in findings:
        if finding.is_error and _is_zero_replicas(finding, rendered.objects):
            hint = WORKER_COUNT_HINT if not finding.hint else f"{finding.hint}; {WORKER_COUNT_HINT}"
            finding = replace(finding, hint=hint)
        hinted.append(finding)
    return hinted


def _is_zero_replicas(finding: Finding, objects: Sequence[Json]) -> bool:
    """Whether the finding is about a ``replicas`` field whose rendered value is 0."""
    index = finding.subject.document
    if finding.path[-1:] != ("replicas",) or index is None or not 0 <= index < len(objects):
        return False
    value: Json = objects[index]
    for part in finding.path:
        if isinstance(part, str) and isinstance(value, dict):
            value = value.get(part)
        elif isinstance(part, int) and isinstance(value, list) and 0 <= part < len(value):
            value = value[part]
        else:
            return False
    return value == 0 and not isinstance(value, bool)


def generate_cluster(
    request: ClusterRequest, inputs: Inputs, *, context: PipelineContext | None = None
) -> ClusterResult:
    """Render, validate and serialise one cluster; raises ValidationFailed on error findings."""
    context = context or PipelineContext()
    rendered = render_cluster(request, inputs, context=context)
    findings: list[Finding] = []
    if request.checks.validate:
        findings = validate_output(
            rendered.text, request, context=context, changes=rendered.changes, rendered=rendered
        )
    return ClusterResult(
        text=rendered.text,
        objects=rendered.objects,
        findings=findings,
        variables=rendered.variables,
    )


def check_output(
    output: str,
    request: ClusterRequest,
    *,
    context: PipelineContext | None = None,
    source: str = GENERATED_SOURCE,
) -> CheckReport:
    """Validate serialised output and return every finding (line numbers point into ``output``)."""
    context = context or PipelineContext()
    store = context.schema_store(request.schema_dirs)
    checks = request.checks
    return check_sources(
        [SourceText(source, output)], store, checks.validation, kubeconform=checks.kubeconform
    )


def validate_output(
    output: str,
    request: ClusterRequest,
    *,
    context: PipelineContext | None = None,
    changes: Sequence[PatchChange] = (),
    rendered: RenderedCluster | None = None,
) -> list[Finding]:
    """Validate the serialised output, so finding line numbers point into what would be written;
    findings on fields in ``changes`` also name the patch that changed them. With errors, the
    ``rendered`` cluster's render-time check speaks first (it names variables)."""
    report = check_output(output, request, context=context)
    findings = attribute_findings(report.findings, changes)
    fail_on = request.checks.fail_on
    if fails(report.findings, fail_on):
        if rendered is not None and report.has_errors:
            rendered.explain_errors()
            findings = worker_count_hints(findings, rendered)
        strict = "" if report.has_errors else f", and --fail-on {fail_on.value}"
        raise ValidationFailed(
            findings, summary=f"generated manifests are invalid ({report.summary()}{strict})"
        )
    return findings
