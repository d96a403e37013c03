"""``.capzgen.yaml``: the settings a repository keeps for capzgen, found and read strictly.

Platform teams keep their tools' settings in the repository, next to what the tools check
(kubeconform's flags in CI, flux-schema's ``.fluxschema.yml``), so that every clone and every CI
job runs the tool the same way without repeating flags. This module finds that file and turns it
into a :class:`RepoConfig`; :mod:`generator.cli.repo_config` decides how its values rank against
the command line and the environment.

The file is read with the same bounded loaders as every other YAML input (size, depth, nodes,
duplicate keys), and checked strictly: a key capzgen does not know, or a value of the wrong
type, is an error naming the file and line. A typo in a settings file would otherwise silently
leave a setting at its default, which is the kind of mistake a shared file makes for everyone.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from generator.errors import Location, UsageError
from generator.jsontypes import Json, JsonObject
from generator.yamlio.load import load_manifest_value
from generator.yamlio.locate import LineLocator
from generator.yamlio.source import read_source

CONFIG_NAME = ".capzgen.yaml"
MAX_CONFIG_BYTES = 1024 * 1024  # a settings file; a larger one is a mistake
FAIL_ON = ("error", "warning")


@dataclass(frozen=True)
class RepoConfig:
    """What a ``.capzgen.yaml`` says (every field empty or None when it says nothing); paths are
    already resolved against the file's folder, the glob lists are kept as written (they are
    matched relative to :attr:`base`)."""

    path: Path | None = None  # None: no file was read
    schema_dirs: tuple[Path, ...] = ()
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    disabled_rules: tuple[str, ...] = ()
    fail_on: str | None = None  # error | warning; takes effect where --fail-on exists
    output: str | None = None  # validate's default --output
    values: JsonObject = field(default_factory=dict)  # under generate cluster's --values
    flavors_dirs: tuple[Path, ...] = ()

    @property
    def base(self) -> Path:
        """The folder relative paths and globs of the file are read against."""
        return self.path.parent if self.path is not None else Path.cwd()


NO_CONFIG = RepoConfig()


def find_config(start: Path) -> Path | None:
    """The ``.capzgen.yaml`` that applies in ``start``: the first one met walking up from it,
    but not past the repository's root (the first folder holding ``.git``, a folder or a
    worktree's file): a checkout must not pick up a stray file from a parent folder it does
    not own. Outside any repository the walk goes on to the file system's root."""
    folder = start.resolve()
    for candidate in (folder, *folder.parents):
        found = candidate / CONFIG_NAME
        if found.is_file():
            return found
        if (candidate / ".git").exists():
            return None
    return None


def load_config(path: Path) -> RepoConfig:
    """Read and check ``path`` (see the module docstring); an unreadable file, invalid YAML,
    an unknown key or a wrong type is an error (exit 2) naming the file and, when known, the
    line."""
    source = str(path)
    text = read_source(source, limit=MAX_CONFIG_BYTES)
    data = load_manifest_value(text, source=source)
    if data is None:
        return RepoConfig(path=path)
    reader = _Reader(path, text)
    if not isinstance(data, dict):
        raise reader.error((), "must be a YAML mapping of settings")
    unknown = [str(key) for key in data if key not in _FIELDS]
    if unknown:
        known = ", ".join(sorted(_FIELDS))
        raise reader.error((unknown[0],), f"unknown key {unknown[0]!r} (known keys: {known})")
    fields: dict[str, object] = {}
    for key, value in data.items():
        name, read = _FIELDS[str(key)]
        fields[name] = read(reader, str(key), value)
    return RepoConfig(path=path, **fields)  # type: ignore[arg-type]


def key_error(config: RepoConfig, key: str, message: str) -> UsageError:
    """An error about the value of ``key`` found after reading (checked against a command's
    options), at the key's line: the file is read again, only for the message."""
    path = config.path or Path(CONFIG_NAME)
    return _Reader(path, read_source(str(path), limit=MAX_CONFIG_BYTES)).error((key,), message)


class _Reader:
    """Errors that point at a key of the file, by line."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self._locator = LineLocator(text)

    def error(self, where: tuple[str | int, ...], message: str) -> UsageError:
        line = self._locator.line_of(0, where) if where else None
        return UsageError(
            message,
            location=Location(file=str(self.path), line=line),
            hint=f"see docs/configuration.md for the keys of {CONFIG_NAME}",
        )


def _strings(reader: _Reader, key: str, value: Json) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise reader.error((key,), f"{key} must be a list of strings")
    for index, item in enumerate(value):
        if not isinstance(item, str) or not item.strip():
            raise reader.error((key, index), f"{key}[{index}] must be a non-empty string")
    return tuple(str(item) for item in value)


def _paths(reader: _Reader, key: str, value: Json) -> tuple[Path, ...]:
    """Relative paths are relative to the file's folder, so the file means the same from any
    working directory."""
    folder = reader.path.parent
    return tuple(Path(os.path.normpath(folder / item)) for item in _strings(reader, key, value))


def _choice(choices: tuple[str, ...] | None) -> Callable[[_Reader, str, Json], str]:
    def read(reader: _Reader, key: str, value: Json) -> str:
        if not isinstance(value, str) or (choices is not None and value not in choices):
            wanted = " or ".join(choices) if choices is not None else "a string"
            raise reader.error((key,), f"{key} must be {wanted}, not {value!r}")
        return value

    return read


def _mapping(reader: _Reader, key: str, value: Json) -> JsonObject:
    if not isinstance(value, dict):
        raise reader.error((key,), f"{key} must be a mapping of variable names to values")
    return {str(name): item for name, item in value.items()}


# key in the file -> (RepoConfig field, reader of its value)
_FIELDS: dict[str, tuple[str, Callable[[_Reader, str, Json], object]]] = {
    "schemaDirs": ("schema_dirs", _paths),
    "include": ("include", _strings),
    "exclude": ("exclude", _strings),
    "disabledRules": ("disabled_rules", _strings),
    "failOn": ("fail_on", _choice(FAIL_ON)),
    "output": ("output", _choice(None)),  # checked against validate's --output choices
    "values": ("values", _mapping),
    "flavorsDirs": ("flavors_dirs", _paths),
}
