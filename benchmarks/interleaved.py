"""Commands timed round after round, in a shuffled order each round: ratios that hold on a
shared machine.

Timing capzgen now and kubeconform a minute later compares two different machines whenever the
load changes in between (on the reference machine it swings from 1 to 10 within minutes). Here
every round runs each command once, so a ratio is taken between runs that saw the same load;
the figure reported is the median of the per-round ratios. Each sample is the wall time and the
CPU time (user + system) of the process and of every process it started, waited for to the
last (:mod:`benchmarks.tree`), so a program that spreads over all cores and one that does not
are compared on both.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from benchmarks.tree import run_tree


@dataclass(frozen=True, slots=True)
class Sample:
    """One run of a command: wall seconds, CPU seconds of its process tree, peak MiB."""

    wall: float
    cpu: float
    peak_mib: float = 0.0


def sample(argv: Sequence[str], env: Mapping[str, str], allowed: Sequence[int] = (0,)) -> Sample:
    """Run ``argv`` once; fail the benchmark if its exit status is not ``allowed``."""
    done = run_tree(argv, env)
    if done.returncode not in allowed:
        msg = f"benchmark command failed ({done.returncode}): {' '.join(argv)}\n"
        raise SystemExit(msg + done.stderr.decode())
    return Sample(done.wall, done.cpu, done.peak_mib)


@dataclass(frozen=True)
class Contest:
    """The samples of every command, one per round each."""

    samples: Mapping[str, Sequence[Sample]]

    def median(self, name: str) -> Sample:
        """The median wall and CPU time of ``name`` (and its largest peak memory)."""
        runs = self.samples[name]
        return Sample(
            statistics.median(s.wall for s in runs),
            statistics.median(s.cpu for s in runs),
            max(s.peak_mib for s in runs),
        )

    def ratio(self, name: str, other: str) -> Sample:
        """``name`` over ``other``: the medians of the per-round ratios (wall, CPU)."""
        pairs = list(zip(self.samples[name], self.samples[other], strict=True))
        return Sample(
            statistics.median(a.wall / b.wall for a, b in pairs),
            statistics.median(a.cpu / b.cpu if b.cpu else 0.0 for a, b in pairs),
        )


@dataclass(frozen=True, slots=True)
class Command:
    """A command of a contest and the exit statuses that count as success (a validator
    exits 1 when it finds something: that is an answer, not a failure)."""

    argv: Sequence[str]
    allowed: Sequence[int] = (0,)


def contest(
    commands: Mapping[str, Command], env: Mapping[str, str], rounds: int, seed: int = 29
) -> Contest:
    """``rounds`` rounds of every command once, in a shuffled (but repeatable) order."""
    shuffle = random.Random(seed)
    samples: dict[str, list[Sample]] = {name: [] for name in commands}
    for _ in range(rounds):
        order = list(commands)
        shuffle.shuffle(order)
        for name in order:
            command = commands[name]
            samples[name].append(sample(command.argv, env, command.allowed))
    return Contest(samples)
