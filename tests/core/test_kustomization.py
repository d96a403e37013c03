"""``capzgen validate DIR`` reads a kustomization.yaml: its resources decide what is validated,
nothing outside DIR is read and nothing is fetched (generator/validate/kustomization.py)."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from generator.errors import InputOutputError
from generator.validate.inputs import collect_inputs as collect_run_inputs
from generator.validate.kustomization import (
    InputRules,
    LoadRestrictor,
    TooManyFiles,
    collect_inputs,
)

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


# --- the load restrictor: links that lead outside the folder named are refused, unread ---------

SECRET = "apiVersion: v1\nkind: Secret\nmetadata: {name: s3cr3t-name}\ndata: [s3cr3t-value]\n"
NONE = ("--load-restrictor", "LoadRestrictionsNone")


def _validate(run_cli: Any, *argv: str) -> tuple[int, dict[str, Any], str]:
    result = run_cli(["validate", *argv, "--output", "json"])
    return result.exit_code, json.loads(result.stdout), result.stderr


def test_a_linked_entry_leading_outside_is_refused_unread(run_cli: Any, tmp_path: Path) -> None:
    tree(tmp_path, {"outside.yaml": SECRET})
    root = tree(
        tmp_path / "dir",
        {"kustomization.yaml": kustomization("good.yaml", "link.yaml"), "good.yaml": GOOD},
    )
    (root / "link.yaml").symlink_to(tmp_path / "outside.yaml")
    code, report, stderr = _validate(run_cli, str(root))
    assert code == 2
    assert report["summary"]["documents"] == 1  # good.yaml is still validated
    [finding] = report["findings"]
    assert finding["path"] == "resources[1]"
    message = finding["message"]
    assert str(root / "link.yaml") in message
    assert str(tmp_path / "outside.yaml") in message
    assert "outside the folder being validated" in message
    assert report["error"]["exit_code"] == 2
    assert "s3cr3t" not in json.dumps(report) + stderr
    code, report, _ = _validate(run_cli, str(root), *NONE)
    assert code == 1  # read when the user allows it: the Secret's data is a finding
    assert report["summary"]["documents"] == 2


def test_a_linked_kustomization_file_leading_outside_is_refused(
    run_cli: Any, tmp_path: Path
) -> None:
    tree(tmp_path / "elsewhere", {"kustomization.yaml": kustomization("../secret.yaml")})
    tree(tmp_path, {"secret.yaml": SECRET})
    root = tree(tmp_path / "dir", {"good.yaml": GOOD})
    (root / "kustomization.yaml").symlink_to(tmp_path / "elsewhere" / "kustomization.yaml")
    for argv in ([str(root)], [str(root / "kustomization.yaml")]):
        code, report, stderr = _validate(run_cli, *argv)
        assert code == 2
        assert str(root / "kustomization.yaml") in stderr
        assert str(tmp_path / "elsewhere" / "kustomization.yaml") in stderr
        assert "outside the folder being validated" in report["error"]["message"]
        assert "s3cr3t" not in json.dumps(report) + stderr
    code, report, _ = _validate(run_cli, str(root), *NONE)
    assert code == 1
    assert any("s3cr3t-name" in json.dumps(f) for f in report["findings"])


def test_a_file_link_in_a_plain_folder_leading_outside_is_refused(
    run_cli: Any, tmp_path: Path
) -> None:
    tree(tmp_path, {"secret.yaml": SECRET})
    inner = GOOD.replace("name: good", "name: inner")
    root = tree(tmp_path / "dir", {"good.yaml": GOOD, "sub/inner.yaml": inner})
    (root / "sub" / "link.yaml").symlink_to(tmp_path / "secret.yaml")
    (root / "inside.yaml").symlink_to(root / "sub" / "inner.yaml")  # inside: read (once)
    code, report, stderr = _validate(run_cli, str(root))
    assert code == 2
    assert report["summary"]["documents"] == 2
    [finding] = report["findings"]
    assert finding["file"] == str(root / "sub" / "link.yaml")
    assert str(tmp_path / "secret.yaml") in finding["message"]
    assert "s3cr3t" not in json.dumps(report) + stderr
    code, report, _ = _validate(run_cli, str(root), *NONE)
    assert (code, report["summary"]["documents"]) == (1, 3)


def test_entries_outside_the_folder_are_read_with_no_load_restrictor(
    run_cli: Any, tmp_path: Path
) -> None:
    tree(tmp_path, {"outside.yaml": GOOD.replace("name: good", "name: out")})
    root = tree(
        tmp_path / "dir",
        {"kustomization.yaml": kustomization("good.yaml", "../outside.yaml"), "good.yaml": GOOD},
    )
    assert findings(run_cli, root)[0] == 1  # the default: refused, a finding
    code, report, _ = _validate(run_cli, str(root), *NONE)
    assert (code, report["findings"], report["summary"]["documents"]) == (0, [], 2)


# --- bounds: depth, entries, files --------------------------------------------------------------


def test_folder_walks_are_bounded_in_depth(tmp_path: Path) -> None:
    deep = tmp_path / "top" / "a" / "b" / "c" / "d"
    tree(deep, {"x.yaml": GOOD})
    rules = InputRules(max_depth=3)
    with pytest.raises(InputOutputError) as raised:
        collect_inputs(str(tmp_path / "top"), rules)
    assert raised.value.location is not None
    assert raised.value.location.file == str(tmp_path / "top" / "a" / "b" / "c" / "d")
    assert "more than 3 levels deep" in raised.value.message
    assert collect_inputs(str(tmp_path / "top"), InputRules(max_depth=4)).files == [
        str(deep / "x.yaml")
    ]


def test_kustomization_chains_are_bounded_in_depth(tmp_path: Path) -> None:
    files = {"kustomization.yaml": kustomization("k1")}
    for level in range(1, 6):
        prefix = "/".join(f"k{n}" for n in range(1, level + 1))
        files[f"{prefix}/kustomization.yaml"] = kustomization(f"k{level + 1}", "x.yaml")
        files[f"{prefix}/x.yaml"] = GOOD
        files[f"{prefix}/k{level + 1}/kustomization.yaml"] = kustomization()
    root = tree(tmp_path / "chain", files)
    with pytest.raises(InputOutputError, match="more than 3 levels deep"):
        collect_inputs(str(root), InputRules(max_depth=3))
    found = collect_inputs(str(root), InputRules(max_depth=10)).files
    assert len(found) == 5
    assert found[0] == str(root / "k1" / "k2" / "k3" / "k4" / "k5" / "x.yaml")  # depth first


def test_a_kustomization_list_is_bounded(tmp_path: Path) -> None:
    root = tree(
        tmp_path / "dir",
        {"kustomization.yaml": kustomization("a.yaml", "b.yaml", "c.yaml"), "a.yaml": GOOD},
    )
    inputs = collect_inputs(str(root), InputRules(max_entries=2))
    assert inputs.files == []
    [finding] = inputs.findings
    assert finding.path == ("resources",)
    assert "lists 3 entries; capzgen reads at most 2" in finding.message
    assert collect_inputs(str(root), InputRules(max_entries=3)).files == [str(root / "a.yaml")]


def test_the_files_of_one_run_are_bounded(tmp_path: Path) -> None:
    root = tree(tmp_path / "dir", {"a.yaml": GOOD, "b.yaml": GOOD, "c/d.yaml": GOOD})
    single = tree(tmp_path, {"e.yaml": GOOD}) / "e.yaml"
    assert len(collect_run_inputs([str(root), str(single)], InputRules(max_files=4)).paths) == 4
    with pytest.raises(TooManyFiles, match="more than 3 files"):
        collect_run_inputs([str(root), str(single)], InputRules(max_files=3))
    with pytest.raises(TooManyFiles):
        collect_run_inputs([str(root)], InputRules(max_files=2))


def test_the_restrictor_rules_name_kustomize_values() -> None:
    assert {r.value for r in LoadRestrictor} == {
        "LoadRestrictionsRootOnly",
        "LoadRestrictionsNone",
    }
