"""The largest value a schema node admits, as the API server's cost estimator sees it.

Kubernetes turns each schema node into a CEL type with a maximum size
(``k8s.io/apiserver/pkg/cel/common/schemas.go``): a list has ``maxItems`` elements, a map
``maxProperties`` entries, a string ``maxLength`` code points of up to 4 bytes each; without a
bound, as many as fit into one request of ``MaxRequestSizeBytes`` (3 MiB) given the smallest
serialized element (``""`` is 2 bytes, ``true`` 4, a number 1, ``{}`` 2 plus the required
properties, ``[]`` 2; a list element adds a comma, a map entry its key, quotes and colon). A
string with an ``enum`` is as long as its longest value; ``date``, ``date-time`` and ``duration``
strings have fixed maxima. :class:`Shape` answers those questions lazily, node by node, so a
large schema costs only the nodes a rule reaches.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from generator.cel.limits import MAX_REQUEST_SIZE_BYTES
from generator.jsontypes import Json

_REQUEST = MAX_REQUEST_SIZE_BYTES - 2  # without the brackets or quotes around the value
_FORMAT_LENGTH = {"date": 12, "date-time": 32, "duration": 32}  # apiserver/pkg/cel/limits.go
_FORMAT_MIN_SIZE = {"date": 12, "date-time": 21, "duration": 3}
_MIN_SIZE = {"string": 2, "boolean": 4, "number": 1, "integer": 1, "array": 2}
_DEPTH = 64  # required-property chains deeper than this are not followed (recursive schemas)


def _bound(node: Mapping[str, Json], key: str) -> int | None:
    value = node.get(key)
    if isinstance(value, int) and not isinstance(value, bool):
        return max(value, 0)
    return None


def _type(node: Mapping[str, Json]) -> str | None:
    declared = node.get("type")
    if isinstance(declared, str):
        return declared
    if isinstance(declared, list):
        named = [t for t in declared if isinstance(t, str) and t != "null"]
        return named[0] if len(named) == 1 else None
    return None


@dataclass(eq=False)
class Shape:
    """One schema node (``$ref`` resolved against ``root``) and the sizes it allows."""

    node: Mapping[str, Json]
    root: Mapping[str, Json] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.node = _resolved(self.node, self.root)

    @property
    def kind(self) -> str:
        """``list``, ``map``, ``object``, ``string`` or ``scalar`` (``dyn`` when unknown)."""
        node = self.node
        if node.get("x-kubernetes-int-or-string") is True:
            return "string"
        declared = _type(node)
        if declared == "array":
            return "list"
        if declared == "object" or (declared is None and "properties" in node):
            return "map" if isinstance(node.get("additionalProperties"), Mapping) else "object"
        if declared == "string":
            return "string"
        return "scalar" if declared in ("boolean", "integer", "number") else "dyn"

    def max_size(self) -> int:
        """The most elements (list), entries (map), or characters (string) the node allows."""
        kind, node = self.kind, self.node
        if kind == "list":
            bound = _bound(node, "maxItems")
            return bound if bound is not None else _REQUEST // (self.element().min_size() + 1)
        if kind in ("map", "object"):
            bound = _bound(node, "maxProperties")
            if bound is not None:
                return bound
            return _REQUEST // (self.element().min_size() + 6)
        if kind == "string":
            return self._max_length()
        if kind == "dyn":
            return _REQUEST
        return 1

    def _max_length(self) -> int:
        node = self.node
        bound = _bound(node, "maxLength")
        if bound is not None:
            return bound * 4  # maxLength counts code points; the estimator counts bytes
        if node.get("x-kubernetes-int-or-string") is True:
            return _REQUEST
        enum = node.get("enum")
        if isinstance(enum, list) and enum:
            return max((len(v) for v in enum if isinstance(v, str)), default=0)
        fmt = node.get("format")
        return _FORMAT_LENGTH.get(fmt, _REQUEST) if isinstance(fmt, str) else _REQUEST

    def min_size(self, depth: int = 0) -> int:
        """The fewest bytes a value of this node serializes to."""
        node = self.node
        if node.get("x-kubernetes-int-or-string") is True:
            return 1
        declared = _type(node)
        if declared == "string":
            fmt = node.get("format")
            return _FORMAT_MIN_SIZE.get(fmt, 2) if isinstance(fmt, str) else 2
        if declared == "object" or (declared is None and "properties" in node):
            return self._object_min_size(depth)
        return _MIN_SIZE.get(declared or "", 1)

    def _object_min_size(self, depth: int) -> int:
        size = 2
        required = self.node.get("required")
        properties = self.node.get("properties")
        if depth >= _DEPTH or not isinstance(required, list):
            return size
        if not isinstance(properties, Mapping):
            return size
        for name in required:
            sub = properties.get(name) if isinstance(name, str) else None
            if isinstance(sub, Mapping) and "default" not in sub:
                size += len(name) + 4 + Shape(sub, self.root).min_size(depth + 1)
        return size

    def element(self) -> Shape:
        """What a list holds, what a map maps to (an unknown shape when undeclared)."""
        node = self.node
        sub = node.get("items") if self.kind == "list" else node.get("additionalProperties")
        return Shape(sub if isinstance(sub, Mapping) else {}, self.root)

    def key(self) -> Shape:
        """The keys of a map or object: strings bounded by the request size."""
        return Shape({"type": "string"}, self.root)

    def field(self, name: str) -> Shape:
        """A property by its CEL name (escaped names are matched too); unknown when absent."""
        properties = self.node.get("properties")
        if isinstance(properties, Mapping):
            sub = properties.get(name)
            if sub is None:
                sub = properties.get(_unescape(name))
            if isinstance(sub, Mapping):
                return Shape(sub, self.root)
        if self.kind == "map":
            return self.element()
        return Shape({}, self.root)


def _resolved(node: Mapping[str, Json], root: Mapping[str, Json]) -> Mapping[str, Json]:
    for _ in range(_DEPTH):
        ref = node.get("$ref")
        if not isinstance(ref, str) or not ref.startswith("#/"):
            return node
        target: Json = root
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            target = target.get(part) if isinstance(target, Mapping) else None
        if not isinstance(target, Mapping):
            return node
        node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
    return node


def _unescape(name: str) -> str:
    if name.startswith("__") and name.endswith("__") and name[2:-2].isidentifier():
        inner = name[2:-2]
        if "__" not in inner:
            return inner
    return (
        name.replace("__dash__", "-")
        .replace("__dot__", ".")
        .replace("__slash__", "/")
        .replace("__underscores__", "__")
    )


def cardinality_step(shape: Shape) -> int:
    """How many times a rule below a list's items or a map's values can run per element of the
    enclosing value: the list's or map's maximum size."""
    return max(shape.max_size(), 1)
