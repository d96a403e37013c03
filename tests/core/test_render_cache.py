"""Compiled flavor templates are cached on disk, and an edited template is recompiled."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.flavors.catalog import FlavorCatalog
from generator.flavors.render import render_flavor


def test_edited_user_flavor_is_recompiled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CAPZGEN_CACHE_DIR", str(tmp_path / "cache"))
    folder = tmp_path / "flavors" / "mine"
    folder.mkdir(parents=True)
    (folder / "flavor.yaml").write_text(
        "name: mine\ndescription: d\ntemplates: [t.yaml.j2]\nvariables:\n  X: {type: string, description: x, default: v}\n"
    )
    template = folder / "t.yaml.j2"
    template.write_text("first: {{ X | yaml }}\n")
    catalog = FlavorCatalog([tmp_path / "flavors"])
    flavor = catalog.get("mine")
    assert render_flavor(flavor, {"X": "v"}, catalog.template_search_path(flavor)) == 'first: "v"\n'
    assert any((tmp_path / "cache" / "jinja").iterdir())
    template.write_text("second: {{ X | yaml }}\n")
    assert (
        render_flavor(flavor, {"X": "v"}, catalog.template_search_path(flavor)) == 'second: "v"\n'
    )
