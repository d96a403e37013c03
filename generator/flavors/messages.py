"""Messages for variable values that break their schema, written for the person who typed them.

The validator's own wording names regular expressions and lists every enum member; a person
wants the nearest right value: ``vmsize`` -> ``vmSize`` (an object field, with the values file's
line), ``Sytem`` -> ``System`` (an enum) and ``West Europe`` -> ``westeurope`` (a region). A
variable's schema says what kind of text a pattern stands for with ``format`` (``azure-region``,
``azure-vm-size``, ``kubernetes-version``) and the messages use them. ``azure-vm-size`` is also
the check itself (:data:`VALUE_FORMATS`), the Python function ``validate`` applies too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import jsonschema_rs

from generator.azure_data import (
    KUBERNETES_VERSION_SHAPE,
    VM_SIZE_SHAPE,
    is_vm_size_name,
    nearest_regions,
)
from generator.jsontypes import Json
from generator.suggest import did_you_mean

FORMAT_KEY = "format"


def _region(value: str) -> str:
    nearest = nearest_regions(value)
    guess = f"; did you mean {' or '.join(nearest)}?" if nearest else ""
    return (
        f"{value!r} is not an Azure region name (lower-case letters and digits, as "
        f"`az account list-locations -o table` names them, e.g. westeurope){guess}"
    )


def _vm_size(value: str) -> str:
    return f"{value!r} is not a VM size name ({VM_SIZE_SHAPE})"


def _kubernetes_version(value: str) -> str:
    return f"{value!r} is not a Kubernetes version ({KUBERNETES_VERSION_SHAPE})"


# format -> the message for a value its pattern refuses
_PATTERN_MESSAGES: dict[str, Callable[[str], str]] = {
    "azure-region": _region,
    "azure-vm-size": _vm_size,
    "kubernetes-version": _kubernetes_version,
}


# format -> the Python check of a value: the same function ``validate``'s rule calls, where a
# regular expression in each flavor.yaml would drift from it (it did: it refused lower case)
VALUE_FORMATS: dict[str, Callable[[str], bool]] = {"azure-vm-size": is_vm_size_name}


def subschema(schema: Mapping[str, Json], schema_path: list[str | int]) -> Mapping[str, Json]:
    """The part of ``schema`` at ``schema_path`` (a validator error's path, keyword excluded)."""
    node: Json = schema
    for part in schema_path:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return {}
    return node if isinstance(node, Mapping) else {}


def unknown_fields(
    error: jsonschema_rs.ValidationError, schema: Mapping[str, Json]
) -> list[tuple[str, str]]:
    """For an ``additionalProperties: false`` error: each unexpected field with its message,
    ``unknown field 'vmsize'; did you mean vmSize?``."""
    owner = subschema(schema, list(error.schema_path)[:-1])
    fields = list(owner.get("properties", {}))
    return [
        (str(name), f"unknown field {name!r}{did_you_mean(str(name), fields)}")
        for name in getattr(error.kind, "unexpected", [])
    ]


def value_message(error: jsonschema_rs.ValidationError, schema: Mapping[str, Json]) -> str:
    """The message for one schema error about a value (not about unknown fields)."""
    kind = type(error.kind).__name__
    value = error.instance
    if kind == "Enum" and isinstance(value, str):
        options = [str(option) for option in getattr(error.kind, "options", [])]
        return f"{value!r} is not one of {', '.join(options)}{did_you_mean(value, options)}"
    if kind in ("Pattern", "Format") and isinstance(value, str):
        owner = subschema(schema, list(error.schema_path)[:-1])
        describe = _PATTERN_MESSAGES.get(str(owner.get(FORMAT_KEY, "")))
        if describe is not None:
            return describe(value)
    return str(error.message)
