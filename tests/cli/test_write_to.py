"""``--write-to`` writes where the user said, as clusterctl does: through symlinks, to devices
and FIFOs, and atomically (mode 0600 for new files) for regular files."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path
from typing import Any

from tests.conftest import GENERATE_DEMO

GENERATE = GENERATE_DEMO


def kinds(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.startswith("kind: "))


def test_new_regular_file_is_private_and_nothing_else_is_left(run_cli: Any, tmp_path: Path) -> None:
    target = tmp_path / "out.yaml"
    result = run_cli([*GENERATE, "--write-to", str(target)])
    assert result.exit_code == 0, result.stderr
    assert kinds(target.read_text()) == 7
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.yaml"]


def test_symlink_is_written_through_and_kept(run_cli: Any, tmp_path: Path) -> None:
    real = tmp_path / "real.yaml"
    real.write_text("old\n")
    real.chmod(0o640)
    link = tmp_path / "link.yaml"
    link.symlink_to(real)
    assert run_cli([*GENERATE, "--write-to", str(link)]).exit_code == 0
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert kinds(real.read_text()) == 7
    assert stat.S_IMODE(real.stat().st_mode) == 0o640  # an existing file keeps its mode


def test_dangling_symlink_creates_what_it_names(run_cli: Any, tmp_path: Path) -> None:
    link = tmp_path / "link.yaml"
    link.symlink_to(tmp_path / "made.yaml")
    assert run_cli([*GENERATE, "--write-to", str(link)]).exit_code == 0
    assert link.is_symlink()
    assert kinds((tmp_path / "made.yaml").read_text()) == 7


def test_character_device_stays_a_device(run_cli: Any) -> None:
    assert run_cli([*GENERATE, "--write-to", "/dev/null"]).exit_code == 0
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_fifo_gets_the_output(run_cli: Any, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[str] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()), daemon=True)
    reader.start()
    result = run_cli([*GENERATE, "--write-to", str(fifo)])
    reader.join(timeout=30)
    assert result.exit_code == 0, result.stderr
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert kinds(received[0]) == 7


def test_folder_is_refused(run_cli: Any, tmp_path: Path) -> None:
    result = run_cli([*GENERATE, "--write-to", str(tmp_path)])
    assert result.exit_code == 2
    assert result.stderr.strip() == f"Error: {tmp_path}: cannot write: is a folder"


def test_invalid_output_leaves_the_target_untouched(run_cli: Any, tmp_path: Path) -> None:
    target = tmp_path / "out.yaml"
    target.write_text("previous\n")
    result = run_cli(
        [
            *GENERATE,
            "--var",
            "CLUSTER_NAME=x",
            "--write-to",
            str(target),
            "--kubernetes-version",
            "not-a-version",
        ]
    )
    assert result.exit_code == 2
    assert target.read_text() == "previous\n"
