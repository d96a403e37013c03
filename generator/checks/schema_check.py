"""Per-document checks that need no other document: shape, and JSON Schema validation of the
top-level object and of every ASO resource embedded in it.

CAPZ's CRDs accept anything inside ``spec.resources`` (C19: "CRDs validate nothing inside"), so each
embedded resource is validated against the schema of its *own* apiVersion/kind; its findings carry
an embedded subject and a path absolute from the document root.
"""

from __future__ import annotations

from typing import Final, final

from generator.checks.admission.defaults import plan_of
from generator.checks.admission.parity import Problem, list_map_problems, metadata_problems
from generator.documents import Document
from generator.findings import Finding, JsonPath, Severity
from generator.jsontypes import Json, JsonObject, dig
from generator.model import kinds
from generator.model.manifests import AsoResource, TopObject
from generator.model.values import is_templated
from generator.names import valid_api_version
from generator.schemastore.types import GroupVersionKind, SchemaHandle, SchemaLookup

YAML = "yaml"
STRUCTURE = "structure"
SCHEMA = "schema"
NO_SCHEMA = "no-schema"
ENGINE_RULE_IDS = (YAML, STRUCTURE, SCHEMA, NO_SCHEMA)


@final
class SchemaSettings:
    """How objects are checked against schemas: ``store`` None disables schema checks, and
    ``ignore_missing`` makes a missing schema a warning."""

    store: Final[SchemaLookup | None]  # None: no schema validation
    ignore_missing: Final[bool]

    def __init__(self, store: SchemaLookup | None, ignore_missing: bool) -> None:
        self.store, self.ignore_missing = store, ignore_missing


_TYPE_NAMES = {
    dict: "mapping",
    list: "list",
    str: "string",
    bool: "boolean",
    int: "integer",
    float: "number",
}


def _type_name(value: Json) -> str:
    return _TYPE_NAMES.get(type(value), type(value).__name__)


NOT_AN_OBJECT = (
    "not a Kubernetes object: no apiVersion and kind (a values file or other YAML? exclude it)"
)


def _shape_problems(obj: JsonObject, *, top: bool = False) -> list[tuple[JsonPath, str]]:
    """Missing or malformed apiVersion, kind, metadata.name.

    A mapping with neither apiVersion nor kind is most likely not meant as a Kubernetes object
    at all (a Helm values file, a config file swept up with a folder): three findings about its
    fields would send the user to fix fields it was never meant to have, so it gets one that says
    what it is. The API server refuses it all the same, hence the same rule and gate. Only for a
    ``top`` document: an embedded resource is in a CAPZ object on purpose, its fields are missing.
    """
    if top and obj.get("apiVersion") is None and obj.get("kind") is None:
        return [((), NOT_AN_OBJECT)]
    problems: list[tuple[JsonPath, str]] = []
    api_version = obj.get("apiVersion")
    if api_version is None:
        problems.append((("apiVersion",), "apiVersion is missing"))
    elif not isinstance(api_version, str) or not valid_api_version(api_version):
        problems.append(
            (("apiVersion",), f"apiVersion {api_version!r} is not of the form [group/]version")
        )
    kind = obj.get("kind")
    if kind is None:
        problems.append((("kind",), "kind is missing"))
    elif not isinstance(kind, str) or not kind:
        problems.append((("kind",), f"kind {kind!r} is not a non-empty string"))
    meta = obj.get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    if name is None:
        problems.append((("metadata", "name"), "metadata.name is missing"))
    elif not isinstance(name, str) or not name:
        problems.append((("metadata", "name"), f"metadata.name {name!r} is not a non-empty string"))
    return problems


def _schema_findings(where: TopObject | AsoResource, settings: SchemaSettings) -> list[Finding]:
    """Schema findings of the object ``where`` (its subject is computed only if there are any)."""
    obj, prefix = where.obj, where.path
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if (
        settings.store is None
        or not isinstance(api_version, str)
        or not isinstance(kind, str)
        or not kind
    ):
        return []
    if not valid_api_version(api_version):
        return []
    handle = settings.store.lookup(api_version, kind)
    if handle is None:
        return [
            _missing_schema(where, settings, GroupVersionKind.from_api_version(api_version, kind))
        ]
    problems = _api_server_problems(where, handle)
    if handle.is_valid(obj) and not problems:
        return []
    subject = where.subject
    templated = _in_template(where)
    findings = [
        Finding(Severity.ERROR, SCHEMA, violation.message, subject, (*prefix, *violation.path))
        for violation in handle.iter_violations(obj)
        if not (templated and is_templated(dig(obj, *violation.path)))
    ]
    findings.extend(
        Finding(Severity.ERROR, SCHEMA, message, subject, (*prefix, *path))
        for path, message in problems
    )
    return findings


def _api_server_problems(where: TopObject | AsoResource, handle: SchemaHandle) -> list[Problem]:
    """What the API server checks beyond the JSON Schema (:mod:`generator.checks.admission.parity`):
    list-map keys of every object, ``metadata`` of a top-level one (an embedded resource's is
    checked when CAPZ creates it, by ASO's own API)."""
    schema = getattr(handle, "schema", None)
    plan = plan_of(schema) if isinstance(schema, dict) else None
    problems = list(list_map_problems(where.obj, plan)) if plan is not None and plan.mapping else []
    if isinstance(where, TopObject):
        problems.extend(metadata_problems(where.obj))
    return problems


def _missing_schema(
    where: TopObject | AsoResource, settings: SchemaSettings, gvk: GroupVersionKind
) -> Finding:
    """No source has a schema for ``gvk``: an error naming what was searched and the fix, or,
    with --ignore-missing-schemas, a warning that the object was skipped (never silence).

    Both keep the default gate, admission: they stand for the schema check that could not be
    made, which is the API server's (a kind the cluster has no CRD for is refused outright); a
    missing schema never says anything about what happens after the apply."""
    path = (*where.path, "apiVersion")
    assert settings.store is not None
    if settings.ignore_missing:
        return Finding(
            severity=Severity.WARNING,
            rule=NO_SCHEMA,
            message=f"skipped: no schema for {gvk}; not checked against a schema "
            "(--ignore-missing-schemas)",
            subject=where.subject,
            path=path,
        )
    return Finding(
        severity=Severity.ERROR,
        rule=NO_SCHEMA,
        message=f"no schema for {gvk} (searched: {'; '.join(settings.store.searched())})",
        subject=where.subject,
        path=path,
        hint="pin the CRDs your management cluster runs with `capzgen schemas import "
        "--from-cluster` (or `kubectl get crds -o yaml | capzgen schemas import -`), or pass "
        "--ignore-missing-schemas to report such objects as skipped",
    )


def _in_template(where: TopObject | AsoResource) -> bool:
    """Whether ``where`` is (inside) a ClusterClass template, where Go-template text such as
    ``{{ .builtin.cluster.name }}`` stands for a value known only per Cluster: a pattern or length
    violation of such text says nothing about the final value, so it is not reported."""
    top = where.top if isinstance(where, AsoResource) else where
    return top.kind in kinds.TEMPLATE_KINDS


def check_non_mapping(document: Document) -> Finding | None:
    """A finding for a document that is not a mapping (empty documents are skipped)."""
    obj = document.obj
    if obj is None or isinstance(obj, dict):
        return None
    return Finding(
        severity=Severity.ERROR,
        rule=YAML,
        message=f"document is a {_type_name(obj)}, not a Kubernetes object (a mapping)",
        subject=document.subject(),
    )


def check_object(top: TopObject, settings: SchemaSettings) -> list[Finding]:
    """Shape and schema findings of a top-level object and of every resource embedded in it."""
    findings = [
        Finding(Severity.ERROR, STRUCTURE, message, top.subject, path)
        for path, message in _shape_problems(top.obj, top=True)
    ]
    schema = _schema_findings(top, settings)
    findings.extend(schema)
    if not top.items:
        return findings
    reported = {finding.path for finding in schema}
    resources = iter(top.resources)
    for index, item in enumerate(top.items):
        if isinstance(item, dict):
            res = next(resources)
            for rel, message in _shape_problems(item):
                findings.append(
                    Finding(
                        Severity.ERROR,
                        STRUCTURE,
                        f"embedded resource: {message}",
                        res.subject,
                        (*res.path, *rel),
                    )
                )
            findings.extend(_schema_findings(res, settings))
            continue
        path = (*top.items_path, index)
        if path not in reported:  # else the CAPZ CRD schema already said "not an object"
            findings.append(
                Finding(
                    Severity.ERROR,
                    STRUCTURE,
                    f"embedded resource is a {_type_name(item)}, not an object with apiVersion, kind and "
                    "metadata.name",
                    top.subject.embedded(path, item),
                    path,
                )
            )
    return findings
