"""The result cache: clean verdicts of parts and of kubeconform, keyed by what was validated."""
