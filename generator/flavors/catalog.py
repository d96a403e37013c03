"""Discovering flavors: user folders (``--flavors-dir``) first, then the built-in ones."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from generator.errors import FlavorError, Location
from generator.findings import format_path
from generator.flavors.model import Flavor, VariableSpec
from generator.resources import builtin_flavors_dir, builtin_schemas_dir

log = logging.getLogger(__name__)

METADATA_FILE = "flavor.yaml"
LIBRARY_DIR = "_lib"  # shared macros; folders starting with "_" are never flavors


@cache
def _metadata_validator() -> Any:
    import jsonschema_rs

    schema = json.loads((builtin_schemas_dir() / "flavor.schema.json").read_text(encoding="utf-8"))
    return jsonschema_rs.validator_for(schema)


def load_flavor(directory: Path, *, builtin: bool) -> Flavor:
    """Read and check one flavor folder's metadata; every problem in the file is reported at once."""
    meta_path = directory / METADATA_FILE
    try:
        raw = yaml.load(meta_path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
    except OSError as exc:
        raise FlavorError(
            f"cannot read flavor metadata: {exc.strerror or exc}",
            location=Location(file=str(meta_path)),
        ) from exc
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise FlavorError(
            f"flavor metadata is not valid YAML: {exc}", location=Location(file=str(meta_path))
        ) from exc
    problems = [
        f"{format_path(list(err.instance_path)) or '(top level)'}: {err.message}"
        for err in _metadata_validator().iter_errors(raw)
    ]
    if problems:
        raise FlavorError(
            "invalid flavor metadata", location=Location(file=str(meta_path)), details=problems
        )
    assert isinstance(raw, dict)
    if raw["name"] != directory.name:
        raise FlavorError(
            f"flavor name {raw['name']!r} does not match its folder {directory.name!r}",
            location=Location(file=str(meta_path), path="name"),
        )
    missing = [t for t in raw["templates"] if not (directory / t).is_file()]
    if missing:
        raise FlavorError(
            "flavor lists templates that do not exist",
            location=Location(file=str(meta_path), path="templates"),
            details=missing,
        )
    variables = {
        name: VariableSpec.from_metadata(name, spec) for name, spec in raw["variables"].items()
    }
    return Flavor(
        name=raw["name"],
        description=raw["description"],
        directory=directory,
        templates=tuple(raw["templates"]),
        variables=variables,
        clusterclass=raw.get("clusterclass"),
        notes=raw.get("notes", ""),
        builtin=builtin,
    )


class FlavorCatalog:
    """All flavors visible from a list of folders, earlier folders shadowing later ones."""

    def __init__(self, user_dirs: Sequence[Path] = (), *, include_builtin: bool = True) -> None:
        self.roots: list[tuple[Path, bool]] = [(Path(d), False) for d in user_dirs]
        if include_builtin:
            self.roots.append((builtin_flavors_dir(), True))
        for root, _ in self.roots:
            if not root.is_dir():
                raise FlavorError(
                    "flavors folder does not exist", location=Location(file=str(root))
                )

    def names(self) -> list[str]:
        found: set[str] = set()
        for root, _ in self.roots:
            for child in root.iterdir():
                if not child.name.startswith("_") and (child / METADATA_FILE).is_file():
                    found.add(child.name)
        return sorted(found)

    def get(self, name: str) -> Flavor:
        for root, builtin in self.roots:
            candidate = root / name
            if (candidate / METADATA_FILE).is_file():
                return load_flavor(candidate, builtin=builtin)
        raise FlavorError(
            f"unknown flavor {name!r}",
            hint=f"available flavors: {', '.join(self.names()) or '(none)'}",
        )

    def all(self) -> list[Flavor]:
        return [self.get(name) for name in self.names()]

    def template_search_path(self, flavor: Flavor) -> list[Path]:
        """Folders Jinja may load from: the flavor itself, then the roots for ``_lib`` macros.

        A built-in flavor sees only the built-in roots, so a user's ``_lib`` can never change what
        a built-in flavor renders; a user flavor may import from user and built-in libraries.
        """
        roots = [root for root, builtin in self.roots if builtin or not flavor.builtin]
        return [flavor.directory, *roots]
