"""``python -m tests.differential.report [PEERS]``: how far capzgen agrees with CAPZ's own webhooks
(``capz-oracle``) and with the API server's schema code (``kubectl-validate``) on the mutants, and
every document they disagree on. What docs/webhook-parity.md reports is measured with this.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from generator.schemastore.store import SchemaStore
from generator.settings import Settings
from tests.differential.mutants import CRD_FOLDERS, Mutant, all_mutants
from tests.differential.verdicts import (
    Verdicts,
    capzgen_verdicts,
    kubectl_validate_verdicts,
    oracle_verdicts,
)
from tests.peers import find_peers

SCHEMA_RULES = frozenset({"schema", "cel"})


@dataclass(frozen=True)
class Comparison:
    """Two tools' verdicts on the same documents."""

    documents: int
    agreed: int
    only_peer: list[tuple[tuple[str, int], str]]  # refused by the peer alone, and why
    only_capzgen: list[tuple[tuple[str, int], str]]  # refused by capzgen alone, and why

    @property
    def agreement(self) -> float:
        """The share of documents with the same verdict."""
        return self.agreed / self.documents if self.documents else 1.0


def compare(peer: Verdicts, ours: Verdicts) -> Comparison:
    """Document by document, over the documents both judged."""
    agreed = 0
    only_peer: list[tuple[tuple[str, int], str]] = []
    only_capzgen: list[tuple[tuple[str, int], str]] = []
    keys = sorted(peer.keys() & ours.keys())
    for key in keys:
        theirs, mine = peer[key], ours[key]
        if theirs.refused == mine.refused:
            agreed += 1
        elif theirs.refused:
            only_peer.append((key, "; ".join(theirs.reasons)[:300]))
        else:
            only_capzgen.append((key, "; ".join(mine.reasons)[:300]))
    return Comparison(len(keys), agreed, only_peer, only_capzgen)


def write_mutants(folder: Path, mutants: Sequence[Mutant]) -> list[Path]:
    """Each mutant as a file of its own (the oracle gives each file's Clusters to its webhooks)."""
    files = []
    for number, mutant in enumerate(mutants):
        path = folder / f"{number:04d}-{mutant.name}.yaml"
        path.write_text(mutant.text(), encoding="utf-8")
        files.append(path)
    return files


def store_for(cache: Path) -> object:
    """The schema store the tests use: the vendored CRDs and ASO schemas ahead of the bundle."""
    folders = [*CRD_FOLDERS, CRD_FOLDERS[0].parents[1] / "schemas"]
    return SchemaStore.from_search_path(folders, Settings(cache_root=cache))


def _show(title: str, comparison: Comparison) -> None:
    print(
        f"{title}: {comparison.agreed}/{comparison.documents} documents agree "
        f"({comparison.agreement:.1%})"
    )
    for label, rows in (
        ("refused only by the peer", comparison.only_peer),
        ("refused only by capzgen", comparison.only_capzgen),
    ):
        print(f"  {label}: {len(rows)}")
        for (file, document), why in rows:
            print(f"    {file} #{document}: {why}")


def main(argv: Sequence[str]) -> int:
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        given = argv[0] if argv else None
        environ = {"CAPZGEN_PEERS": given} if given else dict(os.environ)
        found = find_peers(root / "peers", environ)
        peers = found.folder
        if peers is None:
            print(found.why_not, file=sys.stderr)
            return 2
        (root / "mutants").mkdir()
        files = write_mutants(root / "mutants", all_mutants())
        store = store_for(root / "cache")
        ours, _ = capzgen_verdicts(files, store)
        _show(
            "capz-oracle (CAPZ webhooks + CRD validation)",
            compare(oracle_verdicts(peers, files), ours),
        )
        schema_only, _ = capzgen_verdicts(files, store, only=SCHEMA_RULES)
        _show(
            "kubectl-validate (schema + CEL; capzgen's schema and cel findings)",
            compare(kubectl_validate_verdicts(peers, files), schema_only),
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
