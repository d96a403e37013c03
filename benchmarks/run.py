"""``make bench``: end-to-end timings of the commands users run, process start included.

Speed targets live here, never in the test suite: the numbers depend on the machine, and a slow
CI neighbour must not fail a build. Each measurement runs the installed ``capzgen`` in a fresh
process, like a user or a pipeline does, and reports the median of several runs.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
WORK = REPO / ".bench"
TEMPLATE = REPO / "tests/data/upstream/corpus/capz-templates/cluster-template-aks-aso.yaml"
CAPZGEN = str(Path(sys.executable).with_name("capzgen"))
DOCS_PER_CLUSTER = 7
EMBEDDED_PER_CLUSTER = 4


def schema_args() -> list[str]:
    """No schema options: what a user runs, with the built-in bundle."""
    return []


def make_fleet(clusters: int) -> Path:
    """Concatenate ``clusters`` substituted copies of CAPZ's released aks-aso template."""
    path = WORK / f"fleet-{clusters}.yaml"
    if path.exists():
        return path
    template = TEMPLATE.read_text(encoding="utf-8")
    parts = []
    for i in range(clusters):
        text = template
        for key, value in {
            "${CLUSTER_NAME}": f"fleet-{i:04d}",
            "${WORKER_MACHINE_COUNT:=2}": "2",
            "${KUBERNETES_VERSION}": "v1.31.1",
            "${AZURE_LOCATION}": "westeurope",
            "${ASO_CREDENTIAL_SECRET_NAME}": "aso-credentials",
            "${AZURE_NODE_MACHINE_TYPE}": "Standard_D2s_v3",
        }.items():
            text = text.replace(key, value)
        parts.append(text)
    path.write_text("---\n".join(parts), encoding="utf-8")
    return path


def make_fleet_file(clusters: int) -> Path:
    """A ``generate fleet`` file: ``clusters`` aks clusters sharing defaults, one with overrides."""
    path = WORK / f"fleet-file-{clusters}.yaml"
    lines = [
        "defaults:",
        "  flavor: aks",
        "  kubernetesVersion: v1.31.1",
        "  values: {AZURE_LOCATION: westeurope}",
        "clusters:",
    ]
    lines += [f"  - name: fleet-{i:04d}" for i in range(clusters)]
    lines += [
        "    values: {NODE_POOLS: [{name: system, mode: System}]}",
        "    overrides:",
        "      - target: {kind: AzureASOManagedControlPlane, embedded: {kind: ManagedCluster}}",
        "        patch: {spec: {sku: {tier: Standard}}}",
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def timed(
    argv: list[str], env: dict[str, str], runs: int, before: Callable[[], None] | None = None
) -> float:
    """Median wall time of ``runs`` fresh processes of ``argv`` (``before`` runs ahead of each)."""
    samples = []
    for _ in range(runs):
        if before is not None:
            before()
        start = time.perf_counter()
        done = subprocess.run(
            argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False
        )
        samples.append(time.perf_counter() - start)
        if done.returncode != 0:
            msg = f"benchmark command failed ({done.returncode}): {' '.join(argv)}\n{done.stderr.decode()}"
            raise SystemExit(msg)
    return statistics.median(samples)


def main() -> int:
    """Run every measurement and print the tables `make bench` shows."""
    WORK.mkdir(exist_ok=True)
    env = {**os.environ, "CAPZGEN_CACHE_DIR": str(WORK / "cache")}
    env.pop("CAPZGEN_SCHEMA_PATH", None)
    # Warm the caches once (core kinds, CEL grammar, Jinja), as they are for a user after first use.
    subprocess.run(
        [CAPZGEN, "validate", str(make_fleet(1)), *schema_args()],
        env=env,
        check=True,
        capture_output=True,
    )

    print("capzgen validate (median of 5 runs, process start included)")
    print(
        f"{'clusters':>9} {'documents':>10} {'objects':>8} {'seconds':>8} {'docs/s':>9} {'objects/s':>10}"
    )
    for clusters in (1, 100, 1000):
        fleet = make_fleet(clusters)
        seconds = timed([CAPZGEN, "validate", str(fleet), *schema_args()], env, runs=5)
        docs = clusters * DOCS_PER_CLUSTER
        objects = docs + clusters * EMBEDDED_PER_CLUSTER
        print(
            f"{clusters:>9} {docs:>10} {objects:>8} {seconds:>8.3f} {docs / seconds:>9.0f} {objects / seconds:>10.0f}"
        )
    target = "target >= 10,000 objects/s on the 1,000-cluster fleet"
    print(f"  ({target})")

    print("\ncapzgen generate cluster demo --flavor aks (cold process, median of 11 runs)")
    argv = [
        CAPZGEN,
        "generate",
        "cluster",
        "demo",
        "--flavor",
        "aks",
        "--var",
        "AZURE_LOCATION=westeurope",
        "--kubernetes-version",
        "v1.31.1",
        *schema_args(),
    ]
    seconds = timed(argv, env, runs=11)
    print(f"  {seconds:.3f} s  (target <= 0.5 s)")
    # Peer in the same run: the same schemas from the vendored upstream copies via --schema-dir
    # (conversions memoised in the cache after the first run), to show what the bundle costs.
    upstream = REPO / "tests/data/upstream"
    dirs = [upstream / "crds/capz-v1.26.0", upstream / "crds/capi-v1.13.3", upstream / "schemas"]
    peer_argv = [*argv, *(arg for d in dirs for arg in ("--schema-dir", str(d)))]
    timed(peer_argv, env, runs=1)  # memoise the conversions, as a user's second run has them
    peer = timed(peer_argv, env, runs=11)
    print(
        f"  {peer:.3f} s  with --schema-dir instead of the built-in bundle (bundle/peer {seconds / peer:.2f}x)"
    )

    clusters = 1000
    out = WORK / "fleet-out"
    fleet_argv = [
        CAPZGEN,
        "generate",
        "fleet",
        str(make_fleet_file(clusters)),
        "--output-dir",
        str(out),
        *schema_args(),
    ]
    print(
        f"\ncapzgen generate fleet: {clusters:,} clusters rendered, validated and written "
        f"({os.cpu_count()} cores, median of 3 runs, process start included)"
    )
    fresh = timed(fleet_argv, env, runs=3, before=lambda: shutil.rmtree(out, ignore_errors=True))
    print(f"  empty folder      {fresh:7.3f} s  {clusters / fresh:7.0f} clusters/s")
    rerun = timed(fleet_argv, env, runs=3)
    print(f"  rerun, no change  {rerun:7.3f} s  {clusters / rerun:7.0f} clusters/s")
    print("  (target < 20 s on 2 cores)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
