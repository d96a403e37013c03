"""What kubeconform is sent, written as one multi-document stream, and how it names what it reads.

kubeconform names every result by kind, apiVersion and name (``metadata.name``, or the
``generateName`` prefix); an object whose signature repeats an earlier one is written under a
unique name, so each result maps back to exactly one object. The stream is block-style YAML with
every key and string a JSON string (a YAML double-quoted scalar): cheap to write, and kubeconform
reads it ~25% faster than the same objects as one-line JSON documents.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from json.encoder import encode_basestring_ascii
from pathlib import Path

from generator.jsontypes import Json, JsonObject
from generator.kubeconform.report import Sent

STREAM = "objects.yaml"
MAX_IMPLICIT_KEY = 1000  # characters; YAML allows 1024, with the quotes and the colon


def write_stream(path: Path, sent: Sequence[Sent]) -> dict[tuple[str, str, str], int]:
    """Write ``sent`` as one multi-document stream; returns the (kind, apiVersion, name) each
    object is reported under, to its index in ``sent``.

    Block-style YAML, see the module doc."""
    names: dict[tuple[str, str, str], int] = {}
    with open(path, "w", encoding="utf-8") as stream:
        for index, item in enumerate(sent):
            obj, key = unique_object(item.obj, names, index)
            names[key] = index
            stream.write(block_yaml(obj))
    return names


def block_yaml(obj: JsonObject) -> str:
    """One document (``---`` first) in block style. Keys and strings are JSON strings, which
    YAML reads as double-quoted scalars; a value JSON cannot write is written as its text."""
    lines = ["---\n"]
    _block(obj, "", lines)
    return "".join(lines)


def _block(value: JsonObject | list[Json], pad: str, lines: list[str]) -> None:
    inner = pad + "  "
    if isinstance(value, dict):
        for key, item in value.items():
            text = _scalar(key if isinstance(key, str) else str(key))
            # an implicit key is at most 1024 characters in YAML (go-yaml, libyaml): a longer
            # one (a long non-ASCII key, six times its length escaped) is an explicit "? key"
            head = f"{pad}{text}:" if len(text) <= MAX_IMPLICIT_KEY else f"{pad}? {text}\n{pad}:"
            if isinstance(item, (dict, list)) and item:
                lines.append(head + "\n")
                _block(item, inner, lines)
            else:
                lines.append(f"{head} {_scalar(item)}\n")
        return
    for item in value:
        if isinstance(item, (dict, list)) and item:
            lines.append(f"{pad}-\n")
            _block(item, inner, lines)
        else:
            lines.append(f"{pad}- {_scalar(item)}\n")


# A character beyond the BMP as JSON writes it: a surrogate pair of \u escapes, not preceded by
# an escaped backslash (group 1 keeps any pairs of backslashes before it).
_PAIR = re.compile(r"(?<!\\)((?:\\\\)*)\\u(d[89ab][0-9a-f]{2})\\u(d[c-f][0-9a-f]{2})")


def _astral(match: re.Match[str]) -> str:
    high, low = int(match.group(2), 16), int(match.group(3), 16)
    return f"{match.group(1)}\\U{0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00):08x}"


def quoted(text: str) -> str:
    """``text`` as a YAML double-quoted scalar in ASCII: JSON's escapes (what json.dumps writes,
    from the same C function), except that a character beyond the BMP is YAML's ``\\U``
    escape: go-yaml refuses JSON's surrogate pairs ("invalid Unicode character escape code"),
    which failed kubeconform's whole stream on one emoji."""
    out = encode_basestring_ascii(text)
    return _PAIR.sub(_astral, out) if "\\ud" in out else out


def _scalar(value: Json) -> str:
    # Strings first, and without json.dumps' encoder object: most of a stream is short strings.
    if isinstance(value, str):
        return quoted(value)
    if value is None or isinstance(value, bool):
        return "null" if value is None else ("true" if value else "false")
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float) and not math.isfinite(value):
        return ".nan" if math.isnan(value) else (".inf" if value > 0 else "-.inf")
    if isinstance(value, float):
        text = json.dumps(value)
        # YAML 1.1 (go-yaml v2) reads 1e-30 as a string: its floats need a dot
        return text if "." in text or "e" not in text else text.replace("e", ".0e", 1)
    if isinstance(value, (dict, list)):  # empty: {} or []
        return "{}" if isinstance(value, dict) else "[]"
    return quoted(str(value))


def unique_object(
    original: JsonObject, taken: dict[tuple[str, str, str], int], index: int
) -> tuple[JsonObject, tuple[str, str, str]]:
    """The object as sent (``original``, renamed when its (kind, apiVersion, name) is
    ``taken``), and the (kind, apiVersion, name) kubeconform will report it under."""
    meta = original.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    key = object_signature(original)
    if key not in taken:
        return original, key
    unique = f"{key[2]}.capzgen-{index}" if key[2] else f"capzgen-{index}"
    # generateName would rename it again: kubeconform names such an object after its prefix
    renamed = {k: v for k, v in meta.items() if k != "generateName"}
    obj = {**original, "metadata": {**renamed, "name": unique}}
    return obj, (key[0], key[1], unique)


def object_signature(obj: JsonObject) -> tuple[str, str, str]:
    """The (kind, apiVersion, name) kubeconform reports an object under; like kubeconform, a
    ``generateName`` prefix stands for the name."""
    meta = obj.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    name, prefix = meta.get("name"), meta.get("generateName")
    if isinstance(prefix, str) and prefix:
        name = prefix + "{{ generateName }}"
    kind, api_version = obj.get("kind"), obj.get("apiVersion")
    return (
        kind if isinstance(kind, str) else "",
        api_version if isinstance(api_version, str) else "",
        name if isinstance(name, str) else "",
    )


def signature(entry: JsonObject) -> tuple[str, str, str]:
    """The (kind, apiVersion, name) of one entry of kubeconform's report."""
    return (
        str(entry.get("kind", "")),
        str(entry.get("version", "")),
        str(entry.get("name", "")),
    )
