"""RFC 7386 JSON merge patch, as CAPZ applies ``asoManagedClusterPatches`` (``aso.go`` ``applyPatches``).

A patch object is merged key by key: ``null`` deletes a key, objects merge recursively, anything
else (lists included) replaces the target value. A patch that is not an object replaces the whole
target.
"""

from __future__ import annotations

import copy
from typing import Any


def merge_patch(target: Any, patch: Any) -> Any:
    """The result of applying ``patch`` to ``target`` (neither argument is modified)."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result: dict[str, Any] = copy.deepcopy(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result
