"""ASO's admission check of its CEL expressions (``spec.operatorSpec.configMapExpressions`` and
``secretExpressions``).

Every ASO resource's webhook hands each expression to ``configmaps.ValidateDestinations`` /
``secrets.ValidateDestinations``, which compile it (``v2/internal/util/cel``) in an environment
where ``self`` is the resource's Go type (``spec``, ``status`` and ``metadata`` as ObjectMeta) and
``secret`` a ``map(string, string)``, and refuse the resource when it does not parse, does not
type-check (a field the type lacks, an undeclared name), returns something other than ``string``
or ``map(string, string)``, or returns a string without ``key`` (a map with one).

capzgen has no CEL type checker, so this is a conservative one: it parses with cel-python and
follows ``self.a.b[...]`` selections through the resource's JSON schema (generated from the same
Go types), judging only what the schema states for certain. A construct it does not understand
(optional syntax, dyn values, preserved-unknown fields, functions' result types) is never reported.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from generator.cel.rules import NAMESPACES
from generator.cel.shapes import Shape
from generator.checks.rules.base import Rule
from generator.findings import Finding, Gate, Severity
from generator.jsontypes import Json, JsonObject, dig
from generator.model.manifests import AsoResource, ManifestSet
from generator.model.values import as_dict, as_list, known_str
from generator.names import valid_api_version
from generator.schemastore.types import SchemaLookup

if TYPE_CHECKING:
    from generator.cel.syntax import Ast, AstNode

_LISTS = ("configMapExpressions", "secretExpressions")

# What ASO's environment declares besides self and secret: CEL's type names (usable as values).
_TYPE_NAMES = frozenset(
    {"int", "uint", "double", "bool", "string", "bytes", "list", "map", "null_type", "type", "dyn"}
)
# Macros and comprehensions whose leading arguments bind iteration variables.
_BINDING = frozenset(
    {
        "all",
        "exists",
        "exists_one",
        "existsOne",
        "map",
        "filter",
        "transformList",
        "transformMap",
        "transformMapEntry",
        "sortBy",
    }
)
# Methods of ext.Strings (v3) and the standard library that return a string.
_STRING_METHODS = frozenset(
    {
        "format",
        "join",
        "replace",
        "lowerAscii",
        "upperAscii",
        "trim",
        "substring",
        "charAt",
        "reverse",
    }
)
_STRING_TYPE: Mapping[str, Json] = {"type": "string"}
_STRING_MAP: Mapping[str, Json] = {"type": "object", "additionalProperties": {"type": "string"}}
_LIST: Mapping[str, Json] = {"type": "array"}
# metav1.ObjectMeta as cel-go sees the Go struct (the schemas leave metadata open).
_OBJECT_META: Mapping[str, Json] = {
    "type": "object",
    "properties": {
        "name": _STRING_TYPE,
        "generateName": _STRING_TYPE,
        "namespace": _STRING_TYPE,
        "selfLink": _STRING_TYPE,
        "uid": _STRING_TYPE,
        "resourceVersion": _STRING_TYPE,
        "generation": {"type": "integer"},
        "creationTimestamp": {},
        "deletionTimestamp": {},
        "deletionGracePeriodSeconds": {"type": "integer"},
        "labels": _STRING_MAP,
        "annotations": _STRING_MAP,
        "ownerReferences": _LIST,
        "finalizers": {"type": "array", "items": _STRING_TYPE},
        "managedFields": _LIST,
    },
}
_ASO_KEYWORDS = frozenset({"true", "false", "null", "in"})


def aso_cel_name(prop: str) -> str:
    """The name ASO's environment gives a JSON property (cel.go escapeFieldName: Kubernetes'
    escaping, but of the keywords only true, false, null and in)."""
    if prop in _ASO_KEYWORDS:
        return f"__{prop}__"
    return (
        prop.replace("__", "__underscores__")
        .replace(".", "__dot__")
        .replace("-", "__dash__")
        .replace("/", "__slash__")
    )


@dataclass
class Analysis:
    """What the check found in one expression: problems ASO's compiler reports, and the output
    type when it is certain (``string``, ``map(string, string)`` or another type's name)."""

    problems: list[str] = field(default_factory=list)
    output: str | None = None


class _Checker:
    """Types the ``self``-rooted selections of one parse tree against the resource's schema."""

    def __init__(self, schema: Mapping[str, Json] | None) -> None:
        self.root: Mapping[str, Json] = schema or {}
        self.self_node: Mapping[str, Json] | None = None
        if schema is not None:
            properties = schema.get("properties")
            if isinstance(properties, Mapping):
                self.self_node = {
                    **schema,
                    "properties": {**properties, "metadata": _OBJECT_META},
                }
        self.bound: set[str] = set()
        self.problems: list[str] = []

    # -- the walk ----------------------------------------------------------------------------
    def run(self, tree: Ast) -> Analysis:
        self._collect_bound(tree)
        self._walk(tree)
        return Analysis(self.problems, self._output(tree))

    def _collect_bound(self, tree: Ast) -> None:
        for node in tree.iter_subtrees():
            if node.data == "member_dot_arg" and len(node.children) == 3:
                method, args = node.children[1], node.children[2]
                if str(method) in _BINDING and not isinstance(args, str):
                    for arg in args.children[:-1]:
                        name = _ident(arg)
                        if name is not None:
                            self.bound.add(name)

    def _walk(self, node: Ast) -> None:
        if node.data == "member_dot" and len(node.children) == 2:
            self._check_select(node)
        name = _ident(node)
        if name is not None and not self._declared(name):
            self.problems.append(
                f"undeclared reference to {name!r} (ASO declares self and secret"
                + (
                    f"; did you mean self.{name}?)"
                    if name in ("spec", "status", "metadata")
                    else ")"
                )
            )
        for child in node.children:
            if not isinstance(child, str):
                self._walk(child)

    def _declared(self, name: str) -> bool:
        return (
            name in ("self", "secret", "cel", "google")
            or name in self.bound
            or name in _TYPE_NAMES
            or name in NAMESPACES
        )

    def _check_select(self, node: Ast) -> None:
        operand, name = node.children[0], str(node.children[1])
        if isinstance(operand, str):
            return
        parent = self._type_of(operand)
        if parent is None:
            return
        shape = Shape(parent, self.root)
        kind, resolved = shape.kind, shape.node
        if kind == "object" and _closed(resolved):
            if _property(resolved, name) is None:
                where = _text(operand)
                self.problems.append(
                    f"undefined field {name!r} at {where}.{name} ({where} has {_fields(resolved)})"
                )
        elif kind in ("scalar", "list") or (kind == "string" and _plain_string(resolved)):
            self.problems.append(
                f"{_text(operand)} is a {_type_name(resolved, kind)}, which has no field {name!r}"
            )

    # -- types -------------------------------------------------------------------------------
    def _type_of(self, node: Ast) -> Mapping[str, Json] | None:
        """The schema node a ``self``-rooted selection or index resolves to; None when unknown."""
        if node.data == "primary" and len(node.children) == 1:
            child = node.children[0]
            return None if isinstance(child, str) else self._type_of(child)
        if node.data == "ident" and node.children and str(node.children[0]) == "self":
            return self.self_node if "self" not in self.bound else None
        if node.data in ("member_dot", "member_index") and len(node.children) == 2:
            operand = node.children[0]
            parent = None if isinstance(operand, str) else self._type_of(operand)
            if parent is None:
                return None
            shape = Shape(parent, self.root)
            if node.data == "member_index":
                return shape.element().node if shape.kind in ("list", "map") else None
            if shape.kind == "map":
                return shape.element().node
            if shape.kind == "object" and _closed(shape.node):
                return _property(shape.node, str(node.children[1]))
        return None

    def _output(self, tree: Ast) -> str | None:
        """The expression's result type when certain: ``string``, ``map(string, string)`` or the
        name of a type ASO refuses; None when not known for certain."""
        node = _unwrap(tree)
        if node.data == "addition" and len(node.children) == 2:
            # cel-python's shape of a + b: addition(addition_add(a), b)
            left, right = node.children
            if isinstance(left, str) or isinstance(right, str) or left.data != "addition_add":
                return None
            sides = [c for c in (*left.children, right) if not isinstance(c, str)]
            return "string" if any(self._output(side) == "string" for side in sides) else None
        written = _written_output(node)
        if written is not None:
            return written or None
        resolved = self._type_of(node)
        return None if resolved is None else self._schema_output(Shape(resolved, self.root))

    def _schema_output(self, shape: Shape) -> str | None:
        kind, schema = shape.kind, shape.node
        if kind == "string":
            return "string" if _plain_string(schema) else None
        if kind == "map":
            element = shape.element()
            if element.kind == "string":
                return "map(string, string)" if _plain_string(element.node) else None
            if element.kind in ("scalar", "list", "map") or (
                element.kind == "object" and _closed(element.node)
            ):
                return f"map(string, {_type_name(element.node, element.kind)})"
            return None
        if kind in ("scalar", "list") or (kind == "object" and _closed(schema)):
            return _type_name(schema, kind)
        return None


def _written_output(node: Ast) -> str | None:
    """``string`` for a string literal, ``string()`` or a string method's result; ``""`` for
    another literal or call (type not judged); None when the node is none of these."""
    literal = _literal_type(node)
    if literal is not None:
        return literal
    if node.data == "ident_arg":
        return "string" if str(node.children[0]) == "string" else ""
    if node.data == "member_dot_arg":
        return "string" if str(node.children[1]) in _STRING_METHODS else ""
    return None


def _unwrap(node: Ast) -> Ast:
    """The node below wrappers that only hand a single child on (``primary``, ``expr`` ...)."""
    while (
        node.data in ("primary", "expr", "addition", "member")
        and len(node.children) == 1
        and not isinstance(node.children[0], str)
    ):
        node = node.children[0]
    return node


def _literal(node: Ast) -> str | None:
    """The text of a literal (``literal`` or ``primary > literal``), else None."""
    if node.data == "primary" and len(node.children) == 1 and not isinstance(node.children[0], str):
        node = node.children[0]
    if node.data == "literal" and node.children:
        return str(node.children[0])
    return None


_LITERAL_TYPES = {
    "STRING_LIT": "string",
    "MLSTRING_LIT": "string",
    "INT_LIT": "int",
    "UINT_LIT": "uint",
    "FLOAT_LIT": "double",
    "BOOL_LIT": "bool",
    "NULL_LIT": "null_type",
    "BYTES_LIT": "bytes",
}


def _literal_type(node: Ast) -> str | None:
    """The type of a literal (``""`` when its token is not known), else None."""
    if node.data == "primary" and len(node.children) == 1 and not isinstance(node.children[0], str):
        node = node.children[0]
    if node.data != "literal" or not node.children:
        return None
    token = node.children[0]
    return _LITERAL_TYPES.get(getattr(token, "type", ""), "")


def _ident(node: AstNode) -> str | None:
    """The name a bare identifier node refers to (``primary > ident``), else None."""
    if isinstance(node, str) or node.data != "primary" or len(node.children) != 1:
        return None
    child = node.children[0]
    if not isinstance(child, str) and child.data == "ident" and child.children:
        return str(child.children[0])
    return None


def _closed(node: Mapping[str, Json]) -> bool:
    """An object whose fields the schema lists completely (a Go struct)."""
    return (
        isinstance(node.get("properties"), Mapping)
        and node.get("x-kubernetes-preserve-unknown-fields") is not True
        and node.get("additionalProperties") in (None, False)
    )


def _property(node: Mapping[str, Json], name: str) -> Mapping[str, Json] | None:
    properties = node.get("properties")
    if not isinstance(properties, Mapping):
        return None
    for prop, sub in properties.items():
        if aso_cel_name(prop) == name and isinstance(sub, Mapping):
            return sub
    return None


def _fields(node: Mapping[str, Json]) -> str:
    properties = node.get("properties")
    names = sorted(aso_cel_name(p) for p in properties) if isinstance(properties, Mapping) else []
    shown = ", ".join(names[:12]) + (", ..." if len(names) > 12 else "")
    return f"the fields {shown}" if names else "no fields"


def _plain_string(node: Mapping[str, Json]) -> bool:
    """A string Go keeps as a string (not a date-time, which is a metav1.Time struct, or an
    int-or-string)."""
    return node.get("x-kubernetes-int-or-string") is not True and "format" not in node


def _type_name(node: Mapping[str, Json], kind: str) -> str:
    if kind == "list":
        return "list"
    if kind in ("object", "map"):
        return "map" if kind == "map" else "object"
    declared = node.get("type")
    names = {"integer": "int", "number": "double", "boolean": "bool", "string": "string"}
    if isinstance(declared, list):
        declared = next((t for t in declared if t != "null"), None)
    return names.get(declared, "value") if isinstance(declared, str) else "value"


def _text(node: AstNode) -> str:
    """``self.a.b[0]`` for a selection chain, as the user wrote it (roughly)."""
    if isinstance(node, str):
        return str(node)
    if node.data in ("primary", "ident") and len(node.children) == 1:
        return _text(node.children[0])
    if node.data == "member_dot" and len(node.children) == 2:
        return f"{_text(node.children[0])}.{node.children[1]}"
    if node.data == "member_index" and len(node.children) == 2:
        operand, index = node.children
        inner = None if isinstance(index, str) else _literal(index)
        return f"{_text(operand)}[{inner if inner is not None else '...'}]"
    return "(...)"


def analyse(expression: str, schema: Mapping[str, Json] | None) -> Analysis:
    """ASO's compile problems with ``expression`` for a resource of ``schema`` (None: syntax only).

    A syntax error is reported only where cel-go's grammar and cel-python's agree: optional
    syntax (``.?``, ``[?``) and text over the parser's limits are left alone."""
    # lazy: cel-python (and its parser) loads only when a resource carries an expression
    from generator.cel.runtime import CelLimitError, CelSyntaxError, parse

    try:
        tree = parse(expression)
    except CelLimitError:
        return Analysis()
    except CelSyntaxError as error:
        if ".?" in expression or "[?" in expression:
            return Analysis()
        return Analysis([f"syntax error{_column(error)}"])
    try:
        return _Checker(schema).run(tree)
    except RecursionError:  # pragma: no cover - parse() bounds the nesting
        return Analysis()


def _column(error: BaseException) -> str:
    lines = str(error.__cause__ or "").splitlines()
    if len(lines) > 1 and "^" in lines[1]:
        return f" at column {lines[1].index('^') + 1}"
    return ""


EXPRESSION = Rule(
    "ASO-EXPRESSION",
    "operatorSpec.configMapExpressions/secretExpressions values compile as ASO compiles them: "
    "CEL syntax, only self and secret, fields the resource's type has (spec, status, metadata), "
    "a string (with key) or map(string, string) (without key) result (§2.4, §4.6; ASO genruntime "
    "secrets/configmaps ValidateDestinations, internal/util/cel)",
    Severity.ERROR,
    Gate.ADMISSION,
)


def _schema_of(res: AsoResource, store: SchemaLookup | None) -> Mapping[str, Json] | None:
    if store is None or not valid_api_version(res.api_version) or not res.kind:
        return None
    handle = store.lookup(res.api_version, res.kind)
    schema = getattr(handle, "schema", None)
    return schema if isinstance(schema, Mapping) else None


def _expressions(res: AsoResource) -> Iterator[tuple[str, int, JsonObject, str]]:
    """(list name, index, entry, expression) of every expression with a known value."""
    operator = as_dict(dig(res.spec, "operatorSpec")) or {}
    for name in _LISTS:
        for index, item in enumerate(as_list(operator.get(name)) or ()):
            entry = as_dict(item)
            value = known_str(entry.get("value")) if entry is not None else None
            if entry is not None and value is not None:
                yield name, index, entry, value


@EXPRESSION.checks_with_schemas
def _check_expressions(ms: ManifestSet, store: SchemaLookup | None) -> Iterator[Finding]:
    for res in ms.resources:
        found = list(_expressions(res))
        if not found:
            continue
        schema = _schema_of(res, store)
        for name, index, entry, value in found:
            base = ("spec", "operatorSpec", name, index)
            analysis = analyse(value, schema)
            for problem in analysis.problems:
                yield EXPRESSION.at(
                    res,
                    (*base, "value"),
                    f"{value!r} does not compile for {res.api_version} {res.kind}: {problem}; "
                    "ASO's webhook refuses the resource",
                )
            if analysis.problems or analysis.output is None:
                continue
            key = entry.get("key")
            if analysis.output not in ("string", "map(string, string)"):
                yield EXPRESSION.at(
                    res,
                    (*base, "value"),
                    f"{value!r} returns {analysis.output}; ASO's webhook refuses the resource: an "
                    "expression must return string or map(string, string) (wrap it in string())",
                )
            elif analysis.output == "string" and not key:
                yield EXPRESSION.at(
                    res,
                    base,
                    f"{value!r} returns a string, so the destination needs a key; ASO's webhook "
                    "refuses the resource without one",
                )
            elif analysis.output == "map(string, string)" and key:
                yield EXPRESSION.at(
                    res,
                    (*base, "key"),
                    f"{value!r} returns a map(string, string), whose keys name the entries: ASO's "
                    "webhook refuses a key here",
                )
