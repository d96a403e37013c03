"""capzgen: render and validate Cluster API manifests for AKS clusters managed through CAPZ and ASO.

The package is a pipeline of small stages (resolve variables, render Jinja, substitute ``${VAR}``,
parse documents, transform, validate, emit). The CLI in :mod:`generator.cli` is a thin shell over it.
"""

__version__ = "0.1.0"

# What this build's rules and built-in schemas were taken from: (project, release). Kept here,
# beside the version, so that ``capzgen --version`` names them without loading anything;
# tests/core/test_version.py holds it to the built-in bundle's own provenance.
PINNED_RELEASES: tuple[tuple[str, str], ...] = (
    ("Cluster API", "v1.13.3"),
    ("CAPZ", "v1.26.0"),
    ("ASO", "v2.18.0"),  # the operator CAPZ v1.26.0 installs; its schemas are the bundle's
    ("Flux kustomize-controller", "v1.9.4"),
    ("Flux source-controller", "v1.9.1"),
)


def version_text() -> str:
    """``capzgen --version``: the version and the releases it validates against."""
    pinned = ", ".join(f"{project} {release}" for project, release in PINNED_RELEASES)
    return f"capzgen, version {__version__}\nvalidates against: {pinned}"
