"""Inputs that can be read only once (``<(...)``, a FIFO, ``/dev/stdin``) are read once.

A run reads a regular file up to three times: for the result cache's key, in pass 1, and again
in pass 2 or in a worker process. A pipe read a second time is empty (or, for a FIFO, blocks
for ever), so its documents were lost: with the result cache, ``validate a.yaml <(cat b.yaml)``
reported only ``a.yaml``'s documents and passed. Each case here gives a pipe as ``/dev/fd/N``
after a regular file, on every path of the run, and expects what reading everything once finds.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from generator.checks import ValidationOptions
from generator.validate.check import check_paths
from generator.validate.inputs import collect_inputs, read_once
from generator.validate.stream import RunSettings, stream_paths
from generator.validate.tuning import Tuning
from tests.validate.test_stream import in_threads

OPTIONS = ValidationOptions()
CLUSTER = """\
apiVersion: cluster.x-k8s.io/v1beta1
kind: Cluster
metadata: {name: twice, namespace: fleet}
"""
# every size reads again in pass 2 (nothing kept), workers even for tiny inputs
REREAD = Tuning(parallel_from=0, piece_chunks=1, keep_parsed_below=0, batch_size=1)


@contextlib.contextmanager
def piped(text: str) -> Iterator[str]:
    """A pipe holding ``text`` (its write end closed), as the path a shell's ``<(...)`` gives."""
    read, write = os.pipe()
    try:
        os.write(write, text.encode())
        os.close(write)
        yield f"/dev/fd/{read}"
    finally:
        os.close(read)
        with contextlib.suppress(OSError):
            os.close(write)


def test_only_regular_files_are_read_again(tmp_path: Path) -> None:
    regular = tmp_path / "a.yaml"
    regular.write_text(CLUSTER)
    assert not read_once(str(regular))
    assert read_once("-")
    assert read_once(str(tmp_path / "missing.yaml"))  # reading it once says why not
    with piped(CLUSTER) as pipe:
        assert read_once(pipe)
        inputs = collect_inputs([str(regular), pipe])
        assert dict(inputs.held) == {pipe: CLUSTER}
        assert inputs.read(pipe) == CLUSTER  # the pipe itself is empty by now


def _settings(case: str, tmp_path: Path) -> RunSettings:
    if case == "serial":
        return RunSettings(tuning=REREAD)
    if case == "workers":
        return RunSettings(jobs=2, tuning=REREAD, pool=in_threads)
    return RunSettings(results_dir=tmp_path / "cache", cache_secret=b"s" * 32, tuning=REREAD)


@pytest.mark.parametrize("case", ["serial", "workers", "result-cache"])
def test_a_pipe_after_a_file_is_validated_whole(tmp_path: Path, store: Any, case: str) -> None:
    regular = tmp_path / "a.yaml"
    regular.write_text(CLUSTER)
    piped_text = "# from a pipe\n" + CLUSTER + "---\n" + CLUSTER.replace("twice", "once")
    with piped(piped_text) as pipe:
        whole = check_paths([str(regular), pipe], store, OPTIONS)
    assert whole.document_count == 3
    assert any(f.rule == "CAPZ-RES-DUPLICATE" for f in whole.findings)
    for _ in range(2):  # the second time, the result cache (if any) is consulted first
        with piped(piped_text) as pipe:
            report = stream_paths([str(regular), pipe], store, OPTIONS, _settings(case, tmp_path))
        assert report.document_count == whole.document_count
        assert [f.rule for f in report.findings] == [f.rule for f in whole.findings]
