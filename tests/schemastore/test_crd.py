"""Reading CRD manifests: served versions, multi-document YAML, List wrappers, JSON, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from generator.errors import SchemaStoreError, YamlError
from generator.schemastore.crd import CrdError, convert_crd, convert_documents
from generator.schemastore.loading import SourceBytes, parse_documents
from generator.schemastore.store import SchemaStore
from generator.schemastore.types import GroupVersionKind
from tests.schemastore.conftest import StoreFactory
from tests.schemastore.helpers import make_crd, spec_schema, write_yaml

V1_SPEC = {"type": "object", "properties": {"old": {"type": "string"}}}
V2_SPEC = {"type": "object", "properties": {"new": {"type": "string"}}}


def versioned_crd() -> dict[str, object]:
    return make_crd(
        versions=[("v1alpha1", False), ("v1beta1", True), ("v1", True)],
        schemas={
            "v1alpha1": spec_schema(V1_SPEC),
            "v1beta1": spec_schema(V1_SPEC),
            "v1": spec_schema(V2_SPEC),
        },
    )


def test_every_served_version_and_only_those(store_for: StoreFactory) -> None:
    store = store_for(versioned_crd())
    assert store.lookup("example.com/v1alpha1", "Widget") is None
    beta = store.lookup("example.com/v1beta1", "Widget")
    ga = store.lookup("example.com/v1", "Widget")
    assert beta is not None and ga is not None
    assert beta.is_valid(
        {"apiVersion": "example.com/v1beta1", "kind": "Widget", "spec": {"old": "x"}}
    )
    assert not ga.is_valid({"apiVersion": "example.com/v1", "kind": "Widget", "spec": {"old": "x"}})
    assert ga.gvk == GroupVersionKind("example.com", "v1", "Widget")


def test_kind_is_case_sensitive_for_crds(store_for: StoreFactory) -> None:
    store = store_for(make_crd())
    assert store.lookup("example.com/v1", "Widget") is not None
    assert store.lookup("example.com/v1", "widget") is None


def test_multi_document_file_with_other_objects(tmp_path: Path) -> None:
    path = write_yaml(
        tmp_path / "mixed.yaml",
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "x"}},
        make_crd(kind="Widget"),
        make_crd(kind="Gadget", group="other.io"),
    )
    # An empty document between two CRDs (as `kubectl get -o yaml` concatenations have).
    text = path.read_text()
    cut = text.index("---", text.index("kind: Widget"))
    path.write_text(text[:cut] + "---\n# nothing here\n" + text[cut:])
    converted = convert_documents(parse_documents(SourceBytes.read(path)))
    assert [str(c.gvk) for c in converted] == [
        "example.com/v1, Kind=Widget",
        "other.io/v1, Kind=Gadget",
    ]


def test_kubectl_list_output(tmp_path: Path) -> None:
    listing = {"apiVersion": "v1", "kind": "List", "items": [make_crd(), make_crd(kind="Gadget")]}
    path = write_yaml(tmp_path / "crds.yaml", listing)
    store = SchemaStore.from_search_path([path])
    assert store.lookup("example.com/v1", "Widget") is not None
    assert store.lookup("example.com/v1", "Gadget") is not None


def test_json_crd_file(tmp_path: Path) -> None:
    path = tmp_path / "widget.json"
    path.write_text(json.dumps(make_crd()), encoding="utf-8")
    store = SchemaStore.from_search_path([tmp_path])
    assert store.lookup("example.com/v1", "Widget") is not None


def test_json_array_of_crds(tmp_path: Path) -> None:
    path = tmp_path / "crds.json"
    path.write_text(json.dumps([make_crd(), make_crd(kind="Gadget")]), encoding="utf-8")
    converted = convert_documents(parse_documents(SourceBytes.read(path)))
    assert [c.gvk.kind for c in converted] == ["Widget", "Gadget"]


def test_v1beta1_crd_with_shared_validation() -> None:
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1beta1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "olds.example.com"},
        "spec": {
            "group": "example.com",
            "names": {"kind": "Old", "plural": "olds"},
            "version": "v1",
            "validation": {"openAPIV3Schema": spec_schema(V1_SPEC)},
        },
    }
    (converted,) = convert_crd(crd)
    assert converted.gvk == GroupVersionKind("example.com", "v1", "Old")
    assert converted.schema["properties"]["spec"]["additionalProperties"] is False


def test_version_without_schema_accepts_any_content() -> None:
    crd = make_crd()
    del crd["spec"]["versions"][0]["schema"]
    (converted,) = convert_crd(crd)
    assert converted.schema["x-kubernetes-preserve-unknown-fields"] is True
    assert converted.schema["required"] == ["apiVersion", "kind"]


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda c: c["spec"].pop("group"), "spec.group and spec.names.kind are required"),
        (lambda c: c["spec"].pop("versions"), "spec.versions is missing"),
        (lambda c: c["spec"]["versions"][0].pop("name"), r"spec.versions\[0\] has no name"),
    ],
)
def test_broken_crds_are_reported(mutate: object, message: str) -> None:
    crd = make_crd()
    mutate(crd)  # type: ignore[operator]
    with pytest.raises(CrdError, match=message):
        convert_crd(crd)


def test_malformed_yaml_names_file_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("apiVersion: v1\nkind: [unclosed\n", encoding="utf-8")
    with pytest.raises(YamlError) as caught:
        parse_documents(SourceBytes.read(path))
    assert caught.value.location is not None
    assert caught.value.location.file == str(path)
    assert caught.value.location.line == 3


def test_malformed_crd_file_in_a_schema_dir_raises_naming_it(tmp_path: Path) -> None:
    (tmp_path / "broken.yaml").write_text("spec: [\n", encoding="utf-8")
    store = SchemaStore.from_search_path([tmp_path])
    with pytest.raises(SchemaStoreError) as caught:
        store.lookup("example.com/v1", "Widget")
    assert "broken.yaml" in str(caught.value)
