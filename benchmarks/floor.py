"""The floor under ``capzgen validate`` in Python: what the fleet costs with nothing but the YAML
parse and the JSON Schemas, on every core.

``python -m benchmarks.floor SCHEMAS FLEET`` starts Python, imports only ryaml and jsonschema-rs,
forks one process per core, and each parses its share of the fleet's documents and checks every
object and every embedded ``spec.resources`` item against its schema from ``SCHEMAS`` (the
kubeconform layout ``<group>/<kind>_<version>.json``). No partition, no CEL, no CAPZ rules, no
line numbers, no findings: ``make bench`` times it beside kubeconform to show how much of the
0.6x target the parse and the schemas alone take, and so what is left for everything else capzgen
checks. Exit status 1 if any object does not validate (the fleet is valid), 0 otherwise.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import jsonschema_rs
import ryaml


def _validators(root: str) -> Any:
    found: dict[tuple[str, str], Any] = {}

    def validator(obj: dict[str, Any]) -> Any:
        key = (obj["apiVersion"], obj["kind"])
        if key not in found:
            group, _, version = obj["apiVersion"].rpartition("/")
            path = os.path.join(root, group, f"{obj['kind'].lower()}_{version}.json")
            with open(path, encoding="utf-8") as handle:
                found[key] = jsonschema_rs.validator_for(json.load(handle))
        return found[key]

    return validator


def _invalid(text: str, root: str) -> int:
    validator = _validators(root)
    invalid = 0
    for obj in ryaml.loads_all(text):  # type: ignore[attr-defined]
        invalid += not validator(obj).is_valid(obj)
        for item in (obj.get("spec") or {}).get("resources") or ():
            invalid += not validator(item).is_valid(item)
    return invalid


def main(argv: list[str]) -> int:
    """Validate ``argv[1]`` (a fleet file) with the schemas under ``argv[0]``."""
    root, fleet = argv
    with open(fleet, encoding="utf-8") as handle:
        documents = handle.read().split("\n---\n")
    shares = os.cpu_count() or 1
    size = -(-len(documents) // shares)
    children = []
    for share in range(1, shares):
        pid = os.fork()
        if pid == 0:
            part = documents[share * size : (share + 1) * size]
            os._exit(min(1, _invalid("\n---\n".join(part), root)))
        children.append(pid)
    invalid = _invalid("\n---\n".join(documents[:size]), root)
    for pid in children:
        invalid += os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    return min(1, invalid)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
