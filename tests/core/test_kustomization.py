"""``capzgen validate DIR`` reads a kustomization.yaml: its resources decide what is validated,
nothing outside DIR is read and nothing is fetched (generator/validate/kustomization.py)."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from generator.validate.kustomization import collect_inputs

GOOD = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: good, namespace: default}
data: {a: b}
"""
BAD = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: bad, namespace: default}
data: [not, a, map]
"""


def tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def kustomization(*resources: str, extra: str = "") -> str:
    listed = "".join(f"  - {entry}\n" for entry in resources)
    return f"apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n{extra}resources:\n{listed}"


def findings(run_cli: Any, *paths: Path) -> tuple[int, list[dict[str, Any]], int]:
    result = run_cli(["validate", *map(str, paths), "--output", "json"])
    report = json.loads(result.stdout)
    return result.exit_code, report["findings"], report["summary"]["documents"]


def test_only_listed_resources_are_validated(run_cli: Any, tmp_path: Path) -> None:
    root = tree(
        tmp_path / "dir",
        {
            "kustomization.yaml": kustomization("good.yaml", "sub"),
            "good.yaml": GOOD,
            "unlisted.yaml": BAD,  # beside the kustomization, not listed: not read
            "sub/kustomization.yaml": kustomization("more.yaml"),
            "sub/more.yaml": GOOD.replace("name: good", "name: more"),
            "sub/stray.yaml": BAD,
            "other/bad.yaml": BAD,  # a folder the kustomization does not list
        },
    )
    code, found, documents = findings(run_cli, root)
    assert (code, found, documents) == (0, [], 2)
    # The kustomization file named by itself stands for its folder.
    assert findings(run_cli, root / "kustomization.yaml") == (0, [], 2)


def test_a_listed_resource_is_validated(run_cli: Any, tmp_path: Path) -> None:
    root = tree(
        tmp_path / "dir", {"kustomization.yaml": kustomization("bad.yaml"), "bad.yaml": BAD}
    )
    code, found, _ = findings(run_cli, root)
    assert code == 1
    assert [(f["file"], f["rule"]) for f in found] == [(str(root / "bad.yaml"), "schema")]


def test_folders_without_kustomization_are_walked_into_kustomized_sub_folders(
    run_cli: Any, tmp_path: Path
) -> None:
    root = tree(
        tmp_path / "fleet",
        {
            "a/kustomization.yaml": kustomization("good.yaml"),
            "a/good.yaml": GOOD,
            "a/unlisted.yaml": BAD,
            "b/good.yaml": GOOD.replace("name: good", "name: b"),
            ".hidden/bad.yaml": BAD,
            "notes.txt": "not a manifest",
        },
    )
    assert findings(run_cli, root) == (0, [], 2)
    (root / "link").symlink_to(tmp_path / "fleet" / "a")  # folder links are not followed
    assert findings(run_cli, root) == (0, [], 2)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("../outside.yaml", "outside the folder being validated"),
        ("https://github.com/org/repo//deploy?ref=v1", "remote resources are not fetched"),
        ("git@github.com:org/repo.git", "remote resources are not fetched"),
        ("github.com/org/repo/deploy", "remote resources are not fetched"),
        ("missing.yaml", "missing.yaml: no such file or folder"),
        ("plain", "a folder resource needs its own kustomization.yaml"),
        ("escape-link.yaml", "outside the folder being validated"),
    ],
)
def test_entries_that_cannot_be_read_are_findings_on_the_kustomization(
    run_cli: Any, tmp_path: Path, entry: str, message: str
) -> None:
    tree(tmp_path, {"outside.yaml": BAD})
    root = tree(
        tmp_path / "dir",
        {"kustomization.yaml": kustomization("good.yaml", entry), "good.yaml": GOOD},
    )
    (root / "plain").mkdir()
    (root / "escape-link.yaml").symlink_to(tmp_path / "outside.yaml")
    code, found, documents = findings(run_cli, root)
    assert code == 1
    assert documents == 1  # good.yaml is still validated; outside.yaml is never read
    [finding] = found
    assert finding["file"] == str(root / "kustomization.yaml")
    assert finding["rule"] == "kustomization"
    assert finding["path"] == "resources[1]"
    assert finding["line"] == 5
    assert message in finding["message"]


def test_malformed_kustomizations_are_findings(run_cli: Any, tmp_path: Path) -> None:
    cases = {
        "a/kustomization.yaml": "resources: good.yaml\n",
        "b/kustomization.yaml": "resources:\n  - 3\n  - ''\n",
        "c/kustomization.yaml": "- a list\n",
        "d/kustomization.yaml": "resources: [\n",
    }
    root = tree(tmp_path / "dir", cases)
    code, found, _ = findings(run_cli, root)
    assert code == 1
    summary = sorted((Path(f["file"]).parent.name, f["path"], f["message"]) for f in found)
    assert [(folder, path) for folder, path, _ in summary] == [
        ("a", "resources"),
        ("b", "resources[0]"),
        ("b", "resources[1]"),
        ("c", ""),
        ("d", ""),
    ]
    assert "must be a list of file or folder paths" in summary[0][2]
    assert "must be a file or folder path" in summary[1][2]
    assert "must be a mapping" in summary[3][2]


def test_transforming_fields_are_a_warning(run_cli: Any, tmp_path: Path) -> None:
    text = kustomization("good.yaml", extra="namePrefix: x-\npatches: []\n")
    root = tree(tmp_path / "dir", {"kustomization.yaml": text, "good.yaml": GOOD})
    code, found, _ = findings(run_cli, root)
    assert code == 0
    [warning] = found
    assert warning["severity"] == "warning"
    assert "not applied by capzgen validate: namePrefix, patches" in warning["message"]


def test_cycles_and_repeats_are_read_once(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    root = tree(
        tmp_path / "dir",
        {
            "kustomization.yaml": kustomization("sub", "good.yaml", "./good.yaml", extra=""),
            "good.yaml": GOOD,
            "flux-kustomization.yaml": GOOD,
            "sub/kustomization.yaml": kustomization(".."),
        },
    )
    with caplog.at_level(logging.INFO, logger="generator.validate.kustomization"):
        inputs = collect_inputs(str(root))
    assert inputs.files == [str(root / "good.yaml")]
    assert inputs.findings == []
    assert "does not list flux-kustomization.yaml; not validated" in caplog.text
