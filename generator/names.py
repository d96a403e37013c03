"""Names and versions as Kubernetes and clusterctl spell them: the one home of those checks.

The command line (cluster name, ``--target-namespace``, ``--kubernetes-version``, migrate's
``--namespace``), ``capzgen release`` and the validator's rules all ask the same few questions:
is this a DNS-1123 label or subdomain, a semantic version, a Kubernetes version, an apiVersion.
Answering them here keeps one pattern per question, so a fix in one place reaches every caller.
Functions take plain strings; callers decide what a non-string means.
"""

from __future__ import annotations

import functools
import re

# DNS-1123 (RFC 1123) label: what Kubernetes requires of namespaces and most names.
DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
DNS1123_LABEL_MAX_LENGTH = 63
# DNS-1123 subdomain: dot-separated labels (object names such as Secrets and Clusters).
DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
DNS1123_SUBDOMAIN_MAX_LENGTH = 253

# Semantic version 2.0.0 with an optional leading ``v``, the form clusterctl checks
# ``--kubernetes-version`` against. Groups 1-3 are major, minor and patch.
SEMVER = re.compile(
    r"^v?(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)"
    r"(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$"
)

# A Kubernetes version as manifests write it: ``v1.30.4``, ``1.30``, ``v1.31.0-rc.1``. Looser than
# SEMVER on purpose (the patch is optional): rules compare what users wrote, not release tags.
_KUBERNETES_VERSION = re.compile(
    r"^v?(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(?:\.(0|[1-9][0-9]*))?([-+][-0-9A-Za-z_.+]*)?$"
)


def is_dns1123_label(value: str) -> bool:
    """At most 63 lower-case alphanumerics or '-', alphanumeric at both ends."""
    return len(value) <= DNS1123_LABEL_MAX_LENGTH and DNS1123_LABEL.match(value) is not None


def is_dns1123_subdomain(value: str) -> bool:
    """At most 253 characters of dot-separated DNS-1123 labels."""
    return len(value) <= DNS1123_SUBDOMAIN_MAX_LENGTH and DNS1123_SUBDOMAIN.match(value) is not None


# The name part of a label key, and a label value: alphanumerics, '-', '_' and '.', alphanumeric at
# both ends, at most 63 characters (Kubernetes' qualified name and label value syntax).
_LABEL_NAME = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")
LABEL_NAME_MAX_LENGTH = 63


def is_label_key(value: str) -> bool:
    """A Kubernetes label (or taint) key: ``[<DNS-1123 subdomain>/]<name>``."""
    prefix, slash, name = value.rpartition("/")
    if slash and not is_dns1123_subdomain(prefix):
        return False
    return len(name) <= LABEL_NAME_MAX_LENGTH and _LABEL_NAME.match(name) is not None


def is_label_value(value: str) -> bool:
    """A Kubernetes label (or taint) value; empty is allowed, as Kubernetes allows it."""
    return value == "" or (
        len(value) <= LABEL_NAME_MAX_LENGTH and _LABEL_NAME.match(value) is not None
    )


def is_semver(value: str) -> bool:
    """A semantic version, ``v`` prefix allowed (clusterctl's check of KUBERNETES_VERSION)."""
    return SEMVER.match(value) is not None


def with_v_prefix(version: str) -> str:
    """``1.31.1`` -> ``v1.31.1`` (an empty text stays empty): CAPZ's mutating webhook
    (NormalizeVersion) adds the ``v`` to a control plane's version before validating it; the
    admission chain, the version rule, migrate and the flag all write it the same way."""
    return version if not version or version.startswith("v") else f"v{version}"


def release_version(value: str) -> tuple[int, int, int] | None:
    """``(major, minor, patch)`` of ``v`` + a semantic version (a clusterctl release tag), else
    None: clusterctl resolves release directories only by that form."""
    match = SEMVER.match(value) if value.startswith("v") else None
    if match is None:
        return None
    return int(match.group(1)), int(match.group(2)), int(match.group(3))


@functools.lru_cache(maxsize=256)
def parse_kubernetes_version(text: str) -> tuple[int, int, int | None] | None:
    """``v1.30.4`` / ``1.30`` -> ``(1, 30, 4)`` / ``(1, 30, None)``; anything else -> ``None``.

    Cached: a large input repeats the same few version strings thousands of times.
    """
    match = _KUBERNETES_VERSION.match(text.strip())
    if match is None:
        return None
    patch = match.group(3)
    return int(match.group(1)), int(match.group(2)), int(patch) if patch is not None else None


def strip_v(value: str) -> str:
    """``v1.30.4`` -> ``1.30.4``: the form AKS resources carry."""
    return value[1:] if value.startswith("v") else value


@functools.lru_cache(maxsize=512)
def valid_api_version(value: str) -> bool:
    """``group/version`` or ``version`` with non-empty parts and no stray spaces."""
    parts = value.split("/")
    return 1 <= len(parts) <= 2 and all(part and part.strip() == part for part in parts)
