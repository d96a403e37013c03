"""The Kubernetes format checkers on their own."""

from __future__ import annotations

import pytest

from generator.schemastore.formats import KUBERNETES_FORMATS


@pytest.mark.parametrize(
    ("name", "good", "bad"),
    [
        ("byte", ["", "aGVsbG8=", "YQ=="], ["a", "not base64!", "aGVsbG8"]),
        (
            "date-time",
            ["2024-01-01T00:00:00Z", "2024-01-01T00:00:00.5+02:00", "2024-01-01T00:00:00"],
            ["2024-02-30T00:00:00Z", "yesterday", "2024-01-01"],
        ),
        ("duration", ["1h", "1h30m", "90s", "1.5h", "-2m", "0", "3d"], ["", "1", "h", "1 hour"]),
        ("cidr", ["10.0.0.0/8", "10.1.2.3/16", "fd00::/64"], ["10.0.0.0", "10.0.0.0/33", "x/8"]),
        (
            "mac",
            ["00:1a:2b:3c:4d:5e", "00-1A-2B-3C-4D-5E", "001a.2b3c.4d5e"],
            ["00:1a:2b", "zz:1a:2b:3c:4d:5e"],
        ),
        ("uri", ["https://example.com/x", "/absolute/path", "urn:x"], ["", "relative/path", "a b"]),
        (
            "uuid4",
            ["123e4567-e89b-42d3-a456-426614174000"],
            ["123e4567-e89b-12d3-a456-426614174000"],
        ),
    ],
)
def test_format(name: str, good: list[str], bad: list[str]) -> None:
    check = KUBERNETES_FORMATS[name]
    assert [value for value in good if not check(value)] == []
    assert [value for value in bad if check(value)] == []
