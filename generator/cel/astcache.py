"""Parse trees of CEL rules, kept in a file per schema so that later runs need no parser.

Parsing is the costly part of preparing a rule: building cel-python's LALR parser (even from
Lark's grammar cache) and parsing take tens of milliseconds per process. The trees of all rules of
one schema are stored together in ``<cache root>/cel/asts-<digest>.json``, where the digest covers
the rule texts, the CEL grammar cel-python ships and the Lark release; any change to one of them
names another file, so an entry is never stale. Without a cache root, trees are kept in memory only.

The file is plain JSON, read through the bounded loader like any input: each tree is a flat list
of nodes in post-order (``[rule, line, column, children]``; a child is the index of an earlier
node or a token ``[type, text, offset, line, column]``), so its nesting does not grow with the
expression's. A file that cannot be read or decoded is ignored and rewritten.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
from collections.abc import Iterable
from pathlib import Path

import lark

from generator.cel.syntax import Ast
from generator.errors import CapzgenError
from generator.jsontypes import Json, JsonObject
from generator.output.fsio import write_atomically
from generator.yamlio.load import load_json
from generator.yamlio.source import read_bytes

FORMAT = 3  # 2: trees without pass-through levels; 3: && and || chains balanced (runtime.parse)
MAX_CACHE_BYTES = 8 << 20

Encoded = list[Json]


def encode(tree: Ast) -> Encoded:
    """``tree`` as a flat list of nodes (see the module docstring); the root comes last."""
    nodes: list[Json] = []
    index: dict[int, int] = {}
    for node in tree.iter_subtrees():  # post-order: children before their parent
        children = [
            index[id(child)] if isinstance(child, lark.Tree) else _token(child)
            for child in node.children
        ]
        meta = node.meta
        line = getattr(meta, "line", None) if not meta.empty else None
        column = getattr(meta, "column", None) if not meta.empty else None
        index[id(node)] = len(nodes)
        nodes.append([str(node.data), line, column, children])
    return nodes


def _token(token: lark.Token | str) -> list[Json]:
    if isinstance(token, lark.Token):
        return [token.type, str(token), token.start_pos, token.line, token.column]
    return ["", str(token), None, None, None]


def decode(nodes: Encoded) -> Ast:
    """The tree :func:`encode` flattened; raises ValueError for a malformed list."""
    built: list[Ast] = []
    try:
        for data, line, column, children in nodes:
            kids = [built[c] if isinstance(c, int) else _decode_token(c) for c in children]
            tree: Ast = lark.Tree(str(data), kids)
            if line is not None:
                tree.meta.line = int(line)
                tree.meta.column = int(column)
                tree.meta.empty = False
            built.append(tree)
    except (TypeError, ValueError, IndexError) as error:
        msg = f"malformed cached parse tree: {error}"
        raise ValueError(msg) from error
    if not built:
        msg = "empty cached parse tree"
        raise ValueError(msg)
    return built[-1]


def _decode_token(entry: list[Json]) -> lark.Token:
    kind, text, offset, line, column = entry
    return lark.Token(str(kind), str(text), start_pos=offset, line=line, column=column)


def _release_marks() -> bytes:
    """What the trees depend on besides the texts: cel-python's grammar, Lark's release."""
    marks = [str(FORMAT).encode()]
    for package, member in (("celpy", "cel.lark"), ("lark", "__init__.py")):
        spec = importlib.util.find_spec(package)
        locations = spec.submodule_search_locations if spec is not None else None
        folder = Path(next(iter(locations))) if locations else None
        try:
            marks.append((folder / member).read_bytes() if folder is not None else b"?")
        except OSError:
            marks.append(b"?")
    return b"\0".join(marks)


def digest(texts: Iterable[str]) -> str:
    """The cache key of a schema's rules: its texts, the grammar and the Lark release."""
    hasher = hashlib.sha256(_release_marks())
    for text in sorted(set(texts)):
        hasher.update(b"\0" + text.encode("utf-8"))
    return hasher.hexdigest()[:32]


class AstFile:
    """The stored trees of one schema's rules; :meth:`get` and :meth:`put` by rule text."""

    def __init__(self, folder: Path | None, texts: Iterable[str]) -> None:
        self.path = folder / f"asts-{digest(texts)}.json" if folder is not None else None
        self.entries: JsonObject = {}
        self.dirty = False
        if self.path is not None:
            self.entries = _load(self.path)

    def get(self, text: str) -> Ast | str | None:
        """The stored tree of ``text``, the syntax error it had, or None when not stored."""
        entry = self.entries.get(text)
        if isinstance(entry, str):
            return entry
        if isinstance(entry, list):
            try:
                return decode(entry)
            except ValueError:
                return None
        return None

    def put(self, text: str, tree: Ast | str) -> None:
        """Remember ``text``'s tree (or its syntax error message) for :meth:`save`."""
        self.entries[text] = tree if isinstance(tree, str) else encode(tree)
        self.dirty = True

    def save(self) -> None:
        """Write the file when something was added (a failure to write is not an error)."""
        if self.path is None or not self.dirty:
            return
        data = json.dumps({"format": FORMAT, "trees": self.entries}, separators=(",", ":"))
        try:
            write_atomically(self.path, data, make_parents=True)
        except CapzgenError:
            return
        self.dirty = False


def _load(path: Path) -> JsonObject:
    if not path.is_file():
        return {}
    try:
        text = read_bytes(str(path), limit=MAX_CACHE_BYTES).decode("utf-8")
        value = load_json(text, source=str(path))
    except (CapzgenError, UnicodeDecodeError, OSError):
        return {}
    if not isinstance(value, dict) or value.get("format") != FORMAT:
        return {}
    trees = value.get("trees")
    return dict(trees) if isinstance(trees, dict) else {}
