"""``capzgen schemas list|import|sync``: inspect and fill the schema search path.

A thin shell: options are turned into library calls, results into lines on stdout. Errors are
domain exceptions that :func:`generator.cli.main` turns into a message and an exit code.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from generator.cli.environment import current_settings
from generator.errors import UsageError
from generator.resources import builtin_schemas_dir
from generator.schemastore.loading import SourceBytes
from generator.schemastore.types import SchemaCatalog
from generator.yamlio.source import read_bytes

if TYPE_CHECKING:
    from generator.cel.inventory import RuleEntry

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
      4. the built-in bundle (Cluster API v1.13.3, CAPZ v1.26.0, ASO schemas; pinned)
      5. core Kubernetes kinds from kubernetes-validate
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
    "it: evaluable, unsupported (and why) or transition (needs the stored object), and its "
    "estimated cost as the API server computes it.",
)
@click.pass_context
def list_command(
    ctx: click.Context, schema_dirs: tuple[Path, ...], output: str, show_all: bool, show_cel: bool
) -> None:
    """One line per group/version/kind and the source it comes from."""
    # lazy: CLI edge; each subcommand loads only what it runs
    from generator.schemastore.store import SchemaStore

    dirs = [*ctx.obj.get("schema_dirs", ()), *schema_dirs]
    if show_cel:
        _list_cel(SchemaStore.from_search_path(dirs, current_settings()), output)
        return
    infos = [
        i
        for i in SchemaStore.from_search_path(dirs, current_settings()).entries()
        if show_all or not i.shadowed
    ]
    if output == "json":
        rows = [
            {
                "group": i.gvk.group,
                "version": i.gvk.version,
                "kind": i.gvk.kind,
                "apiVersion": i.gvk.api_version,
                "source": i.source,
                "pinned": i.pinned,
                "shadowed": i.shadowed,
            }
            for i in infos
        ]
        click.echo(json.dumps(rows, indent=2))
        return
    names = [f"{i.gvk.api_version} {i.gvk.kind}" for i in infos]
    width = max((len(n) for n in names), default=0)
    for name, info in zip(names, infos, strict=True):
        pinned = f"  [{info.pinned}]" if info.pinned else ""
        suffix = "  (shadowed)" if info.shadowed else ""
        click.echo(f"{name:<{width}}  {info.source}{pinned}{suffix}")


def _list_cel(store: SchemaCatalog, output: str) -> None:
    # lazy: cel-python costs ~40 ms of start-up; only --cel loads it
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
        if entry.cost is not None:
            click.echo(f"    {_cost_text(entry)}")
    counts = dict.fromkeys(("evaluable", "unsupported", "transition"), 0)
    for entry in entries:
        counts[entry.status.value] += 1
    click.echo(
        f"{len(entries)} CEL rule(s): {counts['evaluable']} evaluable, "
        f"{counts['unsupported']} unsupported, {counts['transition']} transition"
    )


def _cost_text(entry: RuleEntry) -> str:
    """``cost: N`` per evaluation, times the evaluations per object, and whether that is over the
    API server's limit per rule."""
    text = f"estimated cost: {entry.cost:,}"
    if entry.cardinality > 1:
        text += f" x {entry.cardinality:,} evaluations = {entry.total_cost:,}"
    if entry.over_limit:
        text += " (over the API server's limit of 10,000,000 per rule: the CRD is refused)"
    return text


@schemas.command("import")
@click.argument("source", metavar="FILE|DIR|-", required=False)
@click.option(
    "--from-cluster",
    is_flag=True,
    help="Read the Cluster API, CAPZ and ASO CRDs of a live cluster with kubectl.",
)
@click.option("--context", metavar="NAME", help="kubectl context (with --from-cluster).")
@click.option("--kubeconfig", metavar="FILE", help="kubeconfig file (with --from-cluster).")
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=60.0,
    show_default=True,
    metavar="SECONDS",
    help="Give up on a kubectl call after this long (with --from-cluster).",
)
def import_command(
    source: str | None,
    from_cluster: bool,
    context: str | None,
    kubeconfig: str | None,
    timeout: float,
) -> None:
    """Convert CRDs or JSON Schemas into the cache, ahead of the built-in bundle.

    Accepts CRD files (YAML or JSON; `kubectl get crds -o yaml` output is a List and
    works as is), folders of them, folders of <group>/<kind>_<version>.json schemas, and
    `-` for stdin. Pin the exact CRDs your management cluster runs:

    \b
        capzgen schemas import --from-cluster [--context NAME]
        kubectl get crds -o yaml | capzgen schemas import -
    """
    # lazy: CLI edge; each subcommand loads only what it runs
    from generator.schemastore.importer import collect_sources, import_crds, import_schemas

    if from_cluster == (source is not None):
        msg = "give either FILE|DIR|- or --from-cluster (exactly one)"
        raise UsageError(msg)
    if not from_cluster and (context or kubeconfig):
        msg = "--context and --kubeconfig go with --from-cluster"
        raise UsageError(msg)
    cache_dir = _cache_schemas_dir()
    if from_cluster:
        # lazy: only --from-cluster runs kubectl
        from generator.schemastore.cluster import KubectlSettings, fetch_cluster_crds

        settings = KubectlSettings(
            env=current_settings().environ, context=context, kubeconfig=kubeconfig, timeout=timeout
        )
        imported = import_crds(fetch_cluster_crds(settings), cache_dir=cache_dir)
    elif source == "-":
        data = read_bytes("-")  # bounded: `schemas import - </dev/zero` stops at the limit
        imported = import_crds([SourceBytes(name="<stdin>", data=data)], cache_dir=cache_dir)
    else:
        assert source is not None
        imported = import_schemas(collect_sources(Path(source)), cache_dir=cache_dir)
    for item in imported:
        click.echo(f"imported {item.gvk.api_version} {item.gvk.kind} -> {item.path}")
    click.echo(f"{len(imported)} schema(s) imported into {cache_dir}")


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
    # lazy: CLI edge; sync loads urllib and the converters only when it runs
    from generator.schemastore.sync import load_pins, load_source_overlays, sync

    sources = sources_file or builtin_schemas_dir() / "sources.yaml"
    pins = load_pins(sources)
    overlays = load_source_overlays(sources, pins)
    cache_dir = _cache_schemas_dir()
    result = sync(pins, mirror=mirror, cache_dir=cache_dir, overlays=overlays)
    for pin in pins:
        if pin.name not in result.not_fetched:
            click.echo(f"verified {pin.name} {pin.version} ({pin.sha256[:12]})")
    click.echo(
        f"{result.files} file(s) verified, {len(result.written)} schema(s) written to {cache_dir}"
    )
    if result.not_fetched:
        click.echo(
            f"{len(result.not_fetched)} generated file(s) not published upstream were not fetched: "
            "the built-in bundle serves them (sync them from a mirror with --from)",
            err=True,
        )


def _cache_schemas_dir() -> Path:
    """Where ``import`` and ``sync`` write: the cache's schema folder."""
    root = current_settings().cache_root
    assert root is not None, "the CLI always has a cache root"
    return root / "schemas"
