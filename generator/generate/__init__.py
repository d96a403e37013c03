"""The generate pipeline: a request is rendered (flavor or clusterctl template), transformed,
patched, validated and handed to the output (``generate cluster``, ``generate fleet``,
``generate yaml --list-variables``, ``release``)."""
