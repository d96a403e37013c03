"""Parsed YAML documents: the unit every later stage (transform, validate, emit) works on."""

from __future__ import annotations

from dataclasses import dataclass

from generator.findings import Subject
from generator.jsontypes import Json


@dataclass(slots=True)
class Document:
    """One YAML document of a file or stream.

    ``index`` counts every document of the source (empty ones included) so that a finding can be
    traced back to the text; ``obj`` is whatever the document holds (normally a mapping, but a
    validator must cope with anything a user feeds it).
    """

    source: str  # file path as given by the user, "<stdin>", or "<rendered>"
    index: int  # 0-based position among the source's documents
    obj: Json
    start_line: int | None = None  # 1-based line of the document's first content line, if known

    @property
    def kind(self) -> str | None:
        """The ``kind`` when the document is a mapping with a string kind, else None."""
        value = self.obj.get("kind") if isinstance(self.obj, dict) else None
        return value if isinstance(value, str) else None

    @property
    def api_version(self) -> str | None:
        """The ``apiVersion`` when the document is a mapping with a string one, else None."""
        value = self.obj.get("apiVersion") if isinstance(self.obj, dict) else None
        return value if isinstance(value, str) else None

    @property
    def name(self) -> str | None:
        """``metadata.name`` when it is a string, else None."""
        meta = self.obj.get("metadata") if isinstance(self.obj, dict) else None
        value = meta.get("name") if isinstance(meta, dict) else None
        return value if isinstance(value, str) else None

    @property
    def namespace(self) -> str | None:
        """``metadata.namespace`` when it is a string, else None (no default is assumed)."""
        meta = self.obj.get("metadata") if isinstance(self.obj, dict) else None
        value = meta.get("namespace") if isinstance(meta, dict) else None
        return value if isinstance(value, str) else None

    def subject(self) -> Subject:
        """The document as the subject of findings about it."""
        return Subject(file=self.source, document=self.index, kind=self.kind, name=self.name)
