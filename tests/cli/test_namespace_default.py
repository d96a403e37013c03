"""``NAMESPACE``: an explicit ``-n`` wins; without it, a ``NAMESPACE`` in ``--values`` (or ``--var``)
is kept, and ``default`` (``-n``'s default) beats only the environment and clusterctl's config
file, as clusterctl's own ``NAMESPACE`` does (generator/clusterctl/variables.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

TEMPLATE = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${CLUSTER_NAME}\n  namespace: ${NAMESPACE}\n"


@pytest.mark.parametrize(
    ("flags", "env", "expected"),
    [
        ([], {}, "default"),
        (["--values", "values.yaml"], {}, "team-a"),
        (["--values", "values.yaml", "-n", "team-b"], {}, "team-b"),
        (["--var", "NAMESPACE=team-c"], {}, "team-c"),
        ([], {"NAMESPACE": "from-env"}, "default"),
        (["--values", "values.yaml"], {"NAMESPACE": "from-env"}, "team-a"),
    ],
)
def test_the_default_of_n_does_not_override_a_namespace_the_user_gave(
    run_cli: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    flags: list[str],
    env: dict[str, str],
    expected: str,
) -> None:
    (tmp_path / "template.yaml").write_text(TEMPLATE, encoding="utf-8")
    (tmp_path / "values.yaml").write_text("NAMESPACE: team-a\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = run_cli(["generate", "cluster", "demo", "--from", "template.yaml", *flags], env=env)
    assert result.exit_code == 0, result.stderr
    assert f"  namespace: {expected}\n" in result.stdout
