"""Typed values from several ``--values`` files and ``--set`` flags, merged the way helm merges
them, so a platform team's habits carry over: a base file, then an environment's file over it,
then a one-off ``--set`` on the command line.

* Later files override earlier ones; mappings merge key by key, at every depth; anything else
  (lists included) is replaced whole. A list is not merged item by item because nothing says
  which items correspond (helm does the same).
* ``--set PATH=VALUE`` sets one value above every file. ``PATH`` is dotted keys with ``[N]``
  list indexes (``NODE_POOLS[0].replicas=3``; a ``.`` inside a key is written ``\\.``). ``VALUE``
  is read as a YAML scalar (``3`` is a number, ``true`` a boolean, ``null`` null, ``"3"`` a
  string), and ``{a,b}`` is a list of such scalars, as in helm.

Pure functions: the CLI reads the files and hands their mappings here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import yaml

from generator.errors import UsageError
from generator.jsontypes import Json, JsonObject

_INDEX = re.compile(r"\[(\d+)\]")
_MAX_INDEX = 10_000  # a list index above this is a typo, not a list capzgen should build


def merge_values(under: Mapping[str, Json], over: Mapping[str, Json]) -> JsonObject:
    """``over`` merged onto ``under``: mappings merge at every depth, other values replace."""
    merged: JsonObject = dict(under)
    for key, value in over.items():
        below = merged.get(key)
        if isinstance(below, dict) and isinstance(value, dict):
            merged[key] = merge_values(below, value)
        else:
            merged[key] = value
    return merged


def contains(values: Mapping[str, Json], path: Sequence[str | int]) -> bool:
    """Whether ``path`` leads to a value in ``values``."""
    node: Json = dict(values)
    for part in path:
        if isinstance(part, int):
            if not isinstance(node, list) or part >= len(node):
                return False
            node = node[part]
        else:
            if not isinstance(node, dict) or part not in node:
                return False
            node = node[part]
    return True


def parse_set(item: str) -> tuple[list[str | int], Json]:
    """``--set PATH=VALUE`` as a path (keys and list indexes) and a typed value."""
    raw_path, sep, raw_value = item.partition("=")
    if not sep or not raw_path:
        msg = f"invalid --set {item!r}: expected PATH=VALUE, e.g. NODE_POOLS[0].replicas=3"
        raise UsageError(msg)
    return _path(raw_path, item), _value(raw_value)


def _path(text: str, item: str) -> list[str | int]:
    path: list[str | int] = []
    keys = re.split(r"(?<!\\)\.", text)
    for key in keys:
        name, _, rest = key.partition("[")
        rest = f"[{rest}" if rest else ""
        indexes = _INDEX.findall(rest)
        if not name or _INDEX.sub("", rest):
            msg = f"invalid --set {item!r}: {key!r} is not a key with optional [N] indexes"
            raise UsageError(msg)
        path.append(name.replace("\\.", "."))
        for index in indexes:
            number = int(index)
            if number > _MAX_INDEX:
                msg = f"invalid --set {item!r}: list index {number} is above {_MAX_INDEX}"
                raise UsageError(msg)
            path.append(number)
    return path


def _value(text: str) -> Json:
    if text.startswith("{") and text.endswith("}"):
        inner = text[1:-1]
        return [_scalar(part) for part in inner.split(",")] if inner else []
    return _scalar(text)


def _scalar(text: str) -> Json:
    try:
        value = yaml.safe_load(text) if text else ""
    except yaml.YAMLError:
        return text
    if value is None and text.strip().lower() not in {"null", "~"}:
        return text  # a comment, say: kept as written
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return text  # a mapping or a date: --set takes scalars only, as written


def set_value(values: Mapping[str, Json], path: Sequence[str | int], value: Json) -> JsonObject:
    """A copy of ``values`` with ``value`` at ``path``; missing mappings and list items on the
    way are made (a list grows with nulls to reach an index, as helm's does)."""
    root: JsonObject = dict(values)
    _put(root, list(path), value)
    return root


def _put(node: JsonObject | list[Json], path: list[str | int], value: Json) -> None:
    head, rest = path[0], path[1:]
    child: Json
    if isinstance(node, dict):
        assert isinstance(head, str), "the parser puts a key first"
        if not rest:
            node[head] = value
            return
        child = node.get(head)
        child = _copied_for(child, rest[0])
        node[head] = child
    else:
        assert isinstance(head, int), "an index follows a list"
        node.extend([None] * (head + 1 - len(node)))
        if not rest:
            node[head] = value
            return
        child = _copied_for(node[head], rest[0])
        node[head] = child
    _put(child, rest, value)


def _copied_for(child: Json, step: str | int) -> JsonObject | list[Json]:
    """``child`` copied (the caller's values are never changed), or a new container for a path
    that goes on with ``step``."""
    if isinstance(step, int):
        return list(child) if isinstance(child, list) else []
    return dict(child) if isinstance(child, dict) else {}
