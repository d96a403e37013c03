"""``-i/--infrastructure name[:version]``: clusterctl's provider choice, checked against what
capzgen can render.

clusterctl reads a template from the named provider's repository at the given version. capzgen's
templates are its built-in flavors, written for one CAPZ release (:data:`CAPZ_VERSION`), so the
flag is a statement about that release rather than a download:

* the name must be ``azure`` (any case: clusterctl lower-cases it); another provider is an error;
* no version, or exactly :data:`CAPZ_VERSION`, is accepted silently;
* another patch release of the same minor (``v1.26.3``) is accepted with a warning, since patch
  releases do not change the template API;
* any other release is an error whose hint names the release's own template for ``--from``.
"""

from __future__ import annotations

from dataclasses import dataclass

from generator.errors import UsageError
from generator.names import SEMVER

CAPZ_VERSION = "v1.26.0"
"""The CAPZ release capzgen's flavors, schemas and rules follow."""

AZURE_PROVIDER = "azure"

_RELEASE_TEMPLATE = (
    "https://github.com/kubernetes-sigs/cluster-api-provider-azure/releases/download/"
    "{version}/cluster-template-aks-aso.yaml"
)


@dataclass(frozen=True)
class InfrastructureChoice:
    """The parsed ``-i`` value: the provider name (lower-case), its version if one was given,
    and a warning for the user when the version is accepted with a caveat."""

    name: str
    version: str | None = None
    warning: str | None = None


def _release(version: str) -> tuple[int, int, int] | None:
    match = SEMVER.match(version)
    if match is None:
        return None
    return int(match.group(1)), int(match.group(2)), int(match.group(3))


def parse_infrastructure(text: str) -> InfrastructureChoice:
    """Check ``-i name[:version]`` the way clusterctl splits it, then against CAPZ_VERSION."""
    parts = text.split(":")
    if len(parts) > 2 or not parts[0] or (len(parts) == 2 and not parts[1]):
        msg = (
            f'invalid provider name "{text}". Provider name should be in the form '
            "name[:version] and name cannot be empty"
        )
        raise UsageError(msg)
    name = parts[0].lower()
    if name != AZURE_PROVIDER:
        msg = (
            f'infrastructure provider "{name}" is not supported: capzgen renders clusters for '
            "the azure provider (CAPZ) only"
        )
        raise UsageError(msg, hint="use -i azure, or --from with that provider's template")
    if len(parts) == 1:
        return InfrastructureChoice(name)
    return InfrastructureChoice(name, parts[1], _version_warning(parts[1]))


def _version_warning(version: str) -> str | None:
    """None for CAPZ_VERSION, a warning for another patch of its minor; raises otherwise."""
    wanted = _release(version)
    if wanted is None or not version.startswith("v"):
        msg = f'invalid provider version "{version}": expected a release tag such as {CAPZ_VERSION}'
        raise UsageError(msg)
    target = _release(CAPZ_VERSION)
    assert target is not None
    if wanted == target and version == CAPZ_VERSION:
        return None
    if wanted[:2] == target[:2]:
        return (
            f"capzgen's flavors follow CAPZ {CAPZ_VERSION}; rendering them for azure:{version} "
            "(same minor release)"
        )
    msg = f"capzgen's flavors follow CAPZ {CAPZ_VERSION} and cannot render azure:{version}"
    raise UsageError(
        msg,
        hint="drop the version, or render that release's own template: --from "
        + _RELEASE_TEMPLATE.format(version=version),
    )
