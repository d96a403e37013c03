"""Pass 2 with a result cache: skip the parts validated clean before, remember the new clean ones.

Each batch packs parts (components with the hub documents they need; see
:class:`generator.validate.batches.Part`). Validating a part alone gives the findings about it
that validating everything gives, so a part whose key (its documents' digests, with capzgen's
code, the schema sources and the options: :mod:`generator.validate.cache.keys`) was remembered clean is
left out of its batch, and a batch with nothing left is not run. After a batch ran, a part none
of whose documents (own or guest) has a finding, in a batch with no finding about no document,
is remembered clean.

Before all that, the whole input is looked up (:func:`run_key`): an input validated without any
finding before, under the same configuration, is not even parsed again. The key looked up is made
from the texts as read before the run; the key remembered is made from the hashes of the texts
pass 1 parsed (and pass 2 validated, or refused as "changed while capzgen was validating it"), so
a file edited while a run reads it can never make its other text "clean".
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

from generator.errors import InputOutputError, YamlError
from generator.validate.batches import Batch, Part
from generator.validate.cache.keys import part_key
from generator.validate.cache.store import ResultCache
from generator.validate.inputs import Inputs
from generator.validate.outcome import BatchResult
from generator.validate.results import DigestOf, Plan
from generator.yamlio.chunks import text_digest


@dataclass
class Reuse(Plan):
    """The batches left to run, and for each the keys of the parts it validates (in the order
    of ``batch.parts``), to remember the clean ones in ``cache``."""

    cache: ResultCache
    batches: list[Batch] = field(default_factory=list)
    keys: list[list[bytes]] = field(default_factory=list)
    skipped: int = 0  # parts known clean, not validated again

    def learn(self, position: int, result: BatchResult) -> None:
        """Note the parts of the ``position``-th batch that ran without any finding."""
        if result.unplaced:
            return
        flagged = result.flagged
        batch = self.batches[position]
        self.cache.remember_parts(
            key
            for part, key in zip(batch.parts, self.keys[position], strict=True)
            if not any(doc in flagged for doc in (*part.home, *part.guests))
        )


def _key(digest_of: DigestOf, config: bytes, part: Part) -> bytes:
    return part_key(
        config,
        (digest_of(doc) for doc in part.home),
        (digest_of(doc) for doc in part.guests),
    )


def plan(
    cache: ResultCache,
    config: bytes,
    batches: Sequence[Batch],
    digest_of: DigestOf,
    *,
    query_batches: int,
) -> Reuse:
    """The batches without their known-clean parts (``config``: the key of capzgen's code, the
    schema sources and the options; ``query_batches``: batches looked up together)."""
    reuse = Reuse(cache)
    for at in range(0, len(batches), query_batches):
        group = batches[at : at + query_batches]
        keys = [[_key(digest_of, config, part) for part in batch.parts] for batch in group]
        known = cache.clean_parts([key for batch_keys in keys for key in batch_keys])
        for batch, batch_keys in zip(group, keys, strict=True):
            left = [n for n, key in enumerate(batch_keys) if key not in known]
            reuse.skipped += len(batch_keys) - len(left)
            if len(left) == len(batch_keys):
                reuse.batches.append(batch)  # nothing known: the batch as it is
            elif left:
                reuse.batches.append(Batch.of_parts([batch.parts[n] for n in left]))
            if left:
                reuse.keys.append([batch_keys[n] for n in left])
    return reuse


def run_key(config: bytes, names: Sequence[str], digests: Sequence[str | None]) -> bytes | None:
    """The key of the whole input (every file's name and the hash of its text, in order, under
    the configuration ``config``); None when a file has no text (it could not be read)."""
    digest = hashlib.blake2b(b"run", digest_size=16)
    digest.update(config)
    for name, text in zip(names, digests, strict=True):
        if text is None:
            return None
        digest.update(f"\0{name}\0{text}".encode("utf-8", "replace"))
    return digest.digest()


def texts_now(inputs: Inputs) -> list[str | None]:
    """The hash of every input's text as read now (None: it cannot be read; pass 1 reports
    it): what a clean rerun is looked up by, before anything is parsed."""
    found: list[str | None] = []
    for path in inputs.paths:
        try:
            found.append(text_digest(inputs.read(path)))
        except (YamlError, InputOutputError):
            found.append(None)
    return found
