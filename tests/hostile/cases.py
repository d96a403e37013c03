"""The hostile inputs of issue 13, each generated at test time into its own folder.

A case writes its inputs and says how to run the CLI on them, which exit codes and which message
(naming the file or the bound) it expects. Payloads and template texts come from the focused
tests that already cover each bound (tests/yamlio, tests/flavors, tests/cli); this module only
puts them behind every input path of the real CLI. Nothing large is committed: the biggest
inputs (32 MiB) are written from short byte patterns.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tests.conftest import GENERATE_DEMO
from tests.flavors.test_sandbox import CASES as TEMPLATE_CASES
from tests.flavors.test_sandbox import user_flavor
from tests.schemastore.helpers import make_crd, spec_schema
from tests.yamlio.test_yaml_bounds import STRING_BOMB
from tests.yamlio.test_yaml_hostile import BILLION_LAUGHS

OUT = "out.yaml"


@dataclass(frozen=True)
class Run:
    """One CLI call: arguments after ``capzgen``, extra environment, a file for stdin."""

    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)
    stdin: str | None = None


@dataclass(frozen=True)
class Case:
    """A hostile input: ``build`` writes it under a folder and returns the call to make."""

    name: str
    build: Callable[[Path], Run]
    expect: str  # a regular expression the CLI's output must match (file, bound)
    codes: frozenset[int] = frozenset({1, 2})
    heavy: bool = False  # started first, so two workers finish together
    xfail: str | None = None
    # CPU-seconds the process may use (RLIMIT_CPU): a bound on work, which a loaded machine
    # does not change; a wall-clock safety net (tests/processes.py) only catches a hang.
    cpu_limit: float = 60.0
    # CPU-seconds the run must end within: tests/hostile/test_time_bounds.py runs the case again
    # under RLIMIT_CPU of this many seconds (a bound on work, whatever the machine's load).
    cpu_seconds: int | None = None


# --- payloads (mappings, so every input path reads them as its usual top-level shape) -----------


def deep(levels: int) -> str:
    return "k: " + "[" * levels + "]" * levels + "\n"


PAYLOADS: dict[str, tuple[str, str]] = {
    "billion-laughs": (BILLION_LAUGHS, "alias expansion exceeds 3,000,000 nodes"),
    "long-string-x3000": (STRING_BOMB, "alias expansion exceeds 64 MiB"),
    "deep-10000": (deep(10_000), "nests deeper than 128 levels"),
}


# --- input paths: where a payload can enter ------------------------------------------------------


def _manifest(root: Path, text: str) -> Run:
    (root / "m.yaml").write_text(text)
    return Run(["validate", "m.yaml"])


def _values(root: Path, text: str) -> Run:
    (root / "values.yaml").write_text(text)
    return Run([*GENERATE_DEMO, "--values", "values.yaml", "--write-to", OUT])


def _config(root: Path, text: str) -> Run:
    (root / "clusterctl.yaml").write_text(text)
    return Run([*GENERATE_DEMO, "--config", "clusterctl.yaml", "--write-to", OUT])


def _flavor(root: Path, text: str) -> Run:
    folder = root / "flavors" / "mine"
    folder.mkdir(parents=True)
    (folder / "flavor.yaml").write_text(text)
    (folder / "t.yaml.j2").write_text("kind: ConfigMap\n")
    flavor = ["--flavor", "mine", "--flavors-dir", "flavors"]
    return Run(["generate", "cluster", "demo", *flavor, "--write-to", OUT])


def _crd(root: Path, text: str) -> Run:
    (root / "crd.yaml").write_text(text)
    return Run(["schemas", "import", "crd.yaml"])


INPUTS: dict[str, tuple[Callable[[Path, str], Run], str]] = {
    "manifest": (_manifest, "m.yaml"),
    "values": (_values, "values.yaml"),
    "config": (_config, "clusterctl.yaml"),
    "flavor-yaml": (_flavor, "flavor.yaml"),
    "crd-import": (_crd, "crd.yaml"),
}


def _payload_cases() -> list[Case]:
    cases = []
    for input_name, (put, file_name) in INPUTS.items():
        for payload_name, (text, bound) in PAYLOADS.items():

            def build(root: Path, put: Callable[[Path, str], Run] = put, text: str = text) -> Run:
                return put(root, text)

            cases.append(
                Case(
                    f"{input_name}-{payload_name}",
                    build,
                    f"{file_name}.*{bound}",
                    heavy=payload_name == "long-string-x3000",
                )
            )
    return cases


# --- typed values from a flag or the environment (120 KB nested, under Linux's 128 KiB per string)


NESTED_120K = "[" * 60_000 + "]" * 60_000


def _var_nested(root: Path) -> Run:
    return Run([*GENERATE_DEMO, "--var", f"NODE_POOLS={NESTED_120K}", "--write-to", OUT])


def _env_nested(root: Path) -> Run:
    return Run([*GENERATE_DEMO, "--write-to", OUT], env={"NODE_POOLS": NESTED_120K})


# --- size, node count, scan time, bytes -----------------------------------------------------------


def _write_pattern(
    path: Path, unit: bytes, size: int, head: bytes = b"", tail: bytes = b""
) -> None:
    with path.open("wb") as stream:
        stream.write(head)
        stream.write(unit * ((size - len(head) - len(tail)) // len(unit)))
        stream.write(tail)


def _underscore_tokens(root: Path) -> Run:
    line = b" ".join([b"x____"] * 13) + b"\n"  # 78 bytes a line, one plain scalar in all
    _write_pattern(root / "tokens.yaml", line, 32 * 1024 * 1024 - 1024)
    return Run(["validate", "tokens.yaml"])


def _sixteen_million_integers(root: Path) -> Run:
    _write_pattern(root / "ints.yaml", b"0,", 32_000_002, head=b"[", tail=b"0]")
    return Run(["validate", "ints.yaml"])


def _binary(root: Path) -> Run:
    (root / "bin.yaml").write_bytes(b"apiVersion: v1\nkind: ConfigMap\n" + bytes(range(256)) * 8)
    return Run(["validate", "bin.yaml"])


def _nul(root: Path) -> Run:
    (root / "nul.yaml").write_bytes(b"apiVersion: v1\nkind: Conf\x00igMap\n")
    return Run(["validate", "nul.yaml"])


def _large_values(root: Path) -> Run:
    _write_pattern(root / "values.yaml", b"x", 9 * 1024 * 1024, head=b"A: ", tail=b"\n")
    return Run([*GENERATE_DEMO, "--values", "values.yaml", "--write-to", OUT])


def _zero_stdin(root: Path) -> Run:
    return Run(["schemas", "import", "-"], stdin="/dev/zero")


# --- patches, schemas, patterns, CEL ----------------------------------------------------------


def _copy_patch(root: Path) -> Run:
    ops = [{"op": "add", "path": "/metadata/annotations", "value": {"a": "x" * 1024}}]
    ops += [
        {"op": "copy", "from": "/metadata", "path": f"/metadata/annotations/c{i}"}
        for i in range(40)
    ]
    patch = {"target": {"kind": "Cluster"}, "jsonPatch": ops}  # each copy doubles /metadata
    (root / "patch.yaml").write_text(yaml.safe_dump(patch))
    return Run([*GENERATE_DEMO, "--patch", "patch.yaml", "--write-to", OUT])


def _widget(schema: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return make_crd(spec_schema(schema, **extra), group="example.com")


def _external_ref(ref: str) -> Callable[[Path], Run]:
    def build(root: Path) -> Run:
        crd = _widget({"type": "object", "properties": {"size": {"$ref": ref}}})
        (root / "crd.yaml").write_text(yaml.safe_dump(crd))
        return Run(["schemas", "import", "crd.yaml"])

    return build


REDOS = "^(a+)+b{,3}$"


def _redos_crd(root: Path) -> Run:
    crd = _widget({"type": "object", "properties": {"name": {"type": "string", "pattern": REDOS}}})
    (root / "crd.yaml").write_text(yaml.safe_dump(crd))
    widget = {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w"},
        "spec": {"name": "a" * 5000 + "c"},
    }
    (root / "w.yaml").write_text(yaml.safe_dump(widget))
    return Run(["validate", "--schema-dir", "crd.yaml", "w.yaml"])


def _redos_flavor(root: Path) -> Run:
    variables = f"  X: {{type: string, description: x, default: v, pattern: '{REDOS}'}}\n"
    user_flavor(root, "kind: ConfigMap\nmetadata: {name: '{{ X }}'}", variables)
    flavor = ["--flavor", "mine", "--flavors-dir", "flavors"]
    x = "a" * 5000 + "c"
    return Run(["generate", "cluster", "demo", *flavor, "--var", f"X={x}", "--write-to", OUT])


def _cel_triple_all(root: Path) -> Run:
    rule = "self.l.all(a, self.l.all(b, self.l.all(c, a + b + c >= 0)))"
    schema = {
        "type": "object",
        "properties": {"l": {"type": "array", "items": {"type": "integer"}}},
        "x-kubernetes-validations": [{"rule": rule}],
    }
    (root / "crd.yaml").write_text(yaml.safe_dump(_widget(schema)))
    widget = {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w"},
        "spec": {"l": list(range(2000))},
    }
    (root / "w.yaml").write_text(json.dumps(widget))
    return Run(["validate", "--schema-dir", "crd.yaml", "w.yaml"])


# --- folders and output targets ----------------------------------------------------------------


def _fifo_and_dangling_link(root: Path) -> Run:
    folder = root / "manifests"
    folder.mkdir()
    os.mkfifo(folder / "pipe.yaml")
    (folder / "gone.yaml").symlink_to(root / "missing.yaml")
    return Run(["validate", "manifests"])


def _dev_null(root: Path) -> Run:
    return Run([*GENERATE_DEMO, "--write-to", "/dev/null"])


def _through_symlink_on_failure(root: Path) -> Run:
    (root / "target.yaml").write_text("kept\n")
    (root / "link.yaml").symlink_to(root / "target.yaml")
    (root / "values.yaml").write_text(BILLION_LAUGHS)
    return Run([*GENERATE_DEMO, "--values", "values.yaml", "--write-to", "link.yaml"])


def _traversal_name(root: Path) -> Run:
    argv = [*GENERATE_DEMO, "--output-dir", "out"]
    argv[argv.index("demo")] = "../../escaped"
    return Run(argv)


# --- user flavors are user code ------------------------------------------------------------------


def _template(text: str) -> Callable[[Path], Run]:
    def build(root: Path) -> Run:
        user_flavor(root, text)
        flavor = ["--flavor", "mine", "--flavors-dir", "flavors"]
        return Run(["generate", "cluster", "demo", *flavor, "--write-to", OUT])

    return build


def _template_cases() -> list[Case]:
    chosen = {"huge-range": "range-10e9", "endless-macro": "recursive-macro"}
    cases = [
        Case(f"jinja-{name}", _template(TEMPLATE_CASES[key][0]), TEMPLATE_CASES[key][1])
        for key, name in chosen.items()
    ]
    cases.append(
        Case(
            "jinja-undefined-yaml",
            _template("{{ UNDEFINED | yaml }}"),
            "t.yaml.j2:1: .*UNDEFINED.* is undefined",
        )
    )
    cases.append(
        Case(
            "jinja-undefined-to-yaml",
            _template(TEMPLATE_CASES["undefined-to-yaml"][0]),
            TEMPLATE_CASES["undefined-to-yaml"][1],
        )
    )
    return cases


CASES: list[Case] = [
    *_payload_cases(),
    Case("var-nested-120k", _var_nested, "NODE_POOLS.*deeper than 128 levels"),
    Case("env-nested-120k", _env_nested, "NODE_POOLS.*deeper than 128 levels"),
    Case("tokens-32mib", _underscore_tokens, "tokens.yaml.*not a Kubernetes object", heavy=True),
    Case(
        "integers-16m",
        _sixteen_million_integers,
        "ints.yaml.*more than 3,000,000 nodes",
        heavy=True,
        cpu_seconds=2,
    ),
    Case("binary", _binary, "bin.yaml.*not a text file"),
    Case("nul-byte", _nul, "nul.yaml.*control character 0x00"),
    Case("values-9mib", _large_values, "values.yaml: input is larger than 8 MiB"),
    Case("stdin-dev-zero", _zero_stdin, "<stdin>: input is larger than 32 MiB"),
    Case("patch-40-copies", _copy_patch, "patch.yaml.*larger than 32 MiB"),
    Case("schema-ref-http", _external_ref("http://127.0.0.1:9/x.json"), "crd.yaml.*refers outside"),
    Case("schema-ref-file", _external_ref("file:///etc/passwd"), "crd.yaml.*refers outside"),
    Case("redos-crd-pattern", _redos_crd, "w.yaml.*must match pattern"),
    Case("redos-flavor-pattern", _redos_flavor, re.escape(f"X: pattern {REDOS}")),
    # 2,000 items: 8e9 evaluations without a cost budget; with one, refused before evaluating.
    Case("cel-triple-all", _cel_triple_all, "w.yaml.*cost", cpu_limit=20.0),
    Case(
        "folder-fifo-dangling-link",
        _fifo_and_dangling_link,
        "pipe.yaml(.|\n)*gone.yaml|gone.yaml(.|\n)*pipe.yaml",
    ),
    Case("write-to-dev-null", _dev_null, "", codes=frozenset({0})),
    Case(
        "write-through-symlink-on-failure",
        _through_symlink_on_failure,
        "values.yaml.*alias expansion",
    ),
    Case("path-traversal-name", _traversal_name, "invalid cluster name '../../escaped'"),
    *_template_cases(),
]
