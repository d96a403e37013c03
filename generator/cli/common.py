"""Small helpers shared by CLI commands: option parsing and safe file output."""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import click

from generator.errors import InputOutputError, Location, UsageError, YamlError

_VAR_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
MAX_VALUES_BYTES = 8 * 1024 * 1024


def parse_var_options(items: Iterable[str]) -> dict[str, str]:
    """``--var KEY=VALUE`` pairs; the value may itself contain ``=``."""
    values: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not _VAR_NAME.match(key):
            raise UsageError(
                f"invalid --var {item!r}: expected KEY=VALUE with KEY made of letters, digits and '_'"
            )
        values[key] = value
    return values


def load_values_file(path: str) -> dict[str, Any]:
    """A ``--values`` file: a YAML mapping of variable names to typed values."""
    from generator.yamlio.load import load_documents, read_source

    source = "<stdin>" if path == "-" else path
    documents = [d for d in load_documents(read_source(path), source=source) if d.obj is not None]
    if not documents:
        return {}
    if len(documents) > 1 or not isinstance(documents[0].obj, dict):
        raise YamlError(
            "a values file must hold one YAML mapping of variable names to values",
            location=Location(file=source),
        )
    return {str(k): v for k, v in documents[0].obj.items()}


def write_atomically(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` in one step: readers never see a half-written file, and a
    failure leaves the previous content in place. New files get mode 0600, as clusterctl's do."""
    target = path.expanduser()
    directory = target.parent if str(target.parent) else Path(".")
    try:
        mode = target.stat().st_mode & 0o777 if target.exists() else 0o600
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", dir=directory)
    except OSError as exc:
        raise InputOutputError(
            f"cannot write: {exc.strerror or exc}", location=Location(file=str(path))
        ) from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.chmod(tmp_name, mode)
        os.replace(tmp_name, target)
    except OSError as exc:
        Path(tmp_name).unlink(missing_ok=True)
        raise InputOutputError(
            f"cannot write: {exc.strerror or exc}", location=Location(file=str(path))
        ) from exc


def emit(text: str, write_to: str | None) -> None:
    """Write to ``--write-to`` (atomically) or stdout; ``-`` and blank mean stdout, as in clusterctl."""
    target = (write_to or "").strip()
    if target in ("", "-"):
        click.echo(text, nl=False)
    else:
        write_atomically(Path(target), text)


def environ() -> Mapping[str, str]:
    return dict(os.environ)


schema_dir_option = click.option(
    "--schema-dir",
    "schema_dirs",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Folder or file of CRDs / JSON Schemas, searched before CAPZGEN_SCHEMA_PATH and the cache (repeatable).",
)
