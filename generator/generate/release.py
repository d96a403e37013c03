"""``capzgen release``: every flavor as a clusterctl provider repository / overrides folder.

Layout (clusterctl reference §12): ``<output>/infrastructure-<provider>/<version>/`` holding

* ``cluster-template-<flavor>.yaml`` for every flavor: the Jinja templates rendered with
  :func:`generator.flavors.render.placeholder_values` - scalar variables stay clusterctl
  ``${NAME}`` / ``${NAME:=default}`` placeholders that users set at generate time, structural ones
  (lists, maps, switches) are rendered with their defaults;
* ``clusterclass-<class>.yaml`` for every flavor that renders a ClusterClass: the class and the
  templates it references, split out of that flavor's rendering with the class name fixed
  (see :func:`class_name` for why), so that ``clusterctl generate cluster --flavor <topology
  flavor>`` with ``CLUSTER_CLASS_NAME=<class>`` finds it;
* ``metadata.yaml``: clusterctl's ``Metadata`` with one release series for the version.

No ``infrastructure-components.yaml`` is written: ``clusterctl generate cluster`` never reads the
components file (§12.4) and the override folder holds only the files it replaces (§12.3); a local
repository used for ``clusterctl init`` needs CAPZ's real components there, which capzgen does not
produce.

Everything is built in memory first; :func:`write_release` writes only a complete release, and
switches it in all at once.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from generator.envsubst import inspect_variables
from generator.errors import CapzgenError, FlavorError, InputOutputError, Location, UsageError
from generator.flavors.catalog import FlavorCatalog
from generator.flavors.model import Flavor
from generator.flavors.render import placeholder_values, render_flavor
from generator.jsontypes import Json, JsonObject
from generator.names import is_dns1123_label, release_version
from generator.output.staging import open_transaction
from generator.schemastore.compiler import compile_schema
from generator.yamlio.load import load_value

_PLACEHOLDER = re.compile(r"^\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?[=-][^}]*)?\}$")
_SEPARATOR = re.compile(r"^---[ \t]*$", re.MULTILINE)

# CAPZ v1.26.0 implements the CAPI provider contract v1beta1 (reference §0). clusterctl v1.13
# (contract v1beta2) accepts providers of contract v1beta1: its GetCompatibleVersions treats v1beta1
# as compatible with v1beta2 until v1beta1's end of life. "latest" resolution looks for a v1beta2
# series and keeps the newest release when there is none.
DEFAULT_CONTRACT = "v1beta1"
CONTRACTS = ("v1beta1", "v1beta2")
METADATA_FILE = "metadata.yaml"
# clusterctl sets CLUSTER_NAME to the Cluster being generated; a class file processed with it would
# name the class's templates after whichever Cluster pulled the class in first.
CLUSTER_NAME_VARIABLE = "CLUSTER_NAME"


@dataclass(frozen=True)
class ReleaseRequest:
    """What ``capzgen release`` exports: version (``v`` + semver), provider name, flavor folders and
    the contract written to ``metadata.yaml``."""

    version: str
    provider_name: str = "aks"
    flavors_dirs: Sequence[Path] = ()
    contract: str = DEFAULT_CONTRACT


@dataclass(frozen=True)
class ReleaseFile:
    """One file of the release folder, by name (no directory part)."""

    name: str
    text: str


@dataclass
class Release:
    """A complete release in memory: files sorted by name, and the ClusterClass of each flavor."""

    label: str  # provider label, e.g. infrastructure-aks
    version: str
    files: list[ReleaseFile] = field(default_factory=list)
    # flavor -> (ClusterClass name, variable holding the class name in the flavor, or None)
    classes: dict[str, tuple[str, str | None]] = field(default_factory=dict)

    @property
    def directory(self) -> Path:
        """``infrastructure-<provider>/<version>``: the release folder inside the output folder."""
        return Path(self.label) / self.version

    def file(self, name: str) -> ReleaseFile:
        """The file called ``name``; raises StopIteration if there is none."""
        return next(f for f in self.files if f.name == name)


def check_request(request: ReleaseRequest) -> None:
    """Raise :class:`UsageError` for a version, provider name or contract clusterctl rejects."""
    # `v` + semantic version: clusterctl resolves release tags as "v" + semver (reference §12.2).
    if release_version(request.version) is None:
        msg = f"invalid --version {request.version!r}: use v + a semantic version, e.g. v0.3.0"
        raise UsageError(
            msg,
            hint="clusterctl resolves release directories as 'v' + semver",
        )
    if not is_dns1123_label(request.provider_name):
        msg = f"invalid --provider-name {request.provider_name!r}: must be a lower-case DNS-1123 label"
        raise UsageError(msg)
    if request.contract not in CONTRACTS:
        msg = f"invalid --contract {request.contract!r}: one of {', '.join(CONTRACTS)}"
        raise UsageError(msg)


def build_release(request: ReleaseRequest) -> Release:
    """Render every flavor; raises one FlavorError naming every flavor that failed."""
    check_request(request)
    catalog = FlavorCatalog(request.flavors_dirs)
    release = Release(label=f"infrastructure-{request.provider_name}", version=request.version)
    failures: list[str] = []
    class_files: dict[str, str] = {}
    for name in catalog.names():
        try:
            flavor = catalog.get(name)
            search_path = catalog.template_search_path(flavor)
            text = export_template(flavor, search_path)
            release.files.append(ReleaseFile(f"cluster-template-{name}.yaml", text))
            exported = export_class(flavor, search_path, text)
            if exported is not None:
                class_name, variable, class_text = exported
                if class_name in class_files:
                    msg = f"ClusterClass {class_name!r} is also defined by flavor {class_files[class_name]!r}"
                    raise FlavorError(msg)
                class_files[class_name] = name
                release.classes[name] = (class_name, variable)
                release.files.append(ReleaseFile(f"clusterclass-{class_name}.yaml", class_text))
        except CapzgenError as error:
            failures.append(f"{name}: {error}")
            failures.extend(f"  {detail}" for detail in error.details)
    if failures:
        msg = f"{len(failures)} flavor{'s' if len(failures) != 1 else ''} could not be exported; nothing was written"
        raise FlavorError(
            msg,
            details=failures,
        )
    release.files.append(ReleaseFile(METADATA_FILE, metadata_text(request)))
    release.files.sort(key=lambda f: f.name)
    return release


def export_template(flavor: Flavor, search_path: Sequence[Path]) -> str:
    """The flavor as a clusterctl template, checked to be one clusterctl can parse."""
    return _checked(flavor, render_flavor(flavor, placeholder_values(flavor), search_path))


def _checked(flavor: Flavor, text: str) -> str:
    """Fail unless clusterctl's variable parser accepts the text and every ``${VAR}`` in it is a
    variable the flavor declares (a stray placeholder would be a variable users cannot discover)."""
    try:
        variables = inspect_variables(text)
    except CapzgenError as error:
        msg = f"the exported template is not valid for clusterctl: {error.message}"
        raise FlavorError(
            msg,
            location=Location(file=str(flavor.directory)),
        ) from error
    unknown = sorted(set(variables) - set(flavor.variables))
    if unknown:
        msg = f"the exported template uses undeclared variables: {', '.join(unknown)}"
        raise FlavorError(
            msg,
            location=Location(file=str(flavor.directory)),
        )
    return text


# --- ClusterClass files --------------------------------------------------------------------------


def split_documents(text: str) -> list[str]:
    """The documents of rendered text, each as written (no re-serialisation)."""
    parts = _SEPARATOR.split(text)
    return [part.strip("\n") + "\n" for part in parts if part.strip()]


def _load(document: str) -> Json:
    """A rendered document through the bounded loader (a user flavor renders this text)."""
    return load_value(document, source="<rendered>")


def class_name(flavor: Flavor, placeholder_name: str) -> tuple[str, str | None]:
    """The fixed name of a flavor's ClusterClass, and the variable it replaces (if any).

    clusterctl finds a class by the *value* of ``spec.topology.class`` after substitution and reads
    ``clusterclass-<that value>.yaml`` (reference §10), so a file named after a placeholder could
    never be found: the class file gets a concrete name. It is the flavor's ``clusterclass``
    metadata, else the flavor's name; a topology Cluster uses it by setting the class variable
    (``CLUSTER_CLASS_NAME``) to that name.
    """
    match = _PLACEHOLDER.match(placeholder_name)
    variable = match.group(1) if match else None
    if variable is None:
        return placeholder_name, None  # a literal class name is kept
    return flavor.clusterclass or flavor.name, variable


def export_class(
    flavor: Flavor, search_path: Sequence[Path], template: str
) -> tuple[str, str | None, str] | None:
    """``(class name, class variable, file text)`` for a flavor that renders a ClusterClass.

    The flavor is rendered again with the class variable (and ``CLUSTER_NAME``, which prefixes the
    class's template names) fixed to the class name, so the file does not depend on the Cluster
    clusterctl is generating; the ClusterClass documents and the templates they reference are kept.
    """
    classes = [doc for doc in map(_load, split_documents(template)) if _is_class(doc)]
    if not classes:
        return None
    if len(classes) > 1:
        msg = "the flavor renders more than one ClusterClass; release writes one class file per flavor"
        raise FlavorError(
            msg,
            location=Location(file=str(flavor.directory)),
        )
    raw_name = str(classes[0]["metadata"]["name"])
    name, variable = class_name(flavor, raw_name)
    fixed: JsonObject = {}
    if variable is not None:
        fixed[variable] = name
    if CLUSTER_NAME_VARIABLE in flavor.variables:
        fixed[CLUSTER_NAME_VARIABLE] = name
    _check_fixed(flavor, fixed)
    values = {**placeholder_values(flavor), **fixed}
    documents = split_documents(_checked(flavor, render_flavor(flavor, values, search_path)))
    parsed = [_load(doc) for doc in documents]
    wanted = set()
    for obj in parsed:
        if _is_class(obj):
            wanted |= _references(obj)
    kept = [
        doc
        for doc, obj in zip(documents, parsed, strict=True)
        if _is_class(obj) or (_kind_name(obj) in wanted)
    ]
    return name, variable, "---\n".join(kept)


def _check_fixed(flavor: Flavor, fixed: Mapping[str, Json]) -> None:
    for variable, value in fixed.items():
        spec = flavor.variables.get(variable)
        if spec is None:
            continue
        validator = compile_schema(
            json.loads(json.dumps(spec.schema)),
            source=str(flavor.directory / "flavor.yaml"),
            ecma_patterns=True,
        )
        problems = [error.message for error in validator.iter_errors(value)]
        if problems:
            msg = (
                f"the ClusterClass name {value!r} is not a valid {variable}: {'; '.join(problems)}"
            )
            raise FlavorError(
                msg,
                location=Location(file=str(flavor.directory)),
                hint="set `clusterclass:` in the flavor's metadata to a name the variable accepts",
            )


def _is_class(obj: Json) -> bool:
    return (
        isinstance(obj, dict)
        and obj.get("kind") == "ClusterClass"
        and str(obj.get("apiVersion", "")).startswith("cluster.x-k8s.io/")
    )


def _kind_name(obj: Json) -> tuple[str, str] | None:
    if not isinstance(obj, dict) or not isinstance(obj.get("metadata"), dict):
        return None
    return str(obj.get("kind")), str(obj["metadata"].get("name"))


def _references(node: Json) -> set[tuple[str, str] | None]:
    """``(kind, name)`` of every object reference (v1beta1 ``ref`` / v1beta2 ``templateRef``)."""
    found: set[tuple[str, str] | None] = set()
    if isinstance(node, dict):
        if (
            isinstance(node.get("kind"), str)
            and isinstance(node.get("name"), str)
            and ("apiVersion" in node or "apiGroup" in node)
        ):
            found.add((node["kind"], node["name"]))
        for value in node.values():
            found |= _references(value)
    elif isinstance(node, list):
        for item in node:
            found |= _references(item)
    return found


# --- metadata.yaml -------------------------------------------------------------------------------


def metadata_text(request: ReleaseRequest) -> str:
    """``metadata.yaml``: one release series (the version's major.minor) for the contract."""
    version = release_version(request.version)
    assert version is not None
    major, minor, _patch = version
    return (
        f"# clusterctl provider metadata of infrastructure-{request.provider_name} {request.version}:\n"
        "# cluster templates for CAPZ v1.26.0 (which implements contract v1beta1), by capzgen release.\n"
        "apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\n"
        "kind: Metadata\n"
        "releaseSeries:\n"
        f"- contract: {request.contract}\n"
        f"  major: {major}\n"
        f"  minor: {minor}\n"
    )


# --- writing ---------------------------------------------------------------------------------------


def write_release(release: Release, output_dir: Path) -> list[Path]:
    """Write the release below ``output_dir``, all at once (:mod:`generator.output.staging`); returns
    the release's paths.

    A new version folder is staged whole and renamed into place; in an existing one the changed
    files are switched in together and unchanged ones are left alone (their modification times
    stay). Files of the folder that this release does not write are left alone.
    """
    target = output_dir / release.directory
    with open_transaction(output_dir, subfolders=[target]) as transaction:
        if os.path.lexists(target) and not target.is_dir():
            msg = "exists and is not a folder"
            raise InputOutputError(msg, location=Location(file=str(target)))
        for item in release.files:
            path = target / item.name
            data = item.text.encode("utf-8")
            if _current_bytes(path) != data:
                transaction.write(path, data)
        transaction.commit()
        _remove_legacy_staging(release, output_dir)
    return [target / item.name for item in release.files]


def _current_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None  # the transaction reports a folder in the way
    except OSError as exc:
        msg = f"cannot read: {exc.strerror or exc}"
        raise InputOutputError(msg, location=Location(file=str(path))) from exc


def _remove_legacy_staging(release: Release, output_dir: Path) -> None:
    """Remove ``.<version>.XXXXXXXX`` folders that killed runs of the earlier release writer left
    next to the version folder (its ``tempfile.mkdtemp`` staging)."""
    parent = output_dir / release.label
    pattern = re.compile(rf"^\.{re.escape(release.version)}\.[a-z0-9_]{{8}}$")
    try:
        stray = [p for p in parent.iterdir() if pattern.match(p.name) and p.is_dir()]
    except OSError:
        return
    for path in stray:
        shutil.rmtree(path, ignore_errors=True)


def stale_files(release: Release, output_dir: Path) -> list[Path]:
    """Templates in the version folder that this release did not write (clusterctl would serve them)."""
    target = output_dir / release.directory
    names = {item.name for item in release.files}
    if not target.is_dir():
        return []
    return sorted(
        path
        for path in target.iterdir()
        if path.name not in names
        and path.suffix == ".yaml"
        and path.name.startswith(("cluster-template", "clusterclass-"))
    )
