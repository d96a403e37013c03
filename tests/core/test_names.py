"""The shared name and version checks (generator.names), which the CLI, release and rules use."""

from __future__ import annotations

import pytest

from generator.names import (
    is_dns1123_label,
    is_dns1123_subdomain,
    is_semver,
    parse_kubernetes_version,
    release_version,
    strip_v,
    valid_api_version,
)


@pytest.mark.parametrize(
    ("value", "label", "subdomain"),
    [
        ("demo", True, True),
        ("a-1", True, True),
        ("a.b", False, True),
        ("-a", False, False),
        ("a-", False, False),
        ("A", False, False),
        ("", False, False),
        ("a" * 63, True, True),
        ("a" * 64, False, True),
        (".".join(["a" * 63] * 4), False, False),  # 255 characters
    ],
)
def test_dns1123(value: str, label: bool, subdomain: bool) -> None:
    assert is_dns1123_label(value) is label
    assert is_dns1123_subdomain(value) is subdomain


@pytest.mark.parametrize(
    ("value", "semver", "release"),
    [
        ("v1.31.1", True, (1, 31, 1)),
        ("1.31.1", True, None),  # a release tag needs the v
        ("v1.31", False, None),
        ("v1.2.3-rc.1+build.5", True, (1, 2, 3)),
        ("v01.2.3", False, None),
        ("vv1.2.3", False, None),
    ],
)
def test_semver_and_release_tags(value: str, semver: bool, release: object) -> None:
    assert is_semver(value) is semver
    assert release_version(value) == release


def test_kubernetes_versions_are_looser_than_semver() -> None:
    assert parse_kubernetes_version("1.31") == (1, 31, None)
    assert parse_kubernetes_version(" v1.30.0-rc.1 ") == (1, 30, 0)
    assert parse_kubernetes_version("latest") is None
    assert strip_v("v1.31.1") == "1.31.1"
    assert strip_v("1.31.1") == "1.31.1"


@pytest.mark.parametrize(
    ("value", "valid"),
    [("v1", True), ("apps/v1", True), ("a/b/c", False), ("/v1", False), (" v1", False)],
)
def test_api_version_form(value: str, valid: bool) -> None:
    assert valid_api_version(value) is valid
