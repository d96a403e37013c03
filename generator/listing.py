"""``--list-variables`` output for ``generate cluster``.

For a ``--from`` template the layout is clusterctl's, byte for byte, so scripts that parse it keep
working. For a flavor, variables are typed, so the listing adds type, default and description.
"""

from __future__ import annotations

import json
from typing import Any

from generator.envsubst import inspect_variables
from generator.envsubst.listing import format_cluster_variable_list
from generator.flavors.catalog import FlavorCatalog
from generator.request import ClusterRequest
from generator.substitution import Inputs

_KUBECONFIG_NAMESPACE = "current Namespace in the KubeConfig file"


def list_cluster_variables(request: ClusterRequest, inputs: Inputs) -> str:
    """``--list-variables``: clusterctl's layout for ``--from`` templates, else a typed table."""
    if request.template_text is not None:
        return _clusterctl_listing(request, inputs)
    return _flavor_listing(request)


def _clusterctl_listing(request: ClusterRequest, inputs: Inputs) -> str:
    assert request.template_text is not None
    env = inputs.environ
    overrides: dict[str, str] = {
        "CLUSTER_NAME": request.name,
        "NAMESPACE": request.target_namespace or _KUBECONFIG_NAMESPACE,
    }
    count = request.worker_machine_count
    overrides["WORKER_MACHINE_COUNT"] = (
        str(count) if count is not None else env.get("WORKER_MACHINE_COUNT", "0")
    )
    overrides["CONTROL_PLANE_MACHINE_COUNT"] = env.get("CONTROL_PLANE_MACHINE_COUNT", "1")
    if request.kubernetes_version:
        overrides["KUBERNETES_VERSION"] = request.kubernetes_version
    elif "KUBERNETES_VERSION" in env:
        overrides["KUBERNETES_VERSION"] = env["KUBERNETES_VERSION"]
    variables = inspect_variables(request.template_text)
    applicable = {k: v for k, v in overrides.items() if k in variables}
    return format_cluster_variable_list(variables, applicable)


def _describe_default(value: Any) -> str:
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "), sort_keys=True)


def _flavor_listing(request: ClusterRequest) -> str:
    flavor = FlavorCatalog(request.flavors_dirs).get(request.flavor or "aks")
    rows = []
    for name, spec in sorted(flavor.variables.items()):
        if spec.required and not spec.has_default:
            default = "(required)"
        elif spec.has_default:
            default = _describe_default(spec.default)
        else:
            default = "(optional)"
        rows.append((name, spec.type, default, spec.description))
    headers = ("VARIABLE", "TYPE", "DEFAULT", "DESCRIPTION")
    widths = [max(len(row[i]) for row in [headers, *rows]) for i in range(3)]
    widths = [min(w, 40) for w in widths]
    lines = [f"Variables of flavor {flavor.name}: {flavor.description}", ""]
    for row in [headers, *rows]:
        cells = [row[i].ljust(widths[i]) for i in range(3)]
        lines.append("  " + "  ".join(cells) + "  " + row[3])
    return "\n".join(lines) + "\n"
