"""Closed sets capzgen knows about Azure and Kubernetes, each from one data file with its source.

``generator/data/azure-regions.yaml`` lists the public regions (an unknown region is only a
warning: Azure opens new ones), ``generator/data/kubernetes-versions.yaml`` the range of minor
versions CAPZ v1.26.0 supports for workload clusters. VM sizes are an open set; their names have
a shape (``Standard_D4s_v5``), checked by :data:`VM_SIZE`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from generator.jsontypes import Json
from generator.suggest import closest, fold
from generator.yamlio.load import load_manifest_value, read_source

_DATA_DIR = Path(__file__).resolve().parent / "data"

# Standard_<family: 1-4 capitals><vCPUs>[-<constrained vCPUs>][<features: lower case>][_<suffix>...]
# e.g. Standard_D4s_v5, Standard_NC24ads_A100_v4, Standard_M416-208s_v2, Standard_B2ms, Basic_A0.
VM_SIZE = re.compile(
    r"^(Standard|Basic)_[A-Z]{1,4}[0-9]+(-[0-9]+)?[a-z]*(_[A-Za-z0-9]+)*$", re.IGNORECASE
)
VM_SIZE_SHAPE = (
    "Standard_<family><vCPUs>[<features>][_<version>], e.g. Standard_D4s_v5 or Standard_B2ms"
)
KUBERNETES_VERSION_SHAPE = "v<major>.<minor>.<patch>, e.g. v1.33.1"


@dataclass(frozen=True)
class VersionRange:
    """Supported Kubernetes minor versions, inclusive, and where that range comes from."""

    minimum: tuple[int, int]
    maximum: tuple[int, int]
    source: str
    checked: str

    def contains(self, major: int, minor: int) -> bool:
        """Whether ``major.minor`` lies in the range."""
        return self.minimum <= (major, minor) <= self.maximum

    def describe(self) -> str:
        """``v1.30 to v1.36``."""
        low, high = self.minimum, self.maximum
        return f"v{low[0]}.{low[1]} to v{high[0]}.{high[1]}"


def _load(name: str) -> Json:
    """A data file, read by the manifest loader: these files are plain YAML that both of
    capzgen's readings (``load_value``, ``load_manifest_value``) read alike (a test checks), and
    the manifest loader needs no PyYAML, which validating manifests otherwise does without."""
    path = _DATA_DIR / name
    return load_manifest_value(read_source(str(path)), source=str(path))


@cache
def regions() -> frozenset[str]:
    """The Azure public regions' names (``westeurope``)."""
    return frozenset(str(region) for region in _load("azure-regions.yaml")["regions"])


def regions_compiled() -> str:
    """The date the region list was written down."""
    return str(_load("azure-regions.yaml")["compiled"])


def nearest_regions(value: str, *, limit: int = 3) -> list[str]:
    """The region a display name stands for (``West Europe`` -> ``westeurope``), else the
    nearest region names."""
    known = regions()
    folded = fold(value)
    if folded in known and folded != value:
        return [folded]
    return closest(value, known, limit=limit)


@cache
def kubernetes_versions() -> VersionRange:
    """The range of Kubernetes minor versions CAPZ v1.26.0 supports (see the data file)."""
    raw = _load("kubernetes-versions.yaml")

    def minor(text: str) -> tuple[int, int]:
        major, _, rest = str(text).partition(".")
        return int(major), int(rest)

    return VersionRange(
        minimum=minor(raw["minimum"]),
        maximum=minor(raw["maximum"]),
        source=str(raw["source"]),
        checked=str(raw["checked"]),
    )
