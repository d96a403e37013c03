"""Schema sources that try to write where they please or to hang the reader (issue 24).

A CRD's ``spec.group``, kind and version become ``<group>/<kind>_<version>.json``; each case
below names a path through one of them and runs the real CLI (``schemas import`` and
``validate --schema-dir``), and FIFOs and devices stand in for schema files. Each case runs in
its own process group under an address-space limit (2 GiB) and a CPU limit, and is killed with
its group afterwards whatever happened. A case passes when the process ended on its own with the
expected exit code, a message naming the file and the field, no traceback, and nothing written
outside the folders it may write (and nothing at all by ``schemas import``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from tests.processes import cli_env, run_reaped
from tests.schemastore.helpers import make_crd

MEMORY_LIMIT = 2 * 1024**3
CPU_SECONDS = 60
SAFETY_TIMEOUT = 300.0  # wall clock, only so a broken case cannot hang the suite

LAUNCHER = (
    "import resource, runpy, sys\n"
    f"resource.setrlimit(resource.RLIMIT_AS, ({MEMORY_LIMIT}, {MEMORY_LIMIT}))\n"
    f"resource.setrlimit(resource.RLIMIT_CPU, ({CPU_SECONDS}, {CPU_SECONDS}))\n"
    "sys.argv[0] = 'capzgen'\n"
    "runpy.run_module('generator', run_name='__main__', alter_sys=True)\n"
)

WIDGET = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {}\n"


@dataclass(frozen=True)
class Outcome:
    code: int | None  # None: killed by a signal (the CPU limit) or at the safety timeout
    output: str


def run_capzgen(argv: list[str], root: Path) -> Outcome:
    """The CLI in ``root/work`` with its cache in ``root/cache``, in a new process group that
    is killed whatever happens."""
    done = run_reaped(
        [sys.executable, "-c", LAUNCHER, *argv],
        cwd=root / "work",
        env=cli_env(root / "home", root / "cache"),
        safety_net=SAFETY_TIMEOUT,
        merged=True,
    )
    if done.hung:
        return Outcome(None, "killed at the safety timeout")
    return Outcome(done.returncode if done.returncode >= 0 else None, done.stdout)


def _listing(root: Path) -> set[str]:
    """Every entry below ``root`` (links and FIFOs as they are, not followed)."""
    return {str(path.relative_to(root)) for path in root.rglob("*")}


# (case name, group, kind, version, the field the message names), generated from the ways a
# name can climb out of a folder: parent steps, absolute paths, separators, NUL, sheer length.
ESCAPE = "escaped-by-schema"


def _name_cases() -> list[tuple[str, str, str, str, str]]:
    climbs = {
        "parent": f"../../../{ESCAPE}",
        "deep-parent": "../" * 40 + ESCAPE,
        "absolute": f"/tmp/{ESCAPE}",
        "inner-parent": f"a.io/../../../{ESCAPE}",
        "backslash": f"..\\..\\{ESCAPE}",
        "nul": f"a.io\x00/../{ESCAPE}",
        "long": "a" * 5000,
    }
    cases = []
    for how, climb in climbs.items():
        cases.append((f"group-{how}", climb, "Widget", "v1", "spec.group"))
        cases.append((f"kind-{how}", "example.com", climb, "v1", "spec.names.kind"))
        cases.append((f"version-{how}", "example.com", "Widget", climb, "spec.versions[0].name"))
    return cases


NAME_CASES = _name_cases()


@pytest.mark.parametrize(
    ("group", "kind", "version", "field"),
    [pytest.param(*case[1:], id=case[0]) for case in NAME_CASES],
)
@pytest.mark.parametrize("command", ["import", "schema-dir"])
def test_a_crd_name_cannot_choose_where_files_go(
    tmp_path: Path, group: str, kind: str, version: str, field: str, command: str
) -> None:
    (tmp_path / "work").mkdir()
    crd = tmp_path / "work" / "crd.yaml"
    crd.write_text(yaml.safe_dump(make_crd(group=group, kind=kind, versions=[(version, True)])))
    (tmp_path / "work" / "w.yaml").write_text(WIDGET)
    before = _listing(tmp_path)
    if command == "import":
        outcome = run_capzgen(["schemas", "import", "crd.yaml"], tmp_path)
        expected = 1  # invalid input
    else:
        outcome = run_capzgen(["validate", "--schema-dir", "crd.yaml", "w.yaml"], tmp_path)
        expected = 2  # an unusable schema source, as any other broken CRD on the path
    assert outcome.code == expected, outcome.output[-2000:]
    assert "Traceback" not in outcome.output and "internal error" not in outcome.output
    assert "crd.yaml: CustomResourceDefinition " in outcome.output, outcome.output[-2000:]
    assert f": {field} " in outcome.output, outcome.output[-2000:]
    after = _listing(tmp_path)
    if command == "import":
        assert after == before, "schemas import wrote something"
    else:  # validate may memoise in its cache, never anywhere else
        assert {p for p in after - before if not p.startswith("cache")} == set()
    assert not any(ESCAPE in p for p in after)
    assert not Path("/tmp", ESCAPE).exists()


def _fifo(work: Path) -> Path:
    folder = work / "crds"
    folder.mkdir()
    os.mkfifo(folder / "a-pipe.yaml")
    (folder / "widget.yaml").write_text(yaml.safe_dump(make_crd()))
    return folder / "a-pipe.yaml"


def _zero_link(work: Path) -> Path:
    folder = work / "crds"
    folder.mkdir()
    (folder / "zero.yaml").symlink_to("/dev/zero")
    return folder / "zero.yaml"


def _dangling(work: Path) -> Path:
    folder = work / "crds"
    folder.mkdir()
    (folder / "gone.yaml").symlink_to(work / "nowhere.yaml")
    return folder / "gone.yaml"


# (case name, builder returning the file the message must name, whether it is the folder's
# member or the argument itself)
SPECIAL_CASES: list[tuple[str, Callable[[Path], Path], bool]] = [
    ("fifo-in-folder", _fifo, True),
    ("dev-zero-link-in-folder", _zero_link, True),
    ("dangling-link-in-folder", _dangling, True),
    ("dev-zero-itself", lambda work: Path("/dev/zero"), False),
]


@pytest.mark.parametrize(
    ("build", "in_folder"), [pytest.param(b, f, id=n) for n, b, f in SPECIAL_CASES]
)
@pytest.mark.parametrize(
    "argv",
    [
        pytest.param(["schemas", "import", "{target}"], id="import"),
        pytest.param(["schemas", "--schema-dir", "{target}", "list"], id="list"),
        pytest.param(["validate", "--schema-dir", "{target}", "w.yaml"], id="validate"),
    ],
)
def test_a_schema_source_that_is_no_regular_file_is_an_error_naming_it(
    tmp_path: Path, build: Callable[[Path], Path], in_folder: bool, argv: list[str]
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "w.yaml").write_text(WIDGET)
    named = build(work)
    target = named.parent if in_folder else named
    outcome = run_capzgen([a.format(target=target) for a in argv], tmp_path)
    assert outcome.code == 2, outcome.output[-2000:]
    assert "Traceback" not in outcome.output
    assert f"Error: {named}: " in outcome.output, outcome.output[-2000:]
    assert not (tmp_path / "cache" / "schemas").exists()
