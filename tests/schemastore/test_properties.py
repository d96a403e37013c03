"""Property: every violation path points at a place that exists in the validated object.

The validator turns paths into line numbers; a path that does not exist in the document would land
nowhere. Random objects are validated against a real converted CRD (CAPZ AzureASOManagedCluster).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.schemastore.compiler import compile_schema
from generator.schemastore.crd import convert_documents
from generator.schemastore.loading import SourceBytes, parse_documents
from generator.schemastore.violations import violations

scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.sampled_from(["", "x", "3"]))
keys = st.sampled_from(["resources", "controlPlaneEndpoint", "host", "port", "name", "bogus"])
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3),
    max_leaves=12,
)


def exists(obj: Any, path: tuple[Any, ...]) -> bool:
    for part in path:
        in_map = isinstance(obj, dict) and isinstance(part, str) and part in obj
        in_list = isinstance(obj, list) and isinstance(part, int) and 0 <= part < len(obj)
        if not (in_map or in_list):
            return False
        obj = obj[part]
    return True


@functools.cache
def validator(shared_dir: Path) -> Any:
    path = (
        shared_dir
        / "crds/capz-v1.26.0/infrastructure.cluster.x-k8s.io_azureasomanagedclusters.yaml"
    )
    converted = convert_documents(parse_documents(SourceBytes.read(path)))
    schema = next(c.schema for c in converted if c.gvk.version == "v1beta1")
    return compile_schema(schema, source=str(path))


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(spec=values, status=values)
def test_violation_paths_exist_in_the_object(shared_dir: Path, spec: Any, status: Any) -> None:
    obj = {
        "apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1",
        "kind": "AzureASOManagedCluster",
        "metadata": {"name": "c"},
        "spec": spec,
        "status": status,
    }
    for violation in violations(validator(shared_dir).iter_errors(obj)):
        assert exists(obj, violation.path), violation
        assert violation.message and "\n" not in violation.message
