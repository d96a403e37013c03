"""API version moves that need no legacy conversion (reference §5.1, O8).

* AzureASOManaged* ``infrastructure.cluster.x-k8s.io/v1alpha1`` -> ``v1beta1``, and every reference to
  them: Cluster refs, MachinePool refs, ClusterClass template refs and patch selectors (any mapping
  holding that apiVersion with one of those kinds).
* Embedded ASO resources on apiVersions ASO v2.18.0 no longer serves -> the version the validator
  names, converting the fields that differ (:data:`generator.migrate.tables.CONVERSIONS`). Inside a
  ClusterClass patch, structured ``value``s are converted like embedded resources; Go-template
  ``valueFrom.template`` text gets its apiVersion replaced and field differences reported.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator

from generator.checks.rules.versions import REMOVED_VERSIONS
from generator.errors import YamlError
from generator.findings import PathPart, format_path
from generator.jsontypes import Json, JsonObject
from generator.migrate.model import NOTE, UNMAPPED, Note
from generator.migrate.tables import ASO_KINDS, CAPZ_V1ALPHA1, CAPZ_V1BETA1, CONVERSIONS, Step
from generator.model.kinds import EMBEDDING_KINDS, split_api_version
from generator.yamlio.load import load_value

Path = list[PathPart]


def rewrite_alpha(obj: Json) -> list[Path]:
    """Rewrite every ``{apiVersion: ...v1alpha1, kind: AzureASOManaged*}`` mapping in ``obj`` in
    place; returns the paths of the rewritten mappings (``[]`` for the object itself)."""
    changed: list[Path] = []

    def walk(node: Json, path: Path) -> None:
        if isinstance(node, dict):
            if node.get("apiVersion") == CAPZ_V1ALPHA1 and node.get("kind") in ASO_KINDS:
                node["apiVersion"] = CAPZ_V1BETA1
                changed.append(path)
            for key, value in node.items():
                walk(value, [*path, key])
        elif isinstance(node, list):
            for index, item in enumerate(node):
                walk(item, [*path, index])

    walk(obj, [])
    return changed


def removed_target(api_version: Json, kind: Json) -> str | None:
    """The apiVersion an embedded resource must move to, or None if its version is served."""
    if not isinstance(api_version, str) or not isinstance(kind, str) or "/" not in api_version:
        return None
    group, version = split_api_version(api_version)
    target = REMOVED_VERSIONS.get((group, kind, version))
    return None if target is None else f"{group}/{target}"


def bump_resource(resource: JsonObject) -> tuple[str, list[tuple[Path, str, str]]] | None:
    """Move one embedded resource to its served version in place.

    Returns the old apiVersion and ``(path in the resource, category, reason)`` for every field
    that could not be carried over, or None when the resource needs no change.
    """
    old = resource.get("apiVersion")
    kind = resource.get("kind")
    target = removed_target(old, kind)
    if target is None:
        return None
    assert isinstance(old, str)
    assert isinstance(kind, str)
    group, version = split_api_version(old)
    spec = resource.get("spec")
    problems: list[tuple[Path, str, str]] = []
    if isinstance(spec, dict):
        for step in CONVERSIONS.get((group, kind, version), ()):
            problems += _apply(spec, step, target)
    resource["apiVersion"] = target
    return old, problems


def _apply(spec: JsonObject, step: Step, target: str) -> list[tuple[Path, str, str]]:
    action, path, argument = step
    problems: list[tuple[Path, str, str]] = []
    for parent, key, where in _targets(spec, path):
        if action == "rename":
            assert isinstance(argument, str)
            parent[argument] = parent.pop(key)
        elif action == "arm_id":
            assert isinstance(argument, str)
            value = parent.pop(key)
            parent[argument] = {"armId": value}
        elif action == "drop":
            assert isinstance(argument, str)
            parent.pop(key)
            problems.append((where, UNMAPPED, f"dropped: {argument}"))
        elif action == "values":
            assert isinstance(argument, dict)
            value = parent[key]
            if isinstance(value, str) and value in argument:
                new = argument[value]
                if new:
                    parent[key] = new
                else:
                    parent.pop(key)
                    problems.append(
                        (where, UNMAPPED, f"dropped: value {value!r} does not exist in {target}")
                    )
    return problems


def _targets(spec: JsonObject, path: str) -> list[tuple[JsonObject, str, Path]]:
    """``(parent mapping, key, path from the resource)`` for every match of ``path``; ``name[]``
    stands for every item of the list ``name``."""
    nodes: list[tuple[Json, Path]] = [(spec, ["spec"])]
    parts = path.split(".")
    for part in parts[:-1]:
        each = part.endswith("[]")
        name = part[:-2] if each else part
        following: list[tuple[Json, Path]] = []
        for node, where in nodes:
            child = node.get(name) if isinstance(node, dict) else None
            if each and isinstance(child, list):
                following += [(item, [*where, name, i]) for i, item in enumerate(child)]
            elif not each and child is not None:
                following.append((child, [*where, name]))
        nodes = following
    last = parts[-1]
    return [
        (node, last, [*where, last])
        for node, where in nodes
        if isinstance(node, dict) and last in node
    ]


# --- walking a top-level object -------------------------------------------------------------------


def bump_object(obj: JsonObject, kind: str, name: str) -> list[Note]:
    """Move every embedded resource of ``obj`` (CAPZ objects, their templates, ClusterClass patches)
    off removed ASO versions. Returns notes; an empty list means nothing changed."""
    notes: list[Note] = []
    for resource, path in _embedded(obj):
        notes += _bump_with_notes(resource, path, kind, name)
    if kind == "ClusterClass":
        notes += _bump_patches(obj, kind, name)
    return notes


def _embedded(obj: JsonObject) -> Iterator[tuple[JsonObject, Path]]:
    kind = obj.get("kind")
    path = EMBEDDING_KINDS.get(kind) if isinstance(kind, str) else None
    if path is None:
        return
    node: Json = obj
    for key in path:
        node = node.get(key) if isinstance(node, dict) else None
    if isinstance(node, list):
        for index, item in enumerate(node):
            if isinstance(item, dict):
                yield item, [*path, index]


def _bump_with_notes(resource: JsonObject, path: Path, kind: str, name: str) -> list[Note]:
    result = bump_resource(resource)
    if result is None:
        return []
    old, problems = result
    notes = [
        Note(
            NOTE,
            kind,
            name,
            format_path([*path, "apiVersion"]),
            f"{old} -> {resource['apiVersion']} ({old} is not served by ASO v2.18.0; "
            "changing only the apiVersion keeps the Azure resource)",
        )
    ]
    notes += [
        Note(category, kind, name, format_path([*path, *where]), reason)
        for where, category, reason in problems
    ]
    return notes


def _bump_patches(obj: JsonObject, kind: str, name: str) -> list[Note]:
    notes: list[Note] = []
    patches = obj.get("spec", {}).get("patches") if isinstance(obj.get("spec"), dict) else None
    for i, patch in enumerate(patches if isinstance(patches, list) else []):
        definitions = patch.get("definitions") if isinstance(patch, dict) else None
        for j, definition in enumerate(definitions if isinstance(definitions, list) else []):
            json_patches = definition.get("jsonPatches") if isinstance(definition, dict) else None
            for k, json_patch in enumerate(json_patches if isinstance(json_patches, list) else []):
                if not isinstance(json_patch, dict):
                    continue
                base: Path = ["spec", "patches", i, "definitions", j, "jsonPatches", k]
                if "value" in json_patch:
                    for resource, where in _objects_in(json_patch["value"], [*base, "value"]):
                        notes += _bump_with_notes(resource, where, kind, name)
                value_from = json_patch.get("valueFrom")
                template = value_from.get("template") if isinstance(value_from, dict) else None
                if isinstance(template, str):
                    where = [*base, "valueFrom", "template"]
                    new_text, template_notes = _bump_template(template, where, kind, name)
                    if new_text != template:
                        assert isinstance(value_from, dict)
                        value_from["template"] = new_text
                    notes += template_notes
    return notes


def _objects_in(value: Json, path: Path) -> Iterator[tuple[JsonObject, Path]]:
    """Mappings with apiVersion and kind anywhere inside a patch value."""
    if isinstance(value, dict):
        if isinstance(value.get("apiVersion"), str) and isinstance(value.get("kind"), str):
            yield value, path
        for key, item in value.items():
            yield from _objects_in(item, [*path, key])
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _objects_in(item, [*path, index])


_GO_ACTION = re.compile(r"\{\{.*?\}\}")


def _bump_template(text: str, path: Path, kind: str, name: str) -> tuple[str, list[Note]]:
    """Replace removed apiVersions inside a Go-template patch text; fields are only reported."""
    where = format_path(path)
    mentioned = sorted(
        {
            f"{group}/{version}"
            for group, _kind, version in REMOVED_VERSIONS
            if re.search(rf"{re.escape(group)}/{re.escape(version)}\b", text)
        }
    )
    if not mentioned:
        return text, []
    try:
        parsed = load_value(_GO_ACTION.sub("go-template", text), source="<template>")
    except YamlError:
        parsed = None
    if parsed is None:
        return text, [
            Note(
                UNMAPPED,
                kind,
                name,
                where,
                f"template text mentions {', '.join(mentioned)} (not served by ASO v2.18.0) but is "
                "not YAML capzgen can read; update the apiVersions by hand",
            )
        ]
    targets, notes = _template_targets(parsed, mentioned, kind, name, where)
    for api, found in sorted(targets.items()):
        if not found:
            continue
        if len(found) == 1 and None not in found:
            (target,) = found
            assert target is not None
            text = re.sub(rf"{re.escape(api)}\b", target, text)
            notes.insert(
                0,
                Note(NOTE, kind, name, where, f"{api} -> {target} (not served by ASO v2.18.0)"),
            )
        else:
            notes.append(
                Note(
                    UNMAPPED,
                    kind,
                    name,
                    where,
                    f"{api} is used by kinds with different targets; update it by hand",
                )
            )
    return text, notes


def _template_targets(
    parsed: Json, mentioned: list[str], kind: str, name: str, where: str
) -> tuple[dict[str, set[str | None]], list[Note]]:
    """For each mentioned apiVersion, the versions its resources in the template move to (None:
    not moved); notes name the fields that would not carry over."""
    notes: list[Note] = []
    targets: dict[str, set[str | None]] = {api: set() for api in mentioned}
    for resource, inner in _objects_in(parsed, []):
        api = resource.get("apiVersion")
        if api in targets:
            targets[api].add(removed_target(api, resource.get("kind")))
            result = bump_resource(copy.deepcopy(resource))
            for field, _category, reason in result[1] if result else []:
                notes.append(
                    Note(
                        UNMAPPED,
                        kind,
                        name,
                        f"{where} ({format_path([*inner, *field])})",
                        f"{reason}; edit the template text by hand",
                    )
                )
    return targets, notes
