"""``capzgen release``: export every flavor as a clusterctl provider repository."""

from __future__ import annotations

from pathlib import Path

import click

from generator.generate.release import ReleaseRequest, build_release, stale_files, write_release


@click.command("release")
@click.option(
    "--version", "version", required=True, metavar="vX.Y.Z", help="Release version (v + semver)."
)
@click.option(
    "--output-dir",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Base folder: a local repository or clusterctl's overrides folder.",
)
@click.option(
    "--provider-name",
    default="aks",
    show_default=True,
    help="Provider name; files go to infrastructure-<name>/<version>/.",
)
@click.option(
    "--flavors-dir",
    "flavors_dirs",
    multiple=True,
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Extra flavors folder, searched before the built-in flavors (repeatable).",
)
@click.option(
    "--contract",
    type=click.Choice(["v1beta1", "v1beta2"]),
    default="v1beta1",
    show_default=True,
    help="CAPI contract recorded in metadata.yaml (CAPZ v1.26.0 implements v1beta1).",
)
def release(
    version: str,
    output_dir: Path,
    provider_name: str,
    flavors_dirs: tuple[Path, ...],
    contract: str,
) -> None:
    """Export every flavor as clusterctl templates with ${VAR} placeholders.

    \b
    Writes OUTPUT_DIR/infrastructure-<provider>/<version>/:
      cluster-template-<flavor>.yaml   every flavor; scalar variables stay ${VAR} placeholders
      clusterclass-<class>.yaml        the ClusterClass of a class flavor, with its class name fixed
      metadata.yaml                    clusterctl Metadata (releaseSeries with the contract)
    Nothing is written unless every flavor exports. Use the folder as clusterctl's overrides
    folder or as a local repository (a provider URL ending in
    infrastructure-<provider>/<version>/infrastructure-components.yaml; generate cluster never
    reads that file, so it is not written).
    """
    result = build_release(
        ReleaseRequest(
            version=version,
            provider_name=provider_name,
            flavors_dirs=flavors_dirs,
            contract=contract,
        )
    )
    for path in write_release(result, output_dir):
        click.echo(str(path))
    for path in stale_files(result, output_dir):
        click.echo(
            f"warning: {path} is not part of this release but clusterctl would still serve it",
            err=True,
        )
    for flavor, (name, variable) in sorted(result.classes.items()):
        if variable is not None:
            click.echo(
                f"ClusterClass of flavor {flavor}: clusterclass-{name}.yaml; topology Clusters find it "
                f"with {variable}={name}",
                err=True,
            )
