"""drone's modified path.Match, tested directly on bytes."""

from __future__ import annotations

import pytest

from generator.envsubst.glob import BadPattern, glob_match


@pytest.mark.parametrize(
    ("pattern", "name", "matched"),
    [
        (b"abc", b"abc", True),
        (b"abc", b"abcd", False),
        (b"*", b"a/b/c", True),
        (b"a*", b"a/b", True),
        (b"*c", b"a/b/c", True),
        (b"a*b*c", b"a/x/b/y/c", True),
        (b"a*b", b"a/c", False),
        (b"?", b"/", True),
        (b"?", "é".encode(), True),
        (b"??", "é".encode(), False),
        (b"?", b"\xc3", True),
        (b"[abc]", b"b", True),
        (b"[a-c]", b"d", False),
        (b"[^a-c]", b"d", True),
        (b"[^a-c]", b"a", False),
        (b"[!a]", b"!", True),  # "!" is not a negation here
        (b"[\\]]", b"]", True),
        (b"[\\-]", b"-", True),
        ("[à-ü]".encode(), "é".encode(), True),
        (b"\\*", b"*", True),
        (b"\\*", b"x", False),
        (b"**", b"", True),
        (b"", b"", True),
        (b"", b"x", False),
        (b"*x*", b"axbxc", True),
        (b"a[", b"b", False),  # the literal fails before the bad class is reached
        (b"[ab-de]x", b"ex", True),
        (b"[ab-de]x", b"cy", False),
        (b"[^ab-de]x", b"fx", True),
    ],
)
def test_glob_match(pattern: bytes, name: bytes, matched: bool) -> None:
    assert glob_match(pattern, name) is matched


@pytest.mark.parametrize(
    ("pattern", "name"),
    [
        (b"[", b"a"),
        (b"[]", b"a"),
        (b"[a", b"a"),
        (b"[a-", b"a"),
        (b"[-a]", b"a"),
        (b"a\\", b"ab"),
        (b"[\xff]", b"a"),
        (b"a[", b"ab"),
        (b"[^]", b"a"),
        (b"[]a]", b"]"),  # unlike in shells, "]" cannot come first in a class
        (b"[a-]", b"a"),
        (b"[ab", b"a"),  # the class is read to its end even after "a" matched
        (b"[a-cx-", b"b"),
    ],
)
def test_bad_patterns_are_detected_when_reached(pattern: bytes, name: bytes) -> None:
    with pytest.raises(BadPattern):
        glob_match(pattern, name)


def test_bad_pattern_not_reached_with_empty_name() -> None:
    assert glob_match(b"[", b"") is False


def test_trailing_backslash_is_only_an_error_once_reached() -> None:
    assert glob_match(b"a\\", b"a") is False
