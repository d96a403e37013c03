"""The API server's create admission chain, as far as it changes what is validated.

On a create the API server (1) applies the CRD's structural defaults
(:mod:`.defaults`), (2) calls the mutating webhooks, CAPZ's among them (:mod:`.mutating`), and
applies the CRD defaults again to what they returned, then (3) validates the result against the
schema and its CEL rules, and (4) calls the validating webhooks. capzgen models steps 1 and 2 with
:func:`.chain.admit`: schema, CEL and the CAPZ rules (standing in for step 4) all see the admitted
object, while findings keep pointing at the user's text (a path that exists only after defaulting
is located at its nearest written ancestor).

Reporting what the cluster sets: one informational finding (rule ``admission``) per object, and
only for an object whose schema verdict a default changes: its as-written form fails the schema
and its admitted form passes. The finding names the values that cured the written form's
violations and sits at the first of them (located at its nearest written ancestor). Defaults
that change no verdict (a CAPZ control plane always gets a ``sku`` and a subnet) are not
reported: on a fleet that would be thousands of lines saying nothing. Only the schema verdict is compared (cheap: one
``is_valid`` of the written object, and only for objects defaulting changed); CEL and the CAPZ
rules simply see the admitted values.

Not modelled: other admission plugins, CAPI's own webhooks, the random SSH key CAPZ generates for
an empty ``sshPublicKey``, and defaults inside the ASO resources embedded in
``spec.resources`` (the CAPZ CRDs keep them as unknown fields; ASO's webhooks run when CAPZ
creates them, not at admission of the CAPZ object).

The modules: :mod:`.defaults` (CRD defaults), :mod:`.mutating` (CAPZ's webhooks as a table),
:mod:`.chain` (the order, and the informational finding), :mod:`.parity` (the API server's checks
that JSON Schema cannot say: list-map keys, metadata).
"""
