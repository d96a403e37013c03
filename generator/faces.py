"""Lazy folder faces: a package's ``__init__`` names its public parts without loading them.

A command loads only what it runs (``capzgen --version`` loads no validator, a clean ``validate``
no PyYAML), yet ``from generator.checks import validate_documents`` should read as the folder's
own word. Each face lists where its names live; the first use of a name imports that module
(PEP 562), and the type checker reads the same names from the face's ``TYPE_CHECKING`` imports.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping


def lazy_names(package: str, homes: Mapping[str, str]) -> Callable[[str], object]:
    """A module ``__getattr__`` for ``package``: ``homes`` maps each exported name to the module
    of the package that defines it; the value is kept on the package once imported."""

    def __getattr__(name: str) -> object:
        home = homes.get(name)
        if home is None:
            msg = f"module {package!r} has no attribute {name!r}"
            raise AttributeError(msg)
        value = getattr(importlib.import_module(f"{package}.{home}"), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
