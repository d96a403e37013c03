"""How the validate run sizes its work: one value, passed from the entry point down.

The defaults are what measurements on fleets of 100 to 50,000 clusters chose; tests pass
small values to cut tiny inputs into many batches, pieces and tasks, so that every path of the
run is taken without large inputs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from generator.validate.cache.records import INDEX_FILES_BELOW, CacheLimits


@dataclass(frozen=True, slots=True)
class Tuning:
    """Sizes and limits of one run (bytes of input, documents, chunks, tasks)."""

    # Inputs up to this size (all files together) keep their parsed documents from pass 1, so
    # they are parsed once; larger ones are parsed again in pass 2 and use little memory.
    keep_parsed_below: int = 8 << 20
    parallel_from: int = 256 << 10  # bytes of input from which worker processes pay off
    batch_documents: int = 700  # about a hundred clusters of seven documents
    # A fixed batch size instead (tests make it tiny, to split every cluster); None: from
    # batch_documents, the input and the workers.
    batch_size: int | None = None
    piece_chunks: int = 400  # chunks a worker parses per task in pass 1
    tasks_per_job: int = 4  # pass-1 tasks in flight per worker process
    block_tasks: int = 2  # consecutive tasks one worker parses (its batches then find them)
    max_waiting_files: int = 1024  # files read but not yet added (bounds what is held)
    index_files_below: int = INDEX_FILES_BELOW  # larger files get no index in the result cache
    query_batches: int = 64  # batches whose part keys the result cache looks up together
    sample_documents: int = 8  # documents a worker validates once to warm up
    cache: CacheLimits = field(default_factory=CacheLimits)  # the result cache file's bounds


DEFAULT_TUNING = Tuning()
