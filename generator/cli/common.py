"""Small helpers shared by CLI commands: option parsing and safe file output."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import click

from generator.errors import Location, UsageError, YamlError

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
    """``--write-to``: replaced in one step; new files get mode 0600, as clusterctl's do."""
    from generator.fsio import write_atomically as write

    write(path.expanduser(), text, new_file_mode=0o600)


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


def kubeconform_options(function: Callable[..., Any]) -> Callable[..., Any]:
    """``--kubeconform`` and ``--kubeconform-timeout``, shared by validate and generate."""
    function = click.option(
        "--kubeconform-timeout",
        type=click.FloatRange(min=0, min_open=True),
        default=60.0,
        show_default=True,
        metavar="SECONDS",
        help="Stop kubeconform after this long (its findings are then missing).",
    )(function)
    return click.option(
        "--kubeconform",
        "use_kubeconform",
        is_flag=True,
        help="Also run kubeconform (if installed) with capzgen's schemas, offline, on every object "
        "and embedded resource, and merge its findings (marked [kubeconform]).",
    )(function)


def check_rule_ids(disabled_rules: Iterable[str], *, extra: Iterable[str] = ()) -> None:
    """``--disable-rule`` must name rules that exist: a typo would silently keep a rule on."""
    disabled = set(disabled_rules)
    if not disabled:
        return
    from generator.validate import known_rule_ids

    unknown = sorted(disabled - {*known_rule_ids(), *extra})
    if unknown:
        raise UsageError(
            f"unknown rule id(s): {', '.join(unknown)}",
            hint="`capzgen validate --list-rules` shows every rule",
        )
