"""``--list-variables`` output for ``generate cluster``, in clusterctl's layout.

For a ``--from`` template the output is clusterctl's, byte for byte, so scripts that parse it keep
working. A flavor's declared variables are listed in the same layout, honouring the values the run
supplies (see :func:`_flavor_listing`); ``capzgen flavors show`` gives types and descriptions.
"""

from __future__ import annotations

import json

from generator.clusterctl.substitution import Inputs
from generator.envsubst import inspect_variables
from generator.envsubst.listing import format_cluster_variable_list
from generator.envsubst.quote import go_quote
from generator.flavors.catalog import FlavorCatalog
from generator.generate.pipeline import build_store, check_special_flags
from generator.generate.request import DEFAULT_FLAVOR, ClusterRequest
from generator.jsontypes import Json

_KUBECONFIG_NAMESPACE = "current Namespace in the KubeConfig file"


def list_cluster_variables(request: ClusterRequest, inputs: Inputs) -> str:
    """``--list-variables``: clusterctl's layout for ``--from`` templates, else a typed table."""
    if request.template_text is not None:
        return _clusterctl_listing(request, inputs)
    return _flavor_listing(request, inputs)


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
    control_plane = request.control_plane_machine_count
    overrides["CONTROL_PLANE_MACHINE_COUNT"] = (
        str(control_plane)
        if control_plane is not None
        else env.get("CONTROL_PLANE_MACHINE_COUNT", "1")
    )
    if request.kubernetes_version:
        overrides["KUBERNETES_VERSION"] = request.kubernetes_version
    elif "KUBERNETES_VERSION" in env:
        overrides["KUBERNETES_VERSION"] = env["KUBERNETES_VERSION"]
    variables = inspect_variables(request.template_text)
    applicable = {k: v for k, v in overrides.items() if k in variables}
    return format_cluster_variable_list(variables, applicable)


def _structured(value: Json) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "), sort_keys=True)


def _given(value: Json) -> str:
    """A value the run supplies, shown unquoted as clusterctl shows the values it injects
    (Go-quoted only when it holds a character that would break the line)."""
    if isinstance(value, str):
        return value if value.isprintable() else go_quote(value)
    return _structured(value)


def _declared_default(value: Json) -> str:
    """A flavor's default, Go-quoted like a template default when it is text."""
    return go_quote(value) if isinstance(value, str) else _structured(value)


def _flavor_listing(request: ClusterRequest, inputs: Inputs) -> str:
    """clusterctl's layout for a flavor's declared variables.

    Values the run already supplies (NAME, flags, ``--var``, ``--values``, the environment, the
    clusterctl config file) count, as they do when rendering: such a variable is optional and
    shows that value. Otherwise a declared default is shown; a required variable with neither is
    required. (clusterctl consults the environment only for its special variables.)
    """
    flavor = FlavorCatalog(request.flavors_dirs).get(request.flavor or DEFAULT_FLAVOR)
    check_special_flags(request)
    store = build_store(request, inputs)
    shown: dict[str, str] = {}
    for name, spec in flavor.variables.items():
        resolved = store.resolve(name)
        if resolved is not None:
            shown[name] = _given(resolved.value)
        elif spec.has_default:
            shown[name] = _declared_default(spec.default)
        elif not spec.required:
            shown[name] = "<unset>"
    return format_cluster_variable_list(dict.fromkeys(flavor.variables, ""), shown)
