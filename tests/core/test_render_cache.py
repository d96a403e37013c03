"""Compiled flavor templates are cached on disk, and an edited template is recompiled."""

from __future__ import annotations

from pathlib import Path

from generator.flavors.catalog import FlavorCatalog
from generator.flavors.render import build_environment, render_flavor


def test_edited_user_flavor_is_recompiled(tmp_path: Path) -> None:
    folder = tmp_path / "flavors" / "mine"
    folder.mkdir(parents=True)
    (folder / "flavor.yaml").write_text(
        "name: mine\ndescription: d\ntemplates: [t.yaml.j2]\nvariables:\n  X: {type: string, description: x, default: v}\n"
    )
    template = folder / "t.yaml.j2"
    template.write_text("first: {{ X | yaml }}\n")
    catalog = FlavorCatalog([tmp_path / "flavors"])
    flavor = catalog.get("mine")
    search_path = catalog.template_search_path(flavor)
    cache = tmp_path / "cache" / "jinja"

    def render_in_a_new_process() -> str:  # a fresh environment, the same cache folder
        environment = build_environment(search_path, cache_dir=cache)
        return render_flavor(flavor, {"X": "v"}, search_path, environment=environment)

    assert render_in_a_new_process() == 'first: "v"\n'
    assert any(cache.iterdir())
    template.write_text("second: {{ X | yaml }}\n")
    assert render_in_a_new_process() == 'second: "v"\n'
