"""ontouse: answer questions about an ontology through SPARQL only, with support sets.

The library API (the `ontoask` command is a thin layer over it):

    import ontouse

    with ontouse.Answerer("outcomes/catalog") as answerer:   # an outcome folder, RDF files, or endpoint=URL
        answer = answerer.ask("Which product is the lightest?")
        answer.answer, answer.sparql[-1], answer.support, answer.sources, answer.to_dict()

    ontouse.ask("How many products are there?", "my.ttl")   # one question, opened and closed

`Answerer`, `ask`, `Answer` are imported lazily: `import ontouse` stays cheap."""

from __future__ import annotations

from ontocore.lazy import lazy_exports

# Public names defined in a submodule, imported on first use (the question loop itself is `ontouse.answerer`).
_LAZY = {"Answerer": "api", "ask": "api", "Answer": "answer", "describe_schema": "api"}


lazy_exports(__name__, _LAZY)

__all__ = ["Answerer", "ask", "Answer", "describe_schema"]
