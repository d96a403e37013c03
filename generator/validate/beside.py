"""``capzgen validate --kubeconform``: kubeconform runs in the background while capzgen validates.

kubeconform is started on the input files themselves and on a stream of their embedded ASO
resources (:mod:`generator.kubeconform.files`); capzgen's own validation runs meanwhile exactly as
without ``--kubeconform`` (:func:`generator.validate.stream.stream_paths`: every core, the result cache).
kubeconform's findings are merged at the end, with their lines. Standard input is read once, for
both. Files kubeconform found clean before are not sent to it again while the result cache is on
(:mod:`generator.validate.cache.verdicts`). What goes wrong with kubeconform itself is a note, never
an error.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from generator.checks import ValidationOptions
from generator.errors import InputOutputError, YamlError
from generator.findings import sort_findings
from generator.kubeconform.files import InputFile, start_on_files
from generator.kubeconform.process import KubeconformOptions
from generator.schemastore.types import SchemaLookup
from generator.validate.cache.verdicts import Verdicts
from generator.validate.check import CheckReport, collect_inputs, second_opinion, with_lines
from generator.validate.stream import stream_paths
from generator.yamlio.source import STDIN, read_source


def check_beside_kubeconform(
    paths: Sequence[str],
    store: SchemaLookup | None,
    options: ValidationOptions,
    kubeconform: KubeconformOptions,
    *,
    jobs: int = 1,
    results_dir: Path | None = None,
) -> CheckReport:
    """Validate ``paths`` as :func:`stream_paths` does, with kubeconform's findings merged."""
    stdin = _ReadOnce()

    def read(path: str) -> str:
        return stdin.read() if path == STDIN else read_source(path)

    inputs, _ = collect_inputs(paths)  # what cannot be read is reported by stream_paths
    files = [InputFile(label, path) for path, label in inputs]
    verdicts = Verdicts.open(results_dir, store)
    with start_on_files(files, store, kubeconform, read, verdicts) as running:
        report = stream_paths(
            paths, store, options, jobs=jobs, results_dir=results_dir, read_stdin=stdin.read
        )
        extra = second_opinion(report, running.finish(), options)
    report.findings = sort_findings([*report.findings, *with_lines(extra, running.texts)])
    return report


class _ReadOnce:
    """Standard input, read once: the same text (or the same error) for every reader."""

    def __init__(self) -> None:
        self._text: str | None = None
        self._error: YamlError | InputOutputError | None = None

    def read(self) -> str:
        """The text of standard input; raises what reading it raised."""
        if self._error is not None:
            raise self._error
        if self._text is None:
            try:
                self._text = read_source(STDIN)
            except (YamlError, InputOutputError) as error:
                self._error = error
                raise
        return self._text
