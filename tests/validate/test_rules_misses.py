"""What CAPZ v1.26.0's webhooks refuse that capzgen once let through (issue 25, item 5), measured
with the capz-oracle: the AzureManagedControlPlane's version without a patch, a bare IP address in
its authorizedIPRanges and a Cluster with two service or pod CIDRs."""

from __future__ import annotations

import pytest

from generator.checks.rules.versions import capz_accepts_version
from generator.model.values import parse_go_cidr


@pytest.mark.parametrize(
    ("text", "accepted"),
    [
        ("v1.33.1", True),
        ("1.33.1", True),  # CAPZ's mutating webhook adds the "v"
        ("v1.33.1-rc.1+build.2", True),
        ("v1.33", False),
        ("1.33", False),
        ("v01.33.1", False),
        ("V1.33.1", False),  # "V" is not "v": NormalizeVersion makes it "vV1.33.1"
        ("", False),
        ("v1.33.1 ", False),
    ],
)
def test_capz_accepts_version_like_validate_version(text: str, accepted: bool) -> None:
    assert capz_accepts_version(text) is accepted


@pytest.mark.parametrize(
    ("text", "network"),
    [
        ("1.2.3.4/32", "1.2.3.4/32"),
        ("10.1.2.3/8", "10.0.0.0/8"),  # host bits are allowed, as in Go
        ("10.0.0.0/08", "10.0.0.0/8"),  # Go's dtoi reads leading zeros
        ("fd00::/64", "fd00::/64"),
        ("1.2.3.4", None),
        ("1.2.3.4/", None),
        ("1.2.3.4/33", None),
        ("1.2.3.4/255.255.255.0", None),  # a netmask is not a prefix length to Go
        ("1.2.3.4/+8", None),
        ("01.2.3.4/32", None),
        ("fe80::1%eth0/64", None),
        ("1.2.3.4/٣", None),  # a non-ASCII digit
        ("${RANGE}", None),
    ],
)
def test_parse_go_cidr_reads_like_net_parse_cidr(text: str, network: str | None) -> None:
    parsed = parse_go_cidr(text)
    assert (None if parsed is None else str(parsed)) == network
