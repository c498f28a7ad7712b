"""Where each support triple came from, when the ontology was built by `ontobuild`.

The outcome folder of a build holds `entities_index.json` next to the ontology; the index records a source for
every individual and every fact: the input file and the JSON path of the value, or the text chunk and the
sentence it was read from. A support triple is matched to the fact it serializes (subject individual, property,
object individual or literal value); a type or label triple to the individual's own source. Triples that no
fact explains (schema triples, graphs not built by ontobuild) get no source rather than a guessed one."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from rdflib.namespace import RDF, RDFS, SKOS

log = logging.getLogger(__name__)

INDEX_FILE = "entities_index.json"
_SELF = {str(RDF.type), str(RDFS.label), str(SKOS.altLabel), str(SKOS.prefLabel)}


def expand(text: str, prefixes: dict[str, str]) -> str:
    """The IRI of a support term written as <iri> or prefix:local ('' when it is neither)."""
    if text.startswith("<") and text.endswith(">"):
        return text[1:-1]
    prefix, sep, local = text.partition(":")
    if sep and prefix in prefixes and " " not in text:
        return prefixes[prefix] + local
    return ""


def _same_value(lexical: str, shown: str) -> bool:
    if lexical == shown or lexical == shown.rsplit("@", 1)[0]:
        return True
    try:
        return float(lexical) == float(shown)
    except ValueError:
        return False


@dataclass
class Provenance:
    """The sources recorded in one or more entities indexes, keyed by individual IRI."""

    individuals: dict[str, dict[str, Any]] = field(default_factory=dict)  # IRI -> index record
    base_iris: list[str] = field(default_factory=list)
    properties: dict[str, str] = field(default_factory=dict)  # IRI -> property name (a vocabulary's or our own)
    objects: dict[str, str] = field(default_factory=dict)  # individual name -> IRI, per index (names are unique)

    @classmethod
    def find(cls, paths: Iterable[Path]) -> "Provenance | None":
        """The provenance of the index beside each ontology (outcome folder or file in one); None if none has."""
        prov = cls()
        for path in paths:
            index = Path(path) / INDEX_FILE if Path(path).is_dir() else Path(path).parent / INDEX_FILE
            if index.is_file():
                prov.add(index)
        return prov if prov.individuals else None

    def add(self, index_path: Path) -> None:
        try:
            data = json.loads(index_path.read_text("utf-8"))
            base = str(data["base_iri"])
            records = dict(data.get("individuals") or {})
            properties = dict(data.get("properties") or {})
        except (OSError, ValueError, KeyError, TypeError) as e:  # provenance is an extra: say so and go on
            log.warning("no provenance from %s: %s", index_path, e)
            return
        self.base_iris.append(base)
        for name, record in records.items():
            if isinstance(record, dict):  # a vocabulary's individual keeps its own IRI
                iri = str(record.get("iri") or base + name)
                self.individuals[iri] = record
                self.objects[name] = iri
        for name, record in properties.items():
            if isinstance(record, dict):
                self.properties[str(record.get("iri") or base + name)] = name

    def source_of(self, triple: list[str], prefixes: dict[str, str]) -> dict[str, str]:
        """The recorded source of a support triple ([s, p, o] as shown), {} when no fact explains it."""
        s, p, o = triple
        record = self.individuals.get(expand(s, prefixes))
        if record is None:
            return {}
        p_iri = expand(p, prefixes)
        if p_iri in _SELF:
            return dict(record.get("source") or {})
        o_iri = expand(o, prefixes)
        prop = self.properties.get(p_iri)
        if prop is None:
            return {}
        for fact in record.get("facts") or []:
            if fact.get("property") != prop:
                continue
            if "object" in fact and o_iri == self.objects.get(str(fact["object"])):
                return dict(fact.get("source") or {})
            if "literal" in fact and _same_value(str(fact["literal"]), o):
                return dict(fact.get("source") or {})
        return {}

    def sources(self, support: list[list[str]], prefixes: dict[str, str]) -> list[dict[str, str]]:
        return [self.source_of(t, prefixes) for t in support]


def describe(source: dict[str, str]) -> str:
    """One line for a person: 'catalog.json $['A']['Price']' or 'notes.txt#3: “The sentence.”'."""
    from ontocore.html import source_text

    return source_text(source)
