"""Discovering flavors: user folders (``--flavors-dir``) first, then the built-in ones."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from functools import cache
from pathlib import Path

import jsonschema_rs

from generator.errors import FlavorError, InputOutputError, Location, YamlError
from generator.findings import format_path
from generator.flavors.model import Flavor, VariableSpec
from generator.flavors.origins import ObjectOrigin, parse_origins
from generator.jsontypes import JsonObject
from generator.resources import builtin_flavors_dir, builtin_schemas_dir
from generator.suggest import did_you_mean
from generator.yamlio.load import load_value, read_source

log = logging.getLogger(__name__)

METADATA_FILE = "flavor.yaml"
LIBRARY_DIR = "_lib"  # shared macros; folders starting with "_" are never flavors

# CAPZ v1.26.0's template names (cluster-template-<name>.yaml in its release) -> the built-in flavor
# rendering the same cluster, so `--flavor aks-aso` works as it does with clusterctl. CAPZ's legacy
# names aks, aks-clusterclass and aks-topology cannot be aliases: capzgen's own (ASO) flavors of
# those names come first. CAPZ's legacy `aks` template is our aks-legacy (with an existing
# AzureClusterIdentity) or aks-multi-tenancy (with it); its legacy clusterclass and topology
# templates have no counterpart.
ALIASES: dict[str, str] = {
    "aks-aso": "aks",
    "aks-aso-clusterclass": "aks-clusterclass",
    "aks-aso-maintenance": "aks-maintenance",
    "aks-aso-topology": "aks-topology",
}


@cache
def _metadata_validator() -> jsonschema_rs.Validator:
    schema = json.loads((builtin_schemas_dir() / "flavor.schema.json").read_text(encoding="utf-8"))
    return jsonschema_rs.validator_for(schema)


def load_flavor(directory: Path, *, builtin: bool, parent: Flavor | None = None) -> Flavor:
    """Read and check one flavor folder's metadata; every problem in the file is reported at once.

    With ``parent`` (the flavor named by ``extends``), the parent's variable declarations come
    first and the child's own declarations override or add to them.
    """
    meta_path = directory / METADATA_FILE
    try:
        raw = load_value(read_source(str(meta_path)), source=str(meta_path))
    except InputOutputError as exc:
        msg = f"cannot read flavor metadata: {exc.message}"
        raise FlavorError(msg, location=Location(file=str(meta_path))) from exc
    except YamlError as exc:
        msg = f"flavor metadata is not valid YAML: {exc.message}"
        raise FlavorError(msg, location=exc.location) from exc
    problems = [
        f"{format_path(list(err.instance_path)) or '(top level)'}: {err.message}"
        for err in _metadata_validator().iter_errors(raw)
    ]
    if problems:
        msg = "invalid flavor metadata"
        raise FlavorError(msg, location=Location(file=str(meta_path)), details=problems)
    assert isinstance(raw, dict)
    if raw["name"] != directory.name:
        msg = f"flavor name {raw['name']!r} does not match its folder {directory.name!r}"
        raise FlavorError(
            msg,
            location=Location(file=str(meta_path), path="name"),
        )
    missing = [t for t in raw["templates"] if not (directory / t).is_file()]
    if missing:
        msg = "flavor lists templates that do not exist"
        raise FlavorError(
            msg,
            location=Location(file=str(meta_path), path="templates"),
            details=missing,
        )
    variables = _variables(raw["variables"], parent, meta_path)
    origins = _origins(raw, meta_path, variables)
    return Flavor(
        name=raw["name"],
        description=raw["description"],
        directory=directory,
        templates=tuple(raw["templates"]),
        variables=variables,
        clusterclass=raw.get("clusterclass"),
        extends=raw.get("extends"),
        notes=raw.get("notes", ""),
        builtin=builtin,
        origins=(parent.origins if parent is not None else ()) + origins,
    )


def _variables(
    declared: JsonObject, parent: Flavor | None, meta_path: Path
) -> dict[str, VariableSpec]:
    """The parent's declarations overridden by the flavor's own; a declaration with
    ``inherit: true`` restates an inherited one (:meth:`VariableSpec.restated`) of the same type."""
    variables = dict(parent.variables) if parent is not None else {}
    for name, spec in declared.items():
        assert isinstance(spec, dict)  # the metadata schema says so
        if not spec.get("inherit"):
            variables[name] = VariableSpec.from_metadata(name, spec)
            continue
        inherited = variables.get(name) if parent is not None else None
        if inherited is None or inherited.type != spec.get("type"):
            msg = f"variable {name!r} says inherit: true but extends no {spec.get('type')} variable of that name"
            raise FlavorError(msg, location=Location(file=str(meta_path), path=f"variables.{name}"))
        variables[name] = inherited.restated(spec)
    return variables


def _origins(
    raw: JsonObject, meta_path: Path, variables: dict[str, VariableSpec]
) -> tuple[ObjectOrigin, ...]:
    """The flavor's own ``origins``; every variable they name must be declared."""
    try:
        origins = parse_origins(raw.get("origins", []))
    except ValueError as error:
        msg = f"invalid origins: {error}"
        raise FlavorError(msg, location=Location(file=str(meta_path), path="origins")) from None
    unknown = sorted(
        {str(path[0]) for origin in origins for path in origin.variables()} - set(variables)
    )
    if unknown:
        msg = "origins name undeclared variables"
        raise FlavorError(
            msg,
            location=Location(file=str(meta_path), path="origins"),
            details=unknown,
        )
    return origins


def _extends_of(directory: Path) -> str | None:
    """The ``extends`` value of a flavor's metadata, read before the full check of the file."""
    path = directory / METADATA_FILE
    try:
        raw = load_value(read_source(str(path)), source=str(path))
    except (InputOutputError, YamlError):
        return None  # load_flavor reports the problem with its location
    value = raw.get("extends") if isinstance(raw, dict) else None
    return value if isinstance(value, str) else None


class FlavorCatalog:
    """All flavors visible from a list of folders, earlier folders shadowing later ones."""

    def __init__(self, user_dirs: Sequence[Path] = (), *, include_builtin: bool = True) -> None:
        self.roots: list[tuple[Path, bool]] = [(Path(d), False) for d in user_dirs]
        if include_builtin:
            self.roots.append((builtin_flavors_dir(), True))
        for root, _ in self.roots:
            if not root.is_dir():
                msg = "flavors folder does not exist"
                raise InputOutputError(msg, location=Location(file=str(root)))

    def names(self) -> list[str]:
        """Flavor names across all roots, sorted, each once however many roots hold it.

        A folder is a flavor when it holds ``flavor.yaml`` and its name does not start with ``_``.
        """
        found: set[str] = set()
        for root, _ in self.roots:
            for child in root.iterdir():
                if not child.name.startswith("_") and (child / METADATA_FILE).is_file():
                    found.add(child.name)
        return sorted(found)

    def get(self, name: str, *, builtin_only: bool = False, _chain: tuple[str, ...] = ()) -> Flavor:
        """Load flavor ``name`` from the first root having it, its ``extends`` chain resolved.

        Raises :class:`FlavorError` for an unknown name (the hint lists the available ones), a cycle
        of ``extends`` or invalid metadata. ``builtin_only`` skips user folders, which is how a
        built-in flavor's parent is looked up; ``_chain`` is the recursion's own bookkeeping.
        """
        if name in _chain:
            msg = f"flavor {name!r} extends itself: {' -> '.join([*_chain, name])}"
            raise FlavorError(msg)
        for root, builtin in self.roots:
            candidate = root / name
            if (builtin or not builtin_only) and (candidate / METADATA_FILE).is_file():
                parent_name = _extends_of(candidate)
                parent = None
                if parent_name is not None:
                    # A built-in flavor only ever extends built-in flavors (user folders must not
                    # change what a built-in flavor means).
                    parent = self.get(parent_name, builtin_only=builtin, _chain=(*_chain, name))
                return load_flavor(candidate, builtin=builtin, parent=parent)
        target = ALIASES.get(name)
        if target is not None and not _chain:
            # CAPZ's name means CAPZ's template, which the built-in flavor renders, even when
            # a user folder shadows the built-in name.
            return self.get(target, builtin_only=True)
        msg = f"unknown flavor {name!r}"
        names = self.names()
        known = [*names, *self.aliases()]
        guess = did_you_mean(name, known, limit=2).removeprefix("; ")
        raise FlavorError(
            msg,
            hint=(f"{guess} " if guess else "")
            + f"available flavors: {', '.join(names) or '(none)'}",
        )

    def aliases(self, flavor: str | None = None) -> list[str]:
        """CAPZ template names that stand for a built-in flavor (``flavor``, or any), sorted; an
        alias counts only while no folder uses it as a flavor's own name."""
        names = set(self.names())
        builtin = {name for name in names if self._builtin_has(name)}
        return sorted(
            alias
            for alias, target in ALIASES.items()
            if target in builtin and alias not in names and flavor in (None, target)
        )

    def _builtin_has(self, name: str) -> bool:
        return any(
            builtin and (root / name / METADATA_FILE).is_file() for root, builtin in self.roots
        )

    def all(self) -> list[Flavor]:
        """Every flavor, loaded, in name order; the first invalid one raises."""
        return [self.get(name) for name in self.names()]

    def template_search_path(self, flavor: Flavor) -> list[Path]:
        """Folders Jinja may load from: the flavor itself, then the roots for ``_lib`` macros.

        A built-in flavor sees only the built-in roots, so a user's ``_lib`` can never change what
        a built-in flavor renders; a user flavor may import from user and built-in libraries.
        """
        roots = [root for root, builtin in self.roots if builtin or not flavor.builtin]
        return [flavor.directory, *roots]
