"""capzgen reads what it writes (issue 14 item 4): every folder layout validates with exit 0 and no
findings at all, with the built-in schemas only."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import GENERATE_DEMO
from tests.fleet.test_fleet import FLEET


def validate_clean(run_cli: Any, *paths: Path) -> int:
    """Validate ``paths`` with the built-in bundle; assert exit 0 and no finding (no warning, no
    unknown kind); the number of documents checked."""
    result = run_cli(["validate", *map(str, paths), "--output", "json"])
    report = json.loads(result.stdout)
    assert result.exit_code == 0, result.stdout
    assert report["findings"] == []
    count: int = report["summary"]["documents"]
    return count


@pytest.mark.parametrize(
    "layout", [[], ["--layout", "flux", "--flux-source", "GitRepository/flux-system/fleet-infra"]]
)
def test_generate_cluster_output_dir_validates(
    run_cli: Any, tmp_path: Path, layout: list[str]
) -> None:
    out = tmp_path / "clusters" / "demo"
    (tmp_path / ".git").mkdir()
    result = run_cli([*GENERATE_DEMO, "--output-dir", str(out), *layout])
    assert result.exit_code == 0, result.stderr
    objects = len([p for p in out.glob("*.yaml") if "kustomization" not in p.name])
    assert validate_clean(run_cli, out) == objects
    if layout:  # the Flux Kustomization is not listed in kustomization.yaml: check it by name
        flux = out / "flux-kustomization.yaml"
        assert "path: ./clusters/demo" in flux.read_text()
        assert validate_clean(run_cli, flux) == 1


def test_generate_fleet_output_validates(run_cli: Any, tmp_path: Path) -> None:
    fleet = tmp_path / "fleet.yaml"
    fleet.write_text(FLEET)
    out = tmp_path / "out"
    result = run_cli(
        ["generate", "fleet", str(fleet), "--output-dir", str(out), "--layout", "flux"]
    )
    assert result.exit_code == 0, result.stderr
    assert validate_clean(run_cli, out) == 19  # the objects of the three clusters, as generated
    assert validate_clean(run_cli, *sorted(out.glob("*/flux-kustomization.yaml"))) == 3


def test_flux_path_outside_a_git_repository_does_not_climb(
    run_cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 14 item 5: ``--output-dir ../other/demo --layout flux`` outside a Git repository
    wrote ``path: ./../other/demo``."""
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    result = run_cli([*GENERATE_DEMO, "--output-dir", "../other/demo", "--layout", "flux"])
    assert result.exit_code == 0, result.stderr
    flux = (tmp_path / "other" / "demo" / "flux-kustomization.yaml").read_text()
    assert "path: ./demo\n" in flux
    assert "pass --flux-path" in result.stderr
