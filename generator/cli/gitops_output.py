"""``--output-dir`` for generate cluster and fleet: the Flux options the flags describe.

Its own module because it loads :mod:`generator.output.gitops`, which a plain ``generate cluster`` (stdout
or ``--write-to``) does not need.
"""

from __future__ import annotations

from pathlib import Path

from generator.cli.options import OutputChoice
from generator.output.gitops import (
    FluxOptions,
    default_flux_path,
    normalise_flux_path,
    parse_flux_source,
)


def flux_options(name: str, output: OutputChoice, output_dir: Path) -> FluxOptions | None:
    """The Flux Kustomization of ``--layout flux`` (None for the plain layout)."""
    if output.layout != "flux":
        return None
    kind, namespace, source_name = parse_flux_source(output.flux_source or "flux-system")
    path = (
        normalise_flux_path(output.flux_path) if output.flux_path else default_flux_path(output_dir)
    )
    return FluxOptions(
        name=name,
        path=path,
        source_kind=kind,
        source_name=source_name,
        source_namespace=namespace,
    )
