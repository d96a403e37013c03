"""A stand-in for the kubeconform binary, installed on PATH by the tests (never imported).

It behaves like ``kubeconform -strict -summary -output json -schema-location TPL FILE|DIR...``
(multi-document streams, or folders of them) as far as
capzgen relies on it: it resolves each document's schema through the template exactly as
kubeconform does (``.Group`` = first part of apiVersion, ``.ResourceKind`` lower-cased,
``.ResourceAPIVersion`` = last part), validates with the ``jsonschema`` package and prints the
JSON report with ``validationErrors``. ``FAKE_KUBECONFORM_MODE`` selects a misbehaviour instead:

    check      the behaviour above (default)
    oldformat  as check, but without validationErrors (only kubeconform 0.6's msg)
    crash      a panic on stderr, exit status 2, nothing on stdout
    sleep      starts a child that sleeps, then sleeps itself (for the timeout)
    garbage    prints text that is not JSON, exit status 0
    badjson    prints JSON that is not kubeconform's report, exit status 1
    passthrough  prints its arguments and how many schema files the first -schema-location
               holds; exit status from FAKE_KUBECONFORM_EXIT

Every invocation appends its arguments as one JSON line to ``FAKE_KUBECONFORM_LOG`` if set,
and its ``GOMAXPROCS`` and ``GOGC`` as one line to ``FAKE_KUBECONFORM_GOMAXPROCS_LOG`` if set.
"""

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any


def main(argv: list[str]) -> int:
    log = os.environ.get("FAKE_KUBECONFORM_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(argv) + "\n")
    threads = os.environ.get("FAKE_KUBECONFORM_GOMAXPROCS_LOG")
    if threads:
        with open(threads, "a", encoding="utf-8") as handle:
            settings = (os.environ.get(name, "unset") for name in ("GOMAXPROCS", "GOGC"))
            handle.write(" ".join(settings) + "\n")
    mode = os.environ.get("FAKE_KUBECONFORM_MODE", "check")
    if mode == "passthrough":
        print("fake kubeconform:", " ".join(argv))
        if "-schema-location" in argv:
            root = argv[argv.index("-schema-location") + 1].split("{{")[0]
            print("schemas:", sum(len(files) for _, _, files in os.walk(root)))
        return int(os.environ.get("FAKE_KUBECONFORM_EXIT", "0"))
    if mode == "crash":
        sys.stderr.write("panic: runtime error: invalid memory address\n")
        return 2
    if mode == "sleep":
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        time.sleep(60)
        return 0
    if mode == "garbage":
        print("Summary: this is not JSON at all")
        return 0
    if mode == "badjson":
        print(json.dumps({"results": "nope"}))
        return 1
    return check(argv, old_format=mode == "oldformat")


def check(argv: list[str], old_format: bool) -> int:
    if "-strict" not in argv or argv[argv.index("-output") + 1] != "json" or "default" in argv:
        sys.stderr.write(f"fake kubeconform: unexpected arguments {argv}\n")
        return 99
    template = argv[argv.index("-schema-location") + 1]
    targets = [Path(arg) for arg in argv[argv.index("-schema-location") + 2 :]]
    import jsonschema

    resources: list[dict[str, Any]] = []
    counts = {"valid": 0, "invalid": 0, "errors": 0, "skipped": 0}
    paths = [
        path
        for target in targets
        for path in (sorted(target.iterdir()) if target.is_dir() else [target])
    ]
    docs = read_documents(paths, resources, counts)
    for path, doc in docs:
        api_version, kind = doc.get("apiVersion", ""), doc.get("kind", "")
        meta = doc.get("metadata") or {}
        name = meta.get("name", "")
        if meta.get("generateName"):
            name = meta["generateName"] + "{{ generateName }}"
        result = {"filename": str(path), "kind": kind, "name": name, "version": api_version}
        if not kind or not api_version:
            counts["errors"] += 1
            missing = "kind" if not kind else "apiVersion"
            resources.append({**result, "status": "statusError", "msg": f"missing '{missing}' key"})
            continue
        parts = api_version.split("/")
        schema_file = (
            template.replace("{{ .Group }}", parts[0])
            .replace("{{ .ResourceKind }}", kind.lower())
            .replace("{{ .ResourceAPIVersion }}", parts[-1])
        )
        if not os.path.isfile(schema_file):
            counts["errors"] += 1
            resources.append(
                {**result, "status": "statusError", "msg": f"could not find schema for {kind}"}
            )
            continue
        schema = json.loads(Path(schema_file).read_text(encoding="utf-8"))
        if "x-fake-unusable" in schema:
            counts["errors"] += 1
            resources.append(
                {**result, "status": "statusError", "msg": f"could not find schema for {kind}"}
            )
            continue
        errors = sorted(
            jsonschema.Draft202012Validator(schema).iter_errors(doc),
            key=lambda e: list(e.absolute_path),
        )
        if not errors:
            counts["valid"] += 1
            continue
        counts["invalid"] += 1
        pointers = ["/" + "/".join(str(p) for p in e.absolute_path) for e in errors]
        msg = (
            "problem validating schema. Check JSON formatting: jsonschema: "
            f"'{pointers[0] if pointers[0] != '/' else ''}' does not validate with "
            f"file://{schema_file}#/x: {errors[0].message}"
        )
        entry = {**result, "status": "statusInvalid", "msg": msg}
        if not old_format:
            entry["validationErrors"] = [
                {"path": pointer if pointer != "/" else "", "msg": e.message}
                for pointer, e in zip(pointers, errors, strict=True)
            ]
        resources.append(entry)
    print(json.dumps({"resources": resources, "summary": counts}, indent=2))
    return 1 if counts["invalid"] or counts["errors"] else 0


def read_documents(
    paths: list[Path], resources: list[dict[str, Any]], counts: dict[str, int]
) -> list[tuple[Path, Any]]:
    """(path, document) of every file; a file YAML cannot read is one statusError."""
    import yaml

    docs: list[tuple[Path, Any]] = []
    for path in paths:
        try:
            docs.extend(
                (path, doc)
                for doc in yaml.safe_load_all(path.read_text(encoding="utf-8"))
                if doc is not None
            )
        except yaml.YAMLError as error:
            counts["errors"] += 1
            resources.append(
                {
                    "filename": str(path),
                    "kind": "",
                    "name": "",
                    "version": "",
                    "status": "statusError",
                    "msg": f"error unmarshalling resource: {error}",
                }
            )
    return docs


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
