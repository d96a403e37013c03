"""Large templates are substituted whole (their speed is measured by `make bench`, not here)."""

from __future__ import annotations

from pathlib import Path

from generator.envsubst import inspect_variables, substitute


def test_three_megabytes_with_25000_placeholders(corpus_dir: Path) -> None:
    base = (corpus_dir / "cluster-template-aks-aso.yaml").read_text()
    text = base * (3_000_000 // len(base))
    assert text.count("${") > 25_000
    values = {name: f"value-of-{name}" for name in inspect_variables(base)}
    out = substitute(text, values.get, values.__contains__)
    assert "${" not in out
    assert out.count("value-of-CLUSTER_NAME") == base.count("${CLUSTER_NAME}") * (
        3_000_000 // len(base)
    )
