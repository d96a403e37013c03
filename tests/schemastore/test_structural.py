"""CRD openAPIV3Schema -> JSON Schema: every structural extension, on minimal CRDs written here."""

from __future__ import annotations

import logging
from typing import Any, ClassVar

import pytest

from generator.errors import SchemaStoreError
from generator.schemastore.structural import convert_root, to_json_schema
from tests.schemastore.conftest import StoreFactory
from tests.schemastore.helpers import make_crd, messages, spec_schema, widget


def store_with_spec(store_for: StoreFactory, spec: dict[str, Any], **root: Any) -> Any:
    return store_for(make_crd(spec_schema(spec, **root)))


class TestNullable:
    SPEC: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "optional": {"type": "string", "nullable": True},
            "plain": {"type": "string"},
            "choice": {"type": "string", "enum": ["a", "b"], "nullable": True},
        },
    }

    def test_null_is_allowed_only_where_nullable(self, store_for: StoreFactory) -> None:
        store = store_with_spec(store_for, self.SPEC)
        assert messages(store, widget({"optional": None, "choice": None})) == []
        assert messages(store, widget({"plain": None})) == [
            ("spec.plain", "expected string, got null")
        ]

    def test_nullable_enum_still_checks_values(self, store_for: StoreFactory) -> None:
        store = store_with_spec(store_for, self.SPEC)
        assert messages(store, widget({"choice": "c"})) == [
            ("spec.choice", 'must be one of: "a", "b", null (got "c")')
        ]


class TestIntOrString:
    SPEC: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "maxSurge": {
                "anyOf": [{"type": "integer"}, {"type": "string"}],
                "x-kubernetes-int-or-string": True,
            },
            "bare": {"x-kubernetes-int-or-string": True},
        },
    }

    @pytest.mark.parametrize("value", [3, "25%", 0, ""])
    def test_accepts_integer_or_string(self, store_for: StoreFactory, value: Any) -> None:
        store = store_with_spec(store_for, self.SPEC)
        assert messages(store, widget({"maxSurge": value, "bare": value})) == []

    @pytest.mark.parametrize(
        ("value", "got"), [(True, "boolean true"), (1.5, "number 1.5"), ([1], "array")]
    )
    def test_rejects_other_types_with_one_message(
        self, store_for: StoreFactory, value: Any, got: str
    ) -> None:
        store = store_with_spec(store_for, self.SPEC)
        assert messages(store, widget({"maxSurge": value})) == [
            ("spec.maxSurge", f"expected integer or string, got {got}")
        ]

    def test_anyof_pair_is_replaced_by_a_type_list(self) -> None:
        converted = to_json_schema(self.SPEC["properties"]["maxSurge"])
        assert converted["type"] == ["integer", "string"]
        assert "anyOf" not in converted


class TestPreserveUnknownFields:
    def test_at_the_root(self, store_for: StoreFactory) -> None:
        store = store_with_spec(
            store_for, {"type": "object"}, **{"x-kubernetes-preserve-unknown-fields": True}
        )
        assert messages(store, widget({"anything": 1}, extra={"x": 1})) == []

    def test_nested_object_keeps_known_field_types(self, store_for: StoreFactory) -> None:
        spec = {
            "type": "object",
            "properties": {
                "open": {
                    "type": "object",
                    "x-kubernetes-preserve-unknown-fields": True,
                    "properties": {"known": {"type": "integer"}},
                },
                "closed": {"type": "object", "properties": {"known": {"type": "integer"}}},
            },
        }
        store = store_with_spec(store_for, spec)
        obj = widget({"open": {"known": 1, "extra": True}, "closed": {"known": 1, "extra": True}})
        assert messages(store, obj) == [("spec.closed.extra", 'unknown field "extra"')]
        assert messages(store, widget({"open": {"known": "x"}})) == [
            ("spec.open.known", 'expected integer, got string "x"')
        ]

    def test_array_items_like_capz_spec_resources(self, store_for: StoreFactory) -> None:
        spec = {
            "type": "object",
            "properties": {
                "resources": {
                    "type": "array",
                    "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                }
            },
        }
        store = store_with_spec(store_for, spec)
        embedded = {"apiVersion": "resources.azure.com/v1", "kind": "ResourceGroup", "spec": {}}
        assert messages(store, widget({"resources": [embedded]})) == []
        assert messages(store, widget({"resources": ["not-an-object"]})) == [
            ("spec.resources[0]", 'expected object, got string "not-an-object"')
        ]


class TestEmbeddedResource:
    SPEC: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "template": {
                "type": "object",
                "x-kubernetes-embedded-resource": True,
                "x-kubernetes-preserve-unknown-fields": True,
            }
        },
    }

    def test_requires_apiversion_kind_metadata(self, store_for: StoreFactory) -> None:
        store = store_with_spec(store_for, self.SPEC)
        assert sorted(messages(store, widget({"template": {"spec": {}}}))) == [
            ("spec.template", 'required field "apiVersion" is missing'),
            ("spec.template", 'required field "kind" is missing'),
            ("spec.template", 'required field "metadata" is missing'),
        ]

    def test_embedded_metadata_is_object_meta(self, store_for: StoreFactory) -> None:
        store = store_with_spec(store_for, self.SPEC)
        template = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": 7}, "data": {}}
        assert messages(store, widget({"template": template})) == [
            ("spec.template.metadata.name", "expected string, got integer 7")
        ]


class TestFormats:
    SPEC: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "replicas": {"type": "integer", "format": "int32"},
            "big": {"type": "integer", "format": "int64"},
            "ratio": {"type": "number", "format": "double"},
            "when": {"type": "string", "format": "date-time"},
            "day": {"type": "string", "format": "date"},
            "timeout": {"type": "string", "format": "duration"},
            "blob": {"type": "string", "format": "byte"},
            "net": {"type": "string", "format": "cidr"},
            "ip": {"type": "string", "format": "ipv4"},
            "ip6": {"type": "string", "format": "ipv6"},
            "mac": {"type": "string", "format": "mac"},
            "id": {"type": "string", "format": "uuid"},
            "mail": {"type": "string", "format": "email"},
            "host": {"type": "string", "format": "hostname"},
            "link": {"type": "string", "format": "uri"},
            "odd": {"type": "string", "format": "no-such-format"},
        },
    }
    GOOD: ClassVar[dict[str, Any]] = {
        "replicas": 2**31 - 1,
        "big": 2**40,
        "ratio": 0.5,
        "when": "2024-05-01T10:00:00Z",
        "day": "2024-05-01",
        "timeout": "1h30m",
        "blob": "aGVsbG8=",
        "net": "10.0.0.0/16",
        "ip": "10.0.0.1",
        "ip6": "fd00::1",
        "mac": "00:1a:2b:3c:4d:5e",
        "id": "123e4567-e89b-12d3-a456-426614174000",
        "mail": "ops@example.com",
        "host": "api.example.com",
        "link": "https://example.com/x",
        "odd": "whatever",
    }

    def test_valid_values_pass_and_unknown_formats_compile(self, store_for: StoreFactory) -> None:
        store = store_with_spec(store_for, self.SPEC)
        assert messages(store, widget(self.GOOD)) == []

    @pytest.mark.parametrize(
        ("field", "value", "message"),
        [
            ("replicas", 2**31, f"must be <= {2**31 - 1} (got {2**31})"),
            ("big", -(2**63) - 1, f"must be >= {-(2**63)} (got {-(2**63) - 1})"),
            ("when", "yesterday", 'must be a valid RFC 3339 date-time (got "yesterday")'),
            ("day", "2024-13-01", 'must be a valid date (got "2024-13-01")'),
            (
                "timeout",
                "90 minutes",
                'must be a valid duration such as "1h30m" (got "90 minutes")',
            ),
            (
                "blob",
                "not base64!",
                'must be a valid base64 string (format byte) (got "not base64!")',
            ),
            ("net", "10.0.0.0", 'must be a valid CIDR such as "10.0.0.0/16" (got "10.0.0.0")'),
            ("ip", "10.0.0.256", 'must be a valid ipv4 (got "10.0.0.256")'),
            ("mac", "00:1a:2b", 'must be a valid MAC address (got "00:1a:2b")'),
            ("id", "nope", 'must be a valid uuid (got "nope")'),
            ("link", "not a uri", 'must be a valid uri (got "not a uri")'),
        ],
    )
    def test_invalid_values_fail(
        self, store_for: StoreFactory, field: str, value: Any, message: str
    ) -> None:
        store = store_with_spec(store_for, self.SPEC)
        assert messages(store, widget({field: value})) == [(f"spec.{field}", message)]


class TestStrictness:
    SPEC: ClassVar[dict[str, Any]] = {
        "type": "object",
        "required": ["size"],
        "properties": {
            "size": {"type": "integer", "minimum": 1, "maximum": 10},
            "name": {"type": "string", "minLength": 2, "maxLength": 5, "pattern": "^[a-z]+$"},
            "tags": {"type": "array", "maxItems": 2, "items": {"type": "string"}},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "mode": {"type": "string", "enum": ["System", "User"]},
            "nested": {"type": "object", "properties": {"a": {"type": "string"}}},
        },
    }

    def test_unknown_fields_are_errors_at_every_level(self, store_for: StoreFactory) -> None:
        store = store_with_spec(store_for, self.SPEC)
        obj = widget({"size": 1, "sise": 2, "nested": {"a": "x", "b": "y"}}, status2={})
        assert sorted(messages(store, obj)) == [
            ("spec.nested.b", 'unknown field "b"'),
            ("spec.sise", 'unknown field "sise"'),
            ("status2", 'unknown field "status2"'),
        ]

    def test_maps_stay_open_but_typed(self, store_for: StoreFactory) -> None:
        store = store_with_spec(store_for, self.SPEC)
        assert messages(store, widget({"size": 1, "labels": {"any-key": "v"}})) == []
        assert messages(store, widget({"size": 1, "labels": {"k": 1}})) == [
            ("spec.labels.k", "expected string, got integer 1")
        ]

    @pytest.mark.parametrize(
        ("spec", "message"),
        [
            ({}, ("spec", 'required field "size" is missing')),
            ({"size": 0}, ("spec.size", "must be >= 1 (got 0)")),
            ({"size": 11}, ("spec.size", "must be <= 10 (got 11)")),
            ({"size": 1, "name": "a"}, ("spec.name", "must be at least 2 characters long (got 1)")),
            (
                {"size": 1, "name": "abcdef"},
                ("spec.name", "must be at most 5 characters long (got 6)"),
            ),
            ({"size": 1, "name": "AB"}, ("spec.name", 'must match pattern "^[a-z]+$" (got "AB")')),
            (
                {"size": 1, "tags": ["a", "b", "c"]},
                ("spec.tags", "must have at most 2 items (got 3)"),
            ),
            (
                {"size": 1, "mode": "Sytem"},
                ("spec.mode", 'must be one of: "System", "User" (got "Sytem")'),
            ),
        ],
    )
    def test_value_constraints(
        self, store_for: StoreFactory, spec: dict[str, Any], message: tuple[str, str]
    ) -> None:
        store = store_with_spec(store_for, self.SPEC)
        assert messages(store, widget(spec)) == [message]


class TestRoot:
    def test_apiversion_and_kind_required(self, store_for: StoreFactory) -> None:
        store = store_with_spec(store_for, {"type": "object"})
        handle = store.lookup("example.com/v1", "Widget")
        assert handle is not None
        found = {(v.path, v.message) for v in handle.iter_violations({"metadata": {"name": "w"}})}
        assert found == {
            ((), 'required field "apiVersion" is missing'),
            ((), 'required field "kind" is missing'),
        }

    def test_metadata_is_object_meta_lite(self, store_for: StoreFactory) -> None:
        store = store_with_spec(store_for, {"type": "object"})
        meta = {"name": "w", "labels": {"a": "b"}, "annotations": {"x/y": "z"}, "futureField": 1}
        assert messages(store, widget(metadata=meta)) == []
        bad = {"name": ["w"], "labels": {"a": 1}, "annotations": "x"}
        assert sorted(messages(store, widget(metadata=bad))) == [
            ("metadata.annotations", 'expected object or null, got string "x"'),
            ("metadata.labels.a", "expected string, got integer 1"),
            ("metadata.name", "expected string, got array"),
        ]


class TestValueValidations:
    def test_anyof_branches_are_not_made_strict(self, store_for: StoreFactory) -> None:
        spec = {
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
            "anyOf": [{"required": ["a"]}, {"required": ["b"]}],
            "not": {"required": ["a", "b"], "properties": {"a": {"type": "string"}}},
        }
        store = store_with_spec(store_for, spec)
        assert messages(store, widget({"a": "x"})) == []
        assert messages(store, widget({"b": "x"})) == []
        assert messages(store, widget({"a": "x", "b": "y"})) == [
            ("spec", "must not match the excluded schema")
        ]
        assert messages(store, widget({})) == [("spec", 'required field "a" is missing')]

    def test_list_type_set_means_unique_items(self, store_for: StoreFactory) -> None:
        spec = {
            "type": "object",
            "properties": {
                "zones": {
                    "type": "array",
                    "items": {"type": "string"},
                    "x-kubernetes-list-type": "set",
                }
            },
        }
        store = store_with_spec(store_for, spec)
        assert messages(store, widget({"zones": ["1", "2"]})) == []
        assert messages(store, widget({"zones": ["1", "1"]})) == [
            ("spec.zones", "must not contain duplicate items")
        ]


class TestConversionDetails:
    def test_cel_rules_and_defaults_are_kept_and_docs_dropped(self) -> None:
        rules = [{"rule": "self.a == self.b", "message": "must match"}]
        node = {
            "type": "object",
            "description": "doc",
            "properties": {
                "description": {"type": "string", "default": "x"},  # a field named description
                "a": {"type": "string", "description": "doc"},
            },
            "x-kubernetes-validations": rules,
        }
        converted = to_json_schema(node)
        assert converted["x-kubernetes-validations"] == rules
        assert "description" not in converted
        # defaults stay: the admission chain applies them (generator.checks.admission.defaults)
        assert converted["properties"]["description"] == {"type": "string", "default": "x"}
        assert converted["properties"]["a"] == {"type": "string"}

    def test_defaults_inside_value_validations_are_dropped(self) -> None:
        node = {"type": "string", "anyOf": [{"type": "string", "default": "x"}]}
        assert to_json_schema(node) == {"type": "string", "anyOf": [{"type": "string"}]}

    def test_conversion_is_idempotent(self) -> None:
        node = spec_schema(
            {
                "type": "object",
                "properties": {
                    "n": {"type": "integer", "format": "int32", "nullable": True},
                    "s": {"x-kubernetes-int-or-string": True, "nullable": True},
                    "e": {"type": "object", "x-kubernetes-embedded-resource": True},
                },
            }
        )
        once = convert_root(node)
        assert convert_root(once) == once

    def test_properties_that_are_keywords_by_name_are_fields(self, store_for: StoreFactory) -> None:
        # ClusterClass variables have fields called oneOf/allOf/not/properties.
        spec = {
            "type": "object",
            "properties": {
                "oneOf": {"type": "array", "items": {"type": "string"}},
                "properties": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
            },
        }
        store = store_with_spec(store_for, spec)
        assert messages(store, widget({"oneOf": ["a"], "properties": {"x": 1}})) == []
        assert messages(store, widget({"oneOf": "a"})) == [
            ("spec.oneOf", 'expected array, got string "a"')
        ]

    def test_non_schema_property_is_reported(self) -> None:
        from generator.schemastore.structural import SchemaFormatError

        with pytest.raises(SchemaFormatError, match="/properties/spec/properties/x"):
            to_json_schema(spec_schema({"type": "object", "properties": {"x": "string"}}))


def test_pattern_only_re2_accepts_is_checked_with_re2(store_for: StoreFactory) -> None:
    # RE2's \Q...\E quoting: the Rust regex engine refuses it, the API server (Go RE2) accepts it.
    spec = {"type": "object", "properties": {"name": {"type": "string", "pattern": r"^\Q.\E$"}}}
    store = store_with_spec(store_for, spec)
    assert messages(store, widget({"name": "."})) == []
    assert messages(store, widget({"name": "x"})) == [
        ("spec.name", r'must match pattern "^\Q.\E$" (got "x")')
    ]


def test_pattern_re2_refuses_is_dropped_with_a_warning(
    store_for: StoreFactory, caplog: pytest.LogCaptureFixture
) -> None:
    # \Z is Python's end of text; Go's RE2 (and so the API server) does not know it.
    spec = {"type": "object", "properties": {"name": {"type": "string", "pattern": r"^[a-z.-]+\Z"}}}
    store = store_with_spec(store_for, spec)
    with caplog.at_level(logging.WARNING):
        assert messages(store, widget({"name": "anything goes"})) == []
    assert r"^[a-z.-]+\\Z" in caplog.text  # the pattern, as repr() writes it
    assert "not valid RE2" in caplog.text and "it is not checked" in caplog.text


@pytest.mark.parametrize("pattern", [r"^(a+)+$", r"^(a+)+b{,3}$", r"^(a|a)*$"])
def test_catastrophic_patterns_run_in_linear_time(store_for: StoreFactory, pattern: str) -> None:
    """Patterns that take a backtracking engine exponential time; the answer comes at once
    (a regression would hang here rather than fail, so the alarm turns it into a failure)."""
    import signal

    spec = {"type": "object", "properties": {"name": {"type": "string", "pattern": pattern}}}
    store = store_with_spec(store_for, spec)
    signal.signal(signal.SIGALRM, lambda *_: pytest.fail(f"{pattern} backtracked"))
    signal.alarm(20)
    try:
        found = messages(store, widget({"name": "a" * 5000 + "!"}))
    finally:
        signal.alarm(0)
    assert [path for path, _ in found] == ["spec.name"]


@pytest.mark.parametrize(
    "ref", ["http://127.0.0.1:9/x.json", "file:///etc/passwd", "other.json#/defs/a", "/abs.json"]
)
def test_external_ref_is_an_error_naming_the_schema_file(store_for: StoreFactory, ref: str) -> None:
    spec = {"type": "object", "properties": {"name": {"$ref": ref}}}
    store = store_with_spec(store_for, spec)
    with pytest.raises(SchemaStoreError, match="schema refers outside itself") as caught:
        store.lookup("example.com/v1", "Widget")
    assert ref in caught.value.message
    assert caught.value.location is not None and caught.value.location.file
