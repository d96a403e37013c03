"""This checkout against another capzgen, interleaved on the same fleet, as ratios.

``python -m benchmarks.compare OTHER_CAPZGEN [ROUNDS]`` times, round after round, the other
capzgen (an older checkout's, e.g. ``git worktree add /tmp/old REV`` and a venv there), this
checkout's, and kubeconform when it is on PATH: cold ``validate --no-cache -j 2`` of the
1,000-cluster fleet and a cold ``generate cluster``. Interleaving puts both through the same load
on a shared machine, so the ratios hold where absolute times do not. Every run must succeed, and
both must print the same findings on a fleet with planted errors (checked once, at ``-j 1`` and
``-j 2``), so a faster but different build is never reported as a win.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.inputs import make_fleet
from benchmarks.run import CAPZGEN, DEMO


def _seconds(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        msg = f"{' '.join(argv)} failed: {done.stderr.decode(errors='replace')[-400:]}"
        raise SystemExit(msg)
    return elapsed


def _same_findings(other: str, fleet: Path, env: dict[str, str]) -> None:
    text = fleet.read_text(encoding="utf-8").replace("westeurope", "westeurop", 3)
    with tempfile.TemporaryDirectory() as tmp:
        broken = Path(tmp) / "broken.yaml"
        broken.write_text(text.replace("dnsPrefix", "dnsPrefx", 2), encoding="utf-8")
        outputs = {
            subprocess.run(
                [binary, "validate", "--no-cache", "-j", jobs, str(broken)],
                env=env,
                capture_output=True,
                check=False,
            ).stdout
            for binary in (other, CAPZGEN)
            for jobs in ("1", "2")
        }
    if len(outputs) != 1:
        msg = "the two builds (or -j 1 and -j 2) print different findings"
        raise SystemExit(msg)


def main(argv: list[str]) -> int:
    """Print the medians and the ratios; see the module doc."""
    if not argv:
        print(__doc__)
        return 2
    other, rounds = argv[0], int(argv[1]) if len(argv) > 1 else 9
    fleet = make_fleet(1000)
    with contextlib.ExitStack() as stack:
        home = stack.enter_context(tempfile.TemporaryDirectory())
        env = {k: v for k, v in os.environ.items() if not k.startswith("CAPZGEN")}
        env["HOME"] = home
        _same_findings(other, fleet, env)
        commands = {
            "other validate": [other, "validate", "--no-cache", "-j", "2", str(fleet)],
            "this validate": [CAPZGEN, "validate", "--no-cache", "-j", "2", str(fleet)],
            "other generate": [other, *DEMO],
            "this generate": [CAPZGEN, *DEMO],
        }
        binary = shutil.which("kubeconform", path=env.get("PATH"))
        if binary is not None:
            # lazy: the benchmark's own imports stay out of the timed processes
            from generator.kubeconform.process import schema_location, store_layout
            from generator.schemastore.store import SchemaStore
            from generator.settings import Settings

            store = SchemaStore.from_search_path([], Settings(environ=env))
            layout = stack.enter_context(store_layout(store))
            location = schema_location(layout)
            commands["kubeconform"] = [binary, "-strict", "-schema-location", location, str(fleet)]
        times: dict[str, list[float]] = {name: [] for name in commands}
        for command in commands.values():
            _seconds(command, env)  # warm the file cache and the caches in HOME
        for _ in range(rounds):
            for name, command in commands.items():
                times[name].append(_seconds(command, env))
    median = {name: statistics.median(values) for name, values in times.items()}
    for name, value in median.items():
        print(f"{name:16} {value:.3f} s (fastest {min(times[name]):.3f} s)")
    print(f"validate, this/other: {median['this validate'] / median['other validate']:.2f}")
    print(f"generate, this/other: {median['this generate'] / median['other generate']:.2f}")
    if "kubeconform" in median:
        for side in ("other", "this"):
            ratio = median[f"{side} validate"] / median["kubeconform"]
            print(f"{side} validate / kubeconform: {ratio:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
