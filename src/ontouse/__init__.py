"""ontouse: answer questions about an ontology through SPARQL only, with support sets.

The library API (the `ontoask` command is a thin layer over it):

    import ontouse

    with ontouse.Answerer("outcomes/catalog") as answerer:   # an outcome folder, RDF files, or endpoint=URL
        answer = answerer.ask("Which product is the lightest?")
        answer.answer, answer.sparql[-1], answer.support, answer.sources, answer.to_dict()

    ontouse.ask("How many products are there?", "my.ttl")   # one question, opened and closed

`Answerer`, `ask`, `Answer` are imported lazily: `import ontouse` stays cheap."""

from __future__ import annotations

import sys
import types
from typing import Any

# Public names defined in a submodule, imported on first use. `ask` is also the name of the submodule
# `ontouse.ask` (the question loop); the package keeps the function under that name (see _Package).
_LAZY = {"Answerer": "api", "ask": "api", "Answer": "answer", "describe_schema": "api"}


class _Package(types.ModuleType):
    """The package module: importing the submodule `ontouse.ask` must not replace the function `ask` (the
    import system sets a package attribute for each submodule it loads; the submodule stays in sys.modules,
    where `from ontouse.ask import ...` finds it)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _LAZY and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


sys.modules[__name__].__class__ = _Package

__all__ = ["Answerer", "ask", "Answer", "describe_schema"]
