"""CEL validation rules (``x-kubernetes-validations``): what kubeconform ignores and the API server
enforces.

* :mod:`generator.cel.rules`: the rule model and the static analysis (evaluable / unsupported /
  transition);
* :mod:`generator.cel.extensions`: the Kubernetes library functions implemented on top of
  cel-python;
* :mod:`generator.cel.runtime`: the cel-python environment, compiled programs, value conversion;
* :mod:`generator.cel.tree`: the pruned rule tree of a schema;
* :mod:`generator.cel.validate`: evaluation over a manifest set (findings with rule and origin
  ``cel``);
* :mod:`generator.cel.inventory`: every rule of the store, for ``capzgen schemas list --cel``.

Importing this package is cheap; cel-python is loaded when a rule is first analysed or evaluated.
"""

from __future__ import annotations

import functools
import logging
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from generator.findings import Finding
    from generator.schemastore.types import SchemaLookup
    from generator.validate.model import ManifestSet


log = logging.getLogger(__name__)


@functools.lru_cache(maxsize=1)
def available() -> bool:
    """Whether cel-python (``celpy``) is installed; without it CEL rules are not evaluated."""
    try:
        import celpy  # noqa: F401
    except ImportError:
        log.warning(
            "cel-python is not installed: CEL rules (x-kubernetes-validations) are not checked"
        )
        return False
    return True


def check_cel(manifests: ManifestSet, store: SchemaLookup) -> list[Finding]:
    if not available():
        return []
    from generator.cel.validate import check_cel as check

    return check(manifests, store)


def rule_inventory(store: Any) -> list[Any]:
    from generator.cel.inventory import rule_inventory as inventory

    return inventory(store)


__all__ = ["available", "check_cel", "rule_inventory"]
