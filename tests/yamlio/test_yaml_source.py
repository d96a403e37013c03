"""read_source and iter_files: encodings, stdin, folder expansion and its order, errors."""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

import pytest

from generator.errors import InputOutputError
from generator.yamlio import iter_files, load_documents, read_source
from generator.yamlio.source import read_head


def test_bom_is_dropped(tmp_path: Path) -> None:
    path = tmp_path / "bom.yaml"
    path.write_bytes(b"\xef\xbb\xbfa: 1\n")
    text = read_source(str(path))
    assert text == "a: 1\n"
    assert load_documents(text, source=str(path))[0].obj == {"a": 1}


def test_unicode_text_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "u.yaml"
    path.write_text("name: café 日本 \U0001f600\n", encoding="utf-8")
    assert read_source(str(path)) == "name: café 日本 \U0001f600\n"


def test_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"a: 1\n"), encoding="utf-8"))
    assert read_source("-") == "a: 1\n"


def make_tree(root: Path, names: list[str]) -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("a: 1\n")


def test_folders_expand_recursively_in_sorted_order(tmp_path: Path) -> None:
    make_tree(
        tmp_path,
        [
            "b.yaml",
            "a.yml",
            "c.json",
            "A.YAML",
            "notes.txt",
            "sub/z.yaml",
            "sub/deeper/x.yaml",
            "sub-a.yaml",
            ".hidden.yaml",
            ".git/config.yaml",
        ],
    )
    found = [os.path.relpath(path, tmp_path) for path in iter_files([str(tmp_path)])]
    assert found == [
        "A.YAML",
        "a.yml",
        "b.yaml",
        "c.json",
        os.path.join("sub", "deeper", "x.yaml"),  # sorted by path components: a folder's
        os.path.join("sub", "z.yaml"),  # files stay together
        "sub-a.yaml",
    ]


def test_arguments_keep_their_order_and_files_are_listed_once(tmp_path: Path) -> None:
    make_tree(tmp_path, ["d/one.yaml", "d/two.yaml", "explicit.txt"])
    explicit = str(tmp_path / "explicit.txt")
    two = str(tmp_path / "d" / "two.yaml")
    result = iter_files([explicit, two, str(tmp_path / "d"), "-"])
    assert result == [explicit, two, str(tmp_path / "d" / "one.yaml"), "-"]


def test_result_is_deterministic(tmp_path: Path) -> None:
    make_tree(tmp_path, [f"f{i}/m{j}.yaml" for i in range(5) for j in (10, 2, 1)])
    first = iter_files([str(tmp_path)])
    assert first == iter_files([str(tmp_path)])
    assert first == sorted(first, key=lambda p: Path(p).relative_to(tmp_path).parts)


def test_missing_path_is_an_input_output_error(tmp_path: Path) -> None:
    missing = str(tmp_path / "nope")
    with pytest.raises(InputOutputError, match="no such file or directory") as caught:
        iter_files([str(tmp_path), missing])
    assert caught.value.location is not None and caught.value.location.file == missing


def test_unlistable_folder_is_an_input_output_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_tree(tmp_path, ["sub/a.yaml"])

    def refuse(path: str) -> None:
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(os, "scandir", refuse)
    with pytest.raises(InputOutputError, match="Permission denied"):
        iter_files([str(tmp_path)])


# --- read_head: a sample of a file's start (the zygote's warm-up, generator.validate.sample) -------


def test_the_head_of_a_file_is_its_first_bytes_as_text(tmp_path: Path) -> None:
    path = tmp_path / "a.yaml"
    path.write_text("k: é\n" * 10, encoding="utf-8")
    assert read_head(str(path), 1000) == "k: é\n" * 10
    assert read_head(str(path), 4) == "k: "  # "é" cut after its first byte: dropped
    assert read_head(str(path), 5) == "k: é"


def test_no_head_where_reading_could_take_or_wait(tmp_path: Path) -> None:
    """A FIFO (a second reader would take the writer's bytes from the run, or wait for a
    writer), standard input, a folder, a missing file, binary data: None, at once."""
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    binary = tmp_path / "b.yaml"
    binary.write_bytes(b"\xff\xfe" + b"x" * 20)
    for path in [str(fifo), "-", str(tmp_path), str(tmp_path / "missing.yaml"), str(binary)]:
        assert read_head(path, 100) is None
