"""Fleets: many clusters from one file, rendered in parallel, validated together, written only
when every cluster is valid.

A fleet file (``schemas/fleet.schema.json``)::

    defaults: {flavor, namespace, kubernetesVersion, workerMachineCount, values, overrides}
    clusters:
      - {name, flavor?, namespace?, kubernetesVersion?, workerMachineCount?, values?, overrides?}

A cluster's settings replace the defaults; ``values`` are deep-merged over the defaults' values
(mappings merge, lists and scalars replace, ``null`` removes a default); ``overrides`` are patch
documents (see :mod:`generator.generate.patches`), the defaults' first, then the cluster's, then ``--patch``
files. Each cluster goes through the same pipeline as ``generate cluster`` and is written to
``DIR/<name>/`` in the GitOps layout of :mod:`generator.output.gitops`.

* :mod:`generator.fleet.file`: reading and checking the fleet file;
* :mod:`generator.fleet.render`: rendering every cluster (in worker processes), the result, writing;
* :mod:`generator.fleet.rules`: the cross-cluster rules FLEET-001..003.

Cross-cluster rules: FLEET-001 no two clusters share a name; FLEET-002 no two share a resource
group (ResourceGroup ``spec.azureName``, else ``metadata.name``; case-insensitive, as Azure);
FLEET-003 no two share a ManagedCluster ``spec.dnsPrefix`` (case-insensitive).
"""
