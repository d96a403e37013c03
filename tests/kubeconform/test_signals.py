"""SIGTERM to capzgen while kubeconform runs: kubeconform (and what it started) is stopped, and
capzgen exits 143 instead of hanging.

The fake kubeconform's ``sleep`` mode starts a child that sleeps and then sleeps itself; the test
waits until both exist (found through /proc), sends SIGTERM to capzgen alone, as a CI timeout
does, and checks that all three processes are gone.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from pathlib import Path

import pytest

from generator.errors import ExitCode
from tests.kubeconform.conftest import FakeKubeconform
from tests.processes import children, gone, reaped, start, stderr_of, wait_until

MANIFEST = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: ns}\n"


@pytest.mark.parametrize(
    "args",
    [
        ["kubeconform", "--", "-summary", "manifest.yaml"],
        ["validate", "--kubeconform", "--no-cache", "manifest.yaml"],
    ],
    ids=["passthrough", "validate"],
)
def test_sigterm_stops_kubeconform_and_exits_143(
    tmp_path: Path,
    cli_env: dict[str, str],
    fake_kubeconform: Callable[[str], FakeKubeconform],
    args: list[str],
) -> None:
    fake_kubeconform("sleep")
    (tmp_path / "manifest.yaml").write_text(MANIFEST)
    process = start(args, cli_env, tmp_path)
    found: list[int] = []

    def running() -> bool:  # kubeconform and the child it started
        found[:] = [
            pid
            for kubeconform in children(process.pid)
            for pid in [kubeconform, *children(kubeconform)]
        ]
        return len(found) >= 2

    with reaped(process, found.copy):
        assert wait_until(running, process), stderr_of(process)
        os.kill(process.pid, signal.SIGTERM)
        code = process.wait(timeout=120)
        said = stderr_of(process)
        assert code == ExitCode.TERMINATED, said
        assert "Traceback" not in said
        assert gone(found), f"{found} outlived capzgen"
