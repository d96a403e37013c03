"""One namespace per cluster (§1.5).

ASO and CAPZ resolve every name reference in the referring object's namespace, so a cluster's
objects, embedded resources and credential Secret must share one. References that cross explicit
namespaces do not resolve and are reported by the reference rules; this module reports what they
cannot see: objects that leave the namespace to apply time next to objects that pin one, and
namespaces written on embedded resources, which CAPZ overwrites.
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.checks.rules.base import Rule
from generator.findings import Finding, Gate, Severity
from generator.jsontypes import dig
from generator.model.manifests import ManifestSet

MIXED = Rule(
    "CAPZ-NS-MIXED",
    "Objects of one Cluster either all set metadata.namespace or none does (a missing namespace is the "
    "apply-time namespace; objects in different explicit namespaces fail the reference rules) (§1.5)",
    Severity.WARNING,
    Gate.PROVISIONING,
    why="CAPI's and CAPZ's controllers look for references in one namespace",
)


@MIXED.checks
def _check_mixed(ms: ManifestSet) -> Iterator[Finding]:
    for group in ms.clusters:
        members = list(group.members())
        explicit = sorted({obj.namespace for obj in members if obj.namespace is not None})
        if not explicit:
            continue
        for obj in members:
            if obj.namespace is None:
                yield MIXED.at(
                    obj,
                    ("metadata",),
                    f"has no namespace while other objects of Cluster {group.cluster.name!r} are in "
                    f"{', '.join(explicit)}; it lands wherever it is applied",
                    hint="set metadata.namespace on every object of the cluster (or on none)",
                )


EMBEDDED = Rule(
    "CAPZ-NS-EMBEDDED",
    "Embedded resources set no metadata.namespace: CAPZ overwrites it with its own object's (§1.5)",
    Severity.WARNING,
    Gate.PROVISIONING,
    why="CAPZ's controller overwrites the namespace",
)


@EMBEDDED.checks
def _check_embedded(ms: ManifestSet) -> Iterator[Finding]:
    for res in ms.resources:
        if res.parent is None:
            continue
        value = dig(res.obj, "metadata", "namespace")
        if value is not None:
            target = res.parent.namespace or "the namespace it is applied to"
            yield EMBEDDED.at(
                res,
                ("metadata", "namespace"),
                f"is ignored: CAPZ puts embedded resources into {res.parent.kind}'s namespace ({target})",
                hint="remove metadata.namespace from embedded resources",
            )
