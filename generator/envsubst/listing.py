"""The two ``--list-variables`` layouts of clusterctl, byte for byte.

``generate yaml`` prints the names; ``generate cluster`` prints required names and then optional
ones with their defaults through Go's ``text/tabwriter`` (configured by clusterctl as min width 0,
tab width 4, padding 2, space padding, ``FilterHTML``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from generator.envsubst.encoding import from_bytes, to_bytes
from generator.envsubst.quote import go_quote
from generator.envsubst.tabwriter import tabwrite


def _byte_sorted(names: Iterable[str]) -> list[str]:
    """Go's ``sort.Strings`` order (bytes), without duplicates."""
    return sorted(set(names), key=to_bytes)


def format_yaml_variable_list(names: Iterable[str]) -> str:
    """``clusterctl generate yaml --list-variables``: ``Variables:`` and one ``  - NAME`` per
    variable, with no empty line after them (unlike ``generate cluster``'s listing; measured on
    clusterctl v1.13.3); a single newline when there are none."""
    ordered = _byte_sorted(names)
    if not ordered:
        return "\n"
    return "Variables:\n" + "".join(f"  - {name}\n" for name in ordered)


def _shown_value(default: str) -> str | None:
    """How clusterctl shows a recorded default: none when empty, raw when it already starts
    with a double quote, otherwise Go-quoted (``%q``)."""
    if not default:
        return None
    return default if default.startswith('"') else go_quote(default)


def format_cluster_variable_list(variables: Mapping[str, str], overrides: Mapping[str, str]) -> str:
    """``clusterctl generate cluster --list-variables``.

    ``variables`` comes from :func:`inspect_variables`. ``overrides`` holds the values clusterctl
    substitutes for its special variables (cluster name, namespace, counts, Kubernetes version):
    they replace the default unquoted, even when empty, but only for names the template uses.
    Names with a value are optional, the others required; both groups are byte-sorted.
    """
    shown: dict[str, str | None] = {}
    for name, default in variables.items():
        shown[name] = overrides[name] if name in overrides else _shown_value(default)
    required = _byte_sorted(name for name, value in shown.items() if value is None)
    optional = _byte_sorted(name for name, value in shown.items() if value is not None)
    out: list[str] = []
    if required:
        out.append("Required Variables:\n")
        out.extend(f"  - {name}\n" for name in required)
    if optional:
        out.append("\nOptional Variables:\n")
        rows = b"".join(to_bytes(f"  - {name}\t(defaults to {shown[name]})\n") for name in optional)
        out.append(from_bytes(tabwrite(rows, padding=2, filter_html=True)))
    out.append("\n")
    return "".join(out)
