"""What ``migrate`` and ``adopt`` share at the CLI edge: validating the produced manifests before
anything is written, and printing the report as text or JSON.

The output is validated exactly as ``capzgen validate`` would validate the written file (same
schema search path, same rules); when it has errors, only the findings are printed (stderr) and
nothing is written, so a user never applies a manifest capzgen itself rejects.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from generator.checks.context import CheckOptions
from generator.checks.report import render_text
from generator.cli.common import emit
from generator.cli.environment import current_settings
from generator.errors import ExitCode
from generator.jsontypes import JsonObject
from generator.schemastore.store import SchemaStore
from generator.validate.check import CheckReport, SourceText, check_sources


def schema_store(schema_dirs: tuple[Path, ...]) -> SchemaStore:
    """The store ``capzgen validate`` would use with the same ``--schema-dir`` options."""
    return SchemaStore.from_search_path(list(schema_dirs), current_settings())


def validate_output(text: str, name: str, store: SchemaStore, checks: CheckOptions) -> CheckReport:
    """The report of validating ``text`` as ``capzgen validate`` would with ``checks``."""
    return check_sources(
        [SourceText(name, text)], store, checks.validation, kubeconform=checks.kubeconform
    )


def refuse(report: CheckReport, explanations: list[str]) -> int:
    """Print the findings (stderr) and return the exit status for invalid output."""
    click.echo(render_text(report.findings, report.document_count), err=True, nl=False)
    for line in explanations:
        click.echo(line, err=True)
    click.echo("error: the migrated manifests do not validate; nothing was written", err=True)
    return int(ExitCode.INVALID)


def deliver(text: str, write_to: str | None, report: str, data: JsonObject | None) -> None:
    """Write the manifests, then the report: text on stderr, or with ``data`` (``--output
    json``) one JSON document on stdout that also holds the manifests unless written to a file."""
    target = (write_to or "").strip()
    if data is None:
        emit(text, write_to)
        click.echo(report, err=True, nl=False)
        return
    if target not in ("", "-"):
        emit(text, write_to)
        data = {"written_to": target, **data}
    else:
        data = {"manifests": text, **data}
    click.echo(json.dumps(data, indent=2, sort_keys=True))
