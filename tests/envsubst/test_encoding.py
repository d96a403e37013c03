"""decode_rune against Python's UTF-8 decoder, which rejects exactly what Go's utf8 rejects."""

from __future__ import annotations

import itertools

import pytest

from generator.envsubst.encoding import RUNE_ERROR, decode_rune, is_invalid_byte

# Bytes around every boundary of Go's acceptRanges, plus ASCII.
_EDGES = (0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xF4, 0xFF)


def expected(data: bytes) -> tuple[int, int]:
    char = data.decode("utf-8", "surrogateescape")[0]
    if is_invalid_byte(char):
        return RUNE_ERROR, 1
    return ord(char), len(char.encode("utf-8"))


def test_every_first_and_second_byte() -> None:
    for first, second in itertools.product(range(256), repeat=2):
        data = bytes((first, second))
        assert decode_rune(data, 0) == expected(data), data.hex()


@pytest.mark.parametrize("first", [*range(0xE0, 0xF5), 0xF8])
def test_longer_sequences(first: int) -> None:
    for rest in itertools.product(_EDGES, repeat=3):
        data = bytes((first, *rest))
        assert decode_rune(data, 0) == expected(data), data.hex()


@pytest.mark.parametrize(
    ("data", "rune", "width"),
    [
        ("é€😀".encode(), 0xE9, 2),
        (b"\xc3", RUNE_ERROR, 1),  # truncated at the end of the data
        (b"\xe2\x82", RUNE_ERROR, 1),
        (b"\xf0\x9f\x98", RUNE_ERROR, 1),
        ("\ufffd".encode(), 0xFFFD, 3),  # a real U+FFFD is three bytes wide
    ],
)
def test_edge_cases(data: bytes, rune: int, width: int) -> None:
    assert decode_rune(data, 0) == (rune, width)


def test_index_into_the_data() -> None:
    data = "a€😀".encode()
    assert decode_rune(data, 1) == (0x20AC, 3)
    assert decode_rune(data, 4) == (0x1F600, 4)
    assert decode_rune(data, 5) == (RUNE_ERROR, 1)
