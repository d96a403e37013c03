"""Read the CRDs a management cluster runs, through ``kubectl`` (``schemas import --from-cluster``).

The bundled ASO schemas are older than the ASO a CAPZ release installs (CAPZ v1.26 runs ASO
v2.18); pinning the exact CRDs of the cluster that will receive the manifests is the reliable fix.
Only the groups capzgen validates are fetched: Cluster API (``*.cluster.x-k8s.io``, which covers
CAPZ's ``infrastructure.cluster.x-k8s.io``) and ASO (``*.azure.com``). A cluster with ASO
installed for every resource type holds hundreds of large CRDs, so names are listed first and the
CRDs fetched in batches, each batch's output spooled to a temporary file and size-checked before
it is read.
"""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from generator.errors import InputOutputError
from generator.schemastore.loading import SourceBytes

GROUP_SUFFIXES = (".cluster.x-k8s.io", ".azure.com")
BATCH_SIZE = 10
MAX_OUTPUT_BYTES = 256 * 1024 * 1024  # one batch of CRDs; ASO's largest are a few MiB each
_CRD_PREFIX = "customresourcedefinition.apiextensions.k8s.io/"
_PIPE_HINT = "or pipe the CRDs in yourself: kubectl get crds -o yaml | capzgen schemas import -"


@dataclass(frozen=True, slots=True)
class KubectlSettings:
    """How to reach the cluster: the kubectl binary, its context and kubeconfig, a timeout per
    call, and the environment kubectl runs in (the CLI passes the user's)."""

    env: Mapping[str, str]
    kubectl: str = "kubectl"
    context: str | None = None
    kubeconfig: str | None = None
    timeout: float = 60.0

    def describe(self) -> str:
        """The cluster for messages: the named context, or the current one."""
        return f"the cluster of context {self.context}" if self.context else "the current cluster"

    def base_args(self) -> list[str]:
        """``kubectl`` plus ``--kubeconfig`` and ``--context`` when set; calls append their own."""
        args = [self.kubectl]
        if self.kubeconfig:
            args += ["--kubeconfig", self.kubeconfig]
        if self.context:
            args += ["--context", self.context]
        return args


def wanted(crd_name: str) -> bool:
    """A CRD name is ``<plural>.<group>``: keep Cluster API, CAPZ and ASO groups."""
    return crd_name.endswith(GROUP_SUFFIXES)


def fetch_cluster_crds(
    settings: KubectlSettings, batch_size: int = BATCH_SIZE
) -> list[SourceBytes]:
    """The wanted CRDs of the cluster, as ``List`` documents in JSON (one per ``batch_size``
    CRDs: one call per CRD is slow, all in one call can exceed what kubectl returns at once)."""
    listing = _run(settings, ["get", "crd", "-o", "name"]).decode("utf-8", errors="replace")
    names = sorted(
        line.strip().removeprefix(_CRD_PREFIX)
        for line in listing.splitlines()
        if line.strip() and wanted(line.strip().removeprefix(_CRD_PREFIX))
    )
    if not names:
        msg = f"{settings.describe()} has no Cluster API, CAPZ or ASO CustomResourceDefinitions"
        raise InputOutputError(
            msg,
            hint="check --context; are CAPI, CAPZ and ASO installed there?",
        )
    batches = [names[i : i + batch_size] for i in range(0, len(names), batch_size)]
    origin = f"kubectl ({settings.describe()})"
    return [
        SourceBytes(name=origin, data=_run(settings, ["get", "crd", *batch, "-o", "json"]))
        for batch in batches
    ]


def _run(settings: KubectlSettings, args: Sequence[str]) -> bytes:
    """kubectl's stdout; every way it can fail becomes one clear error (exit 2)."""
    argv = [*settings.base_args(), *args]
    command = " ".join(["kubectl", *args[:3]])
    with tempfile.TemporaryFile() as out:
        try:
            done = subprocess.run(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.PIPE,
                env=dict(settings.env),
                timeout=settings.timeout,
                check=False,
            )
        except FileNotFoundError as error:
            msg = f"cannot run {settings.kubectl!r}: not found on PATH"
            raise InputOutputError(
                msg,
                hint=f"install kubectl, {_PIPE_HINT}",
            ) from error
        except PermissionError as error:
            msg = f"cannot run {settings.kubectl!r}: permission denied"
            raise InputOutputError(msg, hint=_PIPE_HINT) from error
        except subprocess.TimeoutExpired as error:
            msg = f"`{command}` did not finish within {settings.timeout:g} s"
            raise InputOutputError(
                msg,
                hint=f"is {settings.describe()} reachable? Raise --timeout, {_PIPE_HINT}",
            ) from error
        if done.returncode != 0:
            stderr = done.stderr.decode("utf-8", errors="replace").strip().splitlines()
            raise InputOutputError(
                f"`{command}` failed with exit code {done.returncode}"
                + (f": {stderr[-1][:500]}" if stderr else ""),
                details=[line[:500] for line in stderr[-6:-1]],
                hint=f"check --context and --kubeconfig, {_PIPE_HINT}",
            )
        size = out.tell()
        if size > MAX_OUTPUT_BYTES:
            msg = (
                f"`{command}` printed {size:,} bytes, more than the {MAX_OUTPUT_BYTES:,} "
                "capzgen reads in one batch"
            )
            raise InputOutputError(
                msg,
                hint=_PIPE_HINT,
            )
        out.seek(0)
        return out.read()
