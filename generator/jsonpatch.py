"""The RFC algorithms behind ``--patch``: RFC 7386 JSON merge patch, RFC 6901 JSON pointers and
RFC 6902 JSON Patch, as small pure functions that never modify their arguments.

Kept apart from :mod:`generator.generate.patches` (patch files, targets, fleets) because they know nothing
about Kubernetes objects, and because ``capzgen migrate`` applies CAPZ's merge patches with them.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Mapping, Sequence

from generator.jsontypes import Json

_INDEX = re.compile(r"^(0|[1-9][0-9]*)$")


class PatchFailure(ValueError):
    """An RFC 6902 operation or a JSON pointer failed (turned into a PatchError with context)."""

    def __init__(self, message: str, *, operation: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.operation = operation


def json_type_name(value: Json) -> str:
    """How error messages name a JSON value's type."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    return "mapping" if isinstance(value, dict) else type(value).__name__


# --- RFC 7386 ------------------------------------------------------------------------------------


def merge_patch(target: Json, patch: Json) -> Json:
    """RFC 7386 MergePatch(target, patch); neither argument is modified.

    A mapping patch merges key by key (``null`` removes the key); any other patch value, lists
    included, replaces the target.
    """
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


# --- RFC 6901 / RFC 6902 -------------------------------------------------------------------------


def parse_pointer(pointer: str) -> list[str]:
    """RFC 6901 reference tokens: ``""`` -> ``[]``, ``"/a~1b/~0c"`` -> ``["a/b", "~c"]``."""
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        msg = f"JSON pointer {pointer!r} must be empty or start with '/'"
        raise PatchFailure(msg)
    tokens = pointer[1:].split("/")
    for token in tokens:
        if re.search(r"~(?![01])", token):
            msg = f"JSON pointer {pointer!r} has an invalid escape ('~' must be ~0 or ~1)"
            raise PatchFailure(msg)
    return [token.replace("~1", "/").replace("~0", "~") for token in tokens]


def _pointer(tokens: Sequence[str]) -> str:
    return "".join("/" + t.replace("~", "~0").replace("/", "~1") for t in tokens)


def _index(token: str, length: int, *, pointer: Sequence[str], allow_end: bool) -> int:
    if not _INDEX.match(token):
        msg = f"{_pointer(pointer)!r}: {token!r} is not a list index"
        raise PatchFailure(msg)
    index = int(token)
    limit = length if allow_end else length - 1
    if index > limit:
        msg = f"{_pointer(pointer)!r}: index {index} is out of range (the list has {length} items)"
        raise PatchFailure(msg)
    return index


def _get(document: Json, tokens: Sequence[str]) -> Json:
    current = document
    for depth, token in enumerate(tokens):
        seen = tokens[: depth + 1]
        if isinstance(current, dict):
            if token not in current:
                msg = f"{_pointer(seen)!r} does not exist"
                raise PatchFailure(msg)
            current = current[token]
        elif isinstance(current, list):
            current = current[_index(token, len(current), pointer=seen, allow_end=False)]
        else:
            parent = repr(_pointer(tokens[:depth])) if depth else "the object"
            msg = f"{_pointer(seen)!r} does not exist: {parent} is a {json_type_name(current)}"
            raise PatchFailure(msg)
    return current


def _container(document: Json, tokens: Sequence[str]) -> Json:
    parent = _get(document, tokens[:-1])
    if not isinstance(parent, dict | list):
        msg = (
            f"{_pointer(tokens)!r}: the parent is a {json_type_name(parent)}, not a mapping or list"
        )
        raise PatchFailure(msg)
    return parent


def _add(document: Json, tokens: Sequence[str], value: Json) -> Json:
    if not tokens:
        return value
    parent, token = _container(document, tokens), tokens[-1]
    if isinstance(parent, dict):
        parent[token] = value
    elif token == "-":
        parent.append(value)
    else:
        parent.insert(_index(token, len(parent), pointer=tokens, allow_end=True), value)
    return document


def _remove(document: Json, tokens: Sequence[str]) -> tuple[Json, Json]:
    """Returns the document and the removed value."""
    if not tokens:
        msg = "cannot remove the whole object"
        raise PatchFailure(msg)
    parent, token = _container(document, tokens), tokens[-1]
    if isinstance(parent, dict):
        if token not in parent:
            msg = f"{_pointer(tokens)!r} does not exist"
            raise PatchFailure(msg)
        return document, parent.pop(token)
    return document, parent.pop(_index(token, len(parent), pointer=tokens, allow_end=False))


def json_equal(left: Json, right: Json) -> bool:
    """JSON value equality (RFC 6902 ``test``): unlike ``==``, ``true`` is not ``1``."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return left == right
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(json_equal(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(json_equal, left, right))
    return type(left) is type(right) and left == right


def _operation(document: Json, operation: Mapping[str, Json]) -> Json:
    op = operation.get("op")
    tokens = parse_pointer(_string(operation, "path"))
    apply = _OPERATIONS.get(op) if isinstance(op, str) else None
    if apply is None:
        msg = f"unknown operation {op!r}"
        raise PatchFailure(msg)
    return apply(document, tokens, operation)


def _op_add(document: Json, tokens: list[str], operation: Mapping[str, Json]) -> Json:
    return _add(document, tokens, copy.deepcopy(_member(operation, "value")))


def _op_remove(document: Json, tokens: list[str], operation: Mapping[str, Json]) -> Json:
    return _remove(document, tokens)[0]


def _op_replace(document: Json, tokens: list[str], operation: Mapping[str, Json]) -> Json:
    value = copy.deepcopy(_member(operation, "value"))
    if not tokens:
        return value
    parent, token = _container(document, tokens), tokens[-1]
    if isinstance(parent, dict):
        if token not in parent:
            msg = f"{_pointer(tokens)!r} does not exist"
            raise PatchFailure(msg)
        parent[token] = value
    else:
        parent[_index(token, len(parent), pointer=tokens, allow_end=False)] = value
    return document


def _op_move(document: Json, tokens: list[str], operation: Mapping[str, Json]) -> Json:
    source = parse_pointer(_string(operation, "from"))
    if tokens[: len(source)] == source and len(tokens) > len(source):
        msg = "cannot move a value into one of its own children"
        raise PatchFailure(msg)
    if tokens == source:
        _get(document, source)
        return document
    document, value = _remove(document, source)
    return _add(document, tokens, value)


def _op_copy(document: Json, tokens: list[str], operation: Mapping[str, Json]) -> Json:
    source = parse_pointer(_string(operation, "from"))
    return _add(document, tokens, copy.deepcopy(_get(document, source)))


def _op_test(document: Json, tokens: list[str], operation: Mapping[str, Json]) -> Json:
    actual = _get(document, tokens)
    expected = _member(operation, "value")
    if not json_equal(actual, expected):
        where = repr(_pointer(tokens)) if tokens else "the object"
        msg = f"test failed: {where} is {_show(actual)}, expected {_show(expected)}"
        raise PatchFailure(msg)
    return document


# RFC 6902 operations: (document, parsed "path", the operation) -> the patched document.
_OPERATIONS: dict[str, Callable[[Json, list[str], Mapping[str, Json]], Json]] = {
    "add": _op_add,
    "remove": _op_remove,
    "replace": _op_replace,
    "move": _op_move,
    "copy": _op_copy,
    "test": _op_test,
}


def _member(operation: Mapping[str, Json], name: str) -> Json:
    if name not in operation:
        msg = f"operation {operation.get('op')!r} needs {name!r}"
        raise PatchFailure(msg)
    return operation[name]


def _string(operation: Mapping[str, Json], name: str) -> str:
    value = _member(operation, name)
    if not isinstance(value, str):
        msg = f"{name!r} must be a JSON pointer string"
        raise PatchFailure(msg)
    return value


def _show(value: Json) -> str:
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


# The API server's bounds since CVE-2019-1002100: a patch may not have more operations than this,
# and ``copy`` may not grow an object without limit (40 doubling copies of a small value would
# need terabytes). The size is JSON-like: scalar bytes plus a few bytes per node.
MAX_PATCH_OPERATIONS = 10_000
MAX_PATCHED_SIZE = 32 * 1024 * 1024


def json_size(value: Json, limit: int) -> int:
    """About the size of ``value`` as JSON; counting stops once it passes ``limit``."""
    total = 0
    stack = [value]
    while stack and total <= limit:
        node = stack.pop()
        if isinstance(node, dict):
            total += 2 + sum(len(str(key)) + 4 for key in node)
            stack.extend(node.values())
        elif isinstance(node, list):
            total += 2 + len(node)
            stack.extend(node)
        else:
            total += len(str(node)) + 2
    return total


def apply_json_patch(document: Json, operations: Sequence[Mapping[str, Json]]) -> Json:
    """RFC 6902: apply ``operations`` in order to a copy of ``document`` and return it.

    Raises PatchFailure (with the 0-based index of the failing operation) on a bad pointer, a
    missing member, an index out of range, a failed ``test``, or a result larger than
    MAX_PATCHED_SIZE; the document is left untouched.
    """
    if len(operations) > MAX_PATCH_OPERATIONS:
        msg = (
            f"a JSON patch may have at most {MAX_PATCH_OPERATIONS:,} operations "
            f"(this one has {len(operations):,})"
        )
        raise PatchFailure(msg)
    size = json_size(document, MAX_PATCHED_SIZE)
    result = copy.deepcopy(document)
    for index, operation in enumerate(operations):
        try:
            if isinstance(operation, Mapping) and operation.get("op") == "copy":
                source = parse_pointer(_string(operation, "from"))
                size += json_size(_get(result, source), MAX_PATCHED_SIZE)
                if size > MAX_PATCHED_SIZE:
                    msg = (
                        f"copying {operation['from']!r} would make the object larger than "
                        f"{MAX_PATCHED_SIZE // (1024 * 1024)} MiB"
                    )
                    raise PatchFailure(msg)
            result = _operation(result, operation)
        except PatchFailure as failure:
            raise PatchFailure(failure.message, operation=index) from None
    return result
