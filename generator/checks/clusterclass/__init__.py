"""ClusterClass patches, checked the way CAPI's topology controller would apply them.

CAPI renders each inline patch of a ClusterClass (``spec.patches[].definitions[].jsonPatches[]``)
for every template its selector matches, with the ClusterClass variables and the ``builtin``
values of one Cluster, and applies the resulting RFC 6902 operations to that template. Here the
values are placeholders (:mod:`.placeholders`), the ``valueFrom.template`` text is rendered by a
small, documented subset of Go's ``text/template`` (:mod:`.gotemplate`, :mod:`.goeval`), the
operations are applied with :mod:`generator.jsonpatch`, and the patched templates are handed back
to the validator's own checks (:mod:`.patches`). Findings name the ClusterClass, the patch and the
definition; anything the subset cannot render is a warning saying what was not checked.
"""
