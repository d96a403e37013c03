"""The run's environment as :class:`~generator.settings.Settings`: read once by ``main``, handed
to every command.

Kept apart from :mod:`generator.cli.common` (input reading, output writing), which loads the
substitution engine and the YAML emitter: every run needs its settings, and ``capzgen --version``
or ``capzgen validate`` need neither of those.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import click

from generator.settings import ENV_CACHE_DIR, ENV_CACHE_KEY, ENV_SCHEMA_PATH, Settings

if TYPE_CHECKING:
    from generator.validate.zygote import Zygote

CACHE_KEY_FILE = "result-cache.key"


def settings_from_environ(environ: Mapping[str, str]) -> Settings:
    """The one place the environment becomes settings: ``CAPZGEN_CACHE_DIR`` (else the user
    cache folder), ``CAPZGEN_SCHEMA_PATH`` (path-separator separated, blanks ignored),
    ``CAPZGEN_CACHE_KEY`` (else the key file in the user's configuration folder), and the
    environment itself for ``${VAR}`` values, the clusterctl config and subprocesses."""
    configured = environ.get(ENV_CACHE_DIR)
    schema_path = tuple(
        Path(entry.strip())
        for entry in environ.get(ENV_SCHEMA_PATH, "").split(os.pathsep)
        if entry.strip()
    )
    return Settings(
        environ=dict(environ),
        cache_root=Path(configured) if configured else _user_cache_root(environ),
        schema_path=schema_path,
        cache_key=environ.get(ENV_CACHE_KEY) or None,
        cache_key_file=_user_config_root(environ) / CACHE_KEY_FILE,
    )


def _user_cache_root(environ: Mapping[str, str]) -> Path:
    """The XDG cache folder on Linux and other Unix systems, computed from ``environ`` (so a
    given environment is honoured); elsewhere the platform's convention."""
    if os.name == "posix" and sys.platform != "darwin":
        base = environ.get("XDG_CACHE_HOME") or (
            str(Path(environ["HOME"]) / ".cache") if environ.get("HOME") else None
        )
        if base:
            return Path(base) / "capzgen"
    # lazy: platformdirs costs ~5 ms of start-up and is needed only off the XDG path above
    import platformdirs

    return Path(platformdirs.user_cache_dir("capzgen"))


def _user_config_root(environ: Mapping[str, str]) -> Path:
    """The user's configuration folder for capzgen (XDG on Linux and other Unix systems, from
    ``environ``; elsewhere the platform's convention): where the result cache's key lives,
    apart from the cache it authenticates."""
    if os.name == "posix" and sys.platform != "darwin":
        base = environ.get("XDG_CONFIG_HOME") or (
            str(Path(environ["HOME"]) / ".config") if environ.get("HOME") else None
        )
        if base:
            return Path(base) / "capzgen"
    # lazy: platformdirs costs ~5 ms of start-up and is needed only off the XDG path above
    import platformdirs

    return Path(platformdirs.user_config_dir("capzgen"))


def _handed(key: str) -> object:
    """What ``main`` handed this run's commands under ``key`` (None outside ``main``, as in
    click's test runner)."""
    context = click.get_current_context(silent=True)
    obj = context.find_root().obj if context is not None else None
    return obj.get(key) if isinstance(obj, dict) else None


def current_settings() -> Settings:
    """The settings ``main`` built for this run (a command run outside ``main``, as click's test
    runner does, gets the process environment's)."""
    found = _handed("settings")
    return found if isinstance(found, Settings) else settings_from_environ(os.environ)


def current_zygote() -> Zygote | None:
    """The zygote the console script handed ``main`` for this run, if any (it forks
    ``validate``'s workers: :mod:`generator.validate.zygote`)."""
    found = _handed("zygote")
    if found is None:
        return None
    # lazy: loaded already where there is a zygote (the console script forked it)
    from generator.validate.zygote import Zygote

    return found if isinstance(found, Zygote) else None


def ends_process() -> bool:
    """Whether the process ends once this command returns (``main``'s ``ends_process``)."""
    return _handed("ends_process") is True


def environ() -> Mapping[str, str]:
    """The environment of this run, as ``main`` captured it (see :func:`current_settings`)."""
    return current_settings().environ
