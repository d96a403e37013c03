"""The core takes its settings as a parameter: only the CLI reads the process environment."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import platformdirs

import generator
from generator.cli.environment import settings_from_environ
from generator.settings import Settings

PACKAGE = Path(generator.__file__).parent


def environment_reads(path: Path) -> list[int]:
    """Lines of ``path`` that touch the process environment (os.environ, os.getenv ...)."""
    names = ("environ", "environb", "getenv")
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        attribute = (
            isinstance(node, ast.Attribute)
            and node.attr in names
            and isinstance(node.value, ast.Name)
            and node.value.id == "os"
        )
        imported = (
            isinstance(node, ast.ImportFrom)
            and node.module == "os"
            and any(alias.name in names for alias in node.names)
        )
        if attribute or imported:
            lines.append(getattr(node, "lineno", 0))
    return lines


def test_only_the_cli_reads_the_environment() -> None:
    offenders = [
        f"{path.relative_to(PACKAGE.parent)}:{line}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if "cli" not in path.relative_to(PACKAGE).parts
        for line in environment_reads(path)
    ]
    assert offenders == []


def test_the_static_check_finds_environment_reads(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("import os\nfrom os import getenv\nx = os.environ.get('A')\n")
    assert environment_reads(sample) == [2, 3]


def test_settings_from_the_environment() -> None:
    settings = settings_from_environ(
        {
            "CAPZGEN_CACHE_DIR": "/c",
            "CAPZGEN_SCHEMA_PATH": os.pathsep.join(["/a", " ", "/b "]),
            "AZURE_LOCATION": "westeurope",
        }
    )
    assert settings.cache_root == Path("/c")
    assert settings.schema_path == (Path("/a"), Path("/b"))
    assert settings.environ["AZURE_LOCATION"] == "westeurope"
    assert settings.cache_dir("jinja") == Path("/c/jinja")


def test_default_cache_follows_the_given_environment_not_the_process() -> None:
    assert settings_from_environ({"XDG_CACHE_HOME": "/x"}).cache_root == Path("/x/capzgen")
    assert settings_from_environ({"HOME": "/h"}).cache_root == Path("/h/.cache/capzgen")


def test_pure_default_settings_cache_nothing() -> None:
    assert Settings().cache_root is None
    assert Settings().cache_dir("jinja") is None
    assert Settings().environ == {}


def test_without_home_or_xdg_the_platform_convention_decides() -> None:
    expected = Path(platformdirs.user_cache_dir("capzgen"))
    assert settings_from_environ({}).cache_root == expected
