"""The chain itself: :func:`admit` one object, :func:`admit_documents` a run's documents, and
:func:`explain` the informational finding (see :mod:`generator.checks.admission`)."""

from __future__ import annotations

import json
from collections.abc import Sequence

from generator.checks.admission.defaults import Applied, Plan, apply_defaults, plan_of
from generator.checks.admission.mutating import apply_mutations
from generator.documents import Document
from generator.findings import Finding, JsonPath, Severity, format_path
from generator.jsontypes import Json, JsonObject
from generator.names import valid_api_version
from generator.schemastore.types import SchemaHandle, SchemaLookup

ADMISSION = "admission"
_SHOWN = 6  # values listed in one finding


def _handle(obj: JsonObject, store: SchemaLookup | None) -> SchemaHandle | None:
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if store is None or not isinstance(api_version, str) or not isinstance(kind, str) or not kind:
        return None
    if not valid_api_version(api_version):
        return None
    return store.lookup(api_version, kind)


def admit(obj: Json, store: SchemaLookup | None) -> tuple[Json, list[Applied]]:
    """``obj`` as the API server stores it on a create, after the CRD's defaults and CAPZ's
    mutating webhook, and every value set on the way (``obj`` itself when nothing was set)."""
    if not isinstance(obj, dict):
        return obj, []
    return _admit(obj, _plan(obj, store))


def _plan(obj: JsonObject, store: SchemaLookup | None) -> Plan | None:
    handle = _handle(obj, store)
    schema = getattr(handle, "schema", None) if handle is not None else None
    return plan_of(schema) if isinstance(schema, dict) else None


def _admit(obj: JsonObject, plan: Plan | None) -> tuple[Json, list[Applied]]:
    applied: list[Applied] = []
    out = apply_defaults(obj, plan, applied)
    assert isinstance(out, dict)
    mutated = apply_mutations(out, applied)
    if mutated is not out:
        out = apply_defaults(mutated, plan, applied)
    return out, applied


def admit_documents(
    documents: Sequence[Document], store: SchemaLookup | None
) -> tuple[list[Document], dict[int, list[Applied]]]:
    """The documents as admitted (the same objects where nothing was set) and, by position in
    ``documents``, what was set."""
    out: list[Document] = []
    changes: dict[int, list[Applied]] = {}
    plans: dict[tuple[str, str], Plan | None] = {}  # by (apiVersion, kind), for this run
    for position, document in enumerate(documents):
        obj = document.obj
        if not isinstance(obj, dict):
            out.append(document)
            continue
        api_version, kind = obj.get("apiVersion"), obj.get("kind")
        if isinstance(api_version, str) and isinstance(kind, str):
            key = (api_version, kind)
            plan = plans[key] if key in plans else plans.setdefault(key, _plan(obj, store))
        else:
            plan = None  # no schema to look up
        admitted, applied = _admit(obj, plan)
        if admitted is obj:
            out.append(document)
            continue
        out.append(Document(document.source, document.index, admitted, document.start_line))
        changes[position] = applied
    return out, changes


def _cause(applied: list[Applied], path: JsonPath, message: str) -> list[Applied]:
    """The values set that cured the written-form violation ``message`` at ``path``: set at
    ``path``, or the property of ``path`` a ``required`` message names, else set under it."""
    named = [
        a
        for a in applied
        if a.path == path or (a.path[:-1] == path and f'"{a.path[-1]}"' in message)
    ]
    return named or [a for a in applied if a.path[: len(path)] == path]


def explain(
    written: Document, admitted: Document, applied: list[Applied], store: SchemaLookup | None
) -> Finding | None:
    """The informational finding for an object admitted only because of a default (see the
    module docstring), or None."""
    obj = written.obj
    if not isinstance(obj, dict) or not applied:
        return None
    handle = _handle(obj, store)
    if handle is None or handle.is_valid(obj) or not handle.is_valid(admitted.obj):
        return None
    before = {(v.path, v.message) for v in handle.iter_violations(obj)}
    after = {(v.path, v.message) for v in handle.iter_violations(admitted.obj)}
    cured = sorted(before - after, key=lambda item: (format_path(item[0]), item[1]))
    if not cured:
        return None
    causes: dict[Applied, None] = {}
    for path, message in cured:
        causes.update(dict.fromkeys(_cause(applied, path, message)))
    related = list(causes) or applied
    shown = "; ".join(
        f"{format_path(a.path)}={_show(a.value)} ({a.source})" for a in related[:_SHOWN]
    )
    more = f" and {len(related) - _SHOWN} more" if len(related) > _SHOWN else ""
    return Finding(
        Severity.INFO,
        ADMISSION,
        f"passes the schema because the API server sets on create: {shown}{more}; as written "
        f"it would fail: {cured[0][1]}"
        + (f" (and {len(cured) - 1} more)" if len(cured) > 1 else ""),
        written.subject(),
        related[0].path,
    )


def _show(value: Json) -> str:
    return json.dumps(value, separators=(",", ":"))
