"""Wheel build hook: the hot path compiled with mypyc when the build can, pure Python otherwise.

The modules listed under ``[tool.hatch.build.targets.wheel.hooks.custom] modules`` in
pyproject.toml (the CAPZ/AKS rules, their views, the partition keys and tables, the document
model) are mypy --strict clean, which is what mypyc needs. A wheel built with ``CAPZGEN_MYPYC=1``
where mypy (mypyc), setuptools and a C compiler are installed (``pip wheel --no-build-isolation``,
as ``make test-compiled`` does) carries them as extension modules beside their sources; Python
imports an extension before a source of the same name, so the sources are only the fallback.

The same build compiles the hand-written C extensions listed under ``c-extensions`` (the block
YAML reader, ``generator/yamlio/_blockyaml.c``) beside them; a pure install never needs them.

Compiling is asked for, never guessed: a build that merely happens to see mypy (pre-commit's
``pip install`` of a clone, a developer's venv) must not spend minutes type-checking or fail
where the libraries are not visible to mypy. So every other build stays pure Python and needs no
compiler: an editable install (``make install``, the suite), ``pip install`` from the sdist or a
clone. When asked, a failed compile fails the build: a wheel never silently ships pure.
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
        if self.target_name != "wheel" or version == "editable" or os.environ.get(SWITCH) != "1":
            return
        built = self._compile(
            list(self.config.get("modules", [])), list(self.config.get("c-extensions", []))
        )
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        for path, inside in built.items():
            build_data["force_include"][str(path)] = inside

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        """Remove the scratch folder once the wheel is written."""
        if getattr(self, "_scratch", None) is not None:
            shutil.rmtree(str(self._scratch), ignore_errors=True)

    def _compile(self, modules: list[str], sources: list[str]) -> dict[Path, str]:
        """Build ``modules`` with mypyc and the C ``sources`` as they are (paths relative to the
        project root); the extension files made, each with its path inside the wheel."""
        # lazy: only a compiling build needs mypyc and setuptools, never a pure one
        from mypyc.build import mypycify
        from setuptools import Distribution, Extension
        from setuptools.command.build_ext import build_ext

        self._scratch = Path(tempfile.mkdtemp(prefix="capzgen-mypyc-"))
        here = os.getcwd()
        os.chdir(self.root)  # mypyc names modules after their paths from the project root
        try:
            extensions = mypycify(
                modules, opt_level="3", group_name="capzgen", target_dir=str(self._scratch / "c")
            )
            extensions += [
                Extension(
                    source.removesuffix(".c").replace("/", "."),
                    [source],
                    extra_compile_args=["-O2"],
                )
                for source in sources
            ]
            command = build_ext(Distribution({"name": "capzgen", "ext_modules": extensions}))
            command.build_lib = str(self._scratch / "lib")
            command.build_temp = str(self._scratch / "temp")
            command.ensure_finalized()
            command.run()
        finally:
            os.chdir(here)
        lib = self._scratch / "lib"
        return {path: path.relative_to(lib).as_posix() for path in lib.rglob("*.so")}
