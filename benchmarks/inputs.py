"""The inputs ``make bench`` measures on, generated into ``.bench/`` (nothing large is committed)."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
WORK = REPO / ".bench"
TEMPLATE = REPO / "tests/data/upstream/corpus/capz-templates/cluster-template-aks-aso.yaml"
DOCS_PER_CLUSTER = 7
EMBEDDED_PER_CLUSTER = 4
CLUSTERS_PER_FILE = 5000  # a file stays well under the 32 MiB input bound


def cluster_text(template: str, name: str) -> str:
    """One cluster: CAPZ's released aks-aso template with its variables substituted."""
    text = template
    for key, value in {
        "${CLUSTER_NAME}": name,
        "${WORKER_MACHINE_COUNT:=2}": "2",
        "${KUBERNETES_VERSION}": "v1.31.1",
        "${AZURE_LOCATION}": "westeurope",
        "${ASO_CREDENTIAL_SECRET_NAME}": "aso-credentials",
        "${AZURE_NODE_MACHINE_TYPE}": "Standard_D2s_v3",
    }.items():
        text = text.replace(key, value)
    return text


def make_fleet(clusters: int) -> Path:
    """``clusters`` substituted copies of CAPZ's released aks-aso template: one file up to
    CLUSTERS_PER_FILE clusters, else a folder of such files."""
    template = TEMPLATE.read_text(encoding="utf-8")
    WORK.mkdir(exist_ok=True)
    if clusters <= CLUSTERS_PER_FILE:
        path = WORK / f"fleet-{clusters}.yaml"
        if not path.exists():
            parts = [cluster_text(template, f"fleet-{i:05d}") for i in range(clusters)]
            path.write_text("---\n".join(parts), encoding="utf-8")
        return path
    folder = WORK / f"fleet-{clusters}"
    folder.mkdir(parents=True, exist_ok=True)
    for start in range(0, clusters, CLUSTERS_PER_FILE):
        part = folder / f"part-{start // CLUSTERS_PER_FILE:03d}.yaml"
        if not part.exists():
            count = min(CLUSTERS_PER_FILE, clusters - start)
            texts = [cluster_text(template, f"fleet-{start + i:05d}") for i in range(count)]
            part.write_text("---\n".join(texts), encoding="utf-8")
    return folder


def make_fleet_file(clusters: int) -> Path:
    """A ``generate fleet`` file: ``clusters`` aks clusters sharing defaults, one with overrides."""
    WORK.mkdir(exist_ok=True)
    path = WORK / f"fleet-file-{clusters}.yaml"
    lines = [
        "defaults:",
        "  flavor: aks",
        "  kubernetesVersion: v1.31.1",
        "  values: {AZURE_LOCATION: westeurope}",
        "clusters:",
    ]
    lines += [f"  - name: fleet-{i:04d}" for i in range(clusters)]
    lines += [
        "    values: {NODE_POOLS: [{name: system, mode: System}]}",
        "    overrides:",
        "      - target: {kind: AzureASOManagedControlPlane, embedded: {kind: ManagedCluster}}",
        "        patch: {spec: {sku: {tier: Standard}}}",
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
