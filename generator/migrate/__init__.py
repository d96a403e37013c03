"""``capzgen migrate``: legacy AzureManaged* manifests -> the ASO-based AzureASOManaged* API.

* :mod:`~generator.migrate.tables` — the field mapping as data (reference §5);
* one converter per target object: :mod:`~generator.migrate.control_plane` (AzureManagedControlPlane
  -> AzureASOManagedControlPlane and its ManagedCluster), :mod:`~generator.migrate.extensions`
  (FleetsMember, Extensions), :mod:`~generator.migrate.cluster` (AzureManagedCluster ->
  AzureASOManagedCluster and the infrastructure it embeds), :mod:`~generator.migrate.machine_pool`
  (AzureManagedMachinePool -> AzureASOManagedMachinePool), :mod:`~generator.migrate.capi` (the CAPI
  Cluster and MachinePools that reference them); they share :mod:`~generator.migrate.plan` (the
  per-cluster plan) and :mod:`~generator.migrate.build` (embedded resources, carried metadata);
* :mod:`~generator.migrate.versions` — v1alpha1 -> v1beta1 and removed ASO apiVersions;
* :mod:`~generator.migrate.credentials` (AzureClusterIdentity -> credential Secret keys),
  :mod:`~generator.migrate.checklist` — what goes to stderr;
* :mod:`~generator.migrate.adopt` (``--adopt``: the objects of CAPZ's adoption procedure),
  :mod:`~generator.migrate.live` (``--live``), :mod:`~generator.migrate.legacy_groups` (``exp.*``
  groups), :mod:`~generator.migrate.patch_origin` (naming the patch behind an invalid field);
* :mod:`~generator.migrate.az` and :mod:`~generator.migrate.shape` — ``capzgen adopt --from-az``;
* :mod:`~generator.migrate.engine` — :func:`migrate_text`, which wires them.

The package never prints or writes; the CLI (``generator.cli.migrate``) does. The names below load
their module on first use (:mod:`generator.faces`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from generator.faces import lazy_names

if TYPE_CHECKING:
    from generator.migrate.engine import MigrationOptions, migrate_text
    from generator.migrate.model import MigrationResult, Note

__all__ = ["MigrationOptions", "MigrationResult", "Note", "migrate_text"]

__getattr__ = lazy_names(
    __name__,
    {
        "MigrationOptions": "engine",
        "MigrationResult": "model",
        "Note": "model",
        "migrate_text": "engine",
    },
)
