"""Planted staging folders and links never make capzgen write outside the output folder.

A cloned GitOps repository can hold anything, including a ``.capzgen-staging-*`` folder with a
journal that capzgen's recovery would otherwise carry out. Each case below is generated: a
journal whose step crosses a symbolic link inside the output folder (``evil -> ELSEWHERE``), or
whose staging ``new``/``old`` folders are links, in the output folder itself or in its parent
(where a fleet's staging lives). Every case runs the real CLI (``python -m generator generate
cluster ... --output-dir out``) in a child process of its own session, under an address-space
limit (2 GiB) and a CPU-time limit; the wall-clock timeout is only a safety net. A case passes
when the run refuses with exit 2 naming the journal and the step, and nothing changed, neither
outside the output folder (``ELSEWHERE``) nor inside it.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import GENERATE_DEMO
from tests.processes import cli_env, run_reaped

MEMORY_LIMIT = 2 * 1024**3
CPU_SECONDS = 60  # far above what a refusal costs; the verdict never depends on the clock
SAFETY_NET_SECONDS = 600
STAGING = ".capzgen-staging-0123456789ab"


def listing(root: Path) -> dict[str, tuple[str, bytes | str]]:
    """Every entry below ``root``: kind and content (files), target (links); links not followed."""
    found: dict[str, tuple[str, bytes | str]] = {}
    for path in sorted(root.rglob("*")):
        info = path.lstat()
        name = path.relative_to(root).as_posix()
        if stat.S_ISLNK(info.st_mode):
            found[name] = ("link", os.readlink(path))
        elif stat.S_ISDIR(info.st_mode):
            found[name] = ("dir", "")
        else:
            found[name] = ("file", path.read_bytes())
    return found


@dataclass(frozen=True)
class Attack:
    """A planted journal: where its staging folder lives, its steps, what it plants."""

    name: str
    build: Callable[[Path, Path], None]  # (work folder, ELSEWHERE)
    step: str  # the refused step the message must name


def _journal(staging: Path, steps: list[dict[str, object]]) -> None:
    (staging / "new").mkdir(parents=True, exist_ok=True)
    (staging / "old").mkdir(exist_ok=True)
    data = {"steps": steps, "version": 1}
    (staging / "journal.json").write_text(json.dumps(data))
    (staging / "owner.json").write_text(json.dumps({"pid": 1, "host": "elsewhere", "created": 64}))


def _through_link(*, in_parent: bool, new: bool, old: bool) -> Callable[[Path, Path], None]:
    """``out/evil -> ELSEWHERE`` and a step ``evil/important.conf`` (``out/evil/...`` when the
    staging folder is the parent's). With ``old`` a planted ``old/0`` would overwrite the file
    there; with ``new`` only, the file would be moved into the staging folder (deleted)."""

    def build(work: Path, elsewhere: Path) -> None:
        out = work / "out"
        out.mkdir()
        (out / "evil").symlink_to(elsewhere)
        staging = (work if in_parent else out) / STAGING
        prefix = "out/" if in_parent else ""
        _journal(staging, [{"path": f"{prefix}evil/important.conf", "new": new, "old": old}])
        if old:
            (staging / "old" / "0").write_text("planted\n")

    return build


def _linked_staging(kind: str) -> Callable[[Path, Path], None]:
    """The staging folder's ``new`` or ``old`` is a link to ELSEWHERE: undoing a step would move
    a file of the output folder out there (``new``) or one from there in (``old``)."""

    def build(work: Path, elsewhere: Path) -> None:
        out = work / "out"
        out.mkdir()
        (out / "mine.yaml").write_text("mine\n")
        staging = out / STAGING
        staging.mkdir()
        (staging / kind).symlink_to(elsewhere)
        other = "old" if kind == "new" else "new"
        (staging / other).mkdir()
        (elsewhere / "0").write_text("outside\n")
        step = {"path": "mine.yaml", "new": kind == "new", "old": kind == "old"}
        (staging / "journal.json").write_text(json.dumps({"steps": [step], "version": 1}))

    return build


def _attacks() -> list[Attack]:
    attacks = []
    for in_parent in (False, True):
        for new, old in ((True, True), (True, False), (False, True)):
            where = "parent" if in_parent else "root"
            attacks.append(
                Attack(
                    f"{where}-step-through-link-new{int(new)}-old{int(old)}",
                    _through_link(in_parent=in_parent, new=new, old=old),
                    ("out/" if in_parent else "") + "evil/important.conf",
                )
            )
    for kind in ("new", "old"):
        attacks.append(Attack(f"staging-{kind}-is-a-link", _linked_staging(kind), kind))
    return attacks


ATTACKS = _attacks()


def run_capzgen(argv: list[str], cwd: Path, home: Path) -> tuple[int, str]:
    """The real CLI in its own session under the limits; its whole group is killed at the end."""
    done = run_reaped(
        [sys.executable, "-m", "generator", *argv],
        cwd=cwd,
        env=cli_env(home, home / "cache"),
        cpu_seconds=CPU_SECONDS,
        memory_bytes=MEMORY_LIMIT,
        safety_net=SAFETY_NET_SECONDS,
        merged=True,
    )
    return done.returncode, done.stdout


@pytest.mark.parametrize("attack", ATTACKS, ids=[a.name for a in ATTACKS])
def test_a_planted_journal_never_reaches_outside_the_output_folder(
    attack: Attack, tmp_path: Path
) -> None:
    work, elsewhere = tmp_path / "work", tmp_path / "elsewhere"
    work.mkdir()
    elsewhere.mkdir()
    (elsewhere / "important.conf").write_text("precious\n")
    attack.build(work, elsewhere)
    outside, inside = listing(elsewhere), listing(work)

    code, output = run_capzgen(
        [*GENERATE_DEMO, "--no-validate", "--output-dir", "out"], work, tmp_path / "home"
    )

    assert code == 2, output
    assert "journal.json" in output and attack.step in output, output
    assert "Traceback" not in output, output
    assert listing(elsewhere) == outside  # nothing created, replaced or deleted out there
    assert listing(work) == inside  # and nothing done in the folder either
