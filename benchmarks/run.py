"""``make bench``: the figures issue targets are set in, measured end to end and printed as one
table beside their targets, and beside kubeconform and kubectl-validate when they are on PATH or
among the peers.

Speed targets live here, never in the test suite: the numbers depend on the machine, and a slow
CI neighbour must not fail a build. Each measurement runs the installed ``capzgen`` in a fresh
process, like a user or a pipeline does, and reports the median of several runs. On a shared
machine absolute times are noisy; the ratios are the figures that count, and every ratio to a
peer (and to ``python -c pass``) comes from commands run round after round in one contest
(:mod:`benchmarks.interleaved`), never from runs made minutes apart.
"""

from __future__ import annotations

import compileall
import contextlib
import itertools
import os
import shutil
import statistics
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.inputs import (
    DOCS_PER_CLUSTER,
    EMBEDDED_PER_CLUSTER,
    REPO,
    WORK,
    make_fleet,
    make_fleet_file,
)
from benchmarks.interleaved import Command, Contest, Sample, contest
from benchmarks.tree import run_tree
from tests.peers import Peers, find_peers

CAPZGEN = str(Path(sys.executable).with_name("capzgen"))
DEMO = [
    "generate",
    "cluster",
    "demo",
    "--flavor",
    "aks",
    "--var",
    "AZURE_LOCATION=westeurope",
    "--kubernetes-version",
    "v1.31.1",
]


@dataclass
class Run:
    """One process: wall seconds and peak resident memory (MiB) of it and its children."""

    seconds: float
    peak_mib: float


def run_once(argv: list[str], env: dict[str, str]) -> Run:
    """Run ``argv`` once; fail the benchmark if it fails."""
    done = run_tree(argv, env)
    allowed = (0,) if argv[0] == CAPZGEN else (0, 1)  # kubeconform: 1 means findings
    if done.returncode not in allowed:
        msg = f"benchmark command failed ({done.returncode}): {' '.join(argv)}\n"
        raise SystemExit(msg + done.stderr.decode())
    return Run(done.wall, done.peak_mib)


def timed(
    argv: list[str], env: dict[str, str], runs: int, before: Callable[[], None] | None = None
) -> Run:
    """The median wall time (and the largest peak memory) of ``runs`` fresh processes."""
    samples = []
    for _ in range(runs):
        if before is not None:
            before()
        samples.append(run_once(argv, env))
    return _median(samples)


def _median(samples: list[Run]) -> Run:
    """The median wall time and the largest peak memory of ``samples``."""
    return Run(statistics.median(s.seconds for s in samples), max(s.peak_mib for s in samples))


@dataclass
class Row:
    """One line of the table: what, the figure, the target, and whether it is met."""

    work: str
    figure: str
    target: str
    met: bool | None  # None: nothing to compare with (e.g. no kubeconform)


def print_table(rows: list[Row]) -> None:
    """The table `make bench` ends with."""
    widths = [max(len(getattr(r, f)) for r in rows) for f in ("work", "figure", "target")]
    header = ("work", "measured", "target")
    print()
    print("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)) + "  met")
    for row in rows:
        verdict = {True: "yes", False: "NO", None: "-"}[row.met]
        cells = (row.work, row.figure, row.target)
        print("  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)) + f"  {verdict}")


def validate_rows(env: dict[str, str]) -> list[Row]:
    """validate: speed on 1,000 clusters (-j default and -j 1), memory on 5,000 and 50,000;
    every check done (--no-cache), then reruns with the result cache."""
    fleet = make_fleet(1000)
    objects = 1000 * (DOCS_PER_CLUSTER + EMBEDDED_PER_CLUSTER)
    parallel = timed([CAPZGEN, "validate", "--no-cache", str(fleet)], env, runs=5)
    serial = timed([CAPZGEN, "validate", "--no-cache", "-j", "1", str(fleet)], env, runs=5)
    rows = [
        Row(
            f"validate 1,000 clusters ({objects:,} objects), -j {os.cpu_count()}, --no-cache",
            f"{parallel.seconds:.2f} s ({objects / parallel.seconds:,.0f} objects/s)",
            ">= 10,000 objects/s",
            objects / parallel.seconds >= 10_000,
        ),
        Row(
            "  same with -j 1",
            f"{serial.seconds:.2f} s (-j {os.cpu_count()}/-j 1 = {parallel.seconds / serial.seconds:.2f}x)",
            "-j N faster than -j 1",
            parallel.seconds < serial.seconds,
        ),
    ]
    for clusters, limit in ((5000, 150), (50_000, 200)):
        argv = [CAPZGEN, "validate", "--no-cache", "-j", "1", str(make_fleet(clusters))]
        peak = timed(argv, env, runs=1)
        # The same with the result cache being filled (an empty one: the first run of a user).
        fresh = {**env, "CAPZGEN_CACHE_DIR": str(WORK / "cache-fresh")}
        shutil.rmtree(fresh["CAPZGEN_CACHE_DIR"], ignore_errors=True)
        filling = timed([a for a in argv if a != "--no-cache"], fresh, runs=1)
        rows.append(
            Row(
                f"validate {clusters:,} clusters, peak memory (-j 1)",
                f"{peak.peak_mib:.0f} MiB ({peak.seconds:.1f} s); filling the result cache "
                f"{filling.peak_mib:.0f} MiB ({filling.seconds:.1f} s)",
                f"<= {limit} MiB",
                max(peak.peak_mib, filling.peak_mib) <= limit,
            )
        )
    rerun = rerun_figures(env, fleet)
    rows += peer_rows(env, fleet, rerun)
    return rows


_EDITS = itertools.count()


@dataclass
class Reruns:
    """validate with the result cache: nothing changed, and one cluster of the file changed."""

    unchanged: Run
    one_changed: Run


def rerun_figures(env: dict[str, str], fleet: Path, flags: tuple[str, ...] = ()) -> Reruns:
    """Reruns of ``validate [flags]`` on the fleet with the result cache, after one run that
    fills it: nothing changed, and one cluster of the file changed each time."""
    argv = [CAPZGEN, "validate", *flags]
    run_once([*argv, str(fleet)], env)
    unchanged = timed([*argv, str(fleet)], env, runs=5)
    edited = WORK / "fleet-1000-edited.yaml"
    text = fleet.read_text(encoding="utf-8")

    def edit() -> None:  # a new label on one cluster each time: its file and its part changed
        # never a text an earlier run (of these flags or others) has seen and remembered
        marker = f"name: fleet-00500\n  labels: {{bench-run: r{next(_EDITS)}}}\n"
        edited.write_text(text.replace("name: fleet-00500\n", marker, 1), encoding="utf-8")

    edit()
    run_once([*argv, str(edited)], env)
    one_changed = timed([*argv, str(edited)], env, runs=5, before=edit)
    return Reruns(unchanged, one_changed)


_PEERS: list[Peers] = []


def peer_binary(name: str, env: dict[str, str]) -> str | None:
    """An upstream program to compare with: on PATH, else among the peers (``tests.peers``:
    ``$CAPZGEN_PEERS`` or ``../shared/peers`` unpacked into ``.bench/peers``), else None."""
    found = shutil.which(name, path=env.get("PATH"))
    if found is not None:
        return found
    if not _PEERS:
        _PEERS.append(find_peers(WORK / "peers", env))
    binary = _PEERS[0].binary(name)
    return None if binary is None else str(binary)


# Rounds of the contests: the kubeconform ratios are within a few percent of their targets, and
# the median of per-round ratios of 7 rounds moved by +-3% from one make bench to the next;
# kubectl-validate takes seconds a run, and its ratio is far from its target.
ROUNDS = 15
KUBECTL_VALIDATE_ROUNDS = 5


def _flat(kubeconform: str, fleet: Path, store: Any) -> Command:
    """kubeconform alone on what ``validate --kubeconform`` sends it: the fleet file itself and
    one stream of its embedded ASO resources (each a document of its own)."""
    # lazy: the benchmark's own imports stay out of the timed processes
    from generator.kubeconform.process import schema_location, write_schemas
    from generator.kubeconform.sent import sent_objects
    from generator.kubeconform.stream import write_stream
    from generator.yamlio.load import load_documents

    root = WORK / "flat"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir()
    documents = load_documents(fleet.read_text(encoding="utf-8"), source=str(fleet))
    sent = list(sent_objects(documents))
    write_schemas(root / "schemas", (item.gvk for item in sent), store)
    write_stream(root / "embedded.yaml", [item for item in sent if item.prefix])
    location = schema_location(root / "schemas")
    argv = [kubeconform, "-strict", "-summary", "-output", "json", "-schema-location", location]
    return Command([*argv, str(fleet), str(root / "embedded.yaml")], (0, 1))


def _peer_commands(
    env: dict[str, str], fleet: Path, stack: contextlib.ExitStack
) -> dict[str, Command]:
    """capzgen, kubeconform (alone, on the fleet plus its embedded resources, run by
    ``--kubeconform``) and the floor, on the same fleet and the same schemas."""
    commands = {"capzgen": Command([CAPZGEN, "validate", "--no-cache", str(fleet)])}
    kubeconform = peer_binary("kubeconform", env)
    if kubeconform is not None:
        # lazy: the benchmark's own imports stay out of the timed processes
        from generator.kubeconform.process import schema_location, store_layout
        from generator.schemastore.store import SchemaStore
        from generator.settings import Settings

        store = SchemaStore.from_search_path([], Settings(environ=env))
        layout = stack.enter_context(store_layout(store))
        argv = [kubeconform, "-strict", "-summary", "-output", "json", "-schema-location"]
        commands["kubeconform"] = Command([*argv, schema_location(layout), str(fleet)], (0, 1))
        commands["flat"] = _flat(kubeconform, fleet, store)
        beside = [CAPZGEN, "validate", "--kubeconform", "--no-cache", str(fleet)]
        commands["beside"] = Command(beside)
        floor = [sys.executable, str(REPO / "benchmarks/floor.py"), str(layout), str(fleet)]
        commands["floor"] = Command(floor)
    return commands


def _kubectl_validate_commands(env: dict[str, str], fleet: Path) -> dict[str, Command]:
    """capzgen and kubectl-validate (if at hand) on the same fleet and the same CRDs."""
    commands = {"capzgen": Command([CAPZGEN, "validate", "--no-cache", str(fleet)])}
    kubectl_validate = peer_binary("kubectl-validate", env)
    if kubectl_validate is not None:
        crds = REPO / "tests/data/upstream/crds"
        local = ",".join(str(crds / name) for name in ("capz-v1.26.0", "capi-v1.13.3"))
        argv = [kubectl_validate, "--local-crds", local, "--version", "1.33", "-o", "json"]
        commands["kubectl-validate"] = Command([*argv, str(fleet)], (0, 1))
    return commands


def _seconds_row(work: str, run: Sample) -> Row:
    return Row(work, f"{run.wall:.2f} s wall, {run.cpu:.2f} s CPU", "-", None)


def _ratio_row(work: str, result: Contest, pair: tuple[str, str], limit: float | None) -> Row:
    """A row of one command over another from the contest: the wall ratio (and the CPU
    ratio), beside the target."""
    ratio = result.ratio(*pair)
    return Row(
        work,
        f"{ratio.wall:.2f}x wall, {ratio.cpu:.2f}x CPU",
        "-" if limit is None else f"<= {limit}x",
        None if limit is None else ratio.wall <= limit,
    )


def _kubeconform_rows(result: Contest, rerun: Reruns) -> list[Row]:
    mine, alone = result.median("capzgen"), result.median("kubeconform").wall
    rows = [
        _seconds_row(
            "  kubeconform v0.7.0 alone, same fleet (7,000 documents)", result.median("kubeconform")
        ),
        _seconds_row("  capzgen (--no-cache), same rounds", mine),
        _ratio_row(
            "  capzgen (--no-cache) vs kubeconform", result, ("capzgen", "kubeconform"), 1.0
        ),
        _ratio_row(
            "  floor: the YAML parse and JSON Schemas alone, in Python, every core",
            result,
            ("floor", "kubeconform"),
            None,
        ),
        _ratio_row(
            "  capzgen (--no-cache) vs kubeconform on equal work (fleet + embedded)",
            result,
            ("capzgen", "flat"),
            0.5,
        ),
        _ratio_row(
            "validate --kubeconform --no-cache vs kubeconform on what it is sent",
            result,
            ("beside", "flat"),
            1.5,
        ),
    ]
    for label, run in (
        ("nothing changed", rerun.unchanged),
        ("one cluster changed", rerun.one_changed),
    ):
        figure = f"{run.seconds:.2f} s ({run.seconds / alone:.2f}x kubeconform)"
        rows.append(Row(f"  rerun with the result cache, {label}", figure, "-", None))
    return rows


def peer_rows(env: dict[str, str], fleet: Path, rerun: Reruns) -> list[Row]:
    """capzgen beside kubeconform (on the fleet, on the fleet plus its embedded resources, and
    run by ``--kubeconform``) in one interleaved contest (:mod:`benchmarks.interleaved`), so
    that every ratio compares runs made under the same load, then beside kubectl-validate in a
    shorter one of its own; then the reruns with the result cache beside kubeconform's time."""
    kubeconform = peer_binary("kubeconform", env)
    if kubeconform is not None:  # validate --kubeconform finds it on PATH, as a user's does
        env = {**env, "PATH": os.pathsep.join([str(Path(kubeconform).parent), env.get("PATH", "")])}
    with contextlib.ExitStack() as stack:
        result = contest(_peer_commands(env, fleet, stack), env, rounds=ROUNDS)
    rows = []
    if "kubeconform" in result.samples:
        rows += _kubeconform_rows(result, rerun)
    else:
        rows.append(Row("  kubeconform, same fleet", "not at hand", "-", None))
    slow = _kubectl_validate_commands(env, fleet)
    if "kubectl-validate" in slow:
        result = contest(slow, env, rounds=KUBECTL_VALIDATE_ROUNDS)
        rows.append(
            _seconds_row("  kubectl-validate alone, same fleet", result.median("kubectl-validate"))
        )
        rows.append(
            _ratio_row(
                "  capzgen (--no-cache) vs kubectl-validate, its own rounds",
                result,
                ("capzgen", "kubectl-validate"),
                0.2,
            )
        )
    else:
        rows.append(Row("  kubectl-validate, same fleet", "not at hand", "-", None))
    return rows


def start_rows(env: dict[str, str]) -> list[Row]:
    """Cold start: the main job and --version, beside the interpreter alone, interleaved."""
    # Peer in the same run: the same schemas from the vendored upstream copies via --schema-dir
    # (conversions memoised in the cache after the first run), to show what the bundle costs.
    upstream = REPO / "tests/data/upstream"
    dirs = [upstream / "crds/capz-v1.26.0", upstream / "crds/capi-v1.13.3", upstream / "schemas"]
    peer_argv = [CAPZGEN, *DEMO, *(arg for d in dirs for arg in ("--schema-dir", str(d)))]
    run_once(peer_argv, env)  # memoise the conversions, as a user's second run has them
    commands = {
        "generate": Command([CAPZGEN, *DEMO]),
        "version": Command([CAPZGEN, "--version"]),
        "python": Command([sys.executable, "-c", "pass"]),  # the interpreter alone
        "schema-dir": Command(peer_argv),
    }
    result = contest(commands, env, rounds=11)
    generate, version = result.median("generate"), result.median("version")
    python = result.median("python").wall
    return [
        Row(
            "cold generate cluster --flavor aks",
            f"{generate.wall:.3f} s (built-in bundle/--schema-dir "
            f"{result.ratio('generate', 'schema-dir').wall:.2f}x; "
            f"{result.ratio('generate', 'python').wall:.1f}x python -c pass)",
            "<= 0.2 s",
            generate.wall <= 0.2,
        ),
        Row(
            "capzgen --version",
            f"{version.wall:.3f} s ({result.ratio('version', 'python').wall:.1f}x python -c pass)",
            "<= 0.05 s",
            version.wall <= 0.05,
        ),
        Row("  python -c pass", f"{python:.3f} s", "-", None),
    ]


def fleet_rows(env: dict[str, str]) -> list[Row]:
    """generate fleet, 1,000 clusters: empty folder (-j default, -j 1, -j 2) and a rerun.

    Each run into an empty folder gets a new one; they are all removed only at the end. Removing
    the last run's 10,000 files just before the next run made that run ext4's, not capzgen's:
    ext4 skips inodes freed in the last minutes when it makes a file, and with 10,000 of them
    just freed each of the next run's files took ~0.5 ms of kernel time to create (`perf`:
    half of the samples in its inode allocator; 8.5 s against 3.7 s for the same run into a
    folder with no deletion just before it)."""
    root = WORK / "fleet-out"
    shutil.rmtree(root, ignore_errors=True)
    fleet = str(make_fleet_file(1000))
    folders = (root / f"run-{n}" for n in itertools.count())

    def into_new(*extra: str) -> Run:
        return _median(
            [
                run_once(
                    [CAPZGEN, "generate", "fleet", fleet, "--output-dir", str(out), *extra], env
                )
                for out in itertools.islice(folders, 3)
            ]
        )

    try:
        fresh = into_new()
        one = into_new("-j", "1")
        two = into_new("-j", "2")
        rerun = timed(
            [CAPZGEN, "generate", "fleet", fleet, "--output-dir", str(root / "run-0")], env, runs=3
        )
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return [
        Row(
            "generate fleet 1,000 clusters, empty folder",
            f"{fresh.seconds:.2f} s",
            "<= 5 s",
            fresh.seconds <= 5,
        ),
        Row(
            "  -j 2 vs -j 1",
            f"{two.seconds:.2f} s vs {one.seconds:.2f} s ({two.seconds / one.seconds:.2f}x)",
            "-j 2 faster",
            two.seconds < one.seconds,
        ),
        Row(
            "generate fleet rerun, nothing changed",
            f"{rerun.seconds:.2f} s",
            "<= 3 s",
            rerun.seconds <= 3,
        ),
    ]


def main() -> int:
    """Measure everything and print the table."""
    WORK.mkdir(exist_ok=True)
    # An installed wheel has its bytecode compiled by pip; an editable checkout only gets it on
    # first import, and never under PYTHONDONTWRITEBYTECODE (CI sets it). Compile it here so the
    # timed processes measure capzgen as users run it, not the compiler of Python source.
    compileall.compile_dir(REPO / "generator", quiet=1)
    env = {**os.environ, "CAPZGEN_CACHE_DIR": str(WORK / "cache")}
    env.pop("CAPZGEN_SCHEMA_PATH", None)
    # Results of an earlier `make bench` would answer this one's reruns: start without them.
    shutil.rmtree(WORK / "cache" / "results", ignore_errors=True)
    # Warm the caches once (core kinds, CEL trees, Jinja), as they are for a user after first use.
    run_once([CAPZGEN, "validate", str(make_fleet(1))], env)
    run_once([CAPZGEN, *DEMO], env)
    print(
        f"make bench on {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f} (medians of 3-11 "
        "fresh processes; ratios: medians of per-round ratios, commands interleaved)",
        flush=True,
    )
    rows = [*start_rows(env), *validate_rows(env), *fleet_rows(env)]
    print_table(rows)
    print("\nCPU of validate's stages on the 1,000-cluster fleet, in one process (-j 1):")
    stages_of(make_fleet(1000), env)
    return 0


def stages_of(fleet: Path, env: dict[str, str]) -> None:
    """Print :mod:`benchmarks.stages` of ``fleet``, run as a script from the fleet's folder: the
    build measured is the one ``capzgen`` runs (``PYTHONPATH``'s, say the compiled one), not the
    source tree that ``python -m`` from the checkout would put first on the path."""
    sys.stdout.flush()
    script = [sys.executable, str(REPO / "benchmarks/stages.py"), str(fleet)]
    entries = [entry for entry in env.get("PYTHONPATH", "").split(os.pathsep) if entry]
    # a relative entry (PYTHONPATH=build/compiled/site) names a folder from here, not from there
    absolute = os.pathsep.join(str(Path(entry).resolve()) for entry in entries)
    subprocess.run(script, cwd=fleet.parent, env={**env, "PYTHONPATH": absolute}, check=True)


if __name__ == "__main__":
    raise SystemExit(main())
