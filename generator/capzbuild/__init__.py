"""What CAPZ v1.26.0 builds from the legacy API: the ManagedCluster an AzureManagedControlPlane
stands for (reference §5.3) and the ManagedClustersAgentPool of an AzureManagedMachinePool (§5.4).

Pure mapping, spec in, ASO object out: no notes, no printing, no knowledge of how the result is
used. ``capzgen migrate`` (:mod:`generator.migrate`) embeds the objects in the ASO API; the
validator (:mod:`generator.checks.rules.aso_patches`) applies the legacy objects' option-7
patches to them and checks the result against the ASO schema, as CAPZ would send it.

* :mod:`~generator.capzbuild.tables` — the field mapping as data;
* :mod:`~generator.capzbuild.reader` — reading a spec while recording what was read;
* :mod:`~generator.capzbuild.managed_cluster`, :mod:`~generator.capzbuild.agent_pool` — the builders;
* :mod:`~generator.capzbuild.patches` — CAPZ's patch strings: parsing and merging.
"""
