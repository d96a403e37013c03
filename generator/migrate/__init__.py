"""``capzgen migrate``: legacy AzureManaged* manifests -> the ASO-based AzureASOManaged* API.

* :mod:`~generator.migrate.tables` — the field mapping as data (reference §5);
* :mod:`~generator.migrate.legacy` — converters for AzureManagedControlPlane/Cluster/MachinePool;
* :mod:`~generator.migrate.versions` — v1alpha1 -> v1beta1 and removed ASO apiVersions;
* :mod:`~generator.migrate.credentials`, :mod:`~generator.migrate.checklist` — what goes to stderr;
* :mod:`~generator.migrate.engine` — :func:`migrate_text`, which wires them.

The package never prints or writes; the CLI (``generator.cli.migrate``) does.
"""

from generator.migrate.engine import MigrationOptions, migrate_text
from generator.migrate.model import MigrationResult, Note
from generator.patches import merge_patch

__all__ = [
    "MigrationOptions",
    "MigrationResult",
    "Note",
    "merge_patch",
    "migrate_text",
]
