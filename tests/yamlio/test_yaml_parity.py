"""The fast path (ryaml) and the precise path (libyaml + go-yaml rules) must agree.

Generated manifests are written as YAML text with plain, unquoted scalars drawn from a pool of
tricky spellings, so the ambiguity scan is exercised: whenever it lets a text through to the
fast path, ryaml's values must equal the precise ones.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from generator.errors import YamlError
from generator.yamlio import load_documents
from generator.yamlio.detect import needs_precise
from generator.yamlio.load import _fast_documents, layout
from tests.yamlio.yamlio_support import objects, precise, same

TRICKY = [
    "y",
    "Y",
    "n",
    "N",
    "yes",
    "No",
    "ON",
    "off",
    "Off",
    "true",
    "False",
    "TRUE",
    "tRue",
    "null",
    "Null",
    "~",
    "0",
    "00",
    "010",
    "-010",
    "+010",
    "08",
    "0o17",
    "0O17",
    "0x1F",
    "0X1F",
    "0b11",
    "0B11",
    "-0b11",
    "+0x1",
    "1_000",
    "1__0",
    "-_1",
    "1_",
    ".5_0",
    "0x_1",
    "1e3",
    "1E3",
    "1.e3",
    "-.5",
    "+.5",
    ".5",
    "1.",
    "-0",
    "+0",
    "-0.0",
    ".inf",
    "-.Inf",
    "+.INF",
    ".nan",
    "inf",
    "nan",
    "1:20",
    "12:30:00",
    "2024-01-02",
    "1.2.3",
    "v1",
    "v1beta1",
    "a_b",
    "Standard_D2s_v3",
    "x-y",
    "9223372036854775807",
    "18446744073709551615",
    "-9223372036854775808",
    "1e400",
    "0.1e-3",
    "eastus",
    "name",
    "on-prem",
    "no-op",
    "yes.",
    "n.a",
    "o",
    "of",
    "non",
    "yess",
]
plain_token = st.one_of(
    st.sampled_from(TRICKY),
    st.from_regex(r"[A-Za-z0-9.+~][A-Za-z0-9._+~-]{0,7}", fullmatch=True),
)
scalar_tree = st.recursive(
    plain_token,
    lambda children: st.one_of(
        st.lists(children, min_size=1, max_size=4),
        st.dictionaries(plain_token, children, min_size=1, max_size=4),
    ),
    max_leaves=12,
)


def render(value: Any, indent: int = 0, flow: bool = False) -> str:
    """Block-style YAML with every scalar written as the raw token (never quoted)."""
    pad = " " * indent
    if flow:
        return render_flow(value)
    if isinstance(value, dict):
        lines = []
        for key, item in value.items():
            if isinstance(item, dict | list):
                lines.append(f"{pad}{key}:\n{render(item, indent + 2)}")
            else:
                lines.append(f"{pad}{key}: {item}\n")
        return "".join(lines)
    if isinstance(value, list):
        lines = []
        for item in value:
            if isinstance(item, dict | list):
                body = render(item, indent + 2)
                lines.append(f"{pad}-\n{body}")
            else:
                lines.append(f"{pad}- {item}\n")
        return "".join(lines)
    return f"{pad}{value}\n"


def render_flow(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {render_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(render_flow(v) for v in value) + "]"
    return str(value)


def precise_or_error(text: str) -> list[Any] | str:
    try:
        return [(d.index, d.obj, d.start_line) for d in precise(text)]
    except YamlError as exc:
        return f"error: {exc.message}"


def check_parity(text: str) -> None:
    expected = precise_or_error(text)
    if not needs_precise(text):
        fast = _fast_documents(text, "t.yaml", layout(text, "t.yaml"))
        if fast is not None:  # None means "fast path failed", which falls back: always fine
            got = [(d.index, d.obj, d.start_line) for d in fast]
            assert not isinstance(expected, str), f"fast path accepted what is {expected}"
            assert same(got, expected), (text, got, expected)
    # And the public entry point always equals the precise reading.
    try:
        public: list[Any] | str = [
            (d.index, d.obj, d.start_line) for d in load_documents(text, source="t.yaml")
        ]
    except YamlError as exc:
        public = f"error: {exc.message}"
    assert same(public, expected), (text, public, expected)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(scalar_tree, min_size=1, max_size=3), st.booleans())
@example([{"replicas": "010", "enabled": "on"}], False)
@example([{"1": "x", "b": ["n", "0x1F"]}], True)
def test_fast_and_precise_paths_agree(documents: list[Any], flow: bool) -> None:
    text = "---\n".join(
        render(document, flow=flow) + ("\n" if flow else "") for document in documents
    )
    check_parity(text)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(TRICKY), min_size=1, max_size=6), st.sampled_from(TRICKY))
def test_every_tricky_token_as_key_and_value(values: list[str], key: str) -> None:
    text = f"{key}: {values[0]}\nlist: [{', '.join(values)}]\nblock:\n" + "".join(
        f"- {value}\n" for value in values
    )
    check_parity(text)


def test_corpus_templates_use_the_fast_path_and_agree(corpus_dir: Path) -> None:
    templates = sorted(corpus_dir.glob("*.yaml"))
    assert templates
    for template in templates:
        text = template.read_text()
        assert not needs_precise(text), template.name  # keeps real manifests on the fast path
        fast = _fast_documents(text, template.name, layout(text, template.name))
        assert fast is not None
        assert same(objects(fast), objects(precise(text, template.name)))
        assert [d.start_line for d in fast] == [d.start_line for d in precise(text)]
