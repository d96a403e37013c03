"""CEL validation rules (``x-kubernetes-validations``): what kubeconform ignores and the API server
enforces.

* :mod:`generator.cel.rules`: the rule model and the static analysis (evaluable / unsupported /
  transition);
* :mod:`generator.cel.extensions`: the Kubernetes library functions implemented on top of
  cel-python;
* :mod:`generator.cel.runtime`: the cel-python environment, compiled programs, value conversion;
* :mod:`generator.cel.tree`: the pruned rule tree of a schema;
* :mod:`generator.cel.validate`: evaluation over a manifest set (findings with rule and origin
  ``cel``);
* :mod:`generator.cel.inventory`: every rule of the store, for ``capzgen schemas list --cel``.

Importing this package is cheap: the modules above load cel-python (~40 ms of start-up with them),
so callers import the one they need when a rule is first analysed or evaluated.
"""
