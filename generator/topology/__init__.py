"""``capzgen topology plan``: what CAPI's topology controller would make of a Cluster with a
``spec.topology`` and its ClusterClass, computed offline from files (see :mod:`.plan`)."""
