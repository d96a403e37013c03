"""Glob patterns that keep files out of a ``capzgen validate`` run (``--exclude``, and the
``include``/``exclude`` lists of ``.capzgen.yaml``).

A repository folder often holds files beside its manifests that are not manifests at all (a
chart's ``values.yaml``, a ``values.schema.json``); validating them only produces noise, and
moving them is not always possible. The patterns are matched the way ``.gitignore`` users
expect, so they need no explanation:

* ``*`` and ``?`` stay within one path segment, ``**`` crosses segments (``**/`` may match
  nothing), anything else is literal;
* a pattern without a ``/`` matches any one segment (``values.yaml`` matches
  ``charts/app/values.yaml``, ``charts`` matches every file below a ``charts`` folder);
* a pattern with a ``/`` matches the whole path, or a folder above it (``clusters/dev``
  matches ``clusters/dev/cluster.yaml``).

Paths are matched with ``/`` separators, after normalisation (``./a/../b`` is ``b``); an
absolute pattern is matched against the absolute path.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache


@lru_cache(maxsize=256)
def _compile(pattern: str) -> re.Pattern[str]:
    """The regular expression of one glob (linear: only ``[^/]*`` and ``.*`` repeat)."""
    parts: list[str] = []
    index = 0
    while index < len(pattern):
        if pattern.startswith("**/", index):
            parts.append("(?:.*/)?")
            index += 3
        elif pattern.startswith("**", index):
            parts.append(".*")
            index += 2
        elif pattern[index] == "*":
            parts.append("[^/]*")
            index += 1
        elif pattern[index] == "?":
            parts.append("[^/]")
            index += 1
        else:
            parts.append(re.escape(pattern[index]))
            index += 1
    return re.compile("".join(parts))


def _normal(path: str) -> str:
    return os.path.normpath(path).replace(os.sep, "/")


def glob_matches(pattern: str, path: str) -> bool:
    """Whether ``path`` (relative, ``/``-separated) matches ``pattern`` (module docstring)."""
    glob = _normal(pattern.strip()).strip("/")
    if not glob or glob == ".":
        return False
    compiled = _compile(glob)
    segments = _normal(path).split("/")
    if "/" not in glob:
        return any(compiled.fullmatch(segment) for segment in segments)
    return any(compiled.fullmatch("/".join(segments[:end])) for end in range(1, len(segments) + 1))


@dataclass(frozen=True, slots=True)
class Globs:
    """Patterns and what they are relative to: ``base`` is the folder of the ``.capzgen.yaml``
    that holds them (a path is matched relative to it, and never when it lies outside); ``None``
    means the command line, whose patterns match the path as given and relative to the current
    folder (a user types either)."""

    patterns: tuple[str, ...]
    base: str | None = None

    def match(self, path: str) -> bool:
        """Whether any pattern matches ``path``."""
        if not self.patterns:
            return False
        candidates = self._candidates(path)
        absolute = os.path.abspath(path)
        for pattern in self.patterns:
            if os.path.isabs(pattern):  # an absolute glob matches the absolute path
                if glob_matches(pattern, absolute.lstrip("/")):
                    return True
            elif any(glob_matches(pattern, candidate) for candidate in candidates):
                return True
        return False

    def _candidates(self, path: str) -> list[str]:
        absolute = os.path.abspath(path)
        if self.base is not None:
            relative = os.path.relpath(absolute, self.base)
            return [] if relative.split(os.sep)[0] == ".." else [relative]
        relative = os.path.relpath(absolute)
        candidates = [] if relative.split(os.sep)[0] == ".." else [relative]
        if not os.path.isabs(path) and _normal(path) not in candidates:
            candidates.append(path)
        return candidates


@dataclass(frozen=True, slots=True)
class InputGlobs:
    """The exclude and include patterns of one run, from wherever they were given (see
    :class:`~generator.validate.kustomization.InputRules`, which carries them to the walk)."""

    exclude: tuple[Globs, ...] = ()
    include: tuple[Globs, ...] = ()
