"""``validate``'s progress line: on a terminal only, after a second, erased at the end; the
streaming validator reports documents as batches finish. A fake terminal and a fake clock: no
test waits or measures time."""

from __future__ import annotations

import io
from pathlib import Path

from generator.checks.context import ValidationOptions
from generator.cli.progress import DocumentProgress, document_progress, wants_progress
from generator.validate.stream import RunSettings, stream_paths


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_nothing_is_drawn_before_the_delay_then_a_count_that_is_erased_at_the_end() -> None:
    terminal, clock = FakeTerminal(), FakeClock()
    progress = DocumentProgress(terminal, clock=clock, delay=1.0)
    clock.now += 0.5
    progress(10)
    assert terminal.getvalue() == ""  # a quick run stays silent
    clock.now += 1.0
    progress(1234)
    assert terminal.getvalue() == "\rValidating  1,234 documents  0:02"
    progress.close()
    assert terminal.getvalue().endswith("\r" + " " * 33 + "\r")


def test_only_a_terminal_that_redraws_gets_progress() -> None:
    assert wants_progress(FakeTerminal(), {})
    assert not wants_progress(io.StringIO(), {})  # a pipe, a file, a CI log
    assert not wants_progress(FakeTerminal(), {"TERM": "dumb"})
    with document_progress(io.StringIO(), {}) as progress:
        assert progress is None


def test_no_colour_codes_whatever_no_color_says() -> None:
    terminal, clock = FakeTerminal(), FakeClock()
    with document_progress(terminal, {"NO_COLOR": "1"}) as progress:
        assert progress is not None
        assert isinstance(progress, DocumentProgress)
        progress.clock, progress.started = clock, clock.now - 5
        progress(3)
    assert "Validating  3 documents" in terminal.getvalue()
    assert "\x1b" not in terminal.getvalue()


def test_the_streaming_validator_reports_documents_as_batches_finish(tmp_path: Path) -> None:
    manifest = tmp_path / "cms.yaml"
    manifest.write_text(
        "".join(
            f"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm{i}\n" for i in range(5)
        )
    )
    seen: list[int] = []
    report = stream_paths(
        [str(manifest)], None, ValidationOptions(schemas=False), RunSettings(progress=seen.append)
    )
    assert seen, "no progress reported"
    assert seen == sorted(seen) and seen[-1] == report.document_count == 5
