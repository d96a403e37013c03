"""``--output``/``--report`` (the format of the findings) and ``--fail-on`` (which findings fail
the run), shared by ``validate`` and the ``generate`` commands so that a CI job asks both the
same way."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import click

from generator.checks.formats import REPORT_FORMATS, render_report
from generator.errors import UsageError
from generator.findings import Finding

fail_on_option = click.option(
    "--fail-on",
    type=click.Choice(["error", "warning"]),
    default="error",
    show_default=True,
    help="The least severe finding that fails the run (exit 1; generate writes nothing): "
    "warning fails on warnings too. Info never fails.",
)


class ReportTarget(NamedTuple):
    """``--report FORMAT[=FILE]``: the findings' format, and the file they go to (None: stderr)."""

    fmt: str
    file: Path | None


def parse_report(
    _ctx: click.Context, _param: click.Parameter, value: str | None
) -> ReportTarget | None:
    """``sarif=capzgen.sarif`` -> ``ReportTarget("sarif", Path("capzgen.sarif"))``."""
    if value is None:
        return None
    fmt, sep, file = value.partition("=")
    if fmt not in REPORT_FORMATS or (sep and not file.strip()):
        choices = ", ".join(REPORT_FORMATS)
        msg = f"invalid --report {value!r}: expected FORMAT or FORMAT=FILE, FORMAT one of {choices}"
        raise UsageError(msg)
    return ReportTarget(fmt, Path(file) if sep else None)


report_option = click.option(
    "--report",
    metavar="FORMAT[=FILE]",
    callback=parse_report,
    help="How the findings are reported, apart from the manifests on stdout: "
    f"{'|'.join(REPORT_FORMATS)}, on stderr or, with =FILE, to FILE (written even when there "
    "is no finding or the run fails: e.g. sarif=capzgen.sarif for code scanning). "
    "Default: text on stderr.",
)


def report_findings(
    target: ReportTarget | None, findings: Sequence[Finding], documents: int | None
) -> None:
    """The findings of a ``generate`` run where ``--report`` says (text lines on stderr without
    it, as before); the summary of a text report is left to the command. ``documents`` is None
    for a cluster that failed and was not kept: then the documents its findings name count."""
    # lazy: the common helpers load the YAML code, which validate (sharing --fail-on) need not
    from generator.cli.common import print_findings, write_atomically

    if target is None or (target.fmt == "text" and target.file is None):
        print_findings(findings)
        return
    if documents is None:
        documents = len({(f.subject.file, f.subject.document) for f in findings})
    text = render_report(target.fmt, findings, documents)
    if target.file is None:
        click.echo(text, err=True, nl=False)
    else:
        write_atomically(target.file, text)


def report_also(
    target: ReportTarget | None, findings: Sequence[Finding], documents: int | None
) -> None:
    """For commands that print their own text report (``migrate``, ``adopt``): the findings
    again in the ``--report`` format, unless that is the text on stderr they already print."""
    if target is None or (target.fmt == "text" and target.file is None):
        return
    report_findings(target, findings, documents)
