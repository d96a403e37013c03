"""``capzgen schemas list|import|sync``: inspect and fill the schema search path.

A thin shell: options are turned into library calls, results into lines on stdout. Errors are
domain exceptions that :func:`generator.cli.main` turns into a message and an exit code.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from generator.resources import builtin_schemas_dir
from generator.schemastore.cache import cache_schemas_dir
from generator.schemastore.loading import SourceText

F = TypeVar("F", bound=Callable[..., Any])


def schema_dir_option(func: F) -> F:
    """``--schema-dir DIR`` (repeatable), accepted by the group and by ``list``."""
    return click.option(
        "--schema-dir",
        "schema_dirs",
        multiple=True,
        type=click.Path(path_type=Path),
        metavar="DIR",
        help="Folder or file with CRDs and/or <group>/<kind>_<version>.json schemas; searched "
        "before $CAPZGEN_SCHEMA_PATH, the cache and the core kinds. Repeatable.",
    )(func)


@click.group("schemas")
@schema_dir_option
@click.pass_context
def schemas(ctx: click.Context, schema_dirs: tuple[Path, ...]) -> None:
    """List, import and sync the schemas used for validation.

    \b
    Search path (first match wins):
      1. --schema-dir DIR (repeatable)
      2. $CAPZGEN_SCHEMA_PATH (path-separator separated)
      3. the user cache (filled by `schemas import` and `schemas sync`; $CAPZGEN_CACHE_DIR)
      4. core Kubernetes kinds from kubernetes-validate
    """
    ctx.ensure_object(dict)
    ctx.obj["schema_dirs"] = schema_dirs


@schemas.command("list")
@schema_dir_option
@click.option(
    "-o",
    "--output",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="Output format.",
)
@click.option(
    "--all", "show_all", is_flag=True, help="Also show schemas shadowed by earlier sources."
)
@click.option(
    "--cel",
    "show_cel",
    is_flag=True,
    help="List every CEL rule (x-kubernetes-validations) instead, with whether capzgen evaluates "
    "it: evaluable, unsupported (and why) or transition (needs the stored object).",
)
@click.pass_context
def list_command(
    ctx: click.Context, schema_dirs: tuple[Path, ...], output: str, show_all: bool, show_cel: bool
) -> None:
    """One line per group/version/kind and the source it comes from."""
    from generator.schemastore.store import SchemaStore

    dirs = [*ctx.obj.get("schema_dirs", ()), *schema_dirs]
    if show_cel:
        _list_cel(SchemaStore.from_search_path(dirs), output)
        return
    infos = [i for i in SchemaStore.from_search_path(dirs).entries() if show_all or not i.shadowed]
    if output == "json":
        rows = [
            {
                "group": i.gvk.group,
                "version": i.gvk.version,
                "kind": i.gvk.kind,
                "apiVersion": i.gvk.api_version,
                "source": i.source,
                "shadowed": i.shadowed,
            }
            for i in infos
        ]
        click.echo(json.dumps(rows, indent=2))
        return
    names = [f"{i.gvk.api_version} {i.gvk.kind}" for i in infos]
    width = max((len(n) for n in names), default=0)
    for name, info in zip(names, infos, strict=True):
        suffix = "  (shadowed)" if info.shadowed else ""
        click.echo(f"{name:<{width}}  {info.source}{suffix}")


def _list_cel(store: Any, output: str) -> None:
    from generator.cel.inventory import rule_inventory

    entries = rule_inventory(store)
    if output == "json":
        click.echo(json.dumps([entry.to_json() for entry in entries], indent=2))
        return
    for entry in entries:
        status = entry.status.value + (f" ({entry.detail})" if entry.detail else "")
        click.echo(
            f"{entry.gvk.api_version} {entry.gvk.kind}  {entry.path or '(object)'}  {status}\n"
            f"    rule: {entry.rule.rule}"
        )
    counts = dict.fromkeys(("evaluable", "unsupported", "transition"), 0)
    for entry in entries:
        counts[entry.status.value] += 1
    click.echo(
        f"{len(entries)} CEL rule(s): {counts['evaluable']} evaluable, "
        f"{counts['unsupported']} unsupported, {counts['transition']} transition"
    )


@schemas.command("import")
@click.argument("source", metavar="FILE|DIR|-")
def import_command(source: str) -> None:
    """Convert CRDs (YAML or JSON; `-` reads stdin) into the cache.

    Every served version of every CustomResourceDefinition becomes
    <cache>/schemas/<group>/<kind>_<version>.json, e.g.

        kubectl get crds -o yaml | capzgen schemas import -
    """
    from generator.schemastore.importer import collect_sources, import_crds

    if source == "-":
        stream = sys.stdin
        data = stream.buffer.read() if hasattr(stream, "buffer") else stream.read().encode()
        sources = [SourceText(name="<stdin>", data=data)]
    else:
        sources = collect_sources(Path(source))
    imported = import_crds(sources, cache_dir=cache_schemas_dir())
    for item in imported:
        click.echo(f"imported {item.gvk.api_version} {item.gvk.kind} -> {item.path}")
    click.echo(f"{len(imported)} schema(s) imported into {cache_schemas_dir()}")


@schemas.command("sync")
@click.option(
    "--from",
    "mirror",
    metavar="DIR|URL",
    help="Read the pinned files from a mirror (folder, file:// or http(s):// URL) instead of "
    "their upstream URLs.",
)
@click.option(
    "--sources",
    "sources_file",
    type=click.Path(path_type=Path),
    metavar="FILE",
    help="Sources list to use instead of the built-in schemas/sources.yaml.",
)
def sync_command(mirror: str | None, sources_file: Path | None) -> None:
    """Fill the cache from the pinned upstream CRDs and schemas (sha256-verified)."""
    from generator.schemastore.sync import load_pins, sync

    pins = load_pins(sources_file or builtin_schemas_dir() / "sources.yaml")
    result = sync(pins, mirror=mirror, cache_dir=cache_schemas_dir())
    for pin in pins:
        click.echo(f"verified {pin.name} {pin.version} ({pin.sha256[:12]})")
    click.echo(
        f"{result.files} file(s) verified, {len(result.written)} schema(s) written to "
        f"{cache_schemas_dir()}"
    )
