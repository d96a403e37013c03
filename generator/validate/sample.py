"""What the zygote warms up on before it forks a run's workers (:mod:`generator.validate.zygote`):
the first documents of the first input, as each worker's own warm-up takes the first it parsed
(:func:`generator.validate.workers.warm_up`)."""

from __future__ import annotations

from generator.documents import Document
from generator.errors import YamlError
from generator.validate.passes import RunInputs
from generator.yamlio.chunks import Chunk, parse_chunk, spans_of
from generator.yamlio.source import read_head

HEAD = 64 << 10  # bytes of the first input the sample comes from


def head_sample(run: RunInputs) -> list[Document]:
    """The first documents of the first input (at most ``sample_documents``, from its first
    64 KiB, the last chunk there left out: it may be cut short); none where they cannot be had
    cheaply or safely (see ``read_head``) or do not parse: each worker then warms up on its
    own sample only, as without a zygote."""
    if not run.paths:
        return []
    path, name = run.paths[0], run.names[0]
    held = run.held.get(path)
    text = held[:HEAD] if held is not None else read_head(path, HEAD)
    if text is None:
        return []
    found: list[Document] = []
    try:
        for start, end, line in spans_of(text, name)[:-1]:
            found += parse_chunk(Chunk(0, start, end, len(found), line), text, name)
            if len(found) >= run.tuning.sample_documents:
                break
    except YamlError:  # pass 1 reports it
        return []
    return found[: run.tuning.sample_documents]
