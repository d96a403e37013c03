"""The names CAPI's topology controller gives the objects it creates, made deterministic.

CAPI (``internal/topology/names``) names the infrastructure cluster and the control plane with
the class's naming template, by default ``{{ .cluster.name }}-{{ .random }}``, a machine pool
``{{ .cluster.name }}-{{ .machinePool.topologyName }}-{{ .random }}``, and the bootstrap config
and infrastructure machine pool of a pool ``<cluster>-<topology name>-`` plus five random
characters. A name longer than 63 characters is cut to 58 and gets five random characters.

A plan cannot know the random characters, so :data:`RANDOM` stands in for them: ``00000``, which
CAPI never generates (its alphabet, ``bcdfghjklmnpqrstvwxz2456789``, has no ``0``), so a planned
name never passes for a real one. Every plan of the same input names every object the same.
"""

from __future__ import annotations

from generator.checks.clusterclass.goeval import render
from generator.checks.clusterclass.gotemplate import TemplateFailure, Unsupported
from generator.errors import Location, TopologyError
from generator.jsontypes import JsonObject

RANDOM = "00000"
MAX_NAME = 63
_RANDOM_LENGTH = len(RANDOM)
DEFAULT_TEMPLATE = "{{ .cluster.name }}-{{ .random }}"
DEFAULT_POOL_TEMPLATE = "{{ .cluster.name }}-{{ .machinePool.topologyName }}-{{ .random }}"


def prefixed(prefix: str) -> str:
    """CAPI's ``SimpleNameGenerator``: ``prefix`` (cut to 58 characters) and the stand-in."""
    return prefix[: MAX_NAME - _RANDOM_LENGTH] + RANDOM


def from_template(
    template: str, cluster: str, location: Location, topology_name: str | None = None
) -> str:
    """A name from a class's naming ``template`` (Go text/template, ``missingkey=error``)."""
    data: JsonObject = {"cluster": {"name": cluster}, "random": RANDOM}
    if topology_name is not None:
        data["machinePool"] = {"topologyName": topology_name}
    try:
        result = render(template, data)
    except (Unsupported, TemplateFailure) as error:
        what = error.what if isinstance(error, Unsupported) else error.message
        msg = f"naming template {template!r} cannot be rendered: {what}"
        raise TopologyError(msg, location=location) from None
    if result.undefined:
        names = ", ".join(f".{name}" for name in result.undefined)
        msg = f"naming template {template!r} reads {names}, which CAPI does not set (missingkey=error)"
        raise TopologyError(msg, location=location)
    name = result.text
    if len(name) > MAX_NAME:
        name = name[: MAX_NAME - _RANDOM_LENGTH] + RANDOM
    return name
