"""What ``generate cluster`` is asked to do: the record the CLI, fleets and ``--list-variables``
build and :mod:`generator.generate.pipeline` carries out.

Apart from the pipeline so that code which only describes a cluster (the listing, a fleet's jobs)
does not load Jinja, the validator and the schema store.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from generator.checks.context import CheckOptions
    from generator.generate.patches import PatchDocument

DEFAULT_FLAVOR = "aks"
"""The flavor of a cluster that names none (``generate cluster`` without ``--from``, a fleet)."""


def every_check() -> CheckOptions:
    """The default checks: validate with every rule and CEL, no kubeconform."""
    # lazy: the checks package loads the validator; code that only describes a cluster must not
    from generator.checks.context import CheckOptions

    return CheckOptions()


@dataclass(frozen=True)
class ClusterRequest:
    """Everything ``generate cluster`` needs besides variable values: the flags, as plain data.

    Either ``template_text`` (``--from``) or ``flavor`` is used, never both: a template takes
    precedence.
    """

    name: str
    flavor: str | None = DEFAULT_FLAVOR
    template_text: str | None = None  # --from: a clusterctl template (no Jinja)
    template_source: str = "<template>"
    kubernetes_version: str | None = None
    control_plane_machine_count: int | None = None  # clusterctl's flag; AKS flavors ignore it
    worker_machine_count: int | None = None
    target_namespace: str | None = None
    variables: Mapping[str, str] = field(default_factory=dict)  # --var KEY=VALUE
    allow_unknown_vars: bool = False  # --var/--values names nothing uses are not an error
    schema_dirs: Sequence[Path] = ()
    flavors_dirs: Sequence[Path] = ()
    checks: CheckOptions = field(
        default_factory=every_check
    )  # how the output is checked, as the CLI built it
    patches: Sequence[PatchDocument] = ()  # --patch documents, applied before validation
