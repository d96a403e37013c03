"""Upstream programs the tests measure capzgen against, when they are at hand.

The peers (kubeconform, clusterctl, kubectl-validate, capz-oracle) live in ``../shared/peers``
beside the repository as xz archives with an ``unpack.sh``; a developer may also point
``$CAPZGEN_PEERS`` at a folder holding them unpacked. The product never needs them, and neither
does the suite: a test that uses one runs in addition when it is present and is skipped, saying
why, when it is not.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
UNPACK = REPO.parent / "shared" / "peers" / "unpack.sh"
PEERS_ENV = "CAPZGEN_PEERS"


@dataclass(frozen=True)
class Peers:
    """The folder holding the peer binaries, or why there is none."""

    folder: Path | None
    why_not: str = ""

    def binary(self, name: str) -> Path | None:
        """The peer ``name``, if it is there."""
        if self.folder is None or not (self.folder / name).is_file():
            return None
        return self.folder / name


def find_peers(scratch: Path, environ: Mapping[str, str]) -> Peers:
    """``$CAPZGEN_PEERS`` if set, else ``../shared/peers`` unpacked into ``scratch``."""
    given = environ.get(PEERS_ENV)
    if given:
        folder = Path(given)
        if folder.is_dir():
            return Peers(folder)
        return Peers(None, f"${PEERS_ENV}={given} is not a folder")
    if not UNPACK.is_file():
        return Peers(None, f"no peers: {UNPACK} is absent and ${PEERS_ENV} is not set")
    done = subprocess.run(
        ["sh", str(UNPACK), str(scratch)], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        return Peers(None, f"{UNPACK} failed: {done.stderr.strip()[-300:]}")
    return Peers(scratch)
