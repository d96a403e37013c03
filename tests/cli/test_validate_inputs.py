"""``validate`` with an argument that cannot be read among others: every other input is validated
and reported (JSON included), the unreadable one is an error naming it, and the run exits 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

BAD = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bad, namespace: default}\ndata: [x]\n"
GOOD = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: good, namespace: default}\n"


def test_a_missing_path_keeps_the_other_inputs_findings(run_cli: Any, tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text(BAD, encoding="utf-8")
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "good.yaml").write_text(GOOD, encoding="utf-8")
    missing = str(tmp_path / "missing.yaml")
    argv = ["validate", str(tmp_path / "bad.yaml"), missing, str(tmp_path / "dir")]
    result = run_cli([*argv, "--output", "json"])
    assert result.exit_code == 2
    report = json.loads(result.stdout)
    assert report["summary"]["documents"] == 2
    files = {finding["file"] for finding in report["findings"]}
    assert files == {str(tmp_path / "bad.yaml"), missing}
    [gone] = [finding for finding in report["findings"] if finding["file"] == missing]
    assert gone["message"] == "no such file or directory"
    assert report["error"]["file"] == missing
    assert report["error"]["exit_code"] == 2
    assert f"Error: {missing}: no such file or directory" in result.stderr
    text = run_cli(argv)
    assert text.exit_code == 2
    assert f"{tmp_path / 'bad.yaml'}:" in text.stdout
    assert missing in text.stdout
    assert missing in text.stderr
