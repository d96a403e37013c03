"""The fleet's progress bar: no estimate until a rate is measured (from the first completed
cluster, so worker start-up does not count), then remaining / rate. A fake clock drives it."""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import Any

import pytest

from generator.cli import main
from generator.cli.progress import (
    BAR_WIDTH,
    ProgressBar,
    RateTracker,
    format_duration,
    progress_line,
)


class FakeClock:
    def __init__(self, start: float = 100.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now


def test_no_estimate_before_a_rate_is_known() -> None:
    tracker = RateTracker(total=1000)
    assert tracker.remaining_seconds(0.0) is None
    tracker.add(1, now=17.5)  # start-up took 17.5 s: it is not part of the rate
    assert tracker.remaining_seconds(17.5) is None
    tracker.add(2, now=17.6)  # two more, too few to measure
    assert tracker.remaining_seconds(20.0) is None
    tracker.add(1, now=17.7)  # three after the first, but within half a second
    assert tracker.remaining_seconds(17.8) is None


def test_the_estimate_is_the_remaining_count_at_the_measured_rate() -> None:
    tracker = RateTracker(total=1000)
    tracker.add(1, now=17.5)
    tracker.add(99, now=18.5)  # 99 clusters in 1 s after the first
    assert tracker.done == 100
    assert tracker.remaining_seconds(18.5) == pytest.approx(900 / 99)
    # click's arithmetic (elapsed since start / done) would have said 900 * 18.5 / 100 = 166 s.


def test_nothing_recorded_for_zero_and_the_estimate_never_goes_negative() -> None:
    tracker = RateTracker(total=4)
    tracker.add(0, now=1.0)
    assert tracker.first_at is None
    tracker.add(6, now=1.0)
    assert tracker.remaining_seconds(3.0) == 0


@pytest.mark.parametrize(
    ("seconds", "text"), [(9.4, "0:09"), (65, "1:05"), (3723, "1:02:03"), (0, "0:00")]
)
def test_durations(seconds: float, text: str) -> None:
    assert format_duration(seconds) == text


def test_the_line_shows_the_eta_only_when_known_and_not_at_the_end() -> None:
    tracker = RateTracker(total=10)
    empty = "Rendering clusters  [" + "-" * BAR_WIDTH + "]   0/10"
    assert progress_line("Rendering clusters", tracker, 0.0) == empty
    tracker.add(1, now=0.0)
    tracker.add(4, now=2.0)  # 4 clusters in 2 s after the first: 5 left take 2.5 s
    half = "#" * (BAR_WIDTH // 2) + "-" * (BAR_WIDTH // 2)
    assert progress_line("Rendering clusters", tracker, 2.0) == (
        f"Rendering clusters  [{half}]   5/10  ETA 0:02"
    )
    tracker.add(5, now=4.0)
    assert progress_line("Rendering clusters", tracker, 4.0).endswith("]  10/10")


def test_the_bar_redraws_one_line_and_ends_it() -> None:
    stream = io.StringIO()
    clock = FakeClock()
    with ProgressBar(4, stream, label="Rendering", clock=clock) as bar:
        clock.now += 30  # worker start-up
        bar.update(1)
        clock.now += 1
        bar.update(3)
    frames = stream.getvalue().split("\r")[1:]
    assert [frame.split("]")[1].strip() for frame in frames] == ["0/4", "1/4", "4/4"]
    assert stream.getvalue().endswith("\n")
    assert "ETA" not in stream.getvalue()


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_generate_fleet_shows_the_bar_on_a_terminal(
    monkeypatch: pytest.MonkeyPatch, cli_env: dict[str, str], tmp_path: Path, schema_args: list[str]
) -> None:
    fleet = tmp_path / "fleet.yaml"
    fleet.write_text(
        "defaults:\n  kubernetesVersion: v1.31.1\n  values: {AZURE_LOCATION: westeurope}\n"
        "clusters: [{name: one}, {name: two}]\n"
    )
    argv: list[Any] = ["generate", "fleet", str(fleet), "--output-dir", str(tmp_path / "out")]
    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stderr", terminal)  # here: pytest sets its own before each phase
    code = main([*argv, *schema_args], environ=cli_env)
    assert code == 0, terminal.getvalue()
    shown = terminal.getvalue()
    assert "\rRendering clusters  [" in shown
    assert "]  2/2\n" in shown
