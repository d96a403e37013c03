"""Golden plans of the shipped ClusterClass flavors and of CAPZ's own class templates.

`make snapshots` rewrites them after an intended change (of the flavors or of the plan); any
other change fails `make test`. Both plans are validated with the built-in bundle only, as a
user's first run validates them, and every planned object has a schema there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.topology.topology_testing import capz_inputs, flavor_inputs, plan

GOLDEN = Path(__file__).parent / "golden"


@pytest.mark.parametrize("source", ["capz-aks-aso-topology", "flavors-aks-topology"])
def test_plan_matches_golden(
    source: str, corpus_dir: Path, session_cache: Path, snapshot: Any
) -> None:
    text = capz_inputs(corpus_dir) if source.startswith("capz") else flavor_inputs()
    result = plan(text, session_cache)
    assert not [f for f in result.findings if f.is_error or f.rule == "no-schema"]
    snapshot.snapshot_dir = GOLDEN
    snapshot.assert_match(result.text, f"{source}.yaml")


def test_plan_is_deterministic(corpus_dir: Path, session_cache: Path) -> None:
    text = capz_inputs(corpus_dir)
    assert plan(text, session_cache).text == plan(text, session_cache).text
