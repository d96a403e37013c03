"""Search path priority, laziness, memoisation and listing of the schema store."""

from __future__ import annotations

import json
import os
import pickle
from pathlib import Path

import pytest

from generator.cli.environment import settings_from_environ
from generator.errors import SchemaStoreError, UsageError
from generator.schemastore import directory, sources
from generator.schemastore.entries import SchemaEntry
from generator.schemastore.store import SchemaStore
from generator.schemastore.types import (
    GroupVersionKind,
    SchemaCatalog,
    SchemaLookup,
    SourceFiles,
)
from generator.settings import Settings
from tests.schemastore.helpers import make_crd, spec_schema, write_yaml

WIDGET = GroupVersionKind("example.com", "v1", "Widget")


def crd_dir(root: Path, name: str, field: str) -> Path:
    """A folder with a Widget CRD whose spec has exactly one field, ``field``."""
    spec = {"type": "object", "properties": {field: {"type": "string"}}}
    write_yaml(root / name / "widget.yaml", make_crd(spec_schema(spec)))
    return root / name


def catalog_file(root: Path, group: str, kind: str, version: str, schema: object) -> Path:
    path = root / group / f"{kind.lower()}_{version}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(schema), encoding="utf-8")
    return path


def env_settings(cache: Path, **values: object) -> Settings:
    """Settings as the CLI builds them from an environment pointing at the test's cache."""
    return settings_from_environ(
        {"CAPZGEN_CACHE_DIR": str(cache), **{k: str(v) for k, v in values.items()}}
    )


def accepts(store: SchemaStore, field: str) -> bool:
    handle = store.lookup("example.com/v1", "Widget")
    assert handle is not None
    return handle.is_valid({"apiVersion": "example.com/v1", "kind": "Widget", "spec": {field: "x"}})


class TestSearchPath:
    def test_explicit_dirs_in_order(self, tmp_path: Path) -> None:
        first, second = crd_dir(tmp_path, "a", "first"), crd_dir(tmp_path, "b", "second")
        store = SchemaStore.from_search_path([first, second])
        assert accepts(store, "first") and not accepts(store, "second")
        lookup = store.lookup("example.com/v1", "Widget")
        assert lookup is not None and lookup.source == str(first / "widget.yaml")

    def test_explicit_dirs_beat_the_env_path(self, tmp_path: Path, isolated_cache: Path) -> None:
        explicit, from_env = crd_dir(tmp_path, "a", "explicit"), crd_dir(tmp_path, "b", "env")
        store = SchemaStore.from_search_path(
            [explicit], settings=env_settings(isolated_cache, CAPZGEN_SCHEMA_PATH=from_env)
        )
        assert accepts(store, "explicit")

    def test_env_path_entries_in_order(self, tmp_path: Path, isolated_cache: Path) -> None:
        one, two = crd_dir(tmp_path, "a", "one"), crd_dir(tmp_path, "b", "two")
        env_path = os.pathsep.join([str(one), "", str(two)])
        store = SchemaStore.from_search_path(
            settings=env_settings(isolated_cache, CAPZGEN_SCHEMA_PATH=env_path)
        )
        assert accepts(store, "one")

    def test_missing_env_path_entry_is_a_usage_error_at_once(
        self, tmp_path: Path, isolated_cache: Path
    ) -> None:
        one = crd_dir(tmp_path, "a", "one")
        env_path = os.pathsep.join([str(one), str(tmp_path / "missing")])
        with pytest.raises(UsageError, match=r"\$CAPZGEN_SCHEMA_PATH names .* does not exist") as e:
            SchemaStore.from_search_path(
                settings=env_settings(isolated_cache, CAPZGEN_SCHEMA_PATH=env_path)
            )
        assert e.value.location is not None and e.value.location.file == str(tmp_path / "missing")
        assert e.value.exit_code == 2

    def test_env_path_beats_the_cache_which_beats_core(
        self, tmp_path: Path, isolated_cache: Path
    ) -> None:
        cached = isolated_cache / "schemas"
        catalog_file(cached, "example.com", "Thing", "v1", {"type": "object"})
        catalog_file(cached, "example.com", "Gadget", "v1", {"type": "object"})
        env_dir = tmp_path / "env"
        catalog_file(env_dir, "example.com", "Thing", "v1", {"type": "object"})
        store = SchemaStore.from_search_path(
            settings=env_settings(isolated_cache, CAPZGEN_SCHEMA_PATH=env_dir)
        )
        thing = store.lookup("example.com/v1", "Thing")
        gadget = store.lookup("example.com/v1", "Gadget")
        configmap = store.lookup("v1", "ConfigMap")
        assert thing is not None and thing.source.startswith(str(env_dir))
        assert gadget is not None and gadget.source.startswith(str(cached))
        assert configmap is not None and "kubernetes-validate" in configmap.source

    def test_cache_schemas_are_on_the_path(self, isolated_cache: Path) -> None:
        catalog_file(isolated_cache / "schemas", "example.com", "Widget", "v1", {"type": "object"})
        store = SchemaStore.from_search_path(settings=Settings(cache_root=isolated_cache))
        handle = store.lookup("example.com/v1", "Widget")
        assert handle is not None and handle.source.startswith(str(isolated_cache))
        assert SchemaStore.from_search_path().lookup("example.com/v1", "Widget") is None

    def test_a_single_file_is_a_source(self, tmp_path: Path) -> None:
        path = write_yaml(tmp_path / "one.yaml", make_crd())
        assert SchemaStore.from_search_path([path]).lookup("example.com/v1", "Widget") is not None

    def test_missing_explicit_dir_is_a_usage_error_at_once(self, tmp_path: Path) -> None:
        with pytest.raises(UsageError, match=r"--schema-dir names .* does not exist") as e:
            SchemaStore.from_search_path([tmp_path / "nope"])
        assert e.value.exit_code == 2

    def test_unknown_gvk_is_none(self, tmp_path: Path) -> None:
        store = SchemaStore.from_search_path([crd_dir(tmp_path, "a", "x")])
        assert store.lookup("example.com/v1", "Nothing") is None
        assert store.lookup("example.com/v2", "Widget") is None
        assert store.lookup("", "") is None


class TestCatalogLayouts:
    def test_grouped_and_flat_names(self, tmp_path: Path) -> None:
        catalog_file(tmp_path, "example.com", "Widget", "v1", {"type": "object"})
        flat = tmp_path / "gadget-example.com-v1.json"
        flat.write_text('{"type": "object"}', encoding="utf-8")
        store = SchemaStore.from_search_path([tmp_path])
        assert store.lookup("example.com/v1", "Widget") is not None
        assert store.lookup("example.com/v1", "Gadget") is not None

    def test_catalog_files_get_root_strictness(self, tmp_path: Path) -> None:
        schema = {"type": "object", "properties": {"spec": {"type": "object"}}}
        catalog_file(tmp_path, "example.com", "Widget", "v1", schema)
        handle = SchemaStore.from_search_path([tmp_path]).lookup("example.com/v1", "Widget")
        assert handle is not None
        obj = {"apiVersion": "example.com/v1", "kind": "Widget", "spex": {}}
        assert [(v.path, v.message) for v in handle.iter_violations(obj)] == [
            (("spex",), 'unknown field "spex"')
        ]

    def test_crd_beats_catalog_json_for_the_same_gvk_in_one_dir(self, tmp_path: Path) -> None:
        catalog_file(tmp_path, "example.com", "Widget", "v1", {"type": "object"})
        write_yaml(tmp_path / "crd.yaml", make_crd())
        nested = tmp_path / "z-later"  # walked after the catalog's group folder
        write_yaml(nested / "crd.yaml", make_crd(kind="Gadget"))
        catalog_file(tmp_path, "example.com", "Gadget", "v1", {"type": "object"})
        store = SchemaStore.from_search_path([tmp_path])
        for kind, crd_path in (("Widget", tmp_path / "crd.yaml"), ("Gadget", nested / "crd.yaml")):
            handle = store.lookup("example.com/v1", kind)
            assert handle is not None and handle.source == str(crd_path)
        entries = [e for e in store.entries() if e.gvk.group == "example.com"]
        assert [(e.gvk.kind, e.shadowed) for e in entries] == [
            ("Gadget", False),
            ("gadget", True),
            ("Widget", False),
            ("widget", True),
        ]


class TestLaziness:
    def test_unused_malformed_catalog_file_does_not_break_other_lookups(
        self, tmp_path: Path
    ) -> None:
        catalog_file(tmp_path, "example.com", "Widget", "v1", {"type": "object"})
        broken = tmp_path / "example.com" / "broken_v1.json"
        broken.write_text("{ not json", encoding="utf-8")
        store = SchemaStore.from_search_path([tmp_path])
        assert store.lookup("example.com/v1", "Widget") is not None
        with pytest.raises(SchemaStoreError) as caught:
            store.lookup("example.com/v1", "Broken")
        assert str(broken) in str(caught.value)
        assert "not valid JSON" in str(caught.value)

    def test_uncompilable_schema_names_the_file(self, tmp_path: Path) -> None:
        path = catalog_file(tmp_path, "example.com", "Widget", "v1", {"type": "no-such-type"})
        store = SchemaStore.from_search_path([tmp_path])
        with pytest.raises(SchemaStoreError) as caught:
            store.lookup("example.com/v1", "Widget")
        assert caught.value.location is not None and caught.value.location.file == str(path)

    def test_nothing_is_read_before_the_first_lookup(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        write_yaml(tmp_path / "crd.yaml", make_crd())
        calls: list[object] = []

        def record(text: object) -> list[object]:
            calls.append(text)
            return []

        monkeypatch.setattr(directory, "convert_file", record)
        SchemaStore.from_search_path([tmp_path])
        assert calls == []

    def test_sources_below_a_hit_are_not_indexed(self, tmp_path: Path) -> None:
        first = crd_dir(tmp_path, "a", "x")
        broken = tmp_path / "b"
        broken.mkdir()
        (broken / "bad.yaml").write_text("a: [\n", encoding="utf-8")
        store = SchemaStore.from_search_path([first, broken])
        assert store.lookup("example.com/v1", "Widget") is not None

    def test_compiled_once_per_store(self, tmp_path: Path) -> None:
        store = SchemaStore.from_search_path([crd_dir(tmp_path, "a", "x")])
        assert store.lookup("example.com/v1", "Widget") is store.lookup("example.com/v1", "Widget")

    def test_sources_are_searched_once_per_api_version_and_kind(self, tmp_path: Path) -> None:
        """A fleet asks about the same few kinds thousands of times: hits and misses alike are
        answered from memory after the first search."""
        searched: list[GroupVersionKind] = []

        class Counting:
            def __init__(self, source: sources.SchemaSource) -> None:
                self.source = source
                self.label = source.label

            def describe(self) -> str:
                return self.source.describe()

            def index(self) -> list[SchemaEntry]:
                return self.source.index()

            def find(self, gvk: GroupVersionKind) -> SchemaEntry | None:
                searched.append(gvk)
                return self.source.find(gvk)

            def files(self) -> SourceFiles:
                return self.source.files()

        plain = SchemaStore.from_search_path([crd_dir(tmp_path, "a", "x")], use_bundle=False)
        store = SchemaStore([Counting(source) for source in plain.sources])
        for _ in range(3):
            assert store.lookup("example.com/v1", "Widget") is not None
            assert store.lookup("example.com/v1", "Gadget") is None
        assert searched.count(WIDGET) == 1
        assert searched.count(GroupVersionKind("example.com", "v1", "Gadget")) == len(plain.sources)

    def test_a_question_asked_again_is_answered_without_parsing_it(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        store = SchemaStore.from_search_path()
        parsed: list[tuple[str, str]] = []
        real = GroupVersionKind.from_api_version

        def counting(api_version: str, kind: str) -> GroupVersionKind:
            parsed.append((api_version, kind))
            return real(api_version, kind)

        monkeypatch.setattr(GroupVersionKind, "from_api_version", counting)
        first = store.lookup("v1", "ConfigMap")
        assert first is not None
        for _ in range(3):
            assert store.lookup("v1", "ConfigMap") is first
        # Another spelling of the same GVK is parsed once and shares the compiled schema.
        assert store.lookup("/v1", "ConfigMap") is first
        assert store.lookup("v1", "NoSuchKind") is None
        assert store.lookup("v1", "NoSuchKind") is None
        assert parsed == [("v1", "ConfigMap"), ("/v1", "ConfigMap"), ("v1", "NoSuchKind")]


class TestMemoisation:
    def test_second_store_reads_the_memo_not_the_yaml(
        self, tmp_path: Path, isolated_cache: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        folder = crd_dir(tmp_path, "a", "x")
        settings = Settings(cache_root=isolated_cache)
        assert SchemaStore.from_search_path([folder], settings).lookup("example.com/v1", "Widget")
        memo_files = list((isolated_cache / "converted").rglob("*.json"))
        assert any(p.name == "index.json" for p in memo_files)

        def no_parsing(text: object) -> list[object]:
            msg = "YAML parsed although the conversion is memoised"
            raise AssertionError(msg)

        monkeypatch.setattr(directory, "parse_documents", no_parsing)
        handle = SchemaStore.from_search_path([folder], settings).lookup("example.com/v1", "Widget")
        assert handle is not None and handle.source == str(folder / "widget.yaml")
        assert handle.is_valid(
            {"apiVersion": "example.com/v1", "kind": "Widget", "spec": {"x": "y"}}
        )

    def test_changed_file_is_converted_again(self, tmp_path: Path) -> None:
        folder = crd_dir(tmp_path, "a", "old")
        assert accepts(SchemaStore.from_search_path([folder]), "old")
        crd_dir(tmp_path, "a", "new")  # same path, new content, new digest
        store = SchemaStore.from_search_path([folder])
        assert accepts(store, "new") and not accepts(store, "old")

    def test_no_cache_root_writes_nothing(self, tmp_path: Path, isolated_cache: Path) -> None:
        folder = crd_dir(tmp_path, "a", "x")
        store = SchemaStore.from_search_path([folder])
        assert store.lookup("example.com/v1", "Widget") is not None
        assert store.lookup("v1", "Secret") is not None
        assert not isolated_cache.exists()

    def test_unwritable_cache_only_costs_speed(self, tmp_path: Path) -> None:
        blocker = tmp_path / "blocker"
        blocker.write_text("a file where the cache folder should be", encoding="utf-8")
        folder = crd_dir(tmp_path, "a", "x")
        store = SchemaStore.from_search_path([folder], Settings(cache_root=blocker / "cache"))
        assert store.lookup("example.com/v1", "Widget") is not None
        assert store.lookup("v1", "Secret") is not None


class TestCatalog:
    """The store is a whole catalog; a bare lookup (a test's few schemas) is not one."""

    def test_the_store_is_a_catalog(self, tmp_path: Path) -> None:
        store: SchemaLookup = SchemaStore.from_search_path([crd_dir(tmp_path, "a", "x")])
        assert isinstance(store, SchemaCatalog)

    def test_a_bare_lookup_is_not_a_catalog(self) -> None:
        class OnlyLookup:
            def lookup(self, api_version: str, kind: str) -> None:
                return None

            def searched(self) -> list[str]:
                return []

        assert not isinstance(OnlyLookup(), SchemaCatalog)

    def test_source_files_follow_the_search_path(self, tmp_path: Path) -> None:
        folder = crd_dir(tmp_path, "a", "x")
        files = SchemaStore.from_search_path([folder]).source_files()
        assert files[0] == SourceFiles("DirectorySource", folder)
        assert [f.kind for f in files[1:]] == ["BundleSource", "core"]
        assert [f.versioned for f in files] == [False, False, True]


class TestEntries:
    def test_sources_and_shadowing(self, tmp_path: Path) -> None:
        first, second = crd_dir(tmp_path, "a", "x"), crd_dir(tmp_path, "b", "y")
        entries = SchemaStore.from_search_path([first, second]).entries()
        widgets = [e for e in entries if e.gvk == WIDGET]
        assert [(e.source, e.shadowed) for e in widgets] == [
            (str(first / "widget.yaml"), False),
            (str(second / "widget.yaml"), True),
        ]
        core = {
            (e.gvk.api_version, e.gvk.kind)
            for e in entries
            if not e.gvk.group or "k8s" in e.gvk.group
        }
        assert {("v1", "Secret"), ("v1", "ConfigMap"), ("v1", "Namespace")} <= core
        assert entries == sorted(
            entries, key=lambda e: (e.gvk.group, e.gvk.version, e.gvk.kind.lower())
        )


def test_a_used_store_pickles_as_where_it_looks(tmp_path: Path, isolated_cache: Path) -> None:
    """What a worker forked by the zygote gets (generator.validate.zygote): the sources in their
    order, none of what the store found, read or compiled (an open archive, compiled validators
    and lambdas do not pickle, and would be large), and a copy that finds the same schemas."""
    store = SchemaStore.from_search_path(
        [crd_dir(tmp_path, "first", "alpha")], Settings(cache_root=isolated_cache)
    )
    assert accepts(store, "alpha")
    assert store.lookup("cluster.x-k8s.io/v1beta1", "Cluster") is not None  # the bundle's archive
    assert store.lookup("v1", "ConfigMap") is not None  # the core kinds, read
    data = pickle.dumps(store)
    assert len(data) < 4_000
    copy = pickle.loads(data)
    assert copy.searched() == store.searched()
    assert accepts(copy, "alpha")
    assert not accepts(copy, "beta")
    for api_version, kind in [("cluster.x-k8s.io/v1beta1", "Cluster"), ("v1", "ConfigMap")]:
        found, again = store.lookup(api_version, kind), copy.lookup(api_version, kind)
        assert found is not None and again is not None
        assert (again.source, again.schema) == (found.source, found.schema)
