"""Closed sets capzgen knows about Azure and Kubernetes, each from one data file with its source.

``generator/data/azure-regions.yaml`` lists the public regions (an unknown region is only a
warning: Azure opens new ones), ``generator/data/kubernetes-versions.yaml`` the range of minor
versions CAPZ v1.26.0 supports for workload clusters. A VM size name has a shape
(``Standard_D4s_v5``), checked by :func:`is_vm_size_name` for ``generate`` (a flavor variable's
``format: azure-vm-size``) and ``validate`` (CAPZ-VM-SIZE) alike, so the two never disagree;
``generator/data/azure-vm-sizes.txt`` lists the sizes Azure is known to offer, and a name of the
right shape outside it is only a warning (CAPZ-VM-SIZE-KNOWN): Azure adds sizes every year.
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


def is_vm_size_name(value: str) -> bool:
    """Whether ``value`` has the shape of a VM size name, in any case: ARM compares VM size names
    case-insensitively (``standard_d2s_v3`` provisions a ``Standard_D2s_v3``), so refusing the
    lower-case spelling would refuse what Azure accepts. The one test both ``generate`` and
    ``validate`` apply."""
    return VM_SIZE.match(value) is not None


_VM_SIZES_FILE = _DATA_DIR / "azure-vm-sizes.txt"
_COMPILED = re.compile(r"^# compiled: (\S+)$", re.MULTILINE)


@cache
def _vm_sizes_text() -> str:
    """The VM size list: plain text, one name a line, ``#`` comments. Not YAML: names such as
    ``Standard_E16-4ds_v5`` look numeric to the fast YAML reader's safety scan, which would then
    load the precise reader (and PyYAML) into every ``validate`` for a flat list of names."""
    return _VM_SIZES_FILE.read_text(encoding="utf-8")


@cache
def vm_sizes() -> frozenset[str]:
    """The known VM size names, case-folded (see the data file for the source and date)."""
    lines = (line.strip() for line in _vm_sizes_text().splitlines())
    return frozenset(line.casefold() for line in lines if line and not line.startswith("#"))


def vm_sizes_compiled() -> str:
    """The date the VM size list was taken from its source."""
    match = _COMPILED.search(_vm_sizes_text())
    return match.group(1) if match else "at an unknown date"


def is_known_vm_size(value: str) -> bool:
    """Whether ``value`` names a VM size in capzgen's list, compared as ARM compares (any case)."""
    return value.casefold() in vm_sizes()


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
