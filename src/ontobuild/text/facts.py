"""Writing what a sentence states into the index: the individuals its things become (a new one of the class its
head noun names, or one already named the same), each value as a typed fact with its qualifiers and provenance
(the chunk and the sentence), each link as an object fact, "X is a Y" as X's class; and every chunk kept verbatim as
a TextChunk. Each value ends in the coverage: written, or the reason it was not."""

from __future__ import annotations

import re
from typing import Any

from ..ontology.entries import Fact

from ..ontology.index import EntitiesIndex
from ..inputs.chunks import Chunk
from ..ontology.names import normalize, safe_name, unique_name
from .choosing import NONE, Decision, Link, ValueAsk
from .concepts import resolve, unit_key, unit_suffix, with_unit
from .quantities import unit_text
from .reading import Reading
from .naming import without_holder
from .resolving import Resolved, listed_subject
from .state import TextState

_CONDITION = re.compile(r"\b((?:if|when|unless|while|during|once)\s+[^,.;]{3,40})", re.I)


def vocabulary_term(p: Any, term: dict[str, Any]) -> None:
    """A property written under a vocabulary's name is that vocabulary's term: its IRI and label (the alignment
    step then finds it in place, never a second property of the same name)."""
    p.iri = p.iri or term.get("iri", "")
    if term.get("label") and (not p.label or p.label == p.name):
        p.label = term["label"]


def individuals_of(idx: EntitiesIndex, r: Resolved, chunk: Chunk, cls: str = "") -> list[str]:
    """The individuals a resolved thing stands for, creating a new one (and its class) when the text introduces it:
    one already named the same (its label) is reused; a name its class already has gets a number ("Gate_1")."""
    if r.individuals:
        return list(r.individuals)
    if r.made:
        return list(r.made)
    if not r.new_name:
        return []
    same = next((n for n, ind in idx.individuals.items() if normalize(ind.label) == normalize(r.new_label)
                 and "TextChunk" not in ind.classes), None)
    if same is not None:
        if cls and cls not in idx.individuals[same].classes:
            idx.individuals[same].classes.append(idx.ensure_class(cls))
        r.made = [same]
        return [same]
    kind = cls or r.new_class
    classes = [idx.ensure_class(kind, "A kind of thing the text speaks of")] if kind else []
    name = r.new_name
    if idx.kind_of(name) not in (None, "individual"):
        name = unique_name(f"{name}_1", lambda n: idx.kind_of(n) is not None)
    idx.add_individual(name, classes=classes, label=r.new_label, source={"chunk": chunk.id}, aliases=r.aliases)
    r.made = [name]
    return [name]


def listed_with(idx: EntitiesIndex, reading: Reading, resolved: dict[str, Resolved], chunk: Chunk, tid: str,
                subjects: list[str]) -> tuple[list[str], str]:
    """The individuals a clause's subject stands for when the sentence lists it with others ("Kiln K1 and Kiln K2
    reach 1,200 °C": both reach it), with the words that list them; (`subjects`, "") when `tid` is no such list's
    last thing."""
    group = listed_subject(reading)
    if not group or group[-1].id != tid:
        return subjects, ""
    out = []
    for t in group:
        r = resolved.get(t.id)
        out += subjects if t.id == tid else (individuals_of(idx, r, chunk) if r is not None else [])
    return list(dict.fromkeys(out)), " and ".join(t.label for t in group)


def value_qualifier(q: Any, reading: Reading, state: TextState) -> str:
    """What the words around a value say of it: its bound or range, per what package, and a condition right after
    it ("within 6 hours if the driver reports damage": only the 6 hours are under that condition)."""
    parts = [q.qualifier] if q.qualifier else []
    pack = q.package or next((p for p in q.per if p in state.packages), "")
    if pack:
        parts.append(f"per {pack}")
    tail = reading.text[q.end - reading.start:] if reading.start <= q.end <= reading.end else ""
    cond = _CONDITION.match(tail.lstrip(" ,")) if tail else None  # "within 24 hours if chilled": this value's
    if cond:
        parts.append(" ".join(cond.group(1).split()))
    parts += [f"of {v.restricts}" for v in reading.values if v.restricts and v.quantity is not q]  # which ones
    return "; ".join(p for p in parts if p)


def _write_links(idx: EntitiesIndex, chunk: Chunk, reading: Reading, resolved: dict[str, Resolved], links: list[Link],
                 decision: Decision, state: TextState) -> list[dict[str, Any]]:
    """The links the model chose written as facts between the things they join (each listed subject's own); a clause
    the vocabulary has no relation for is kept in `state.outside`."""
    written_links: list[dict[str, Any]] = []
    for k in links:
        s, rel, o = decision.links.get(k.id, (k.subject, NONE, k.object))
        if rel == NONE or s not in resolved or o not in resolved:
            if state.relations and rel == NONE and k.kind == "clause":
                state.outside.append({"sentence": reading.text, "link": k.words})
            continue
        vocab = state.relations.get(rel)
        dom = vocab["domain"][0] if vocab and vocab["domain"] and vocab["domain"][0] else ""
        rng = vocab["range"] if vocab and vocab.get("range") else ""
        subjects = individuals_of(idx, resolved[s], chunk, dom if not resolved[s].individuals else "")
        objects = individuals_of(idx, resolved[o], chunk, rng if not resolved[o].individuals else "")
        if not subjects or len(objects) != 1:
            continue
        obj = objects[0]
        domain = idx.individuals[subjects[0]].classes[0] if idx.individuals[subjects[0]].classes else ""
        rng_cls = idx.individuals[obj].classes[0] if idx.individuals[obj].classes else ""
        prop = idx.ensure_object_property(rel, domain, rng_cls, f"From text, e.g. '{reading.text}'")
        if vocab:
            vocabulary_term(idx.properties[prop], vocab)
        source = {"chunk": chunk.id, "sentence": reading.text}
        if len(subjects) > 1:
            source["stated_of"] = resolved[s].stated_of or reading.thing(s).label  # type: ignore[union-attr]
        if k.kind == "clause":  # "A and B feed C": each listed subject does
            subjects, listed = listed_with(idx, reading, resolved, chunk, s, subjects)
            if listed:
                source["stated_of"] = listed
        for subj in subjects:
            if subj != obj and idx.add_fact(subj, Fact(prop, object=obj, source=dict(source))):
                written_links.append({"chunk": chunk.id, "subject": subj, "property": prop, "object": obj,
                                      "decided_by": decision.by.get(k.id, "model")})
    return written_links


def write_facts(idx: EntitiesIndex, chunk: Chunk, reading: Reading, resolved: dict[str, Resolved], asks: list[ValueAsk],
           links: list[Link], decision: Decision, state: TextState) -> dict[str, Any]:
    numbers: list[dict[str, Any]] = []
    kinds = 0
    by_value = {v.id: v for v in reading.values}
    for ask in asks:
        v = by_value[ask.id]
        q = v.quantity
        entry = {"chunk": chunk.id, "number": q.id, "value": q.value, "unit": unit_text(q), "written": q.written,
                 "sentence": reading.text}
        owner, prop = decision.values.get(ask.id, (NONE, ""))
        if owner == NONE or owner not in resolved:
            numbers.append({**entry, "status": "skipped", "reason": "the model said it is the value of none of the "
                                                                    "things read" if decision.answered else
                            "the model gave no usable answer"})
            continue
        r = resolved[owner]
        vocab = state.relations.get(prop)
        cls = (vocab["domain"][0] if vocab and vocab["domain"] and vocab["domain"][0] else "")
        subjects = individuals_of(idx, r, chunk, cls if not r.individuals else "")
        if not subjects:
            numbers.append({**entry, "status": "skipped", "reason": "its thing could not be named"})
            continue
        if not vocab and prop not in idx.properties:
            prop = without_holder(prop, reading, owner, unit_suffix(q, state.packages))
        name = prop if vocab else resolve(idx, with_unit(prop, q, state.packages) if prop not in idx.properties
                                          else prop, q, state.packages)
        domain = idx.individuals[subjects[0]].classes[0] if idx.individuals[subjects[0]].classes else ""
        datatype = vocab["range"] if vocab and vocab["range"] else q.datatype
        if datatype == "xsd:gYear" and q.datatype == "xsd:date":
            datatype = q.datatype
        name = idx.ensure_datatype_property(name, q.datatype if q.datatype != datatype and vocab else q.datatype,
                                            domain, "" if vocab else unit_key(q, state.packages),
                                            f"From text, e.g. '{reading.text}'")
        p = idx.properties[name]
        p.dimension = p.dimension or q.dimension
        if vocab:
            vocabulary_term(p, vocab)
        source = {"chunk": chunk.id, "sentence": reading.text}
        if r.stated_of:
            source["stated_of"] = r.stated_of
        qualifier = value_qualifier(q, reading, state)
        if v.subject == owner and not v.measure_of and not v.owner:  # said of the clause's subject: of each listed
            subjects, listed = listed_with(idx, reading, resolved, chunk, owner, subjects)
            if listed:
                source["stated_of"] = listed
        for s in subjects:
            idx.add_fact(s, Fact(name, literal=q.value, datatype=p.range or q.datatype, unit=unit_text(q),
                                 qualifier=qualifier, source=dict(source)))
        numbers.append({**entry, "status": "covered", "individuals": subjects, "individual": subjects[0],
                        "property": name, "decided_by": decision.by.get(ask.id, "model"),
                        **({"qualifier": qualifier} if qualifier else {}),
                        **({"stated_of": r.stated_of} if r.stated_of else {})})
    written_links = _write_links(idx, chunk, reading, resolved, links, decision, state)
    kinds += write_kinds(idx, reading, resolved, chunk, state)
    return {"numbers": numbers, "links": written_links, "kinds": kinds}


def write_kinds(idx: EntitiesIndex, reading: Reading, resolved: dict[str, Resolved], chunk: Chunk,
           state: TextState) -> int:
    """"X is a Y": X (an individual already written, or a name) gets Y's head noun as its class."""
    n = 0
    for c in reading.clauses:
        if not c.copula or not c.subject or c.subject not in resolved:
            continue
        comp = next((reading.thing(a) for p, a in c.arguments if not p and reading.thing(a) is not None and
                     reading.thing(a).role == "complement"), None)  # type: ignore[union-attr]
        if comp is None or comp.proper or comp.individuals or not comp.kind or comp.plural:
            continue
        subj = resolved[c.subject]
        names = subj.individuals or ([subj.new_name] if subj.new_name in idx.individuals else [])
        if not names and subj.new_name and reading.thing(c.subject) is not None and \
                reading.thing(c.subject).proper:  # type: ignore[union-attr]
            names = individuals_of(idx, subj, chunk, "")
        cls = named_class(comp.kind, state) or comp.kind
        for name in names:
            ind = idx.individuals[name]
            cls_name = idx.ensure_class(cls, "A kind of thing the text speaks of")
            if cls_name not in ind.classes:
                ind.classes.append(cls_name)
                n += 1
    return n


def named_class(kind: str, state: TextState) -> str:
    if state.vocab is None:
        return ""
    for t in state.vocab.of_kind("class"):
        if normalize(t.label or "") == normalize(kind) or normalize(state.vocab.names.get(t.iri, "")) == \
                normalize(kind):
            return state.vocab.names.get(t.iri, "")
    return ""


def keep_chunk(idx: EntitiesIndex, chunk: Chunk, mentions: list[str]) -> str:
    """Every chunk stays in the ontology as a TextChunk with its text and links to what it mentions."""
    cls = idx.ensure_class("TextChunk", "A passage of the input text, kept verbatim")
    name = idx.ensure_individual(safe_name("chunk " + chunk.id), chunk.id, cls, "", {"chunk": chunk.id})
    prop = idx.ensure_datatype_property("text", "xsd:string", cls, "", "The verbatim text of a chunk")
    idx.add_fact(name, Fact(prop, literal=chunk.text, datatype="xsd:string", source={"chunk": chunk.id}))
    link = idx.ensure_object_property("mentions", cls, "", "A text chunk mentions an individual")
    for m in mentions:
        idx.add_fact(name, Fact(link, object=m, source={"chunk": chunk.id}))
    return name
