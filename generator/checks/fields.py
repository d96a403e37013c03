"""A setting of a view: its typed value and where it is written (or would be).

Kept apart from :mod:`generator.checks.views` (which projects both CAPZ APIs onto agent pools
and control planes) because it is the vocabulary rules read findings' places from: a rule that
holds a :class:`Field` can point at the user's own field, whichever API shape wrote it.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Final, Generic, TypeVar, final

from generator.findings import JsonPath, Subject
from generator.jsontypes import Json, dig
from generator.model.manifests import AsoResource, TopObject
from generator.model.values import is_templated

T = TypeVar("T")
Owner = TopObject | AsoResource


class Api(StrEnum):
    """Which CAPZ API an object belongs to."""

    ASO = "aso"  # AzureASOManaged* with embedded ASO resources
    LEGACY = "legacy"  # AzureManaged*, translated to ASO resources by CAPZ


class _Unknown:
    """A value decided outside the manifests (by CAPZ at run time)."""

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Final = _Unknown()


class Field(Generic[T]):
    """One setting: the raw value as written, its typed value, and where it is written.

    ``value`` is ``None`` when the setting is absent, unknown or of the wrong type; ``raw`` tells
    those apart. A field is a place a finding can be made at (``Rule.at(field, (), ...)``).

    A value: nothing assigns to a field once read. The views of a thousand-cluster fleet read
    some 76,000 fields, so it is a plain class with slots, compiled with the views (mypyc; a
    generic dataclass it refuses), rather than a frozen dataclass, whose constructor (one
    ``object.__setattr__`` per attribute) costs three times a plain one.
    """

    __slots__ = ("owner", "raw", "rel", "value")

    def __init__(self, raw: Json, value: T | None, owner: Owner, rel: JsonPath) -> None:
        self.raw = raw
        self.value = value
        self.owner = owner
        self.rel = rel  # path inside ``owner``

    def __eq__(self, other: object) -> bool:
        """Fields are equal when all four parts are (as values, not by identity)."""
        if not isinstance(other, Field):
            return NotImplemented
        mine = (self.raw, self.value, self.owner, self.rel)
        return mine == (other.raw, other.value, other.owner, other.rel)

    __hash__ = None  # type: ignore[assignment]  # equal by value yet not frozen: no hash

    def __repr__(self) -> str:
        return (
            f"Field(raw={self.raw!r}, value={self.value!r}, owner={self.owner!r}, rel={self.rel!r})"
        )

    @property
    def subject(self) -> Subject:
        """The object the field belongs to, as findings name it."""
        return self.owner.subject

    @property
    def path(self) -> JsonPath:
        """The field's path from the document root."""
        return (*self.owner.path, *self.rel)

    @property
    def name(self) -> str:
        """The field's own key (``minCount``, ``maxSize``), for messages."""
        keys = [part for part in self.rel if isinstance(part, str)]
        return keys[-1] if keys else ""

    @property
    def is_set(self) -> bool:
        """Whether the field is written at all (an unknown value counts as written)."""
        return self.raw is not None

    @property
    def unknown(self) -> bool:
        """Whether the value is decided later: by CAPZ at run time, a Go template or ``${VAR}``."""
        return self.raw is UNKNOWN or is_templated(self.raw)


def as_bool(raw: Json) -> bool | None:
    """``raw`` if it is a boolean, else None (a wrong type is the schema check's to report)."""
    return raw if isinstance(raw, bool) else None


def read_field(owner: Owner, rel: JsonPath, convert: Callable[[Json], T | None]) -> Field[T]:
    """The field at ``rel`` of ``owner``, its value converted (None when it does not fit)."""
    raw = dig(owner.obj, *rel)
    return Field(raw, convert(raw), owner, rel)


@final
class FieldReader:
    """Reads the settings below one node of an owner: its ``spec``, or a profile inside it.

    A view reads two dozen sibling settings of one object. Walking to their common parent once
    and looking each setting up from there, instead of from the document root every time, keeps
    building the views of a thousand-cluster fleet cheap; the fields still carry their full path
    inside the owner.
    """

    owner: Final[Owner]
    base: Final[JsonPath]  # where ``node`` sits inside ``owner``
    node: Final[Json]  # the value at ``base``: anything, a non-mapping simply has no settings

    def __init__(self, owner: Owner, base: JsonPath, node: Json) -> None:
        self.owner, self.base, self.node = owner, base, node

    @classmethod
    def at(cls, owner: Owner, *base: str) -> FieldReader:
        """A reader of the settings below ``base`` in ``owner``."""
        return cls(owner, base, dig(owner.obj, *base))

    def below(self, *rel: str) -> FieldReader:
        """A reader of the settings below ``rel`` (a profile read setting by setting)."""
        return FieldReader(self.owner, (*self.base, *rel), dig(self.node, *rel))

    def read(self, convert: Callable[[Json], T | None], *rel: str) -> Field[T]:
        """The field at ``rel`` below this reader's node, its value converted; an absent setting
        has no value, whatever ``convert`` would make of ``None``."""
        raw = self.node
        for key in rel:  # ``dig`` for keys only, inline: this runs for every setting of a view
            raw = raw.get(key) if isinstance(raw, dict) else None
        value = None if raw is None else convert(raw)
        return Field(raw, value, self.owner, _joined(self.base, rel))


class SharedPaths:
    """Paths of settings, shared by the fields of every object: the views of a thousand clusters
    read the same few dozen paths 73,000 times, and one tuple each, kept alive with its view, made
    the garbage collector's passes during validation a third of the cost of building views. The
    paths come from the code, never from the data; ``limit`` only guards against a caller that
    breaks this (past it, paths are still right, just not shared)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._paths: dict[tuple[JsonPath, JsonPath], JsonPath] = {}

    def __len__(self) -> int:
        return len(self._paths)

    def joined(self, base: JsonPath, rel: JsonPath) -> JsonPath:
        """``(*base, *rel)``, the same tuple every time for the same parts."""
        path = self._paths.get((base, rel))
        if path is None:
            path = (*base, *rel)
            if len(self._paths) < self.limit:
                self._paths[(base, rel)] = path
        return path


SHARED_PATHS = SharedPaths(limit=1024)
_joined = SHARED_PATHS.joined


def absent(owner: Owner, rel: JsonPath = ()) -> Field[Json]:
    """A setting the shape does not have, located where it would be written."""
    return Field(None, None, owner, rel)


def inside(field: Field[Json], *rel: str | int) -> Field[Json]:
    """The field at ``rel`` below ``field`` (a key of a mapping setting, say)."""
    full = (*field.rel, *rel)
    raw = dig(field.owner.obj, *full)
    return Field(raw, raw, field.owner, full)


def first_set(*fields: Field[T]) -> Field[T]:
    """The first field that is written (CAPZ's fallbacks), else the first."""
    return next((field for field in fields if field.is_set), fields[0])
