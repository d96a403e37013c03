"""--kubeconform on validate and generate cluster, and the ``capzgen kubeconform`` passthrough,
through ``generator.cli.main``."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from generator.kubeconform.process import NOT_FOUND
from tests.conftest import CliResult
from tests.kubeconform.conftest import CONTROL_PLANE, RESOURCE_GROUP, SECRET, FakeKubeconform

Fake = Callable[[str], FakeKubeconform]
RunCli = Callable[..., CliResult]


@pytest.fixture
def schema_env(shared_schema_dirs: list[Path], isolated_cache: Path) -> dict[str, str]:
    import os

    return {"CAPZGEN_SCHEMA_PATH": os.pathsep.join(str(d) for d in shared_schema_dirs)}


def warnings(result: CliResult) -> list[str]:
    """stderr lines, without the store's notice about the known defect in the upstream ResourceGroup
    schema (it is repaired on load)."""
    return [
        line
        for line in result.stderr.splitlines()
        if line.strip() and "repaired a converter defect" not in line
    ]


def write_manifests(path: Path, *objects: Any) -> str:
    path.write_text(yaml.safe_dump_all([copy.deepcopy(o) for o in objects], sort_keys=False))
    return str(path)


def test_validate_with_kubeconform_on_valid_manifests(
    run_cli: RunCli, fake_kubeconform: Fake, schema_env: dict[str, str], tmp_path: Path
) -> None:
    fake = fake_kubeconform("check")
    file = write_manifests(tmp_path / "ok.yaml", RESOURCE_GROUP, SECRET)
    result = run_cli(["validate", "--kubeconform", file], env=schema_env)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "0 errors, 0 warnings" in result.stdout
    assert len(fake.calls()) == 1
    assert warnings(result) == []


def test_validate_without_the_flag_does_not_run_kubeconform(
    run_cli: RunCli, fake_kubeconform: Fake, schema_env: dict[str, str], tmp_path: Path
) -> None:
    fake = fake_kubeconform("check")
    file = write_manifests(tmp_path / "ok.yaml", RESOURCE_GROUP)
    assert run_cli(["validate", file], env=schema_env).exit_code == 0
    assert fake.calls() == []


def test_kubeconform_findings_are_merged_with_lines_and_origin(
    run_cli: RunCli, fake_kubeconform: Fake, schema_env: dict[str, str], tmp_path: Path
) -> None:
    fake_kubeconform("check")
    control_plane = copy.deepcopy(CONTROL_PLANE)
    control_plane["spec"]["resources"][0]["spec"]["location"] = 5
    file = write_manifests(tmp_path / "bad.yaml", RESOURCE_GROUP, control_plane)
    result = run_cli(["validate", "--kubeconform", file], env=schema_env)
    assert result.exit_code == 1
    lines = [line for line in result.stdout.splitlines() if "[kubeconform]" in line]
    assert len(lines) == 1, result.stdout
    line_no = next(
        n for n, text in enumerate(Path(file).read_text().splitlines(), 1) if "location: 5" in text
    )
    assert lines[0].startswith(f"{file}:{line_no}: AzureASOManagedControlPlane/demo > ")
    assert "ManagedCluster/demo: spec.location:" in lines[0]
    # capzgen's own schema check found it too: both opinions are shown.
    assert any(
        "(schema)" in line and "[kubeconform]" not in line and "spec.location" in line
        for line in result.stdout.splitlines()
    )


def test_kubeconform_findings_in_json_output(
    run_cli: RunCli, fake_kubeconform: Fake, schema_env: dict[str, str], tmp_path: Path
) -> None:
    fake_kubeconform("check")
    bad = copy.deepcopy(RESOURCE_GROUP)
    bad["spec"]["location"] = 5
    file = write_manifests(tmp_path / "bad.yaml", bad)
    result = run_cli(["validate", "--kubeconform", "--output", "json", file], env=schema_env)
    findings = json.loads(result.stdout)["findings"]
    origins = sorted(f["origin"] for f in findings)
    assert origins == ["capzgen", "kubeconform"]
    assert all(f["path"] == "spec.location" and f["line"] for f in findings)


def test_disabled_schema_rule_drops_kubeconforms_schema_findings_too(
    run_cli: RunCli, fake_kubeconform: Fake, schema_env: dict[str, str], tmp_path: Path
) -> None:
    fake_kubeconform("check")
    bad = copy.deepcopy(RESOURCE_GROUP)
    bad["spec"]["location"] = 5
    file = write_manifests(tmp_path / "bad.yaml", bad)
    result = run_cli(
        ["validate", "--kubeconform", "--disable-rule", "schema", file], env=schema_env
    )
    assert result.exit_code == 0, result.stdout


@pytest.mark.parametrize(
    ("mode", "args", "expected"),
    [
        ("crash", [], "kubeconform failed (exit status 2)"),
        ("garbage", [], "kubeconform's output could not be read"),
        ("sleep", ["--kubeconform-timeout", "0.5"], "kubeconform did not finish within 0.5s"),
    ],
)
def test_kubeconform_trouble_is_one_warning_line_and_keeps_our_verdict(
    run_cli: RunCli,
    fake_kubeconform: Fake,
    schema_env: dict[str, str],
    tmp_path: Path,
    mode: str,
    args: list[str],
    expected: str,
) -> None:
    fake_kubeconform(mode)
    good = write_manifests(tmp_path / "ok.yaml", RESOURCE_GROUP)
    result = run_cli(["validate", "--kubeconform", *args, good], env=schema_env)
    assert result.exit_code == 0
    (line,) = warnings(result)
    assert line.startswith(f"capzgen: {expected}")
    bad = copy.deepcopy(RESOURCE_GROUP)
    bad["spec"]["location"] = 5
    invalid = write_manifests(tmp_path / "bad.yaml", bad)
    result = run_cli(["validate", "--kubeconform", *args, invalid], env=schema_env)
    assert result.exit_code == 1, "our own findings are kept"
    assert "(schema)" in result.stdout


def test_missing_kubeconform_is_one_line_with_install_hint(
    run_cli: RunCli, no_kubeconform: None, schema_env: dict[str, str], tmp_path: Path
) -> None:
    file = write_manifests(tmp_path / "ok.yaml", RESOURCE_GROUP)
    result = run_cli(["validate", "--kubeconform", file], env=schema_env)
    assert result.exit_code == 0
    assert warnings(result) == [f"capzgen: {NOT_FOUND}"]


def test_generate_cluster_with_kubeconform(
    run_cli: RunCli, fake_kubeconform: Fake, schema_env: dict[str, str]
) -> None:
    fake = fake_kubeconform("check")
    result = run_cli(
        [
            "generate",
            "cluster",
            "demo",
            "--kubeconform",
            "--var",
            "AZURE_LOCATION=westeurope",
            "--kubernetes-version",
            "v1.31.1",
        ],
        env=schema_env,
    )
    assert result.exit_code == 0, result.stderr
    assert "kind: AzureASOManagedControlPlane" in result.stdout
    assert len(fake.calls()) == 1
    assert "[kubeconform]" not in result.stderr


def test_generate_cluster_with_kubeconform_missing_still_writes(
    run_cli: RunCli, no_kubeconform: None, schema_env: dict[str, str]
) -> None:
    result = run_cli(
        [
            "generate",
            "cluster",
            "demo",
            "--kubeconform",
            "--var",
            "AZURE_LOCATION=westeurope",
            "--kubernetes-version",
            "v1.31.1",
        ],
        env=schema_env,
    )
    assert result.exit_code == 0, result.stderr
    assert "kind: Cluster" in result.stdout
    *said, checked = warnings(result)
    assert said == [f"capzgen: {NOT_FOUND}"]
    assert checked.startswith("validated 7 objects (4 embedded ASO resources): schemas, CEL, ")


# --- capzgen kubeconform ARGS... ---------------------------------------------------------------


def test_passthrough_prepends_our_layout_and_returns_kubeconforms_status(
    run_cli: RunCli,
    fake_kubeconform: Fake,
    schema_env: dict[str, str],
    cli_env: dict[str, str],
) -> None:
    fake = fake_kubeconform("passthrough")
    cli_env["FAKE_KUBECONFORM_EXIT"] = "3"
    result = run_cli(["kubeconform", "--", "-strict", "-summary", "manifests/"], env=schema_env)
    assert result.exit_code == 3
    (argv,) = fake.calls()
    assert argv[0] == "-schema-location"
    assert argv[1].endswith("{{ .Group }}/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json")
    assert argv[2:] == ["-strict", "-summary", "manifests/"]
    count = int(
        next(line for line in result.stdout.splitlines() if line.startswith("schemas:"))[8:]
    )
    assert count > 100, "every schema of the search path is in the layout (CRDs, ASO, core)"


def test_passthrough_accepts_kubeconform_flags_without_separator(
    run_cli: RunCli, fake_kubeconform: Fake, schema_env: dict[str, str]
) -> None:
    fake = fake_kubeconform("passthrough")
    result = run_cli(["kubeconform", "-summary", "-output", "json", "x.yaml"], env=schema_env)
    assert result.exit_code == 0, result.stderr
    (argv,) = fake.calls()
    assert argv[2:] == ["-summary", "-output", "json", "x.yaml"]


def test_passthrough_schema_dir_is_in_the_layout(
    run_cli: RunCli, fake_kubeconform: Fake, shared_dir: Path, isolated_cache: Path
) -> None:
    fake_kubeconform("passthrough")
    crds = shared_dir / "crds" / "capi-v1.13.3"
    result = run_cli(["kubeconform", "--schema-dir", str(crds), "--", "x.yaml"])
    assert result.exit_code == 0, result.stderr
    count = int(
        next(line for line in result.stdout.splitlines() if line.startswith("schemas:"))[8:]
    )
    assert count > 0


def test_passthrough_without_kubeconform_exits_2(
    run_cli: RunCli, no_kubeconform: None, isolated_cache: Path
) -> None:
    result = run_cli(["kubeconform", "--", "x.yaml"])
    assert result.exit_code == 2
    assert NOT_FOUND in result.stderr


def test_passthrough_timeout_exits_2(
    run_cli: RunCli, fake_kubeconform: Fake, schema_env: dict[str, str]
) -> None:
    fake_kubeconform("sleep")
    result = run_cli(["kubeconform", "--timeout", "0.5", "--", "x.yaml"], env=schema_env)
    assert result.exit_code == 2
    assert "did not finish within 0.5s" in result.stderr


def test_validate_with_kubeconform_reads_stdin_once(
    run_cli: RunCli, fake_kubeconform: Fake, schema_env: dict[str, str], tmp_path: Path
) -> None:
    """Standard input feeds both kubeconform's stream and capzgen's own validation."""
    fake_kubeconform("check")
    bad = copy.deepcopy(RESOURCE_GROUP)
    bad["spec"]["location"] = 5
    text = yaml.safe_dump_all([bad, SECRET], sort_keys=False)
    result = run_cli(["validate", "--kubeconform", "-"], env=schema_env, stdin=text)
    assert result.exit_code == 1
    origins = sorted(
        "kubeconform" if "[kubeconform]" in line else "capzgen"
        for line in result.stdout.splitlines()
        if line.startswith("<stdin>:")
    )
    assert origins == ["capzgen", "kubeconform"], result.stdout
    assert "2 documents checked" in result.stdout


def test_a_broken_file_beside_kubeconform_is_one_finding(
    run_cli: RunCli, fake_kubeconform: Fake, schema_env: dict[str, str], tmp_path: Path
) -> None:
    fake = fake_kubeconform("check")
    (tmp_path / "in").mkdir()
    write_manifests(tmp_path / "in" / "a.yaml", RESOURCE_GROUP)
    (tmp_path / "in" / "b.yaml").write_text("kind: [unclosed\n")
    result = run_cli(["validate", "--kubeconform", str(tmp_path / "in")], env=schema_env)
    assert result.exit_code == 1
    assert [line for line in result.stdout.splitlines() if "b.yaml" in line] == [
        line for line in result.stdout.splitlines() if "(yaml)" in line
    ]
    assert len(fake.calls()) == 1


def test_kubeconform_runs_while_capzgen_validates(
    run_cli: RunCli,
    fake_kubeconform: Fake,
    schema_env: dict[str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """capzgen's own validation starts after kubeconform was started and before it is waited
    for: the fake has logged its call by the time the validation looks."""
    import generator.validate.beside as beside

    fake = fake_kubeconform("check")
    seen: list[int] = []
    real = getattr(beside, "stream_inputs")  # noqa: B009 - not exported

    def validating(*args: Any, **kwargs: Any) -> Any:
        import time

        deadline = time.monotonic() + 30
        while not fake.calls() and time.monotonic() < deadline:
            time.sleep(0.01)
        seen.append(len(fake.calls()))
        return real(*args, **kwargs)

    monkeypatch.setattr(beside, "stream_inputs", validating)
    file = write_manifests(tmp_path / "ok.yaml", RESOURCE_GROUP, SECRET)
    result = run_cli(["validate", "--kubeconform", file], env=schema_env)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert seen == [1]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_small_input_is_read_once_for_kubeconform_and_capzgen(
    run_cli: RunCli,
    fake_kubeconform: Fake,
    schema_env: dict[str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    jobs: str,
) -> None:
    """kubeconform's stages (the kinds it names, the embedded stream) and capzgen's own passes
    share one read of a small file: it was read three times."""
    import generator.validate.inputs as inputs
    import generator.validate.passes as passes

    fake_kubeconform("check")
    file = write_manifests(tmp_path / "cp.yaml", CONTROL_PLANE, RESOURCE_GROUP)
    reads: list[str] = []
    for module in (inputs, passes):
        real = module.read_source

        def counted(path: str, *args: Any, _real: Any = real, **kwargs: Any) -> Any:
            reads.append(path)
            return _real(path, *args, **kwargs)

        monkeypatch.setattr(module, "read_source", counted)
    result = run_cli(["validate", "--kubeconform", "-j", jobs, file], env=schema_env)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert reads.count(file) == 1
