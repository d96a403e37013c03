"""Hostile input: every case must end quickly in a YamlError with a location, never a hang."""

from __future__ import annotations

import io
import os
import random
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from generator.errors import YamlError
from generator.yamlio import MAX_BYTES, MAX_DEPTH, LineLocator, load_documents, read_source
from generator.yamlio.source import decode_source

BILLION_LAUGHS = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{','.join([f'*{chr(97 + i)}'] * 9)}]\n" for i in range(9)
)


@contextmanager
def within(seconds: float) -> Iterator[None]:
    """A hang guard only (a blow-up runs for minutes); speed is measured by `make bench`."""
    start = time.perf_counter()
    yield
    elapsed = time.perf_counter() - start
    assert elapsed < seconds, f"took {elapsed:.2f}s"


def expect_error(load: Callable[[], object], match: str, seconds: float = 60.0) -> YamlError:
    with within(seconds), pytest.raises(YamlError, match=match) as caught:
        load()
    location = caught.value.location
    assert location is not None
    assert location.file is not None
    return caught.value


def test_billion_laughs_is_stopped() -> None:
    error = expect_error(
        lambda: load_documents(BILLION_LAUGHS, source="bomb.yaml"), "alias expansion exceeds"
    )
    assert error.location is not None and error.location.line is not None


def test_aliases_within_the_limit_are_expanded() -> None:
    text = "a: &a [1, 2]\nb: [*a, *a, *a]\n"
    assert load_documents(text, source="t.yaml")[0].obj == {"a": [1, 2], "b": [[1, 2]] * 3}


@pytest.mark.parametrize(
    "text",
    [
        "[" * 10_000 + "]" * 10_000,
        "{a: " * 10_000 + "1" + "}" * 10_000,
        "- " * 10_000 + "x\n",
        "".join(" " * i + "k:\n" for i in range(MAX_DEPTH + 5)),
        "[" * 1_000_000,  # unbalanced and huge: must not reach ryaml or the C composer
    ],
    ids=["flow-seq", "flow-map", "block-seq", "block-map", "million-brackets"],
)
def test_deep_nesting_is_rejected(text: str) -> None:
    error = expect_error(
        lambda: load_documents(text, source="deep.yaml"), f"deeper than {MAX_DEPTH} levels"
    )
    assert error.location is not None and error.location.line is not None


def test_nesting_at_the_limit_is_accepted() -> None:
    text = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    value = load_documents(text, source="t.yaml")[0].obj
    depth = 0
    while isinstance(value, list):
        depth += 1
        value = value[0] if value else None
    assert depth == MAX_DEPTH


def test_alias_cannot_smuggle_extra_depth() -> None:
    inner = "[" * 100 + "]" * 100
    text = f"a: &x {inner}\nb: {'[' * 60}*x{']' * 60}\n"
    expect_error(lambda: load_documents(text, source="t.yaml"), "through alias")


def test_line_locator_survives_deep_nesting() -> None:
    locator = LineLocator("[" * 200_000)
    with within(60.0):
        assert locator.line_of(0, (0, 0, 0)) == 1


def test_fifty_megabyte_file_fails_fast(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    with big.open("wb") as stream:
        line = b"key: " + b"v" * 90 + b"\n"
        for _ in range(50 * 1024 * 1024 // len(line) + 1):
            stream.write(line)
    assert big.stat().st_size > 50 * 1024 * 1024
    error = expect_error(lambda: read_source(str(big)), "larger than 32 MiB")
    assert error.location is not None and error.location.file == str(big)


class EndlessStream(io.RawIOBase):
    """A pipe that never ends; counts what was read to prove reading stops at the limit."""

    def __init__(self) -> None:
        self.served = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        size = len(buffer)
        buffer[:size] = b"a" * size
        self.served += size
        return size


def test_endless_stdin_is_read_in_bounded_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    raw = EndlessStream()
    fake_stdin = io.TextIOWrapper(io.BufferedReader(raw))
    monkeypatch.setattr(sys, "stdin", fake_stdin)
    error = expect_error(lambda: read_source("-"), "larger than")
    assert error.location is not None and error.location.file == "<stdin>"
    assert raw.served <= MAX_BYTES + 2 * 1024 * 1024


def test_binary_garbage_is_rejected_with_a_place(tmp_path: Path) -> None:
    rng = random.Random(1234)
    garbage = bytes(rng.randrange(256) for _ in range(4096)) + b"\x00\x00"
    path = tmp_path / "garbage.yaml"
    path.write_bytes(b"a: 1\n" + garbage)
    error = expect_error(lambda: read_source(str(path)), "not a text file")
    assert error.location is not None
    assert error.location.line is not None and error.location.line >= 2
    assert error.location.column is not None
    assert "byte offset" in error.message


def test_nul_byte_position_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "nul.yaml"
    path.write_bytes(b"a: 1\nb: x\x00y\n")
    error = expect_error(lambda: read_source(str(path)), r"control character 0x00 at byte offset 9")
    assert error.location is not None
    assert (error.location.line, error.location.column) == (2, 5)


@pytest.mark.parametrize("byte", range(0x80))
def test_every_ascii_control_but_tab_and_line_breaks_is_refused(byte: int) -> None:
    """The quick check (bytes.translate) and the regex that names the place agree on which
    bytes are controls: each is refused with its code, and the others pass."""
    data = b"a: 1\nb: x" + bytes([byte]) + b"y\n"
    if byte in (0x09, 0x0A, 0x0D) or 0x20 <= byte < 0x7F:
        assert decode_source(data, "one.yaml") == data.decode()
    else:
        expect_error(lambda: decode_source(data, "one.yaml"), f"control character 0x{byte:02X}")


def test_invalid_utf8_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes("a: 1\nname: caf\xe9\n".encode("latin-1"))
    error = expect_error(lambda: read_source(str(path)), "invalid UTF-8 at byte offset 14")
    assert error.location is not None and error.location.line == 2


def test_utf16_is_named(tmp_path: Path) -> None:
    path = tmp_path / "utf16.yaml"
    path.write_bytes("a: 1\n".encode("utf-16"))
    expect_error(lambda: read_source(str(path)), "UTF-16")


def test_c1_control_character_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "c1.yaml"
    path.write_bytes("a: x\u0081y\n".encode())
    expect_error(lambda: read_source(str(path)), "U\\+0081")


def test_control_characters_given_as_text_are_a_yaml_error() -> None:
    error = expect_error(lambda: load_documents("a: 1\nb: \x01\n", source="t.yaml"), "control")
    assert error.location is not None and error.location.line == 2


@pytest.mark.parametrize("seed", range(5))
def test_random_text_never_crashes(seed: int) -> None:
    rng = random.Random(seed)
    alphabet = "ab:- \n[]{},'\"&*!|>#?%@`~\t01yn"
    text = "".join(rng.choice(alphabet) for _ in range(2000))
    with within(60.0):
        problem: YamlError | None = None
        try:
            load_documents(text, source="r.yaml")
        except YamlError as error:
            problem = error
        LineLocator(text).line_of(0, ("a",))
    assert problem is None or problem.location is not None


def test_unreadable_paths_are_input_output_errors(tmp_path: Path) -> None:
    from generator.errors import InputOutputError

    with pytest.raises(InputOutputError, match="cannot read") as caught:
        read_source(str(tmp_path))
    assert caught.value.location is not None and caught.value.location.file == str(tmp_path)
    with pytest.raises(InputOutputError, match="No such file"):
        read_source(os.path.join(str(tmp_path), "missing.yaml"))
