"""Flavors: folders of Jinja templates plus metadata declaring typed variables."""

from generator.flavors.catalog import FlavorCatalog
from generator.flavors.model import Flavor, VariableSpec

__all__ = ["Flavor", "FlavorCatalog", "VariableSpec"]
