"""Finding and reading a clusterctl configuration file.

Users already keep their variables in ``clusterctl.yaml``; reading the same file with the same
lookup rules means an environment set up for clusterctl works unchanged.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from pathlib import Path

from generator.errors import InputOutputError, Location, YamlError
from generator.jsontypes import Json, JsonObject
from generator.yamlio.load import load_value
from generator.yamlio.source import decode_source

log = logging.getLogger(__name__)

# viper tries these extensions in this order; json and yaml are the ones users write.
_EXTENSIONS = ("json", "yaml", "yml")
MAX_CONFIG_BYTES = 4 * 1024 * 1024


def config_search_dirs(environ: Mapping[str, str]) -> list[Path]:
    """``$XDG_CONFIG_HOME/cluster-api`` (default ``~/.config``), then ``~/.cluster-api``."""
    home = Path(environ.get("HOME") or Path.home())
    xdg = environ.get("XDG_CONFIG_HOME") or str(home / ".config")
    return [Path(xdg) / "cluster-api", home / ".cluster-api"]


def find_config_file(environ: Mapping[str, str]) -> Path | None:
    """The ``clusterctl.{json,yaml,yml}`` clusterctl would read, found as it does; None if none."""
    for folder in config_search_dirs(environ):
        for ext in _EXTENSIONS:
            candidate = folder / f"clusterctl.{ext}"
            if candidate.is_file():
                return candidate
    return None


def load_config(path: Path | None, environ: Mapping[str, str]) -> JsonObject:
    """Top-level keys of the config file (or of the discovered default file; ``{}`` if none).

    An explicit ``path`` must exist (clusterctl fails too); a discovered file that is unreadable is an
    error as well, because silently ignoring a user's configuration produces the wrong cluster.
    """
    explicit = path is not None
    target = path if path is not None else find_config_file(environ)
    if target is None:
        return {}
    try:
        with target.open("rb") as handle:
            data = handle.read(MAX_CONFIG_BYTES + 1)
    except FileNotFoundError as exc:
        msg = "clusterctl config file does not exist"
        raise InputOutputError(
            msg,
            location=Location(file=str(target)),
            hint=None if not explicit else "check the --config path",
        ) from exc
    except OSError as exc:
        msg = f"cannot read clusterctl config file: {exc.strerror or exc}"
        raise InputOutputError(
            msg,
            location=Location(file=str(target)),
        ) from exc
    if len(data) > MAX_CONFIG_BYTES:
        msg = f"clusterctl config file is larger than {MAX_CONFIG_BYTES} bytes"
        raise YamlError(
            msg,
            location=Location(file=str(target)),
        )
    log.info("reading variables from %s", target)
    try:
        loaded = load_value(decode_source(data, str(target)), source=str(target))
    except YamlError as exc:
        msg = f"clusterctl config file is not valid YAML: {exc.message}"
        raise YamlError(msg, location=exc.location, hint=exc.hint) from exc
    if loaded is None:
        return {}
    if not isinstance(loaded, dict):
        msg = "clusterctl config file must be a mapping of variable names to values"
        raise YamlError(
            msg,
            location=Location(file=str(target)),
        )
    return {str(key): value for key, value in loaded.items()}


def config_value_as_string(value: Json) -> str | None:
    """Convert a config value the way viper's string conversion does.

    ``None`` counts as unset; lists and maps count as set but empty; whole floats lose their
    fraction (``1.0`` -> ``1``), as Go's shortest float formatting does.
    """
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "+Inf" if value > 0 else "-Inf"
        if value.is_integer() and abs(value) < 1e21:
            return str(int(value))
        return repr(value)
    if isinstance(value, (list, dict)):
        return ""
    return str(value)
