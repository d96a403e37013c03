"""Wheel build hook: the hot path compiled with mypyc when the build can, pure Python otherwise.

The modules listed under ``[tool.hatch.build.targets.wheel.hooks.custom] modules`` in
pyproject.toml (the CAPZ/AKS rules, their views, the partition keys and tables, the document
model) are mypy --strict clean, which is what mypyc needs. A wheel built where mypyc (mypy),
setuptools and a C compiler are installed carries them as extension modules beside their
sources; Python imports an extension before a source of the same name, so the sources are only
the fallback. Any other build stays pure Python and needs no compiler: an editable install
(``make install``, the suite), ``pip install`` from the sdist (its isolated build environment
has only hatchling), a build without a C compiler.

``CAPZGEN_MYPYC`` decides: ``0`` never compiles, ``1`` compiles or fails the build (what
``make test-compiled`` uses, so a broken compile is never hidden), unset compiles when it can.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

SWITCH = "CAPZGEN_MYPYC"


class MypycBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    """Adds the compiled modules to a wheel (see the module's docstring for when)."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        """Compile the listed modules into a scratch folder and have the wheel include them."""
        self._scratch: Path | None = None
        wanted = os.environ.get(SWITCH, "")
        if self.target_name != "wheel" or version == "editable" or wanted == "0":
            return
        try:
            built = self._compile(list(self.config.get("modules", [])))
        except Exception as error:
            if wanted == "1":
                raise
            self.app.display_warning(f"capzgen: not compiled ({error}); building pure Python")
            return
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        for path, inside in built.items():
            build_data["force_include"][str(path)] = inside

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        """Remove the scratch folder once the wheel is written."""
        if getattr(self, "_scratch", None) is not None:
            shutil.rmtree(str(self._scratch), ignore_errors=True)

    def _compile(self, modules: list[str]) -> dict[Path, str]:
        """Build ``modules`` (paths relative to the project root); the extension files made, each
        with its path inside the wheel."""
        # lazy: only a compiling build needs mypyc and setuptools, never a pure one
        from mypyc.build import mypycify
        from setuptools import Distribution
        from setuptools.command.build_ext import build_ext

        self._scratch = Path(tempfile.mkdtemp(prefix="capzgen-mypyc-"))
        here = os.getcwd()
        os.chdir(self.root)  # mypyc names modules after their paths from the project root
        try:
            extensions = mypycify(
                modules, opt_level="3", group_name="capzgen", target_dir=str(self._scratch / "c")
            )
            command = build_ext(Distribution({"name": "capzgen", "ext_modules": extensions}))
            command.build_lib = str(self._scratch / "lib")
            command.build_temp = str(self._scratch / "temp")
            command.ensure_finalized()
            command.run()
        finally:
            os.chdir(here)
        lib = self._scratch / "lib"
        return {path: path.relative_to(lib).as_posix() for path in lib.rglob("*.so")}
