"""clusterctl's half of capzgen: ``${VAR}`` variables and their sources (flags, environment,
clusterctl's config file), substitution with clusterctl's semantics, provider repositories and
remote templates. Below ``flavors``: a flavor's values are clusterctl variables."""
