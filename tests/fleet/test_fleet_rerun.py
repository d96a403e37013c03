"""Re-running ``generate fleet``: clusters whose inputs did not change are not rendered again
(``generator.fleet.digest``); everything else behaves as on a first run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import generator.fleet.render as render_module
from generator.fleet.digest import RECORD_NAME
from generator.resources import builtin_flavors_dir
from tests.fleet.test_fleet import FLEET, write_fleet
from tests.gitops.conftest import read_dir


@pytest.fixture
def rendered(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the clusters each run renders (the in-process path is used: < SERIAL_BELOW)."""
    names: list[str] = []
    real = render_module.render_one

    def spy(job: Any, context: Any) -> Any:
        names.append(job.request.name)
        return real(job, context)

    monkeypatch.setattr(render_module, "render_one", spy)
    return names


def _run(run_cli: Any, schema_args: list[str], fleet: Path, out: Path) -> Any:
    return run_cli(["generate", "fleet", str(fleet), "--output-dir", str(out), *schema_args])


def test_a_rerun_with_nothing_changed_renders_nothing(
    run_cli: Any, schema_args: list[str], tmp_path: Path, rendered: list[str]
) -> None:
    fleet, out = write_fleet(tmp_path, FLEET), tmp_path / "out"
    first = _run(run_cli, schema_args, fleet, out)
    assert first.exit_code == 0, first.stderr
    assert sorted(rendered) == ["east", "north", "west"]
    before = read_dir(out)
    record = json.loads(before[f"east/{RECORD_NAME}"])
    assert record["inputs"].startswith("sha256:")
    assert record["objects"] == 7
    rendered.clear()
    second = _run(run_cli, schema_args, fleet, out)
    assert second.exit_code == 0, second.stderr
    assert rendered == []
    assert "3 clusters, 19 objects: 0 errors, 0 warnings" in second.stderr
    assert "0 files written" in second.stderr
    assert "(3 clusters unchanged, not rendered)" in second.stderr
    assert read_dir(out) == before


def test_only_the_changed_cluster_is_rendered(
    run_cli: Any, schema_args: list[str], tmp_path: Path, rendered: list[str]
) -> None:
    fleet, out = write_fleet(tmp_path, FLEET), tmp_path / "out"
    assert _run(run_cli, schema_args, fleet, out).exit_code == 0
    rendered.clear()
    fleet.write_text(
        FLEET.replace("values: {AZURE_LOCATION: eastus}", "values: {AZURE_LOCATION: eastus2}")
    )
    result = _run(run_cli, schema_args, fleet, out)
    assert result.exit_code == 0, result.stderr
    assert rendered == ["east"]
    assert "eastus2" in (out / "east" / "azureasomanagedcontrolplane-east.yaml").read_text()
    assert "(2 clusters unchanged, not rendered)" in result.stderr


def test_an_edited_file_is_rendered_again_and_reported(
    run_cli: Any, schema_args: list[str], tmp_path: Path, rendered: list[str]
) -> None:
    fleet, out = write_fleet(tmp_path, FLEET), tmp_path / "out"
    assert _run(run_cli, schema_args, fleet, out).exit_code == 0
    rendered.clear()
    edited = out / "west" / "cluster-west.yaml"
    edited.write_text(edited.read_text() + "# my change\n")
    result = _run(run_cli, schema_args, fleet, out)
    assert rendered == ["west"]
    assert result.exit_code != 0
    assert "cluster-west.yaml: edited since capzgen wrote it" in result.stderr


def test_cross_cluster_rules_see_skipped_clusters(
    run_cli: Any, schema_args: list[str], tmp_path: Path, rendered: list[str]
) -> None:
    """A changed cluster that now reuses a skipped cluster's resource group is still caught."""
    fleet, out = write_fleet(tmp_path, FLEET), tmp_path / "out"
    assert _run(run_cli, schema_args, fleet, out).exit_code == 0
    rendered.clear()
    clash = FLEET.replace(
        "  - name: west\n",
        "  - name: west\n"
        "    overrides:\n"
        "      - target: {kind: AzureASOManagedCluster, embedded: {kind: ResourceGroup}}\n"
        "        patch: {spec: {azureName: east}}\n",
        1,
    )
    fleet.write_text(clash)
    result = _run(run_cli, schema_args, fleet, out)
    assert rendered == ["west"]
    assert result.exit_code == 1, result.stderr
    assert "(FLEET-002)" in result.stderr


def test_a_damaged_record_only_costs_a_render(
    run_cli: Any, schema_args: list[str], tmp_path: Path, rendered: list[str]
) -> None:
    fleet, out = write_fleet(tmp_path, FLEET), tmp_path / "out"
    assert _run(run_cli, schema_args, fleet, out).exit_code == 0
    rendered.clear()
    (out / "north" / RECORD_NAME).write_text("{not json")
    result = _run(run_cli, schema_args, fleet, out)
    assert result.exit_code == 0, result.stderr
    assert rendered == ["north"]
    assert json.loads((out / "north" / RECORD_NAME).read_text())["objects"] > 0


def test_an_environment_variable_used_only_in_a_fleet_value_is_part_of_the_digest(
    run_cli: Any, schema_args: list[str], tmp_path: Path, rendered: list[str]
) -> None:
    """``${MY_TEAM}`` appears in no flavor file, only in the fleet's values: changing the
    variable must render the cluster again."""
    text = FLEET.replace(
        "values: {AZURE_LOCATION: eastus}",
        'values: {AZURE_LOCATION: eastus, AZURE_TAGS: {team: "${MY_TEAM}"}}',
    )
    fleet, out = write_fleet(tmp_path, text), tmp_path / "out"
    argv = ["generate", "fleet", str(fleet), "--output-dir", str(out), *schema_args]
    first = run_cli(argv, env={"MY_TEAM": "blue"})
    assert first.exit_code == 0, first.stderr
    plane = out / "east" / "azureasomanagedcontrolplane-east.yaml"
    assert "team: blue" in plane.read_text()
    rendered.clear()
    second = run_cli(argv, env={"MY_TEAM": "red"})
    assert second.exit_code == 0, second.stderr
    assert rendered == ["east"]
    assert "team: red" in plane.read_text()


def test_a_flavor_in_a_linked_sub_folder_of_flavors_dir_is_part_of_the_digest(
    run_cli: Any, schema_args: list[str], tmp_path: Path, rendered: list[str]
) -> None:
    """``--flavors-dir flavors`` where ``flavors/team`` is a link to the flavor's real folder:
    editing the flavor there must render its clusters again."""
    real = tmp_path / "shared" / "team"
    real.mkdir(parents=True)
    (real / "flavor.yaml").write_text(
        (Path(builtin_flavors_dir()) / "aks" / "flavor.yaml")
        .read_text()
        .replace("name: aks\n", "name: team\n", 1)
    )
    template = (Path(builtin_flavors_dir()) / "aks" / "cluster.yaml.j2").read_text()
    (real / "cluster.yaml.j2").write_text(template)
    flavors = tmp_path / "flavors"
    flavors.mkdir()
    (flavors / "team").symlink_to(real)
    text = FLEET.replace("  flavor: aks\n", "  flavor: team\n", 1)
    fleet, out = write_fleet(tmp_path, text), tmp_path / "out"
    argv = ["generate", "fleet", str(fleet), "--output-dir", str(out), "--flavors-dir"]
    argv += [str(flavors), *schema_args]
    first = run_cli(argv)
    assert first.exit_code == 0, first.stderr
    rendered.clear()
    (real / "cluster.yaml.j2").write_text(template + "# edited where the link points\n")
    second = run_cli(argv)
    assert second.exit_code == 0, second.stderr
    assert sorted(rendered) == ["east", "north", "west"]  # flavor files are shared inputs
