"""ontobuild: an LLM builder agent that turns JSON, tables and text into an OWL ontology.

The library API (the `ontobuild` command is a thin layer over it):

    import ontobuild

    result = ontobuild.build(["catalog.json", "notes.md"], out="outcomes/catalog")
    result.outcome      # the outcome folder
    result.ontology     # its ontology.ttl (ontology.owl beside it: RDF/XML for Protégé)
    result.stats        # what stats.json holds: counts, reasoner verdict, coverage, model cost

`build` and `BuildResult` are imported lazily: `import ontobuild` stays cheap."""

from __future__ import annotations

import sys
import types
from typing import Any

__version__ = "0.1.0"

# Public names defined in a submodule, imported on first use. `build` is also the name of the submodule
# `ontobuild.build` (the builder's steps); the package keeps the function under that name (see _Package).
_LAZY = {"build": "api", "BuildResult": "api", "build_from_index": "api"}


class _Package(types.ModuleType):
    """The package module: importing the submodule `ontobuild.build` must not replace the function `build`
    (the import system sets a package attribute for each submodule it loads; the submodule stays in
    sys.modules, where `from ontobuild.build import ...` finds it)."""

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

__all__ = ["__version__", "build", "BuildResult", "build_from_index"]
