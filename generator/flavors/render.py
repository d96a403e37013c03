"""The one place a Jinja environment is built, and rendering of a flavor with it.

The environment is sandboxed (flavors from ``--flavors-dir`` are user content) and treats undefined
names as errors, so a misspelt variable fails loudly instead of rendering an empty field.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import NoReturn

import jinja2
from jinja2.sandbox import SandboxedEnvironment

from generator.errors import FlavorError, Location
from generator.flavors.checks import check_rendered
from generator.flavors.model import Flavor
from generator.flavors.sandbox import BoundedSandbox, ConfinedLoader, install_bounded_filters
from generator.jsontypes import Json, JsonObject
from generator.yamlio.emit import dump_documents


class Placeholder(str):
    """A clusterctl ``${VAR}`` placeholder standing in for a value (export mode, `flavors show`).

    The ``yaml`` filter writes it unquoted, so the exported template looks like CAPZ's own
    (``replicas: ${WORKER_MACHINE_COUNT:=2}``) and substitutes to correctly typed YAML.
    """


def placeholder_values(flavor: Flavor) -> JsonObject:
    """Values for rendering a flavor without user input.

    Scalars declared ``export: placeholder`` become ``${NAME}`` (or ``${NAME:=default}``);
    structural variables (lists, objects, switches declared ``export: default``) take their defaults,
    because the template's shape depends on them.
    """
    values: JsonObject = {}
    for name, spec in flavor.variables.items():
        if spec.export == "placeholder":
            if spec.has_default and spec.default not in (None, ""):
                default = spec.default
                text = (
                    ("true" if default else "false") if isinstance(default, bool) else str(default)
                )
                values[name] = Placeholder(f"${{{name}:={text}}}")
            elif spec.has_default and spec.default == "":
                # clusterctl treats an empty default as "required"; two quote characters are the
                # idiom its book recommends for an optional empty string.
                values[name] = Placeholder(f'${{{name}:=""}}')
            else:
                values[name] = Placeholder(f"${{{name}}}")
        else:
            values[name] = spec.default
    return values


class _FlavorFailure(Exception):
    """Raised by ``fail()`` inside a template; carries the author's message."""


def to_yaml_scalar(value: Json) -> str:
    """Render a value as YAML flow text that loads back as exactly that value.

    JSON is valid YAML flow syntax, and double-quoted JSON strings escape everything that would
    otherwise change meaning (``: ``, ``#``, leading ``*``, ``yes``). Placeholders stay verbatim.
    """
    if isinstance(value, Placeholder):
        return str(value)
    _require_defined(value)
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _require_defined(value: Json) -> None:
    """An undefined name piped into a filter is the usual "X is undefined" error, not a JSON
    encoder's complaint (StrictUndefined raises UndefinedError when it is turned into text)."""
    if isinstance(value, jinja2.Undefined):
        str(value)


def to_yaml_block(value: Json) -> str:
    """A structured value (map, list) as block YAML without a trailing newline; place it with
    ``| indent(n)``.

    Written by capzgen's one emitter (:mod:`generator.yamlio.emit`, the one that writes
    ``generate``'s output): keys in clusterctl's order, strings quoted only where YAML would
    read them as something else, placeholders verbatim.
    """
    _require_defined(value)
    return dump_documents([value]).rstrip("\n")


def go_template(expression: str) -> str:
    """``go(".builtin.cluster.name")`` -> ``{{ .builtin.cluster.name }}`` for ClusterClass patches.

    Go template text cannot be written literally inside Jinja; this keeps it readable.
    """
    return "{{ " + expression.strip() + " }}"


def _fail(message: str) -> NoReturn:
    raise _FlavorFailure(message)


def _bytecode_cache(folder: Path | None) -> jinja2.BytecodeCache | None:
    """Compiled templates kept in capzgen's cache folder: compiling the flavor macros costs more
    than rendering them, and a one-off `generate cluster` should not pay it every time. Jinja
    checks each template's source checksum, so an edited flavor is recompiled. No folder (or one
    that cannot be made) means compiling in memory."""
    if folder is None:
        return None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        return jinja2.FileSystemBytecodeCache(str(folder))
    except OSError:
        return None


def build_environment(
    search_path: Sequence[Path], *, cache_dir: Path | None = None
) -> SandboxedEnvironment:
    """The one Jinja environment flavors render in; ``cache_dir`` keeps compiled templates."""
    env = BoundedSandbox(
        bytecode_cache=_bytecode_cache(cache_dir),
        loader=ConfinedLoader([str(p) for p in search_path]),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    install_bounded_filters(env)
    env.filters["yaml"] = to_yaml_scalar
    env.filters["to_yaml"] = to_yaml_block
    env.globals["go"] = go_template
    env.globals["fail"] = _fail
    return env


def render_flavor(
    flavor: Flavor,
    values: Mapping[str, Json],
    search_path: Sequence[Path],
    *,
    environment: SandboxedEnvironment | None = None,
    disabled_rules: frozenset[str] = frozenset(),
    check: bool = True,
) -> str:
    """Render every template of the flavor, join them as YAML documents and check the result
    with the validator's rules (:mod:`generator.flavors.checks`; ``disabled_rules`` are skipped;
    ``check=False`` leaves that to the caller, who validates the output).

    ``environment`` (from :func:`build_environment` with the same search path) may be reused
    across calls, so templates are compiled once when many clusters are rendered (fleets).
    """
    env = environment if environment is not None else build_environment(search_path)
    parts: list[str] = []
    for name in flavor.templates:
        path = flavor.directory / name
        try:
            text = env.get_template(name).render(dict(values))
        except Exception as exc:  # a template is user code: whatever it raises is its mistake
            raise _template_error(exc, path) from exc
        parts.append(text.strip("\n"))
    rendered = "\n---\n".join(part for part in parts if part.strip()) + "\n"
    if check:
        check_rendered(flavor, values, rendered, disabled_rules=disabled_rules)
    return rendered


# What a template raised -> the message, and whether the template line it was rendering is shown;
# the first class that matches wins (the Jinja subclasses come before jinja2.TemplateError).
_TEMPLATE_ERRORS: tuple[tuple[type[Exception], Callable[[Exception], str], bool], ...] = (
    (jinja2.UndefinedError, lambda e: f"template uses an undefined value: {_text(e)}", True),
    (
        jinja2.exceptions.SecurityError,
        lambda e: f"template attempted an unsafe operation: {e}",
        False,
    ),
    (_FlavorFailure, str, False),  # the flavor's own fail() and required(): their message as is
    (jinja2.TemplateError, lambda e: f"template error: {e}", False),
    (
        RecursionError,
        lambda _e: "template recursion is too deep (a macro that calls itself without end?)",
        False,
    ),
    (Exception, lambda e: f"template failed: {type(e).__name__}: {e}", True),
)


def _template_error(exc: Exception, path: Path) -> FlavorError:
    """The error that says what went wrong while rendering the template at ``path``."""
    if isinstance(exc, jinja2.TemplateSyntaxError):  # it knows its own file and line
        msg = f"template syntax error: {exc.message}"
        return FlavorError(msg, location=Location(file=exc.filename or str(path), line=exc.lineno))
    describe, with_line = next((d, w) for kind, d, w in _TEMPLATE_ERRORS if isinstance(exc, kind))
    line = _template_line(exc) if with_line else None
    return FlavorError(describe(exc), location=Location(file=str(path), line=line))


def _text(exc: Exception) -> str | None:
    """A Jinja error's own message (``None`` when it was raised without one)."""
    return exc.message if isinstance(exc, jinja2.TemplateError) else str(exc)


def _template_line(exc: BaseException) -> int | None:
    """The template line Jinja was rendering when it raised (from the traceback)."""
    tb = exc.__traceback__
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename.endswith((".j2", ".yaml", ".yml")):
            line = tb.tb_lineno
        tb = tb.tb_next
    return line
