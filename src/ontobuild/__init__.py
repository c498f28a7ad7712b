"""ontobuild: an LLM builder agent that turns JSON, tables and text into an OWL ontology.

The library API (the `ontobuild` command is a thin layer over it):

    import ontobuild

    result = ontobuild.build(["catalog.json", "notes.md"], out="outcomes/catalog")
    result.outcome      # the outcome folder
    result.ontology     # its ontology.ttl (ontology.owl beside it: RDF/XML for Protégé)
    result.stats        # what stats.json holds: counts, reasoner verdict, coverage, model cost

`build` and `BuildResult` are imported lazily: `import ontobuild` stays cheap."""

from __future__ import annotations

from ontocore import __version__
from ontocore.lazy import lazy_exports

# Public names defined in a submodule, imported on first use (the builder's steps are `ontobuild.pipeline`).
_LAZY = {"build": "api", "BuildResult": "api", "build_from_index": "api"}


lazy_exports(__name__, _LAZY)

__all__ = ["__version__", "build", "BuildResult", "build_from_index"]
