"""What the text step keeps across sentences and chunks, and the user's vocabulary as the step uses it: its
relations with their domains and ranges (by index name and label), the system prompt that lists them (the same
for every sentence of a build, so the model keeps it as a prompt prefix)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..prompts import prompts

from ..ontology.vocabulary import Vocabulary


@dataclass
class Known:
    """What an earlier sentence spoke of, for a pronoun or a definite description to point back to."""
    label: str
    kind: str  # its class word ("Printer")
    individuals: list[str]
    plural: bool


@dataclass
class TextState:
    """What the step keeps across sentences and chunks."""
    packages: set[str] = field(default_factory=set)
    history: dict[str, list[Known]] = field(default_factory=dict)  # file -> what its paragraph spoke of, newest last
    merges: list[dict[str, Any]] = field(default_factory=list)
    vocab: Vocabulary | None = None
    system: str = ""
    relations: dict[str, dict[str, Any]] = field(default_factory=dict)  # vocabulary relation name -> its term
    outside: list[dict[str, str]] = field(default_factory=list)  # statements the vocabulary has no term for
    embedder: Any = None  # the sentence-embedding model, to rank a vocabulary's relations for a link (or None)
    class_labels: dict[str, str] = field(default_factory=dict)  # vocabulary class name -> its label
    kind_classes: dict[str, str] = field(default_factory=dict)  # kind word -> the vocabulary class it names
    kinds: dict[str, str] = field(default_factory=dict)  # this sentence's things -> what they are (a kind word)


def vocabulary_relations(vocab: Vocabulary | None) -> dict[str, dict[str, Any]]:
    """The vocabulary's properties by index name: kind, label, domain and range as class names and labels."""
    if vocab is None:
        return {}
    out: dict[str, dict[str, Any]] = {}

    def label(iri: str) -> str:
        t = vocab.terms.get(iri)
        return (t.label if t is not None and t.label else re.split(r"[#/]", iri)[-1]) if iri else ""

    for t in vocab.of_kind("object", "datatype"):
        name = vocab.names.get(t.iri, "")
        if not name:
            continue
        out[name] = {"kind": t.kind, "iri": t.iri, "label": t.label or name, "domain": [vocab.names.get(d, "") for d in t.domain],
                     "domain_label": " or ".join(label(d) for d in t.domain if d),
                     "range": vocab.names.get(t.range, t.range) if t.kind == "object" else t.range,
                     "range_label": label(t.range) if t.kind == "object" else t.range, "unit": t.unit}
    return out


def system_prompt(relations: dict[str, dict[str, Any]]) -> str:
    if not relations:
        rel = ("There is no vocabulary: a link's relation is named from the sentence's own words (listed for "
               "each link).")
    else:
        lines = []
        for name, r in relations.items():
            if r["kind"] == "object":
                lines.append(f"- {name} ({r['label']}): {r['domain_label'] or 'a thing'} -> "
                             f"{r['range_label'] or 'a thing'}")
            else:
                lines.append(f"- {name} ({r['label']}): {r['domain_label'] or 'a thing'} -> a value "
                             f"({r['range'] or 'text'}{', ' + r['unit'] if r['unit'] else ''})")
        rel = ("The user's vocabulary: use only these relations and properties, each read as subject -> object:\n"
               + "\n".join(lines))
    direction = ("; \"subject\" and \"object\" are the two things in the direction the relation reads"
                 if relations else "")
    return prompts.render("read_sentence_system", relations=rel, direction=direction)
