"""Every CEL rule capzgen ships is within the API server's cost limits, and ``capzgen schemas list
--cel`` shows each rule's estimated cost."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import yaml

from generator.cel.inventory import rule_inventory
from generator.cel.limits import STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT
from generator.schemastore.store import SchemaStore
from tests.cel.conftest import crd
from tests.conftest import CliResult

RunCli = Callable[..., CliResult]


def test_every_shipped_rule_is_within_the_api_servers_cost_limits() -> None:
    entries = rule_inventory(SchemaStore.from_search_path())
    assert len(entries) >= 17
    per_crd: dict[str, int] = defaultdict(int)
    for entry in entries:
        assert entry.cost is not None, entry.rule.rule
        assert entry.total_cost is not None
        assert 0 < entry.total_cost <= STATIC_ESTIMATED_COST_LIMIT, (entry.path, entry.rule.rule)
        assert not entry.over_limit
        per_crd[f"{entry.gvk}"] += entry.total_cost
    assert max(per_crd.values()) <= STATIC_ESTIMATED_CRD_COST_LIMIT


def test_list_cel_shows_estimated_costs(
    run_cli: RunCli, tmp_path: Path, isolated_cache: Path
) -> None:
    spec = {
        "type": "object",
        "properties": {
            "names": {
                "type": "array",
                "maxItems": 4,
                "items": {
                    "type": "string",
                    "maxLength": 10,
                    "x-kubernetes-validations": [{"rule": "self.startsWith('a')"}],
                },
            },
            "free": {
                "type": "array",
                "items": {"type": "string"},
                "x-kubernetes-validations": [{"rule": "self.all(x, self.all(y, x == y))"}],
            },
        },
    }
    (tmp_path / "widget.yaml").write_text(yaml.safe_dump(crd("Widget", spec)))
    result = run_cli(["schemas", "list", "--schema-dir", str(tmp_path), "--cel"])
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    names = lines.index("example.com/v1 Widget  spec.names[*]  evaluable")
    # self 1 + startsWith ceil(0.1 * 40) = 4, four times (maxItems)
    assert lines[names + 2] == "    estimated cost: 5 x 4 evaluations = 20"
    free = lines.index("example.com/v1 Widget  spec.free  evaluable")
    assert lines[free + 2].startswith("    estimated cost: ")
    assert lines[free + 2].endswith(
        " (over the API server's limit of 10,000,000 per rule: the CRD is refused)"
    )

    data = json.loads(
        run_cli(["schemas", "list", "--schema-dir", str(tmp_path), "--cel", "-o", "json"]).stdout
    )
    rows = {row["path"]: row for row in data if row["kind"] == "Widget"}
    assert {
        key: rows["spec.names[*]"][key]
        for key in ("estimatedCost", "maxCardinality", "estimatedTotalCost", "overCostLimit")
    } == {"estimatedCost": 5, "maxCardinality": 4, "estimatedTotalCost": 20, "overCostLimit": False}
    assert rows["spec.free"]["overCostLimit"] is True
