"""Helpers for the flavor tests: rendering a flavor, substituting a CAPZ template, comparing objects."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from generator.clusterctl.variables import VariableStore, override_layer
from generator.errors import CapzgenError
from generator.findings import Finding, format_path
from generator.flavors import render, values
from generator.flavors.catalog import FlavorCatalog
from generator.schemastore.store import SchemaStore
from generator.settings import Settings

# The minimum every aks-shaped flavor needs.
AKS_REQUIRED = {
    "CLUSTER_NAME": "my-cluster",
    "AZURE_LOCATION": "eastus",
    "KUBERNETES_VERSION": "v1.33.1",
}
GO_EXPRESSION = re.compile(r"\{\{.*?\}\}")
# Innermost placeholders first: a default may itself hold one (``${A:=${B}}``).
_PLACEHOLDER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?[=-]([^${}]*))?\}")


@functools.cache
def _environment(search_path: tuple[Path, ...]) -> Any:
    """One Jinja environment per search path, as a fleet's pipeline context keeps one: its
    compiled templates are reused by every render in the session."""
    return render.build_environment(search_path)


def render_text(
    flavor_name: str, settings: Mapping[str, Any], user_dirs: Sequence[Path] = ()
) -> str:
    """Render a flavor the way `generate` does: typed values from one override layer."""
    catalog = FlavorCatalog(user_dirs)
    flavor = catalog.get(flavor_name)
    resolved, _ = values.resolve_values(flavor, VariableStore([override_layer(settings, "test")]))
    search_path = tuple(catalog.template_search_path(flavor))
    return render.render_flavor(
        flavor, resolved, search_path, environment=_environment(search_path)
    )


def render_objects(flavor_name: str, settings: Mapping[str, Any]) -> list[dict[str, Any]]:
    return load_objects(render_text(flavor_name, settings))


def render_aks(flavor: str = "aks", **settings: Any) -> list[dict[str, Any]]:
    """A flavor rendered with the aks required values plus ``settings``."""
    return render_objects(flavor, {**AKS_REQUIRED, **settings})


def render_failure(flavor: str = "aks", **settings: Any) -> str:
    """The problems of the FlavorError a render with ``settings`` must raise (see problems())."""
    import pytest

    from generator.errors import FlavorError

    with pytest.raises(FlavorError) as caught:
        render_aks(flavor, **settings)
    return problems(caught.value)


def problems(error: CapzgenError) -> str:
    """A render-time check failure as the CLI shows it: the message, then one problem a line
    (``VARIABLE: message (RULE)``)."""
    return "\n".join([error.message, *error.details])


def rule_warnings(flavor: str, settings: Mapping[str, Any]) -> list[Finding]:
    """The warnings the validator's rules report on a flavor's rendered objects (warnings do not
    stop a render; the validation of the output reports them)."""
    from generator.checks.engine import rule_findings
    from generator.documents import Document

    objects = render_objects(flavor, settings)
    documents = [Document(f"{flavor}.yaml", index, obj) for index, obj in enumerate(objects)]
    return [finding for finding in rule_findings(documents) if not finding.is_error]


def load_objects(text: str) -> list[dict[str, Any]]:
    objects = [doc for doc in yaml.safe_load_all(text) if doc is not None]
    assert all(isinstance(obj, dict) for obj in objects), "every document must be a mapping"
    return objects


def substitute(text: str, settings: Mapping[str, Any]) -> str:
    """Enough of clusterctl's envsubst for CAPZ's templates: ``${NAME}``, ``${NAME:=default}`` and
    defaults that are placeholders themselves (``${AZURE_RESOURCE_GROUP:=${CLUSTER_NAME}}``)."""

    def replace(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        if name in settings:
            return str(settings[name])
        assert default is not None, f"the CAPZ template needs {name}, the test did not set it"
        return default

    while True:
        substituted = _PLACEHOLDER.sub(replace, text)
        if substituted == text:
            return substituted
        text = substituted


def capz_objects(
    corpus_dir: Path, template: str, settings: Mapping[str, Any]
) -> list[dict[str, Any]]:
    text = (corpus_dir / f"cluster-template-{template}.yaml").read_text(encoding="utf-8")
    return load_objects(substitute(text, settings))


def key(obj: Mapping[str, Any]) -> tuple[str, str]:
    return (obj["kind"], obj["metadata"]["name"])


def find(objects: Sequence[Mapping[str, Any]], kind: str, name: str | None = None) -> list[Any]:
    return [
        o for o in objects if o["kind"] == kind and (name is None or o["metadata"]["name"] == name)
    ]


def embedded(objects: Sequence[Mapping[str, Any]], kind: str) -> list[dict[str, Any]]:
    """Every ASO resource of ``kind`` inside any object's spec.resources."""
    return [
        resource
        for obj in objects
        for resource in (obj.get("spec") or {}).get("resources", [])
        if resource["kind"] == kind
    ]


def first_difference(expected: Any, actual: Any, path: str = "") -> str | None:
    """Where ``actual`` fails to contain ``expected`` (maps may have extra keys), or ``None``.

    Lists must have the same length and match item by item; scalars must be equal and of the same
    type (so ``"2"`` does not pass for ``2``).
    """
    if isinstance(expected, dict):
        return _mapping_difference(expected, actual, path)
    if isinstance(expected, list):
        return _list_difference(expected, actual, path)
    if type(expected) is not type(actual) or expected != actual:
        return f"{path or '(top)'}: expected {expected!r}, got {actual!r}"
    return None


def _mapping_difference(expected: dict[Any, Any], actual: Any, path: str) -> str | None:
    if not isinstance(actual, dict):
        return f"{path or '(top)'}: expected a mapping, got {actual!r}"
    for name, value in expected.items():
        where = f"{path}.{name}" if path else str(name)
        if name not in actual:
            return f"{where}: missing"
        found = first_difference(value, actual[name], where)
        if found:
            return found
    return None


def _list_difference(expected: list[Any], actual: Any, path: str) -> str | None:
    if not isinstance(actual, list) or len(actual) != len(expected):
        return f"{path or '(top)'}: expected {len(expected)} items {expected!r}, got {actual!r}"
    for index, (want, got) in enumerate(zip(expected, actual, strict=True)):
        found = first_difference(want, got, f"{path}[{index}]")
        if found:
            return found
    return None


def parse_patch_templates(obj: Any) -> Any:
    """A copy where every ClusterClass ``valueFrom.template`` text is replaced by its parsed YAML
    and its Go template expressions, so formatting differences do not matter but the Go text does."""
    if isinstance(obj, dict):
        copy = {name: parse_patch_templates(value) for name, value in obj.items()}
        template = obj.get("template")
        if set(obj) == {"template"} and isinstance(template, str):
            copy["template"] = {
                "yaml": yaml.safe_load(template),
                "go": sorted(GO_EXPRESSION.findall(template)),
            }
        return copy
    if isinstance(obj, list):
        return [parse_patch_templates(item) for item in obj]
    return obj


def shared_schema_store(shared_dir: Path, cache_dir: Path) -> SchemaStore:
    """The CAPZ v1.26.0 and CAPI v1.13.3 CRDs plus the ASO schemas, with a private cache folder."""
    return SchemaStore.from_search_path(
        [
            shared_dir / "crds" / "capz-v1.26.0",
            shared_dir / "crds" / "capi-v1.13.3",
            shared_dir / "schemas",
        ],
        Settings(cache_root=cache_dir),
    )


def schema_problems(store: SchemaStore, objects: Sequence[Mapping[str, Any]]) -> list[str]:
    """Every schema violation of every object and of every ASO resource in its spec.resources,
    as ``Kind/name[ > Kind/name]: path: message``; a kind without a schema is a problem too."""
    problems = []
    for obj in objects:
        where = f"{obj['kind']}/{obj['metadata']['name']}"
        checked = [(where, obj)] + [
            (f"{where} > {item['kind']}/{item['metadata']['name']}", item)
            for item in (obj.get("spec") or {}).get("resources", []) or []
        ]
        for label, item in checked:
            handle = store.lookup(item["apiVersion"], item["kind"])
            if handle is None:
                problems.append(f"{label}: no schema for {item['apiVersion']} {item['kind']}")
                continue
            problems += [
                f"{label}: {format_path(list(v.path))}: {v.message}"
                for v in handle.iter_violations(item)
            ]
    return problems


def managed_cluster_spec(objects: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The spec of the one ManagedCluster (in the AzureASOManagedControlPlane)."""
    (cluster,) = embedded(objects, "ManagedCluster")
    return cluster["spec"]  # type: ignore[no-any-return]


def agent_pool_spec(objects: Sequence[Mapping[str, Any]], azure_name: str) -> dict[str, Any]:
    """The spec of the ManagedClustersAgentPool whose azureName is ``azure_name``."""
    (pool,) = [
        p
        for p in embedded(objects, "ManagedClustersAgentPool")
        if p["spec"]["azureName"] == azure_name
    ]
    return pool["spec"]  # type: ignore[no-any-return]
