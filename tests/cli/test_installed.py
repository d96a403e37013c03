"""The installed program, as users and CI run it: a console script in a subprocess, and a
non-editable install from a freshly built wheel (flavors and schemas must ship inside it)."""

from __future__ import annotations

import os
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import GENERATE_DEMO, REPO_ROOT, validated_line
from tests.processes import run_like_subprocess as _run

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
    done = _run(
        [str(CAPZGEN), "generate", "yaml", "--from", str(template)],
        env=clean_env(tmp_path, NAME="from-env"),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "data:\n  x: dflt\nkind: ConfigMap\nmetadata:\n  name: from-env\n"


def test_console_script_reports_missing_variables_without_traceback(tmp_path: Path) -> None:
    done = _run(
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
    done = _run(
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
    _run(
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


def test_wheel_ships_flavors_schemas_and_the_bundle(wheel: Path) -> None:
    archive = zipfile.ZipFile(wheel)
    names = set(archive.namelist())
    assert "generator/_data/flavors/aks/flavor.yaml" in names
    assert "generator/_data/flavors/_lib/aso.j2" in names
    assert "generator/_data/schemas/flavor.schema.json" in names
    assert "generator/_data/schemas/sources.yaml" in names
    assert "generator/_data/schemas/licenses/Apache-2.0.txt" in names
    bundle = [n for n in names if n.startswith("generator/_data/schemas/bundle/")]
    assert sorted(bundle) == [
        "generator/_data/schemas/bundle/manifest.json",
        "generator/_data/schemas/bundle/schemas.zip",
    ]
    assert sum(archive.getinfo(n).compress_size for n in bundle) < 1_500_000
    assert not any(name.startswith(("tests/", "flavors/", "schemas/")) for name in names)


@pytest.fixture(scope="module")
def fresh_venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new virtualenv with the wheel and its dependencies installed as a user gets them."""
    venv = tmp_path_factory.mktemp("venv")
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(venv / "bin" / "python"),
            "install",
            "-q",
            str(wheel),
        ],
        check=True,
        capture_output=True,
    )
    return venv


def scrubbed_env(home: Path, venv: Path) -> dict[str, str]:
    """What a new user has: an empty HOME, no capzgen or cluster settings, no XDG folders."""
    home.mkdir(exist_ok=True)
    return {
        "PATH": f"{venv / 'bin'}{os.pathsep}/usr/bin:/bin",
        "HOME": str(home),
        "LANG": "C.UTF-8",
    }


def test_fresh_install_does_the_main_job_with_nothing_configured(
    fresh_venv: Path, tmp_path: Path
) -> None:
    env = scrubbed_env(tmp_path / "home", fresh_venv)
    capzgen = str(fresh_venv / "bin" / "capzgen")
    done = _run(
        [capzgen, *GENERATE_DEMO],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == validated_line()
    kinds = [line for line in done.stdout.splitlines() if line.startswith("kind: ")]
    assert kinds == [
        "kind: Cluster",
        "kind: AzureASOManagedControlPlane",
        "kind: AzureASOManagedCluster",
        "kind: MachinePool",
        "kind: AzureASOManagedMachinePool",
        "kind: MachinePool",
        "kind: AzureASOManagedMachinePool",
    ]
    # A typo planted inside the embedded ManagedCluster is still caught by the installed program.
    planted = done.stdout.replace("dnsPrefix:", "dnsPrefx:", 1)
    assert planted != done.stdout
    checked = _run(
        [capzgen, "validate", "-"],
        input=planted,
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert checked.returncode == 1
    assert (
        "AzureASOManagedControlPlane/demo > ManagedCluster/demo: spec.dnsPrefx: "
        'unknown field "dnsPrefx" (schema)' in checked.stdout
    )
    listing = _run(
        [capzgen, "schemas", "list"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "built-in  [kubernetes-sigs/cluster-api-provider-azure@v1.26.0]" in listing
    sources = {
        "built-in" if "built-in" in line else line.rsplit("  ", 1)[-1].split(" (")[0]
        for line in listing.splitlines()
    }
    assert sources == {"built-in", "kubernetes-validate"}
