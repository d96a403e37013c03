"""The installed program, as users and CI run it: a console script in a subprocess, and a
non-editable install from a freshly built wheel (flavors and schemas must ship inside it)."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

CAPZGEN = Path(sys.executable).with_name("capzgen")


def clean_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """Only what the program needs: no user config, no user cache, no inherited variables."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path / "home"),
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
        "CAPZGEN_CACHE_DIR": str(tmp_path / "cache"),
        "LANG": "C.UTF-8",
        **extra,
    }


def test_console_script_substitutes_from_a_controlled_environment(tmp_path: Path) -> None:
    template = tmp_path / "t.yaml"
    template.write_text("kind: ConfigMap\nmetadata: {name: '${NAME}'}\ndata: {x: '${X:=dflt}'}\n")
    done = subprocess.run(
        [str(CAPZGEN), "generate", "yaml", "--from", str(template)],
        env=clean_env(tmp_path, NAME="from-env"),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "data:\n  x: dflt\nkind: ConfigMap\nmetadata:\n  name: from-env\n"


def test_console_script_reports_missing_variables_without_traceback(tmp_path: Path) -> None:
    done = subprocess.run(
        [str(CAPZGEN), "generate", "yaml"],
        input="a: ${ZED}\nb: ${ALPHA}\n",
        env=clean_env(tmp_path),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.startswith("Error: value for variables [ALPHA, ZED] is not set")
    assert "Traceback" not in done.stderr


def test_python_dash_m_runs_the_same_cli(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "generator", "flavors", "list"],
        env=clean_env(tmp_path),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].startswith("aks ")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(out),
            str(REPO_ROOT),
        ],
        check=True,
        capture_output=True,
    )
    (built,) = out.glob("capzgen-*.whl")
    return built


def test_wheel_ships_flavors_and_schemas(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "generator/_data/flavors/aks/flavor.yaml" in names
    assert "generator/_data/flavors/_lib/aso.j2" in names
    assert "generator/_data/schemas/flavor.schema.json" in names
    assert "generator/_data/schemas/sources.yaml" in names
    assert not any(name.startswith(("tests/", "flavors/", "schemas/")) for name in names)


def test_non_editable_install_generates_a_validated_cluster(
    wheel: Path, tmp_path: Path, shared_schema_dirs: list[Path]
) -> None:
    target = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "-q",
            "--target",
            str(target),
            str(wheel),
        ],
        check=True,
        capture_output=True,
    )
    schema_args = [arg for d in shared_schema_dirs for arg in ("--schema-dir", str(d))]
    # PYTHONPATH puts the installed copy ahead of the editable one; dependencies come from this venv.
    env = clean_env(tmp_path, PYTHONPATH=str(target))
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "import generator, generator.resources as r; print(generator.__file__); print(r.builtin_flavors_dir())",
        ],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    module_file, flavors_dir = probe.stdout.splitlines()
    assert module_file.startswith(str(target))
    assert flavors_dir == str(target / "generator" / "_data" / "flavors")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "generator",
            "generate",
            "cluster",
            "demo",
            "--var",
            "AZURE_LOCATION=eastus",
            "--kubernetes-version",
            "v1.31.1",
            *schema_args,
        ],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "kind: AzureASOManagedControlPlane" in done.stdout
