"""capzgen: render and validate Cluster API manifests for AKS clusters managed through CAPZ and ASO.

The package is a pipeline of small stages (resolve variables, render Jinja, substitute ``${VAR}``,
parse documents, transform, validate, emit). The CLI in :mod:`generator.cli` is a thin shell over it.
"""

__version__ = "0.1.0"
