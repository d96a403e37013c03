"""Flavors: folders of Jinja templates plus metadata declaring typed variables.

The names below load their module on first use (:mod:`generator.faces`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from generator.faces import lazy_names

if TYPE_CHECKING:
    from generator.flavors.catalog import FlavorCatalog
    from generator.flavors.model import Flavor, VariableSpec

__all__ = ["Flavor", "FlavorCatalog", "VariableSpec"]

__getattr__ = lazy_names(
    __name__, {"Flavor": "model", "FlavorCatalog": "catalog", "VariableSpec": "model"}
)
