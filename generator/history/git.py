"""Running ``git`` for reading only: arguments, never a shell; bounded output and time.

Why the environment is built from scratch rather than inherited: git reads settings from the
system and global config files and from ``GIT_*`` variables, and some of them run programs
(``core.fsmonitor``) or fetch objects (lazy fetch in a partial clone). A read of a revision must
not run anything and must not depend on who runs it, so git gets only ``PATH`` (to find itself),
no system or global config (``GIT_CONFIG_NOSYSTEM``, ``GIT_CONFIG_GLOBAL`` pointing at the null
device), no prompts, no optional locks, no lazy fetch, literal pathspecs and the C locale; and
every command carries ``-c core.fsmonitor=false``. The repository's own ``.git/config`` is still
read (git cannot be told otherwise), but the plumbing commands used here (``rev-parse``,
``ls-tree``, ``cat-file --batch`` without ``--filters``) run no hook, filter or textconv from it.
"""

from __future__ import annotations

import os
import selectors
import shutil
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from generator import children
from generator.errors import InputOutputError, Location

READ_CHUNK: Final = 1 << 20
STDERR_SHOWN: Final = 2000  # characters of git's own message quoted in an error


@dataclass(frozen=True)
class GitResult:
    """What a finished git command said: its exit status, output (bounded) and error text."""

    returncode: int
    stdout: bytes
    stderr: str


def git_environ(environ: Mapping[str, str]) -> dict[str, str]:
    """The environment git runs with (see the module docstring for why each entry)."""
    return {
        "PATH": environ.get("PATH", os.defpath),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_OPTIONAL_LOCKS": "0",
        "GIT_NO_LAZY_FETCH": "1",
        "GIT_LITERAL_PATHSPECS": "1",
        "LC_ALL": "C",
    }


def find_git(environ: Mapping[str, str]) -> str:
    """The git binary on the given ``PATH``; a missing git is an I/O error, exit 2."""
    found = shutil.which("git", path=environ.get("PATH", os.defpath))
    if found is None:
        msg = "git is not installed (not found on PATH)"
        raise InputOutputError(msg, hint="--against REV reads the revision with git")
    return found


def _read_bounded(
    process: subprocess.Popen[bytes], limit: int, deadline: float, what: str
) -> bytes:
    """Everything git writes to stdout, refusing more than ``limit`` bytes or a late finish."""
    assert process.stdout is not None
    chunks: list[bytes] = []
    total = 0
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not selector.select(remaining):
                children.kill_group(process, 10)
                msg = f"git took too long ({what}); stopped"
                raise InputOutputError(msg, hint=None)
            chunk = os.read(process.stdout.fileno(), READ_CHUNK)
            if not chunk:
                return b"".join(chunks)
            total += len(chunk)
            if total > limit:
                children.kill_group(process, 10)
                msg = f"git printed more than {limit / (1 << 20):g} MiB ({what}); stopped"
                raise InputOutputError(msg, hint="name a smaller file or folder")
            chunks.append(chunk)


def run_git(
    git: str,
    args: Sequence[str],
    *,
    environ: Mapping[str, str],
    limit: int,
    timeout: float,
    stdin: bytes = b"",
) -> GitResult:
    """``git -c core.fsmonitor=false ARGS``, its input from a temporary file (no pipe to
    deadlock on), its output read within ``limit`` bytes and ``timeout`` seconds; the whole
    process group is killed when either runs out."""
    deadline = time.monotonic() + timeout
    with tempfile.TemporaryFile() as given, tempfile.TemporaryFile() as errors:
        given.write(stdin)
        given.seek(0)
        process = subprocess.Popen(
            [git, "-c", "core.fsmonitor=false", *args],
            stdin=given,
            stdout=subprocess.PIPE,
            stderr=errors,
            env=git_environ(environ),
            start_new_session=True,
        )
        try:
            out = _read_bounded(process, limit, deadline, args[0] if args else "git")
            try:
                code = children.wait(process, max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                children.kill_group(process, 10)
                msg = "git took too long; stopped"
                raise InputOutputError(msg) from None
        finally:
            if process.stdout is not None:
                process.stdout.close()
            if process.poll() is None:
                children.kill_group(process, 10)
        errors.seek(0)
        message = errors.read(STDERR_SHOWN).decode("utf-8", "replace").strip()
    return GitResult(code, out, message)


def git_failed(what: str, result: GitResult, *, file: str | None = None) -> InputOutputError:
    """The error for a git command that failed, quoting git's own first line."""
    first = result.stderr.splitlines()[0] if result.stderr else f"exit status {result.returncode}"
    return InputOutputError(f"{what}: {first}", location=Location(file=file) if file else None)
