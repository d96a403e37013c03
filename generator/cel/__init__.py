"""CEL validation rules (``x-kubernetes-validations``): what kubeconform ignores and the API server
enforces, within the API server's cost limits.

* :mod:`generator.cel.rules`: the rule model and the static analysis (evaluable / unsupported /
  transition);
* :mod:`generator.cel.tree`: the pruned rule tree of a schema, built without any CEL machinery;
* :mod:`generator.cel.validate`: evaluation over a manifest set (findings with rule and origin
  ``cel``; ``cel-cost`` from :mod:`generator.cel.cost_findings`);
* :mod:`generator.cel.prepare`: a schema's rules parsed (:mod:`generator.cel.astcache` keeps the
  trees between runs), analysed and estimated when the first of them is evaluated;
* :mod:`generator.cel.limits`, :mod:`generator.cel.charges`, :mod:`generator.cel.shapes`,
  :mod:`generator.cel.cost`: the API server's limits, cel-go's charges, the sizes a schema allows
  and the worst-case estimate built on them;
* :mod:`generator.cel.runtime`, :mod:`generator.cel.metered`: the cel-python parser, value
  conversion, and the evaluator that charges cel-go's costs on a meter;
* :mod:`generator.cel.extensions`: the Kubernetes library functions implemented on top of
  cel-python;
* :mod:`generator.cel.inventory`: every rule of the store with its estimated cost, for
  ``capzgen schemas list --cel``.

Importing this package is cheap, and so are ``tree`` and ``validate``: cel-python (~60 ms of
start-up with its parser) loads only when a rule is about to be evaluated.
"""
