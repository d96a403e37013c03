"""kubeconform's clean verdicts on documents, remembered in the result cache.

A GitOps pipeline runs ``validate --kubeconform`` on every commit, and most documents did not
change. kubeconform's verdict on a document is a function of its text, the kubeconform binary, the
schemas capzgen writes for it (every schema source on the search path) and capzgen's own code
(which flags it passes, how the embedded resources are sent): the documents of a file kubeconform
found nothing wrong with are remembered under a key of all of these, and not sent to it again.
Only clean verdicts are kept, as the result cache keeps only clean results, in the same
authenticated store (an entry not made with the run's secret is not found); ``--no-cache`` turns
this off with the rest.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from generator.schemastore.types import SchemaLookup
from generator.validate.cache.keys import code_fingerprint, store_fingerprint
from generator.validate.cache.store import ResultCache
from generator.yamlio.chunks import text_digest


class Verdicts:
    """The clean verdicts kept below ``results_dir`` for one kubeconform binary and store."""

    def __init__(self, results_dir: Path, config: bytes, secret: bytes) -> None:
        self.results_dir = results_dir
        self.config = config  # capzgen's code and every schema source
        self.secret = secret  # what the result cache's entries are made with

    @classmethod
    def open(
        cls, results_dir: Path | None, secret: bytes | None, store: SchemaLookup | None
    ) -> Verdicts | None:
        """The verdicts for ``store``; None without a cache folder or its secret, or for a
        store whose schema sources cannot be described (then nothing can be reused)."""
        if results_dir is None or secret is None:
            return None
        stores = store_fingerprint(store)
        if stores is None:
            return None
        return cls(results_dir, code_fingerprint() + stores, secret)

    def salt(self, binary: str) -> bytes:
        """What every key of a run with ``binary`` starts from: capzgen, the schema sources and
        the binary (path, size, mtime, inode)."""
        real = os.path.realpath(binary)
        try:
            stat = os.stat(real)
            identity = f"{real}\0{stat.st_size}\0{stat.st_mtime_ns}\0{stat.st_ino}"
        except OSError:
            identity = f"{real}\0unknown"
        return self.config + identity.encode("utf-8", "surrogateescape")

    @staticmethod
    def key(salt: bytes, text: str) -> bytes:
        """The key of kubeconform's verdict on ``text`` (a document, or a whole file)."""
        digest = hashlib.blake2b(b"kubeconform verdict\0", digest_size=20)
        digest.update(salt)
        digest.update(text_digest(text).encode("ascii"))
        return digest.digest()

    def clean(self, keys: Sequence[bytes]) -> set[bytes]:
        """Which of ``keys`` kubeconform found clean before."""
        cache = ResultCache.open(self.results_dir, self.secret)
        if cache is None:
            return set()
        found = cache.clean_parts(keys)
        cache.close(save=True)  # marks them used, so pruning keeps them
        return found

    def remember(self, keys: Iterable[bytes]) -> None:
        """Remember ``keys`` as clean."""
        keys = list(keys)
        if not keys:
            return
        cache = ResultCache.open(self.results_dir, self.secret)
        if cache is not None:
            cache.remember_parts(keys)
            cache.close(save=True)
