"""Small helpers shared by CLI commands: reading inputs, option parsing and safe file output
(the run's settings are in :mod:`generator.cli.environment`)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path

import click

from generator.cli.environment import current_settings
from generator.clusterctl.substitution import ValuesOrigin
from generator.errors import Location, UsageError, YamlError
from generator.findings import Finding, hint_lines
from generator.jsontypes import JsonObject
from generator.output.fsio import write_to_named_path
from generator.yamlio.load import load_documents, read_source

_VAR_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
MAX_VALUES_BYTES = 8 * 1024 * 1024


def parse_var_options(items: Iterable[str]) -> dict[str, str]:
    """``--var KEY=VALUE`` pairs; the value may itself contain ``=``."""
    values: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not _VAR_NAME.match(key):
            msg = f"invalid --var {item!r}: expected KEY=VALUE with KEY made of letters, digits and '_'"
            raise UsageError(msg)
        values[key] = value
    return values


def load_values_file(path: str) -> tuple[JsonObject, ValuesOrigin]:
    """A ``--values`` file: a YAML mapping of variable names to typed values, and where it was
    read (its text kept so that messages can name the line of a mistyped key)."""
    source = "<stdin>" if path == "-" else path
    text = read_source(path, limit=MAX_VALUES_BYTES)
    documents = [d for d in load_documents(text, source=source) if d.obj is not None]
    if not documents:
        return {}, ValuesOrigin(source)
    if len(documents) > 1 or not isinstance(documents[0].obj, dict):
        msg = "a values file must hold one YAML mapping of variable names to values"
        raise YamlError(
            msg,
            location=Location(file=source),
        )
    origin = ValuesOrigin(source, text=text, document=documents[0].index)
    return {str(k): v for k, v in documents[0].obj.items()}, origin


def read_template(location: str, *, timeout: float | None = None) -> tuple[str, str]:
    """``--from``: the text of a template and its name: a path, a ``file://`` URL, ``-`` (stdin),
    or an ``https://`` URL (downloaded with ``timeout``, cached under the cache root)."""
    if location.strip() == "":
        msg = "unable to read custom template. Please specify a template source"
        raise UsageError(msg)
    if location.startswith("file://"):
        location = location[len("file://") :]
    elif "://" in location:
        return _download(location, timeout)
    return read_source(location), ("<stdin>" if location == "-" else location)


def _download(location: str, timeout: float | None) -> tuple[str, str]:
    # lazy: urllib and the download code cost ~15 ms of start-up; only a --from URL needs them
    from generator.clusterctl.remote import DEFAULT_TIMEOUT, FetchOptions, fetch_template

    options = FetchOptions(
        timeout=DEFAULT_TIMEOUT if timeout is None else timeout,
        cache_dir=current_settings().cache_dir("templates"),
    )
    fetched = fetch_template(location, options)
    if fetched.note:
        click.echo(f"warning: {fetched.note}", err=True)
    return fetched.text, fetched.source


def write_atomically(path: Path, text: str) -> None:
    """``--write-to``: a regular file is replaced in one step (new files get mode 0600, as
    clusterctl's do); symlinks are written through, devices and FIFOs written to."""
    write_to_named_path(path.expanduser(), text, new_file_mode=0o600)


def emit(text: str, write_to: str | None) -> None:
    """Write to ``--write-to`` (atomically) or stdout; ``-`` and blank mean stdout, as in clusterctl."""
    target = (write_to or "").strip()
    if target in ("", "-"):
        click.echo(text, nl=False)
    else:
        write_atomically(Path(target), text)


def print_findings(findings: Sequence[Finding]) -> None:
    """Findings on stderr, then each distinct hint once."""
    for finding in findings:
        click.echo(finding.to_text(), err=True)
    for line in hint_lines(findings):
        click.echo(line, err=True)
