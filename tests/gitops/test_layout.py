"""The pure parts of the GitOps layout: file names, Flux options, planning a folder."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from generator.errors import OutputConflict, UsageError
from generator.output.gitops import (
    MANIFEST_NAME,
    FluxOptions,
    default_flux_path,
    manifest_text,
    normalise_flux_path,
    object_file_names,
    parse_flux_source,
    plan_directory,
    render_files,
    write_directory,
)


def obj(kind: str, name: str, namespace: str | None = None) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name}
    if namespace:
        metadata["namespace"] = namespace
    return {"apiVersion": "v1", "kind": kind, "metadata": metadata}


def test_file_names_are_kind_and_name_lower_cased() -> None:
    assert object_file_names([obj("Cluster", "Demo"), obj("MachinePool", "demo-pool0")]) == [
        "cluster-demo.yaml",
        "machinepool-demo-pool0.yaml",
    ]


def test_same_kind_and_name_in_two_namespaces_get_the_namespace() -> None:
    names = object_file_names(
        [obj("ConfigMap", "cfg", "a"), obj("ConfigMap", "cfg", "b"), obj("ConfigMap", "other", "a")]
    )
    assert names == ["configmap-a-cfg.yaml", "configmap-b-cfg.yaml", "configmap-other.yaml"]


def test_remaining_clashes_get_a_number_and_reserved_names_are_avoided() -> None:
    names = object_file_names(
        [
            obj("Secret", "x"),
            obj("Secret", "x"),
            obj("Secret", "X"),
            {"kind": "Flux", "metadata": {"name": "kustomization"}},
            {"metadata": {}},
            obj("ClusterRole", "system:aggregate"),
        ]
    )
    assert names == [
        "secret-x.yaml",
        "secret-x-2.yaml",
        "secret-x-3.yaml",
        "flux-kustomization-2.yaml",
        "object-unnamed.yaml",
        "clusterrole-system_aggregate.yaml",
    ]


def test_very_long_names_are_shortened_with_a_digest() -> None:
    long_name = "n" * 260
    (name,) = object_file_names([obj("ConfigMap", long_name)])
    assert len(name) <= 210
    assert name.endswith(".yaml")
    assert object_file_names([obj("ConfigMap", long_name + "x")]) != [name]


def test_kustomization_lists_objects_in_order_and_keeps_fifo() -> None:
    files = render_files([obj("B", "b"), obj("A", "a")])
    assert list(files) == ["b-b.yaml", "a-a.yaml", "kustomization.yaml"]
    assert files["kustomization.yaml"] == (
        "apiVersion: kustomize.config.k8s.io/v1beta1\n"
        "kind: Kustomization\n"
        "resources:\n"
        "- b-b.yaml\n"
        "- a-a.yaml\n"
        "sortOptions:\n"
        "  order: fifo\n"
    )


def test_flux_kustomization_is_written_but_not_listed() -> None:
    files = render_files([obj("A", "a")], flux=FluxOptions(name="demo", path="./clusters/demo"))
    assert "flux-kustomization.yaml" not in files["kustomization.yaml"]
    flux = files["flux-kustomization.yaml"]
    assert "apiVersion: kustomize.toolkit.fluxcd.io/v1\n" in flux
    assert "  path: ./clusters/demo\n" in flux
    assert "  prune: true\n" in flux
    assert "  wait: true\n" in flux


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("flux-system", ("GitRepository", None, "flux-system")),
        ("OCIRepository/fleet", ("OCIRepository", None, "fleet")),
        ("GitRepository/infra/fleet", ("GitRepository", "infra", "fleet")),
    ],
)
def test_flux_source(text: str, expected: tuple[str, str | None, str]) -> None:
    assert parse_flux_source(text) == expected


@pytest.mark.parametrize("text", ["", "a//b", "Helm/x", "a/b/c/d"])
def test_bad_flux_source(text: str) -> None:
    with pytest.raises(UsageError):
        parse_flux_source(text)


def test_default_flux_path_is_relative_to_the_git_work_tree(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    assert default_flux_path(repo / "clusters" / "demo", cwd=tmp_path) == "./clusters/demo"
    assert default_flux_path(repo, cwd=tmp_path) == "./"


def test_default_flux_path_falls_back_to_the_current_directory(tmp_path: Path) -> None:
    assert default_flux_path(tmp_path / "a" / "b", cwd=tmp_path) == "./a/b"
    assert default_flux_path(tmp_path, cwd=tmp_path) == "./"


def test_default_flux_path_never_climbs_with_dot_dot(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 14 item 5: ``--output-dir ../other/demo`` outside a Git repository wrote
    ``path: ./../other/demo``. Outside a work tree and below no current directory, the path is
    relative to the folder's parent, with a warning naming that parent."""
    here = tmp_path / "here"
    here.mkdir()
    with caplog.at_level("WARNING", logger="generator.output.gitops"):
        assert default_flux_path(here / ".." / "other" / "demo", cwd=here) == "./demo"
    assert f"relative to {tmp_path / 'other'}" in caplog.text
    assert "--flux-path" in caplog.text


def test_default_flux_path_resolves_dot_dot_before_looking_for_git(tmp_path: Path) -> None:
    """A work tree holding the current directory but not the target does not count."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    other = tmp_path / "infra"
    (other / ".git").mkdir(parents=True)
    assert default_flux_path(repo / ".." / "infra" / "clusters" / "demo", cwd=repo) == (
        "./clusters/demo"
    )
    assert default_flux_path(repo / ".." / "plain" / "demo", cwd=repo) == "./demo"


def test_default_flux_path_resolves_symbolic_links(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "clusters").mkdir()
    (tmp_path / "link").symlink_to(repo / "clusters")
    assert default_flux_path(tmp_path / "link" / "demo", cwd=tmp_path) == "./clusters/demo"


def test_flux_path_is_normalised() -> None:
    assert normalise_flux_path("clusters/demo/") == "./clusters/demo"
    assert normalise_flux_path("./x") == "./x"
    for bad in ("/abs", "../up", "a/../../b"):
        with pytest.raises(UsageError):
            normalise_flux_path(bad)


def test_plan_reports_every_conflict_and_force_clears_them(tmp_path: Path) -> None:
    write_directory(tmp_path, {"a.yaml": "a\n", "b.yaml": "b\n"}, force=False)
    (tmp_path / "a.yaml").write_text("edited\n")
    (tmp_path / "c.yaml").write_text("mine\n")
    plan = plan_directory(
        tmp_path, {"a.yaml": "a2\n", "b.yaml": "b2\n", "c.yaml": "c\n"}, force=False
    )
    assert len(plan.conflicts) == 2
    with pytest.raises(OutputConflict) as raised:
        write_directory(
            tmp_path, {"a.yaml": "a2\n", "b.yaml": "b2\n", "c.yaml": "c\n"}, force=False
        )
    assert len(raised.value.details) == 2
    assert (tmp_path / "b.yaml").read_text() == "b\n"
    summary = write_directory(tmp_path, {"a.yaml": "a2\n", "c.yaml": "c\n"}, force=True)
    assert (summary.written, summary.unchanged, summary.removed) == (2, 0, 1)
    assert (tmp_path / MANIFEST_NAME).read_text() == manifest_text(
        {"a.yaml": "a2\n", "c.yaml": "c\n"}
    )


def test_new_files_follow_the_umask_and_existing_files_keep_their_mode(tmp_path: Path) -> None:
    mask = os.umask(0o022)
    os.umask(mask)
    write_directory(tmp_path, {"a.yaml": "a\n"}, force=False)
    assert (tmp_path / "a.yaml").stat().st_mode & 0o777 == 0o666 & ~mask
    (tmp_path / "a.yaml").chmod(0o600)
    write_directory(tmp_path, {"a.yaml": "changed\n"}, force=False)
    assert (tmp_path / "a.yaml").stat().st_mode & 0o777 == 0o600
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_output_folder_that_is_a_file_is_an_io_error(tmp_path: Path) -> None:
    from generator.errors import InputOutputError

    (tmp_path / "f").write_text("x")
    with pytest.raises(InputOutputError):
        write_directory(tmp_path / "f", {"a.yaml": "a\n"}, force=False)
