"""A stand-in for ``kubectl`` in tests: ``get crd -o name`` and ``get crd NAME... -o json``.

Behaviour comes from the environment: FAKE_KUBECTL_CRDS is a folder of CRD JSON files (one CRD
each, named after the CRD); FAKE_KUBECTL_MODE is ok, fail, hang or garbage; every call's argv is
appended to FAKE_KUBECTL_LOG as one JSON line.
"""

import json
import os
import sys
import time
from pathlib import Path

args = sys.argv[1:]
with open(os.environ["FAKE_KUBECTL_LOG"], "a", encoding="utf-8") as log:
    log.write(json.dumps(args) + "\n")
mode = os.environ.get("FAKE_KUBECTL_MODE", "ok")
if mode == "fail":
    print('error: context "nope" does not exist', file=sys.stderr)
    sys.exit(1)
if mode == "hang":
    time.sleep(30)
# Drop the connection flags kubectl takes before the verb.
while args and args[0] in ("--context", "--kubeconfig"):
    args = args[2:]
crds = {
    p.stem: json.loads(p.read_text()) for p in Path(os.environ["FAKE_KUBECTL_CRDS"]).glob("*.json")
}
if args[:4] == ["get", "crd", "-o", "name"]:
    for name in sorted(crds):
        print(f"customresourcedefinition.apiextensions.k8s.io/{name}")
    sys.exit(0)
if args[:2] == ["get", "crd"] and args[-2:] == ["-o", "json"]:
    if mode == "garbage":
        print("{not json")
        sys.exit(0)
    names = args[2:-2]
    missing = [n for n in names if n not in crds]
    if missing:
        print(
            f'Error from server (NotFound): customresourcedefinitions "{missing[0]}" not found',
            file=sys.stderr,
        )
        sys.exit(1)
    print(json.dumps({"apiVersion": "v1", "kind": "List", "items": [crds[n] for n in names]}))
    sys.exit(0)
print(f"fake kubectl: unexpected arguments {args}", file=sys.stderr)
sys.exit(2)
