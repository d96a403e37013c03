"""The command-line options that bring a repository's own settings in: ``--capzgen-config``
(which ``.capzgen.yaml`` to use) and ``validate --exclude``.

Kept apart from :mod:`generator.cli.options` so that the repository configuration (see
:mod:`generator.cli.repo_config`) stays one small, separate piece the commands opt into.
"""

from __future__ import annotations

from pathlib import Path

import click

ENV_CAPZGEN_CONFIG = "CAPZGEN_CONFIG"

exclude_option = click.option(
    "--exclude",
    "exclude",
    multiple=True,
    metavar="GLOB",
    help="Skip, unread, the inputs whose path matches GLOB, relative to the current folder or "
    "as given (repeatable; .gitignore-like: 'values.yaml', 'charts/**', '**/*.json'). Files "
    "listed by a kustomization.yaml are explicit and not excluded. Replaces the exclude list "
    "of .capzgen.yaml.",
)

capzgen_config_option = click.option(
    "--capzgen-config",
    "capzgen_config",
    type=click.Path(path_type=Path, dir_okay=False),
    metavar="FILE",
    help=f"The repository configuration file to use (else ${ENV_CAPZGEN_CONFIG}, else the "
    "first .capzgen.yaml found from the current folder up to the repository's root); "
    "'none' reads no file. Not --config, which is clusterctl's configuration file.",
)
