"""Start-up: what ``capzgen --version`` and ``capzgen validate`` of a clean file leave unloaded.

Each run is a fresh interpreter, as a user's is; the modules listed are deferred on purpose (each
import site says why with ``# lazy:``) and must stay out of these runs. The speed itself is
measured by ``make bench``, never asserted here.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from benchmarks.inputs import cluster_text
from generator import version_text
from generator.__main__ import main as console_script
from tests.conftest import REPO_ROOT
from tests.processes import Finished
from tests.processes import run_like_subprocess as _run

# Loaded by no command's start-up: generate needs them, validate of a clean file does not.
NOT_FOR_VALIDATE = [
    "yaml",  # PyYAML: the fast path reads manifests with ryaml; lines are looked up on findings
    "platformdirs",  # the XDG cache folder is computed from the environment
    "secrets",
    "generator.clusterctl.substitution",
    "generator.envsubst",
    "generator.clusterctl.variables",
    "generator.yamlio.emit",
    "generator.yamlio.precise",
    "generator.yamlio.linetree",
    "generator.checks.clusterclass.patches",  # only a set holding a ClusterClass
    "generator.schemastore.catalog",  # only a schema folder on the search path
    "re2",  # only a pattern the Rust regex engine refuses
    "celpy",  # only a CEL rule that applies
]
# --version needs click and the group, nothing of the validator or the schema store.
NOT_FOR_VERSION = [
    *NOT_FOR_VALIDATE,
    "generator.checks",
    "generator.schemastore.store",
    "jsonschema_rs",
    "ryaml",
    "generator.cli.repo_config",  # .capzgen.yaml is for the commands that read it
    "generator.cli.config_file",
]


def run_script(script: str, cwd: Path) -> tuple[Any, str]:
    """Run ``script`` in a fresh interpreter on this checkout; the JSON its last stderr line
    holds, and its stdout."""
    result = _run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        cwd=cwd,
        env={"PYTHONPATH": str(REPO_ROOT), "PATH": "/usr/bin:/bin"},
    )
    return json.loads(result.stderr.strip().splitlines()[-1]), result.stdout


def loaded_after(
    argv: list[str], cwd: Path, cache: Path, environ: dict[str, str] | None = None
) -> tuple[int, set[str]]:
    seen = {"CAPZGEN_CACHE_DIR": str(cache), "HOME": "/nonexistent", **(environ or {})}
    script = (
        "import json, sys\n"
        "from generator.cli import main\n"
        f"code = main({argv!r}, environ={seen!r})\n"
        "print(json.dumps([code, sorted(sys.modules)]), file=sys.stderr)\n"
    )
    (code, modules), _ = run_script(script, cwd)
    return code, set(modules)


def test_version_loads_no_validator_and_no_schema_store(tmp_path: Path) -> None:
    code, loaded = loaded_after(["--version"], tmp_path, tmp_path / "cache")
    assert code == 0
    assert sorted(loaded & set(NOT_FOR_VERSION)) == []


def test_validating_a_clean_fleet_file_defers_what_it_does_not_need(tmp_path: Path) -> None:
    template = REPO_ROOT / "tests/data/upstream/corpus/capz-templates/cluster-template-aks-aso.yaml"
    text = cluster_text(template.read_text(encoding="utf-8"), "one")
    (tmp_path / "fleet.yaml").write_text(text, encoding="utf-8")
    for run in ("first", "second"):  # the second run finds what the first cached
        code, loaded = loaded_after(["validate", "fleet.yaml"], tmp_path, tmp_path / "cache")
        assert code == 0, run
        assert "jsonschema_rs" in loaded  # it did validate against schemas
        assert sorted(loaded & set(NOT_FOR_VALIDATE)) == [], run


def test_only_a_run_with_a_result_cache_loads_the_store(tmp_path: Path) -> None:
    """SQLite, the key file's HMAC and the code fingerprint are the result cache's: a run
    without one (``--no-cache``) never loads them; a run with one does."""
    template = REPO_ROOT / "tests/data/upstream/corpus/capz-templates/cluster-template-aks-aso.yaml"
    text = cluster_text(template.read_text(encoding="utf-8"), "one")
    (tmp_path / "fleet.yaml").write_text(text, encoding="utf-8")
    store = {"sqlite3", "hmac", "generator.validate.cache.store", "generator.validate.cache.keys"}
    argv = ["validate", "--no-cache", "fleet.yaml"]
    code, loaded = loaded_after(argv, tmp_path, tmp_path / "cache")
    assert code == 0
    assert "jsonschema_rs" in loaded  # it did validate
    assert sorted(loaded & store) == []
    key = {"CAPZGEN_CACHE_KEY": "k" * 64}  # the key file would be in the missing HOME
    code, loaded = loaded_after(["validate", "fleet.yaml"], tmp_path, tmp_path / "cache", key)
    assert code == 0
    assert loaded >= store


def test_a_parallel_run_forks_its_workers_before_loading_the_rulebook(tmp_path: Path) -> None:
    """With ``-j 2`` the rules load in each worker, while the parent reads and cuts the input,
    instead of in the parent before the fork, where every millisecond of import is serial; the
    parent itself never needs them for a clean input."""
    template = REPO_ROOT / "tests/data/upstream/corpus/capz-templates/cluster-template-aks-aso.yaml"
    text = template.read_text(encoding="utf-8")
    fleet = "---\n".join(cluster_text(text, f"c{n:03}") for n in range(100))
    assert len(fleet) > 256 << 10  # above Tuning.parallel_from: workers are forked
    (tmp_path / "fleet.yaml").write_text(fleet, encoding="utf-8")
    script = (
        "import json, os, sys\n"
        "from generator.cli import main\n"
        "import builtins\n"
        "seen, opened = [], []\n"
        "fork, open_ = os.fork, builtins.open\n"
        "def watched():\n"
        "    seen.append(['generator.checks.rules' in sys.modules, bool(opened)])\n"
        "    return fork()\n"
        "def watched_open(file, *args, **kwargs):\n"
        "    opened.extend([file] if str(file).endswith('fleet.yaml') else [])\n"
        "    return open_(file, *args, **kwargs)\n"
        "os.fork, builtins.open = watched, watched_open\n"
        "code = main(['validate', '--no-cache', '-j', '2', 'fleet.yaml'])\n"
        "print(json.dumps([code, seen, 'generator.checks.rules' in sys.modules]), file=sys.stderr)\n"
    )
    (code, seen, after), _ = run_script(script, tmp_path)
    assert code == 0
    # two workers, forked before the rules were imported and before the input was read: they
    # load the rules while the parent reads and cuts the file
    assert seen == [[False, False], [False, False]]
    assert after is False  # and a clean run never needed them in the parent


def test_a_finding_loads_the_line_finder_and_pyyaml(tmp_path: Path) -> None:
    """The other side of the deferral: a finding needs its line, and gets it."""
    (tmp_path / "bad.yaml").write_text(
        "apiVersion: cluster.x-k8s.io/v1beta2\nkind: Cluster\nmetadata:\n  name: c\n"
        "spec:\n  paused: maybe\n",
        encoding="utf-8",
    )
    code, loaded = loaded_after(["validate", "bad.yaml"], tmp_path, tmp_path / "cache")
    assert code == 1
    assert {"yaml", "generator.yamlio.linetree"} <= loaded


def test_the_console_script_answers_version_before_loading_click(tmp_path: Path) -> None:
    """``capzgen --version`` (the console script, ``generator.__main__:main``) prints what the
    CLI's own --version prints, without loading click or the command group."""
    script = (
        "import json, sys\n"
        "from generator.__main__ import main\n"
        "code = main(['--version'])\n"
        "print(json.dumps([code, sorted(sys.modules)]), file=sys.stderr)\n"
    )
    (code, modules), stdout = run_script(script, tmp_path)
    assert code == 0
    assert sorted({"click", "generator.cli"} & set(modules)) == []
    assert stdout == version_text() + "\n"


def test_the_console_script_hands_everything_else_to_the_cli(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert console_script(["--help"]) == 0
    assert "Usage:" in capsys.readouterr().out
    assert console_script(["--version", "generate"]) == 0  # the group's own --version
    assert capsys.readouterr().out == version_text() + "\n"


def test_a_command_freezes_its_imports_and_collects_the_young_less_often(tmp_path: Path) -> None:
    """Once a command's modules are imported, they are frozen out of the cyclic collector's way
    and its youngest generation is collected every YOUNG_COLLECTION_EVERY allocations (the
    older generations keep Python's thresholds)."""
    script = (
        "import gc, json, sys\n"
        "defaults = gc.get_threshold()\n"
        "from generator.cli import main\n"
        "from generator.runtime import YOUNG_COLLECTION_EVERY\n"
        "code = main(['generate', '--help'])\n"
        "print(json.dumps([code, defaults, gc.get_threshold(), YOUNG_COLLECTION_EVERY,"
        " gc.get_freeze_count()]), file=sys.stderr)\n"
    )
    (code, defaults, after, young, frozen), _ = run_script(script, tmp_path)
    assert code == 0
    assert after == [young, *defaults[1:]]
    assert young > defaults[0]
    assert frozen > 0


def test_given_argv_the_console_script_returns_and_leaves_the_collector_alone(
    tmp_path: Path,
) -> None:
    """A caller passing ``argv`` (a test, an embedding program) gets the exit code back, its
    process goes on, and nothing of its heap is frozen."""
    script = (
        "import gc, json, sys\n"
        "from generator.__main__ import main\n"
        "codes = [main(['generate', '--help'])]\n"
        "counts = [gc.get_freeze_count()]\n"
        "codes.append(main(['generate', '--help']))\n"
        "counts.append(gc.get_freeze_count())\n"
        "print(json.dumps([codes, counts]), file=sys.stderr)\n"
    )
    (codes, (given, again)), _ = run_script(script, tmp_path)
    assert codes == [0, 0]
    assert abs(again - given) < 1000  # frozen objects freed since, nothing frozen


def _own_run(script: str, cwd: Path) -> Finished:
    return _run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd,
        env={"PYTHONPATH": str(REPO_ROOT), "PATH": "/usr/bin:/bin", "HOME": str(cwd)},
    )


def test_on_its_own_arguments_the_console_script_ends_the_process_as_the_interpreter_would(
    tmp_path: Path,
) -> None:
    """Run on the process's own arguments, the console script ends the process itself once the
    command is done (the interpreter's teardown of every module is skipped): with the command's
    exit code, after the ``atexit`` handlers, with what they and the command wrote flushed, and
    nothing after ``main`` runs."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, name: b}\n")
    script = (
        "import atexit, sys\n"
        "from generator.__main__ import main\n"
        "atexit.register(lambda: print('atexit handler ran', end=''))\n"
        f"sys.argv = ['capzgen', 'validate', '--no-cache', {str(bad)!r}]\n"
        "main()\n"
        "print('after main')\n"
    )
    result = _own_run(script, tmp_path)
    assert result.returncode == 1  # the command's: the file has an error
    assert "bad.yaml" in result.stdout  # the report, flushed
    assert result.stdout.endswith("atexit handler ran")  # unflushed, after the report
    assert "after main" not in result.stdout


def test_the_console_script_leaves_the_exit_to_the_interpreter_while_a_thread_runs(
    tmp_path: Path,
) -> None:
    """Another thread still running: ``main`` returns, and the interpreter's exit waits for
    the thread, as it always does."""
    script = (
        "import sys, threading\n"
        "from generator.__main__ import main\n"
        "returned = threading.Event()\n"
        "def late():\n"
        "    returned.wait()  # alive until main has returned, however long main takes\n"
        "    print('thread done')\n"
        "threading.Thread(target=late).start()\n"
        "sys.argv = ['capzgen', 'generate', '--help']\n"
        "code = main()\n"
        "print('returned', code)\n"
        "returned.set()\n"
        "sys.exit(code)\n"
    )
    result = _own_run(script, tmp_path)
    assert result.returncode == 0
    assert "returned 0" in result.stdout
    assert result.stdout.rstrip().endswith("thread done")


def test_the_console_script_loads_a_command_with_the_collector_off_then_turns_it_on(
    tmp_path: Path,
) -> None:
    """What the console script imports lives until the end: no collection runs until the
    command's modules are in, and the command itself runs with the collector on."""
    script = (
        "import atexit, gc, json, sys\n"
        "import generator.runtime as runtime\n"
        "started = []\n"
        "gc.callbacks.append(lambda phase, info: phase == 'start' and started.append(1))\n"
        "real, at_freeze = runtime.freeze_imported, []\n"
        "def freeze():\n"
        "    at_freeze.append([len(started), gc.isenabled()])\n"
        "    real()\n"
        "runtime.freeze_imported = freeze\n"
        "from generator.__main__ import main\n"
        "sys.argv = ['capzgen', 'generate', '--help']\n"
        "before = len(started)\n"
        "report = lambda: print(json.dumps([before, at_freeze, gc.isenabled()]), file=sys.stderr)\n"
        "atexit.register(report)  # main() ends the process: its atexit handlers still run\n"
        "main()\n"
    )
    result = _own_run(script, tmp_path)
    assert result.returncode == 0
    before, at_freeze, enabled = json.loads(result.stderr.strip().splitlines()[-1])
    assert at_freeze[0] == [before, False]  # the command's module loaded, nothing collected
    assert enabled


@pytest.mark.parametrize(
    ("args", "loaded", "begun"),
    [
        (["generate", "--help"], False, False),
        (["validate", "-j", "1", "{file}"], True, False),
        (["validate", "-j", "2", "{file}"], True, False),  # too small to fork workers
        (["validate", "-j", "2", "{folder}"], True, True),  # a folder: any size
    ],
)
def test_the_console_script_begins_a_zygote_only_for_a_validate_run_that_may_fork(
    tmp_path: Path, args: list[str], loaded: bool, begun: bool
) -> None:
    """The zygote (generator.validate.zygote) is forked before the CLI loads, for ``validate``
    with ``-j`` above one on inputs that may be large enough for workers; no other command
    loads even its module."""
    good = tmp_path / "good.yaml"
    good.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: n}\n")
    argv = [arg.format(file=good, folder=tmp_path) for arg in args]
    script = (
        "import atexit, json, sys\n"
        "import generator.__main__ as console\n"
        "begun = []\n"
        "real = console._zygote\n"
        "def spy(args):\n"
        "    started = real(args)\n"
        "    begun.append(started is not None)\n"
        "    return started\n"
        "console._zygote = spy\n"
        "report = lambda: print(json.dumps(['generator.validate.zygote' in sys.modules,"
        " any(begun)]), file=sys.stderr)\n"
        "atexit.register(report)\n"
        f"sys.argv = ['capzgen', *{argv!r}]\n"
        "console.main()\n"
    )
    result = _own_run(script, tmp_path)
    assert result.returncode in (0, 1), result.stderr  # a command's own verdict, not a crash
    assert json.loads(result.stderr.strip().splitlines()[-1]) == [loaded, begun]
