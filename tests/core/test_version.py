"""``capzgen --version`` names the releases capzgen validates against, and those are the ones the
built-in schema bundle was built from."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from generator import PINNED_RELEASES, __version__

BUNDLE = Path(__file__).resolve().parents[2] / "schemas" / "bundle" / "manifest.json"
PROJECTS = {
    "kubernetes-sigs/cluster-api": "Cluster API",
    "kubernetes-sigs/cluster-api-provider-azure": "CAPZ",
    "fluxcd/kustomize-controller": "Flux kustomize-controller",
    "fluxcd/source-controller": "Flux source-controller",
}


def test_the_pinned_releases_are_the_bundles() -> None:
    sources = json.loads(BUNDLE.read_text())["sources"]
    releases = {(PROJECTS[s["project"]], s["release"]) for s in sources if s["project"] in PROJECTS}
    pinned = dict(PINNED_RELEASES)
    assert releases == {(name, pinned[name]) for name in PROJECTS.values()}
    assert pinned["ASO"].startswith("v2.")


def test_version_lists_them(run_cli: Any) -> None:
    result = run_cli(["--version"])
    assert result.exit_code == 0
    first, second = result.stdout.splitlines()
    assert first == f"capzgen, version {__version__}"
    assert second.startswith("validates against: Cluster API v1.13.3, CAPZ v1.26.0, ASO v2.18.0")
