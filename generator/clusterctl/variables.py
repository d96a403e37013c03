"""Variable precedence, defined once.

clusterctl resolves a template variable by asking, in order: explicit overrides (flags), the process
environment (name upper-cased, ``-`` -> ``_``), then the config file (case-insensitive key). capzgen
adds two typed layers for flavors (``--var`` and ``--values``) above the environment. Each layer
knows how it normalises a name; :class:`VariableStore` walks them in order, like a ChainMap whose
layers disagree on key spelling.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

from generator.clusterctl.config import config_value_as_string
from generator.errors import VariableError
from generator.jsontypes import Json, JsonObject


def _casefold_key(name: str) -> str:
    return name.lower()


def _env_key(name: str) -> str:
    return name.upper().replace("-", "_")


@dataclass(frozen=True)
class Layer:
    """One source of values, e.g. ``environment`` or ``config file``."""

    label: str
    values: Mapping[str, Json]
    normalize: Callable[[str], str] = _casefold_key
    as_string: Callable[[Json], str | None] = config_value_as_string
    exact_keys: bool = False  # index keys as given (the environment is case-sensitive)
    _index: JsonObject = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        index: JsonObject = {}
        for key, value in self.values.items():
            # First spelling wins when a mapping holds both "foo" and "FOO".
            index.setdefault(key if self.exact_keys else self.normalize(key), value)
        object.__setattr__(self, "_index", index)

    def has(self, name: str) -> bool:
        """Whether the layer holds a non-null value for ``name`` (an empty string counts)."""
        return self.normalize(name) in self._index and self.raw(name) is not None

    def raw(self, name: str) -> Json:
        """The value as written for ``name`` (name normalised as the layer does); None if absent."""
        return self._index.get(self.normalize(name))


def environment_layer(environ: Mapping[str, str]) -> Layer:
    """The process environment: exact upper-case names only, an empty value counts as set."""
    return Layer(
        "environment",
        dict(environ),
        normalize=_env_key,
        as_string=lambda v: str(v),
        exact_keys=True,
    )


def config_layer(config: Mapping[str, Json], label: str = "config file") -> Layer:
    """The clusterctl config file's values: names match case-insensitively, as viper does."""
    return Layer(label, config)


def override_layer(values: Mapping[str, Json], label: str) -> Layer:
    """A layer of explicit values (flags, a values file); names match case-insensitively."""
    return Layer(label, values)


DEFAULT_NAMESPACE = "default"


def namespace_default_layer(target_namespace: str | None) -> Layer:
    """``NAMESPACE`` when ``-n``/``--target-namespace`` is not given: ``default``, as clusterctl
    takes the kubeconfig's namespace. It sits below the command line and the values file (a
    ``NAMESPACE`` the user gave there wins) and above the environment and clusterctl's config file
    (which clusterctl's own ``NAMESPACE`` overrides too); an explicit ``-n`` is on the command
    line layer and beats all of them."""
    values = {} if target_namespace else {"NAMESPACE": DEFAULT_NAMESPACE}
    return override_layer(values, "default of --target-namespace")


def namespace_flag(target_namespace: str | None) -> dict[str, str]:
    """The command line's ``NAMESPACE``: only an explicit ``-n`` sets one (see
    :func:`namespace_default_layer` for its default)."""
    return {"NAMESPACE": target_namespace} if target_namespace else {}


@dataclass(frozen=True)
class Resolved:
    """A variable's value as written (not turned into text) and the label of its layer."""

    value: Json
    source: str


class VariableStore:
    """Looks names up through ordered layers; the first layer that has a value wins."""

    def __init__(self, layers: list[Layer]) -> None:
        self.layers = list(layers)

    def resolve(self, name: str) -> Resolved | None:
        """The value and source label from the first layer that has ``name``; None when unset."""
        for layer in self.layers:
            if layer.has(name):
                return Resolved(_text(name, layer.raw(name), layer.label), layer.label)
        return None

    def lookup(self, name: str) -> str | None:
        """The value as text (what ``${VAR}`` substitution inserts), or ``None`` when unset."""
        for layer in self.layers:
            if layer.has(name):
                return layer.as_string(_text(name, layer.raw(name), layer.label))
        return None

    def is_set(self, name: str) -> bool:
        """Whether any layer holds a value for ``name`` (an empty environment variable counts)."""
        return any(layer.has(name) for layer in self.layers)

    def __iter__(self) -> Iterator[Layer]:
        return iter(self.layers)


def _text(name: str, value: Json, label: str) -> Json:
    """``value``, unless it is a string that is not text: the environment and the command line
    hand over bytes that are not UTF-8 as lone surrogates, which no manifest, schema or YAML
    writer can hold. Files are decoded strictly as they are read, so only those two layers can
    have them; the variable is named, and only when it is used."""
    if isinstance(value, str) and not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as error:
            msg = f"{name}: the value from the {label} is not UTF-8 text (at character {error.start + 1})"
            raise VariableError(msg, hint="set it again as UTF-8 text") from None
    return value
