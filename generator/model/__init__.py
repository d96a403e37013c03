"""The vocabulary of Kubernetes objects that validation, CEL, kubeconform and migrate share.

* :mod:`generator.model.kinds`: the kinds, groups and annotations capzgen knows by name, and where
  each CAPZ kind embeds ASO resources;
* :mod:`generator.model.values`: defensive accessors for user-supplied values;
* :mod:`generator.model.manifests`: :class:`~generator.model.manifests.ManifestSet`, a set of
  parsed documents indexed once so that graph questions are cheap.

It sits below every checker (the validate engine, its rules, the CEL evaluator, the kubeconform
wrapper) so that none of them has to import another to read a manifest.
"""
