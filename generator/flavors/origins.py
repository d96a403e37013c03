"""Where a rendered flavor's fields come from, so that findings can name the variable to change.

A flavor's render-time checks are the validator's rules run on the objects the flavor rendered
(:mod:`generator.flavors.checks`). A finding names a rendered field -
``AzureASOManagedMachinePool/c-win > ManagedClustersAgentPool/c-win: spec.azureName`` - which
means little to someone who only set variables. A flavor's metadata therefore declares, per kind
of rendered object, which variable each field is made from (``origins`` in ``flavor.yaml``), and
:class:`Translator` turns a finding's location into that variable: ``NODE_POOLS[2].name``.

One entry of ``origins``::

    - kind: ManagedClustersAgentPool                   # the object's (or embedded resource's) kind
      name: "{CLUSTER_NAME}-{NODE_POOLS[*].name}"      # its metadata.name, a pattern over values
      fields:                                          # path in the object: variable path(s)
        (object): NODE_POOLS[*]                        # the whole object
        spec.azureName: NODE_POOLS[*].name
        spec.vmSize: [NODE_POOLS[*].vmSize, AZURE_NODE_MACHINE_TYPE]

How a finding is translated, one mechanism for every rule:

1. Object: the entries of the finding's kind whose ``name`` pattern, evaluated with the values
   the flavor was rendered with, gives the finding's object name. ``[*]`` stands for every index
   of one list, and the index that produced the name is bound (when several give the same name -
   duplicates - the n-th such object binds the n-th such index).
2. Field: the ``fields`` key that is the longest prefix of the finding's path inside the object
   (``(object)`` is the empty path, a prefix of every path).
3. Variable: the first of the listed variable paths (``[*]`` replaced by the bound index) that
   has a value - not absent, empty or false - else the last; a list states the fallbacks the
   template applies, most specific first (a pool's own vmSize, else AZURE_NODE_MACHINE_TYPE).
4. The rest of the finding's path is appended while the values have it (``spec.nodeLabels["x"]``
   -> ``NODE_POOLS[0].labels["x"]``), so fields shaped like their variable need one entry.

A finding no entry matches - a user flavor declares none - is shown located on the rendered
object instead. Values that are ``${VAR}`` placeholders (``flavors show``, ``release``) are
matched as the text they render to.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from generator.documents import Document
from generator.findings import Finding, JsonPath, PathPart, format_path
from generator.jsontypes import Json, JsonObject
from generator.model.manifests import embedded_items

WILDCARD: Final = -1  # ``[*]`` in a variable path: the index bound by the object's name
OBJECT: Final = "(object)"  # a ``fields`` key: the whole object

VarPath = tuple[PathPart, ...]
_TOKEN = re.compile(r'\.?([A-Za-z0-9_-]+)|\[(\d+|\*|"(?:[^"\\]|\\.)*")\]')
_NAME_PART = re.compile(r"\{([^{}]+)\}")


def parse_path(text: str, *, wildcard: bool = False) -> VarPath:
    """``spec.nodeLabels["a.b/c"][0]`` -> ``("spec", "nodeLabels", "a.b/c", 0)``: the inverse of
    :func:`generator.findings.format_path`, plus ``[*]`` when ``wildcard``."""
    if text == OBJECT:
        return ()
    parts: list[PathPart] = []
    position = 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None or (position == 0 and text.startswith(".")):
            msg = f"{text!r} is not a path like spec.items[0].name"
            raise ValueError(msg)
        key, index = match.group(1), match.group(2)
        if key is not None:
            parts.append(key)
        elif index == "*":
            if not wildcard:
                msg = f"{text!r}: [*] is only allowed in variable paths"
                raise ValueError(msg)
            parts.append(WILDCARD)
        elif index.startswith('"'):
            parts.append(str(json.loads(index)))
        else:
            parts.append(int(index))
        position = match.end()
    if not parts or not isinstance(parts[0], str):
        msg = f"{text!r} must start with a name"
        raise ValueError(msg)
    return tuple(parts)


@dataclass(frozen=True, slots=True)
class FieldOrigin:
    """Fields at ``path`` (and below) come from the first of ``variables`` that is set."""

    path: JsonPath
    variables: tuple[VarPath, ...]


@dataclass(frozen=True, slots=True)
class ObjectOrigin:
    """Rendered objects of ``kind`` named by ``name`` (literal text and variable paths)."""

    kind: str
    name: tuple[str | VarPath, ...]
    fields: tuple[FieldOrigin, ...]

    def variables(self) -> Iterable[VarPath]:
        """Every variable path the entry mentions (for checking them against the flavor)."""
        yield from (part for part in self.name if isinstance(part, tuple))
        for field in self.fields:
            yield from field.variables


def parse_origins(raw: Sequence[Mapping[str, Json]]) -> tuple[ObjectOrigin, ...]:
    """The ``origins`` of a flavor's metadata (already checked against the metadata schema);
    raises ValueError naming the entry with a malformed path or name pattern."""
    origins = []
    for index, entry in enumerate(raw):
        try:
            origins.append(_parse_entry(entry))
        except ValueError as error:
            msg = f"origins[{index}]: {error}"
            raise ValueError(msg) from None
    return tuple(origins)


def _parse_entry(entry: Mapping[str, Json]) -> ObjectOrigin:
    text = str(entry["name"])
    name: list[str | VarPath] = []
    position = 0
    for match in _NAME_PART.finditer(text):
        if match.start() > position:
            name.append(text[position : match.start()])
        name.append(parse_path(match.group(1), wildcard=True))
        position = match.end()
    if position < len(text):
        name.append(text[position:])
    lists = {_list_of(part) for part in name if isinstance(part, tuple) and WILDCARD in part}
    if len(lists) > 1:
        msg = f"name {text!r}: [*] may bind one list only"
        raise ValueError(msg)
    fields = []
    for key, value in dict(entry["fields"]).items():
        targets = value if isinstance(value, list) else [value]
        fields.append(
            FieldOrigin(
                path=parse_path(str(key)),
                variables=tuple(parse_path(str(target), wildcard=True) for target in targets),
            )
        )
    return ObjectOrigin(kind=str(entry["kind"]), name=tuple(name), fields=tuple(fields))


def _list_of(path: VarPath) -> VarPath:
    """The list a wildcard path iterates: the part before ``[*]``."""
    return path[: path.index(WILDCARD)]


# --- translation ---------------------------------------------------------------------------------

_MISSING: Final = object()


def _resolve(values: Mapping[str, Json], path: VarPath) -> Json:
    """The value at ``path`` (variable name first), or ``_MISSING``."""
    current: Json = values
    for part in path:
        if isinstance(part, str):
            found = isinstance(current, Mapping) and part in current
        else:
            found = isinstance(current, list) and 0 <= part < len(current)
        if not found:
            return _MISSING
        current = current[part]
    return current


def _is_set(value: Json) -> bool:
    """Has a value: not absent, None, false or empty (0 is a value)."""
    if value is _MISSING or value is None or value is False:
        return False
    return not (isinstance(value, str | list | dict) and len(value) == 0)


def _bind(path: VarPath, index: int | None) -> VarPath | None:
    if WILDCARD not in path:
        return path
    return None if index is None else tuple(index if part == WILDCARD else part for part in path)


def _render_name(
    name: tuple[str | VarPath, ...], values: Mapping[str, Json], index: int | None
) -> str | None:
    out = []
    for part in name:
        if isinstance(part, str):
            out.append(part)
            continue
        bound = _bind(part, index)
        value = _MISSING if bound is None else _resolve(values, bound)
        if isinstance(value, bool) or not isinstance(value, str | int):
            return None
        out.append(str(value))
    return "".join(out)


def _indices(origin: ObjectOrigin, values: Mapping[str, Json]) -> list[int | None]:
    """The indices the entry's ``[*]`` iterates (``[None]`` without one)."""
    lists = [_list_of(part) for part in origin.name if isinstance(part, tuple) and WILDCARD in part]
    if not lists:
        return [None]
    items = _resolve(values, lists[0])
    return list(range(len(items))) if isinstance(items, list) else []


def _sort_key(path: VarPath) -> tuple[tuple[int, int, str], ...]:
    return tuple((0, part, "") if isinstance(part, int) else (1, 0, part) for part in path)


class Translator:
    """Finds the variable behind a finding of a flavor render (see the module docstring)."""

    def __init__(
        self,
        origins: Sequence[ObjectOrigin],
        values: Mapping[str, Json],
        documents: Sequence[Document],
    ) -> None:
        self._values = values
        # (kind, name) -> [(entry, bound index)], in the order of the indices
        self._objects: dict[tuple[str, str], list[tuple[ObjectOrigin, int | None]]] = {}
        for origin in origins:
            for index in _indices(origin, values):
                name = _render_name(origin.name, values, index)
                if name is not None:
                    self._objects.setdefault((origin.kind, name), []).append((origin, index))
        # (kind, name) -> where each rendered object of that kind and name is, in document order
        self._occurrences: dict[tuple[str, str], list[tuple[int, JsonPath | None]]] = {}
        for document in documents:
            self._index_document(document)

    def _index_document(self, document: Document) -> None:
        obj = document.obj
        if not isinstance(obj, dict):
            return
        self._add_occurrence(obj, document.index, None)
        prefix, items = embedded_items(
            obj, obj.get("kind") if isinstance(obj.get("kind"), str) else None
        )
        for position, item in enumerate(items or ()):
            if isinstance(item, dict):
                self._add_occurrence(item, document.index, (*prefix, position))

    def _add_occurrence(self, obj: JsonObject, document: int, path: JsonPath | None) -> None:
        kind, metadata = obj.get("kind"), obj.get("metadata")
        name = metadata.get("name") if isinstance(metadata, dict) else None
        if isinstance(kind, str) and isinstance(name, str):
            self._occurrences.setdefault((kind, name), []).append((document, path))

    def variable(self, finding: Finding) -> VarPath | None:
        """The variable path the finding's field comes from, or None when no entry matches."""
        subject = finding.subject
        embedded = subject.embedded_path
        kind = subject.embedded_kind if embedded is not None else subject.kind
        name = subject.embedded_name if embedded is not None else subject.name
        if kind is None or name is None:
            return None
        rel = finding.path[len(embedded) :] if embedded is not None else finding.path
        best: tuple[int, FieldOrigin, int | None] | None = None
        for origin, index in self._candidates(kind, name, subject.document, embedded):
            for field in origin.fields:
                length = len(field.path)
                if tuple(rel[:length]) == field.path and (best is None or length > best[0]):
                    best = (length, field, index)
        if best is None:
            return None
        length, field, index = best
        return self._extend(self._choose(field, index), rel[length:])

    def _candidates(
        self, kind: str, name: str, document: int | None, embedded: JsonPath | None
    ) -> list[tuple[ObjectOrigin, int | None]]:
        """Each matching entry once, with the index this very object binds: the n-th object of
        this kind and name binds the n-th index giving that name (duplicates)."""
        occurrences = self._occurrences.get((kind, name), [])
        here = (document, embedded) if document is not None else None
        ordinal = occurrences.index(here) if here in occurrences else 0
        by_origin: dict[int, list[tuple[ObjectOrigin, int | None]]] = {}
        for origin, index in self._objects.get((kind, name), []):
            by_origin.setdefault(id(origin), []).append((origin, index))
        return [group[min(ordinal, len(group) - 1)] for group in by_origin.values()]

    def _choose(self, field: FieldOrigin, index: int | None) -> VarPath:
        bound = [path for path in (_bind(v, index) for v in field.variables) if path is not None]
        for path in bound:
            if _is_set(_resolve(self._values, path)):
                return path
        return bound[-1] if bound else field.variables[-1][: field.variables[-1].index(WILDCARD)]

    def _extend(self, path: VarPath, rest: JsonPath) -> VarPath:
        for part in rest:
            longer = (*path, part)
            if _resolve(self._values, longer) is _MISSING:
                break
            path = longer
        return path


def describe(findings: Sequence[Finding], translator: Translator | None) -> list[str]:
    """One line per problem: ``VARIABLE: message (RULE) [gate]`` when the finding translates, else
    ``Kind/name[ > Kind/name]: path: message (RULE) [gate]`` (the gate as
    :meth:`Finding.gate_label` shows it). Variables first, in variable order. A
    variable feeds several objects (a pool: MachinePool, its infrastructure, the agent pool), so a
    rule that fails on each copy is one problem: the first finding per variable and rule is kept."""
    named: dict[tuple[VarPath, str], str] = {}
    located: list[str] = []
    for finding in findings:
        path = translator.variable(finding) if translator is not None else None
        if path is None:
            where = finding.display_path or OBJECT
            located.append(
                f"{finding.subject.label()}: {where}: {finding.message} ({finding.rule}) "
                f"{finding.gate_label()}"
            )
        else:
            named.setdefault(
                (path, finding.rule),
                f"{format_path(path)}: {finding.message} ({finding.rule}) {finding.gate_label()}",
            )
    ordered = sorted(named.items(), key=lambda item: (_sort_key(item[0][0]), item[0][1]))
    return [line for _, line in ordered] + list(dict.fromkeys(located))
