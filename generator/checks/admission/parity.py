"""The API server's checks of a custom resource that its JSON Schema cannot express, as
kubectl-validate runs them (the API server's own code): reported as ``schema`` findings.

* ``x-kubernetes-list-type: map``: no two items of the list share the values of all their
  ``x-kubernetes-list-map-keys`` (``Duplicate value``). ``set`` lists are ``uniqueItems`` in
  the converted schema already (:mod:`generator.schemastore.structural`);
* ``metadata`` (apimachinery's ``ValidateObjectMeta`` with ``NameIsDNSSubdomain``, which the
  API server uses for every custom resource): ``name`` and ``generateName`` (a prefix: a trailing
  ``-`` is fine) are DNS-1123 subdomains of at most 253 characters, ``namespace`` a DNS-1123 label;
  label keys and annotation keys are qualified names (an optional DNS-subdomain prefix of at most
  253 characters and ``/``, then at most 63 characters of ``[A-Za-z0-9._-]`` starting and ending
  alphanumeric); label values are at most 63 such characters or empty; all annotations together
  (keys and values) hold at most 256 KiB.

Text still holding a placeholder or a Go template (``${CLUSTER_NAME}``, ``{{ .x }}``) is not
judged: its final value is not known yet.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import lru_cache

from generator.checks.admission.defaults import Plan
from generator.findings import JsonPath
from generator.jsontypes import Json, JsonObject
from generator.model.values import is_templated

_DNS_LABEL = r"[a-z0-9](?:[-a-z0-9]*[a-z0-9])?"
_DNS_SUBDOMAIN = re.compile(rf"{_DNS_LABEL}(?:\.{_DNS_LABEL})*")
_DNS_LABEL_RE = re.compile(_DNS_LABEL)
_NAME_PART = re.compile(r"(?:[A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
_SUBDOMAIN_TEXT = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character"
)
_NAME_PART_TEXT = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character"
)
TOTAL_ANNOTATION_SIZE = 256 * 1024

Problem = tuple[JsonPath, str]


def list_map_problems(obj: Json, plan: Plan | None, path: JsonPath = ()) -> Iterator[Problem]:
    """``Duplicate value`` for every item of a list-type map repeating an earlier item's keys."""
    if plan is None or not plan.mapping:
        return
    if isinstance(obj, dict):
        named = list(plan.properties)
        if plan.values is not None:
            declared = {key for key, _ in plan.properties}
            named.extend((key, plan.values) for key in obj if key not in declared)
        for key, sub in named:
            child = obj.get(key)
            if child is not None:
                yield from list_map_problems(child, sub, (*path, key))
    elif isinstance(obj, list):
        if plan.map_keys:
            yield from _duplicates(obj, plan.map_keys, path)
        if plan.items is not None:
            for index, item in enumerate(obj):
                yield from list_map_problems(item, plan.items, (*path, index))


def _duplicates(items: list[Json], keys: tuple[str, ...], path: JsonPath) -> Iterator[Problem]:
    seen: set[str] = set()
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            continue  # the schema reports the type
        values = {key: item.get(key) for key in keys if key in item}
        if any(is_templated(value) for value in values.values()):
            continue
        marker = json.dumps(values, sort_keys=True, separators=(",", ":"))
        if marker in seen:
            yield (
                (*path, index),
                f"Duplicate value: {marker} (x-kubernetes-list-type: map with keys "
                f"{', '.join(keys)}: an earlier item has the same)",
            )
        seen.add(marker)


def _subdomain(value: str, *, prefix: bool = False) -> str | None:
    """Why ``value`` is not a DNS-1123 subdomain (a name prefix with ``prefix``), or None."""
    checked = value[:-1] if prefix and value.endswith("-") else value
    if len(value) > 253:
        return f"must be no more than 253 characters (got {len(value)})"
    if not _DNS_SUBDOMAIN.fullmatch(checked):
        return _SUBDOMAIN_TEXT
    return None


def _qualified_name(value: str, shown: str) -> str | None:
    name = value
    if "/" in value:
        prefix, _, name = value.partition("/")
        if "/" in name or not prefix:
            return (
                f"Invalid value: {json.dumps(shown)}: a qualified name must consist of an "
                "optional DNS subdomain prefix and '/', then a name"
            )
        problem = _subdomain(prefix)
        if problem is not None:
            return f"Invalid value: {json.dumps(shown)}: prefix part {problem}"
    if not name:
        return f"Invalid value: {json.dumps(shown)}: name part must be non-empty"
    if len(name) > 63:
        return f"Invalid value: {json.dumps(shown)}: name part must be no more than 63 characters"
    if not _NAME_PART.fullmatch(name):
        return f"Invalid value: {json.dumps(shown)}: name part {_NAME_PART_TEXT}"
    return None


def _label_value(value: str) -> str | None:
    if len(value) > 63:
        return f"Invalid value: {json.dumps(value)}: must be no more than 63 characters"
    if value and not _NAME_PART.fullmatch(value):
        return (
            f"Invalid value: {json.dumps(value)}: a valid label must be an empty string or "
            f"consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
            "alphanumeric character"
        )
    return None


@lru_cache(maxsize=4096)
def _name_problem(value: str, is_prefix: bool) -> str | None:
    if not value or is_templated(value):
        return None  # missing or empty is the structure check's; a type the schema's
    problem = _subdomain(value, prefix=is_prefix)
    return None if problem is None else f"Invalid value: {json.dumps(value)}: {problem}"


@lru_cache(maxsize=1024)
def _namespace_problem(value: str) -> str | None:
    if not value or is_templated(value):
        return None
    if len(value) <= 63 and _DNS_LABEL_RE.fullmatch(value):
        return None
    return (
        f"Invalid value: {json.dumps(value)}: a lowercase RFC 1123 label of at most 63 "
        "characters must consist of lower case alphanumeric characters or '-', and must start "
        "and end with an alphanumeric character"
    )


@lru_cache(maxsize=4096)
def _label_problems(key: str, value: str | None) -> tuple[str, ...]:
    if is_templated(key):
        return ()
    found = [_qualified_name(key, key)]
    if value is not None and not is_templated(value):
        found.append(_label_value(value))
    return tuple(problem for problem in found if problem is not None)


@lru_cache(maxsize=4096)
def _annotation_key_problem(key: str) -> str | None:
    return None if is_templated(key) else _qualified_name(key.lower(), key)


def metadata_problems(obj: JsonObject, prefix: JsonPath = ()) -> list[Problem]:
    """The API server's ``metadata`` checks of a custom resource (see the module docstring);
    types are the schema's to report, so a field of the wrong type is skipped here. Verdicts on
    single values are memoised: a fleet repeats its names, label keys and values."""
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        return []
    here = (*prefix, "metadata")
    problems: list[Problem] = []
    for field, is_prefix in (("name", False), ("generateName", True)):
        value = meta.get(field)
        if isinstance(value, str):  # a value of another type is the schema's to report
            problem = _name_problem(value, is_prefix)
            if problem is not None:
                problems.append(((*here, field), problem))
    namespace = meta.get("namespace")
    problem = _namespace_problem(namespace) if isinstance(namespace, str) else None
    if problem is not None:
        problems.append(((*here, "namespace"), problem))
    labels = meta.get("labels")
    if isinstance(labels, dict):
        for key, value in labels.items():
            if not isinstance(key, str):
                continue  # YAML allows other keys; JSON (and the API server) does not
            text = value if isinstance(value, str) else None  # a cache key must be hashable
            problems.extend(((*here, "labels", key), p) for p in _label_problems(key, text))
    annotations = meta.get("annotations")
    if isinstance(annotations, dict):
        problems.extend(_annotation_problems(annotations, here))
    return problems


def _annotation_problems(annotations: JsonObject, here: JsonPath) -> Iterator[Problem]:
    chars = 0
    for key, value in annotations.items():
        if not isinstance(key, str):
            continue
        problem = _annotation_key_problem(key)
        if problem is not None:
            yield (*here, "annotations", key), problem
        chars += len(key) + (len(value) if isinstance(value, str) else 0)
    if chars * 4 <= TOTAL_ANNOTATION_SIZE:
        return  # four bytes a character at most in UTF-8: cannot be over the limit
    total = sum(
        len(key.encode()) + (len(value.encode()) if isinstance(value, str) else 0)
        for key, value in annotations.items()
        if isinstance(key, str)
    )
    if total > TOTAL_ANNOTATION_SIZE:
        yield (
            (*here, "annotations"),
            f"Too long: must have at most {TOTAL_ANNOTATION_SIZE} bytes (got {total:,}: "
            "the keys and values of all annotations together)",
        )
