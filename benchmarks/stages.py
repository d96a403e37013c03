"""Where ``capzgen validate`` spends its CPU on a fleet, stage by stage, in one process.

``python -m benchmarks.stages FLEET`` runs the stages of a validation one after another on the
fleet file (already imported, no workers, no result cache) and prints the CPU seconds of each:
what ``-j N`` spreads over the cores, and what the kubeconform ratios in ``make bench`` are made
of. Start-up (Python and the validation code's imports) is measured apart, in a fresh process.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any


def _cpu(work: Callable[[], Any]) -> tuple[float, Any]:
    start = time.process_time()
    result = work()
    return time.process_time() - start, result


def _listed(checker: Callable[[Any], Any], context: Any) -> list[Any]:
    return list(checker(context))


def start_up() -> float:
    """CPU seconds of a fresh Python importing what ``validate`` imports."""
    code = (
        "import time, generator.cli.validate, generator.validate.stream, generator.validate.workers; "
        "print(time.process_time())"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(done.stdout)


def stages(fleet: Path) -> Iterator[tuple[str, float]]:
    """(stage, CPU seconds) for the fleet file ``fleet``."""
    # lazy: start_up() measures these imports in a process of its own
    from generator.checks import ValidationOptions
    from generator.checks import checkers as check
    from generator.checks.context import CheckContext
    from generator.model.manifests import ManifestSet
    from generator.schemastore.store import SchemaStore
    from generator.settings import Settings
    from generator.validate.partition import Partitioner, document_keys, pack_keys
    from generator.validate.tuning import Tuning
    from generator.yamlio import block, load

    text = fleet.read_text(encoding="utf-8")
    found = load.layout(text, str(fleet))
    if block.VERSION is not None:  # the compiled build's C reader: no ambiguity scan needed
        yield "YAML: cutting at --- lines", _cpu(lambda: load.layout(text, str(fleet)))[0]
        parse = _cpu(lambda: load._block_documents(text, str(fleet), found))[0]
        yield "YAML: parse (C block reader)", parse
    else:
        yield (
            "YAML: cutting at --- lines, go-yaml ambiguity scan",
            _cpu(lambda: (load.layout(text, str(fleet)), load.needs_precise(text)))[0],
        )
        parse = _cpu(lambda: load._fast_documents(text, str(fleet), found))[0]
        yield "YAML: parse (ryaml)", parse
    documents = load.load_documents(text, source=str(fleet))
    # as a worker does: every document's keys, hashed and packed (partition_keys.PackedKeys)
    seconds, packed = _cpu(lambda: pack_keys(document_keys(d.obj) for d in documents))
    yield "partition keys (packed)", seconds
    partitioner = Partitioner()
    yield "union-find", _cpu(lambda: partitioner.add_packed(packed))[0]
    store = SchemaStore.from_search_path([], Settings())  # the built-in bundle, no cache
    options = ValidationOptions(present_kinds=frozenset(partitioner.kinds))
    size = Tuning().batch_documents  # documents per batch, as the run cuts them
    batches = [documents[at : at + size] for at in range(0, len(documents), size)]
    totals: dict[str, float] = {}

    def spend(name: str, work: Callable[[], Any]) -> Any:
        seconds, result = _cpu(work)
        totals[name] = totals.get(name, 0.0) + seconds
        return result

    checkers = (
        ("JSON Schemas (objects and embedded resources)", check.check_objects),
        ("CEL rules", check.check_cel),
        ("CAPZ/AKS rules (views included)", check.check_capz_rules),
    )
    for batch in batches:
        manifests = spend(
            "document model (ManifestSet, once per batch)",
            partial(ManifestSet, batch, present_kinds=options.present_kinds),
        )
        context = CheckContext(documents=batch, manifests=manifests, store=store, options=options)
        for name, checker in checkers:
            spend(name, partial(_listed, checker, context))
    yield from totals.items()


def main(argv: list[str]) -> int:
    """Print the stages of validating ``argv[0]``."""
    fleet = Path(argv[0])
    rows = [("Python start-up and imports (a fresh process)", start_up()), *stages(fleet)]
    for name, seconds in rows:
        print(f"  {name:58s} {seconds:6.3f} s")
    print(f"  {'total':58s} {sum(s for _, s in rows):6.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
