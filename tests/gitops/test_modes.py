"""Permissions of what capzgen writes, whatever the umask: the ASO credential Secret is 0600 (in
``--output-dir``, fleet folders and ``--write-to`` output); every other file is 0644 at most and
every folder 0755 at most (never group- or world-writable).

Each case runs the real CLI in a child process of its own session with umask 000 (the worst
case: nothing taken away), under a CPU-time limit; its process group is killed at the end.
"""

from __future__ import annotations

import stat
import sys
from pathlib import Path

import pytest

from tests.conftest import GENERATE_DEMO
from tests.processes import cli_env, run_reaped

CPU_SECONDS = 120
CREDENTIALS = [
    "--var",
    "ASO_CREDENTIAL_SECRET_CREATE=true",
    "--var",
    "AZURE_CLIENT_ID=00000000-0000-0000-0000-000000000001",
    "--var",
    "AZURE_TENANT_ID=00000000-0000-0000-0000-000000000002",
    "--var",
    "AZURE_SUBSCRIPTION_ID=00000000-0000-0000-0000-000000000003",
]
OTHER_ID = "00000000-0000-0000-0000-00000000000a"
NO_CHECK = ["--no-validate", "--output-dir"]
FLEET = """\
defaults:
  flavor: aks
  kubernetesVersion: v1.31.1
  namespace: fleet
  values:
    AZURE_LOCATION: westeurope
    ASO_CREDENTIAL_SECRET_CREATE: true
    AZURE_CLIENT_ID: 00000000-0000-0000-0000-000000000001
    AZURE_TENANT_ID: 00000000-0000-0000-0000-000000000002
    AZURE_SUBSCRIPTION_ID: 00000000-0000-0000-0000-000000000003
clusters:
  - name: east
  - name: west
"""


def capzgen(argv: list[str], cwd: Path) -> None:
    """Run the CLI with umask 000 and expect success."""
    done = run_reaped(
        [sys.executable, "-m", "generator", *argv],
        cwd=cwd,
        env=cli_env(cwd / "home", cwd / "cache"),
        cpu_seconds=CPU_SECONDS,
        umask=0,
        merged=True,
    )
    assert done.returncode == 0, done.stdout


def modes(root: Path) -> dict[str, int]:
    """Every file and folder below ``root`` (and ``root`` itself) -> its permission bits."""
    found = {".": stat.S_IMODE(root.lstat().st_mode)}
    for path in root.rglob("*"):
        found[path.relative_to(root).as_posix()] = stat.S_IMODE(path.lstat().st_mode)
    return found


def check(root: Path, secrets: int) -> None:
    """Secrets 0600, other files at most 0644, folders at most 0755; ``secrets`` Secret files."""
    found = modes(root)
    private = []
    for name, mode in found.items():
        path = root / name
        if path.is_dir():
            assert mode & 0o022 == 0, f"{name}: folder mode {mode:o}"
            assert mode <= 0o755, f"{name}: folder mode {mode:o}"
        elif "kind: Secret\n" in path.read_text():
            assert mode == 0o600, f"{name}: credentials with mode {mode:o}"
            private.append(name)
        else:
            assert mode & 0o133 == 0, f"{name}: file mode {mode:o}"
    assert len(private) == secrets, private


def test_output_dir_under_umask_000(tmp_path: Path) -> None:
    out = "nested/deeper/out"  # folders capzgen creates, three levels
    capzgen([*GENERATE_DEMO, *CREDENTIALS, "--no-validate", "--output-dir", out], tmp_path)
    check(tmp_path / "nested", secrets=1)
    # a rerun that changes the Secret keeps it private
    (tmp_path / out / "secret-aso-credentials.yaml").chmod(0o600)
    capzgen(
        [*GENERATE_DEMO, *CREDENTIALS, "--var", f"AZURE_CLIENT_ID={OTHER_ID}", *NO_CHECK, out],
        tmp_path,
    )
    check(tmp_path / "nested", secrets=1)


def test_an_existing_world_writable_file_is_not_kept_so(tmp_path: Path) -> None:
    out = tmp_path / "out"
    capzgen([*GENERATE_DEMO, "--no-validate", "--output-dir", "out"], tmp_path)
    plane = out / "azureasomanagedcontrolplane-demo.yaml"
    plane.chmod(0o666)
    capzgen(
        [*GENERATE_DEMO, *CREDENTIALS, "--var", "AKS_SKU_TIER=Standard", *NO_CHECK, "out"],
        tmp_path,
    )
    check(out, secrets=1)


def test_fleet_folders_under_umask_000(tmp_path: Path) -> None:
    (tmp_path / "fleet.yaml").write_text(FLEET)
    capzgen(["generate", "fleet", "fleet.yaml", "--no-validate", "--output-dir", "out"], tmp_path)
    check(tmp_path / "out", secrets=2)


@pytest.mark.parametrize("existing", [None, 0o666])
def test_write_to_under_umask_000(tmp_path: Path, existing: int | None) -> None:
    target = tmp_path / "cluster.yaml"
    if existing is not None:
        target.write_text("old\n")
        target.chmod(existing)
    capzgen([*GENERATE_DEMO, *CREDENTIALS, "--no-validate", "--write-to", "cluster.yaml"], tmp_path)
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
