"""Small helpers shared by the envsubst tests."""

from __future__ import annotations

from generator.envsubst import parse


def render(template: str, **values: str) -> str:
    """Evaluate ``template`` with drone's grammar; unspecified variables are unset."""
    return parse(template).evaluate(values.get)
