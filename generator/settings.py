"""What the core takes from the world outside the command line: one value, built at the CLI edge.

Nothing under :mod:`generator` reads ``os.environ`` except :mod:`generator.cli`, which builds a
:class:`Settings` from the process environment once, in ``main``. Everything below takes it as a
parameter, so a library user or a test states exactly what the core sees; the default is the
pure configuration: an empty environment, no cache, nothing on the schema path. The core reads
no clock (its output carries no dates), so there is none to pass.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

ENV_CACHE_DIR = "CAPZGEN_CACHE_DIR"
ENV_SCHEMA_PATH = "CAPZGEN_SCHEMA_PATH"
ENV_CACHE_KEY = "CAPZGEN_CACHE_KEY"


@dataclass(frozen=True)
class Settings:
    """The environment (``${VAR}`` values, where the clusterctl config lives, what subprocesses
    such as kubectl and kubeconform run with), the cache root (``None``: nothing is cached, read
    or written), the ``$CAPZGEN_SCHEMA_PATH`` entries, and what the result cache's entries are
    authenticated with: ``$CAPZGEN_CACHE_KEY`` if set, else the key file (outside the cache
    root, created on first use; ``None``: no result cache)."""

    environ: Mapping[str, str] = field(default_factory=dict)
    cache_root: Path | None = None
    schema_path: tuple[Path, ...] = ()
    cache_key: str | None = field(default=None, repr=False)
    cache_key_file: Path | None = None

    def cache_dir(self, name: str) -> Path | None:
        """A named folder below the cache root, or None when there is no cache."""
        return self.cache_root / name if self.cache_root is not None else None
