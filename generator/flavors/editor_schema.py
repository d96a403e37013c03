"""A flavor's variables as one JSON Schema (draft 2020-12) for values files, as editors use them.

Like Helm's ``values.schema.json``: a YAML language server given this schema completes variable
names, shows each description and default, and marks a mistyped name (``NODE_POOL``) or field
(``vmsize``) before capzgen runs. The top level is closed because capzgen refuses names a flavor
does not use (``--allow-unknown-vars`` aside); nested objects are as open or closed as the
flavor declares them. Nothing is required: a value may come from ``--var``, the environment or
the clusterctl config file instead.
"""

from __future__ import annotations

import copy

from generator.flavors.model import Flavor
from generator.jsontypes import JsonObject

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"


def editor_schema(flavor: Flavor) -> JsonObject:
    """The values-file schema of ``flavor``: every variable's own schema (descriptions,
    defaults, nested item fields), unknown names refused."""
    return {
        "$schema": DRAFT_2020_12,
        "title": f"capzgen values for flavor {flavor.name}",
        "description": flavor.description,
        "type": "object",
        "properties": {
            name: copy.deepcopy(spec.schema) for name, spec in sorted(flavor.variables.items())
        },
        "additionalProperties": False,
    }
