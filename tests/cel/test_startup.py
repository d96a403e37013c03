"""Start-up: the CEL machinery loads only when a rule applies to a value, and parse trees are kept
per schema under the cache root so that later runs need no parser."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from generator.cel import astcache, prepare
from generator.cel.rules import RuleStatus
from generator.cel.runtime import CelSyntaxError, parse, to_cel
from generator.cel.tree import build_tree
from tests.processes import run_reaped

RULES = [
    "self.all(x, x.name.matches('^[a-z]+$') && size(x.tags) < 3) ? true : self.y in [1, 2]",
    "has(self.a) && self['b-c'] == 'd' || !(self.n > 2.5e3)",
    "self.x.map(i, i + 1).filter(j, j % 2 == 0).exists_one(k, k == -4)",
    "b'bytes' != bytes('x') && r'raw\\d' != '' && 'x'.lowerAscii() == 'x'",
]


@pytest.mark.parametrize("rule", RULES)
def test_parse_trees_survive_the_json_round_trip(rule: str) -> None:
    tree = parse(rule)
    encoded = json.loads(json.dumps(astcache.encode(tree)))
    decoded = astcache.decode(encoded)
    assert decoded == tree
    assert (decoded.meta.line, decoded.meta.column) == (1, 1)


def test_malformed_entries_are_refused() -> None:
    with pytest.raises(ValueError, match="malformed cached parse tree"):
        astcache.decode([["expr", 1, 1, [5]]])
    with pytest.raises(ValueError, match="empty cached parse tree"):
        astcache.decode([])


def schema(*rules: str) -> dict[str, Any]:
    return {
        "type": "object",
        "x-kubernetes-validations": [{"rule": r, "messageExpression": "'m'"} for r in rules],
        "properties": {"a": {"type": "string"}},
    }


def prepare_all(folder: Path | None, *rules: str) -> list[prepare.Prepared]:
    tree = build_tree(schema(*rules), folder)
    assert tree is not None
    return [rule.prepared() for rule in tree.rules]


def test_trees_are_stored_per_schema_and_read_back_without_the_parser(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = prepare_all(tmp_path, "self.a == 'x'", "self.a ==")
    assert first[0].analysis.evaluable
    assert first[1].analysis.status is RuleStatus.UNSUPPORTED
    (stored,) = tmp_path.glob("asts-*.json")
    entries = json.loads(stored.read_text())["trees"]
    assert set(entries) == {"self.a == 'x'", "self.a ==", "'m'"}
    assert isinstance(entries["self.a =="], str)  # the syntax error, remembered too

    def no_parser(text: str) -> Any:
        raise AssertionError(text)

    monkeypatch.setattr(prepare, "parse", no_parser)
    again = prepare_all(tmp_path, "self.a == 'x'", "self.a ==")
    assert again[0].analysis == first[0].analysis
    assert again[0].cost == first[0].cost == 3
    assert again[1].analysis == first[1].analysis
    assert again[0].program is not None
    assert again[0].program.evaluate(to_cel({"a": "x"}))


def test_a_damaged_cache_file_is_ignored_and_rewritten(tmp_path: Path) -> None:
    prepare_all(tmp_path, "self.a == 'x'")
    (stored,) = tmp_path.glob("asts-*.json")
    for damage in ("{not json", json.dumps({"format": 0, "trees": {}}), "[1]"):
        stored.write_text(damage)
        assert prepare_all(tmp_path, "self.a == 'x'")[0].analysis.evaluable
        assert json.loads(stored.read_text())["format"] == astcache.FORMAT
    stored.write_text(json.dumps({"format": astcache.FORMAT, "trees": {"self.a == 'x'": [[]]}}))
    assert prepare_all(tmp_path, "self.a == 'x'")[0].cost == 3


def test_other_rules_name_another_file_and_no_folder_writes_nothing(tmp_path: Path) -> None:
    prepare_all(tmp_path, "self.a == 'x'")
    prepare_all(tmp_path, "self.a == 'y'")
    assert len(list(tmp_path.glob("asts-*.json"))) == 2
    assert astcache.digest(["b", "a"]) == astcache.digest(["a", "b", "a"])
    assert prepare_all(None, "self.a == 'x'")[0].cost == 3
    unwritable = tmp_path / "file"
    unwritable.write_text("")
    assert prepare_all(unwritable, "self.a == 'z'")[0].cost == 3  # cannot write: still works


def test_syntax_errors_are_reported_by_the_parser() -> None:
    with pytest.raises(CelSyntaxError):
        parse("self.a ==")


PROBE = textwrap.dedent(
    """
    import sys
    from generator.documents import Document
    from generator.schemastore.store import SchemaStore
    from generator.checks import ValidationOptions, validate_documents

    obj = {"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster",
           "metadata": {"name": "c"}, "spec": %s}
    store = SchemaStore.from_search_path()
    findings = validate_documents([Document("c.yaml", 0, obj)], store, ValidationOptions())
    print(sorted(f.rule for f in findings if f.origin == "cel"))
    print(sorted(m for m in ("celpy", "lark", "generator.cel.runtime") if m in sys.modules))
    """
)


def probe(spec: Any) -> list[str]:
    done = run_reaped(
        [sys.executable, "-c", PROBE % json.dumps(spec)], cwd=Path(__file__).parents[2]
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_cel_machinery_loads_only_when_a_rule_applies() -> None:
    # Cluster's schema has CEL rules, but none applies to an object without health checks.
    assert probe({}) == ["[]", "[]"]
    checks = {"unhealthyMachineConditions": [{"type": "Ready", "status": "False"}]}
    spec = {"topology": {"controlPlane": {"healthCheck": {"checks": checks}}}}
    rules, loaded = probe(spec)
    assert rules == "['cel']"
    assert loaded == "['celpy', 'generator.cel.runtime', 'lark']"
