"""``capzgen flavors list|show|schema``: which flavors exist, what each one needs and what it produces.

The commands only read metadata and render with placeholder values; formatting is done by small pure
functions so that the output can be tested without a terminal.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from pathlib import Path

import click
import yaml

from generator.cli.completion import complete_flavors
from generator.errors import FlavorError, Location, YamlError
from generator.flavors import render
from generator.flavors.catalog import FlavorCatalog
from generator.flavors.editor_schema import editor_schema
from generator.flavors.model import Flavor, VariableSpec
from generator.jsontypes import Json
from generator.yamlio.load import load_documents

# Cells wider than this overflow their column instead of widening it for every row (long defaults).
_MAX_CELL_WIDTH = 40

flavors_dir_option = click.option(
    "--flavors-dir",
    "flavors_dirs",
    multiple=True,
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Extra flavors folder, searched before the built-in flavors (repeatable; the first wins).",
)


@click.group()
def flavors() -> None:
    """List and describe the available flavors."""


@flavors.command("list")
@flavors_dir_option
def list_command(flavors_dirs: tuple[Path, ...]) -> None:
    """List every flavor with its one-line description and the CAPZ names that stand for it."""
    catalog = FlavorCatalog(flavors_dirs)
    click.echo(
        format_table(
            [
                (flavor.name, flavor.description + _aliases_note(catalog, flavor))
                for flavor in catalog.all()
            ]
        )
    )


def _aliases_note(catalog: FlavorCatalog, flavor: Flavor) -> str:
    """`` (alias: aks-aso)`` for a built-in flavor standing for CAPZ templates of other names; a
    user flavor shadowing it gets none (the alias still means the built-in one)."""
    aliases = catalog.aliases(flavor.name) if flavor.builtin else []
    return f" (alias: {', '.join(aliases)})" if aliases else ""


@flavors.command("show")
@click.argument("name", shell_complete=complete_flavors)
@flavors_dir_option
def show_command(name: str, flavors_dirs: tuple[Path, ...]) -> None:
    """Describe flavor NAME: its variables, notes and the objects it renders."""
    catalog = FlavorCatalog(flavors_dirs)
    flavor = catalog.get(name)
    objects = produced_objects(flavor, catalog.template_search_path(flavor))
    click.echo(describe(flavor, objects))


@flavors.command("schema")
@click.argument("name")
@flavors_dir_option
def schema_command(name: str, flavors_dirs: tuple[Path, ...]) -> None:
    """Print flavor NAME's variables as a JSON Schema for values files (editor completion).

    \b
    Save it as e.g. values.schema.json and point your editor at it; with the YAML language
    server: a first line `# yaml-language-server: $schema=values.schema.json` in the values file.
    """
    flavor = FlavorCatalog(flavors_dirs).get(name)
    click.echo(json.dumps(editor_schema(flavor), indent=2))


# --- rendering --------------------------------------------------------------------------------


def produced_objects(flavor: Flavor, search_path: Sequence[Path]) -> list[tuple[str, list[str]]]:
    """``Kind/name`` of each rendered object, with the ``Kind/name`` of its embedded resources.

    Rendered with :func:`render.placeholder_values`, so names read ``${CLUSTER_NAME}-pool0``.
    """
    text = render.render_flavor(flavor, render.placeholder_values(flavor), search_path)
    try:
        documents = [
            doc.obj for doc in load_documents(text, source="<rendered>") if doc.obj is not None
        ]
    except YamlError as exc:
        msg = f"rendering with placeholder values does not give valid YAML: {exc}"
        raise FlavorError(
            msg,
            location=Location(file=str(flavor.directory)),
        ) from exc
    return [(_kind_and_name(doc), [_kind_and_name(r) for r in _embedded(doc)]) for doc in documents]


def _kind_and_name(obj: Json) -> str:
    if not isinstance(obj, dict):
        return f"(not an object: {type(obj).__name__})"
    metadata = obj.get("metadata")
    name = metadata.get("name") if isinstance(metadata, dict) else None
    return f"{obj.get('kind', '?')}/{name if name is not None else '?'}"


def _embedded(obj: Json) -> list[Json]:
    """The ASO resources in ``spec.resources`` of a CAPZ object (none for other objects)."""
    spec = obj.get("spec") if isinstance(obj, dict) else None
    resources = spec.get("resources") if isinstance(spec, dict) else None
    return resources if isinstance(resources, list) else []


# --- formatting -------------------------------------------------------------------------------


def format_table(rows: Iterable[Sequence[str]], indent: str = "") -> str:
    """Left-aligned columns two spaces apart; the last column is never padded.

    A column is as wide as its widest cell of at most ``_MAX_CELL_WIDTH`` characters; wider cells
    push the rest of their own row to the right instead.
    """
    table = [list(row) for row in rows]
    if not table:
        return ""
    widths = [
        max(
            (len(row[i]) for row in table if i < len(row) and len(row[i]) <= _MAX_CELL_WIDTH),
            default=0,
        )
        for i in range(max(len(row) for row in table))
    ]
    lines = []
    for row in table:
        cells = [cell.ljust(widths[i]) for i, cell in enumerate(row[:-1])] + row[-1:]
        lines.append((indent + "  ".join(cells)).rstrip())
    return "\n".join(lines)


def format_value(value: Json) -> str:
    """A default as a user would type it: scalars plainly, lists and maps as one-line YAML."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value if value else '""'
    if isinstance(value, (list, dict)):
        return yaml.safe_dump(
            value, default_flow_style=True, sort_keys=False, width=math.inf
        ).strip()
    return str(value)


def variable_row(spec: VariableSpec) -> list[str]:
    """One ``flavors show`` table row: name, type, default or (required)/(optional), description."""
    if spec.required:
        default = "(required)"
    elif spec.has_default:
        default = format_value(spec.default)
    else:
        default = "(optional)"
    description = spec.description
    if "enum" in spec.schema:
        description += f"; one of: {', '.join(format_value(v) for v in spec.schema['enum'])}"
    return [spec.name, spec.type, default, description]


def describe(flavor: Flavor, objects: Sequence[tuple[str, Sequence[str]]]) -> str:
    """What ``capzgen flavors show`` prints: source, variables, notes and the objects rendered.

    ``objects`` pairs the label of each top-level object with those of the ASO resources it embeds.
    """
    source = "built-in" if flavor.builtin else str(flavor.directory)
    parts = [f"{flavor.name}: {flavor.description}", f"Source: {source}", "", "Variables:"]
    if flavor.variables:
        rows = [["NAME", "TYPE", "DEFAULT", "DESCRIPTION"]]
        rows += [variable_row(spec) for spec in flavor.variables.values()]
        parts.append(format_table(rows, indent="  "))
    else:
        parts.append("  (none)")
    if flavor.notes.strip():
        parts += ["", "Notes:"]
        parts += [f"  {line}".rstrip() for line in flavor.notes.strip("\n").splitlines()]
    parts += ["", "Objects (rendered with ${VAR} placeholders and structural defaults):"]
    for obj, embedded in objects:
        parts.append(f"  {obj}")
        parts += [f"    + {resource}" for resource in embedded]
    return "\n".join(parts)
