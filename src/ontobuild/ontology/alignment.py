"""Align a built index onto the user's vocabulary (`ontobuild --schema`): a post-pass over the whole index, after
structured data and text were read, so that both land on the vocabulary's terms.

Per built class, then per built property: code proposes the vocabulary terms that may mean the same (name and
label similarity, plus the sentence-embedding model the answerer ships when it is installed) and keeps only the
compatible ones (a property: object vs datatype, every value a valid value of its range, the same unit, every
subject in its domain and every object in its range); a same-name compatible term is taken without asking; else
the model chooses among the candidates or says none in one small constrained call. A chosen term replaces the
built one (renamed, or merged when several built terms choose it) and keeps the vocabulary's IRI, label, domain,
range, unit, disjointness and functionality, so that the reasoner checks them. Nothing fits: the built term stays
and is listed as a new term. The vocabulary's other terms are added as they are. Every decision is an alignment
record (coverage.json `alignments`, the report's vocabulary section)."""

from __future__ import annotations

import logging
import re
from dataclasses import asdict, dataclass, field
from typing import Any

from ontocore.agent import choose_one
from ontocore.llm import ChatModel
from ontocore.progress import Progress
from ontocore.text import name_tokens, singular
from ontocore.trace import Trace
from ..values.units import dimension_of

from .entries import check_literal
from .index import EntitiesIndex
from .names import name_bound, normalize, safe_name, similarity, unique_name
from ..prompts import prompts
from .vocabulary import Term, Vocabulary

log = logging.getLogger(__name__)

MAX_CANDIDATES = 4
# the least similarity (of names and labels: names.similarity, or of their words' sentence embeddings) of a candidate;
# lowest for object properties, whose domain and range checks say most (the small model tends to take what it is
# offered: on made-up domains it took a level for a length and a place for a group of things at 0.44-0.46)
MIN_SIMILARITY = {"class": 0.5, "datatype": 0.5, "object": 0.25}
_NUMERIC = {"xsd:integer", "xsd:decimal", "xsd:double"}
_FAMILY = {"xsd:integer": "number", "xsd:decimal": "number", "xsd:double": "number", "xsd:date": "date",
           "xsd:dateTime": "date", "xsd:gYear": "date", "xsd:gMonthDay": "date", "xsd:time": "time of day",
           "xsd:boolean": "truth value", "xsd:anyURI": "web address", "xsd:string": "text"}
# the builder's own structure (a text chunk kept verbatim, its text, what it mentions): never a domain term
_OWN_TERMS = {"TextChunk", "text", "mentions"}


@dataclass
class Alignment:
    """What became of one built term."""
    term: str  # the built name
    kind: str  # class | object | datatype
    iri: str = ""  # the vocabulary term it became, "" when it stays a new term
    name: str = ""  # its name in the index afterwards
    how: str = ""  # same name | model chose | model said none | no candidate | model gave no answer
    candidates: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # similar terms code refused, with why


class _Similarity:
    """Name/label similarity, with sentence embeddings when the embedder is installed."""

    def __init__(self, use_embeddings: bool = True) -> None:
        self.embedder = None
        if use_embeddings:
            from ontocore import embeddings
            if embeddings.available():
                self.embedder = embeddings.Embedder()

    def score(self, name: str, label: str, term: Term) -> float:
        from ontocore.embeddings import split_name

        forms = {split_name(name), label.lower()} - {""}
        targets = {split_name(term.iri), term.label.lower()} - {""}
        best = max(similarity(a, b) for a in forms for b in targets)
        if self.embedder is not None and best < 1.0:
            vectors = self.embedder.embed([*forms, *targets])
            k = len(forms)
            best = max(best, float((vectors[:k] @ vectors[k:].T).max()))
        return best


def _same_name(name: str, label: str, term: Term) -> bool:
    from ontocore.embeddings import split_name

    def forms(*texts: str) -> set[str]:
        out = set()
        for t in texts:
            words = split_name(t).split()
            if words:
                out.add(normalize(" ".join(words[:-1] + [singular(words[-1])])))
        return out - {""}

    return bool(forms(name, label) & forms(term.iri, term.label))


def _classes_of(idx: EntitiesIndex, individual: str) -> set[str]:
    """The IRIs of every class an individual is in (with superclasses)."""
    out: set[str] = set()
    for c in idx.individuals[individual].classes:
        out |= {idx.iri_of(x) for x in idx.superclasses_closure(c)}
    return out


def property_problem(idx: EntitiesIndex, vocab: Vocabulary, prop: str, term: Term) -> str:
    """Why built property `prop` cannot become vocabulary property `term` ("" when it can)."""
    from ontocore.embeddings import split_name

    p = idx.properties[prop]
    label = vocab.names.get(term.iri, term.label)
    uses = [(i, f) for i, f in idx.iter_facts() if f.property == prop]
    names_things = p.kind == "datatype" and term.kind == "object" and term.range and p.range in ("", "xsd:string")
    if p.kind != term.kind and not names_things:  # text values that name things may become links (names_things)
        return f"{label} is a{'n object' if term.kind == 'object' else ' datatype'} property"
    if term.kind == "datatype":
        if term.range:
            for _, f in uses:
                if check_literal(f.literal or "", term.range) is not None:
                    return f"{label} holds {term.range} values, not \"{f.literal}\""
            mine, theirs = _FAMILY.get(p.range, ""), _FAMILY.get(term.range, "")
            # a number or a date never becomes text nor another kind; text whose every value is a valid value of
            # the term's range (checked above: dates and numbers read from a table as text) takes the term's type
            if mine and theirs and mine != theirs and mine != "text" and \
                    not (mine == "number" and term.range == "xsd:gYear"):  # years a table gave as numbers
                return f"{label} holds {theirs}s, {prop} holds {mine}s"
        mine_bound, theirs_bound = name_bound(prop), name_bound(re.split(r"[#/]", term.iri)[-1])
        if mine_bound and theirs_bound and mine_bound != theirs_bound:
            return f"{label} is {'an upper' if theirs_bound == 'max' else 'a lower'} bound, {prop} the other one"
        counted = p.unit.split(" per ")[0].strip() if p.dimension == "count" else ""
        named = {singular(w) for w in name_tokens(f"{split_name(term.iri)} {term.label}")}
        if counted and singular(counted.lower()) not in named:
            return f"{prop} counts {counted}s, {label} does not say it counts them"
        if term.unit and term.unit != p.unit and (p.unit or p.dimension):
            have = f"{p.unit} ({p.dimension or dimension_of(p.unit) or 'no dimension'})" if p.unit else "no unit"
            return f"{label} is in {term.unit} ({dimension_of(term.unit) or 'no dimension'}), {prop} in {have}"
    for d_iris, who, what in ((term.domain, [i.name for i, _ in uses], "domain"),
                              (([term.range] if term.kind == "object" and term.range else []),
                               [f.object for _, f in uses if f.object], "range")):
        if not d_iris:
            continue
        wanted = set(d_iris)
        for ind in dict.fromkeys(who):
            if ind in idx.individuals and not _classes_of(idx, ind) & wanted:
                return f"{idx.individuals[ind].label} is not in the {what} of {label}"
    return ""


def _candidates(idx: EntitiesIndex, vocab: Vocabulary, name: str, kind: str, sim: _Similarity
                ) -> tuple[list[Term], list[str], Term | None]:
    """(compatible candidates best first, refused ones with why, a same-name compatible term). A text property may
    also become a relation (its values name things)."""
    ent = idx.classes.get(name) or idx.properties.get(name)
    label = ent.label if ent is not None and ent.label != name else ""
    kinds = ("datatype", "object") if kind == "datatype" and idx.properties[name].range in ("", "xsd:string") else \
        (kind,)
    scored = []
    for term in vocab.of_kind(*kinds):
        s = 1.0 if _same_name(name, label, term) else sim.score(name, label, term)
        # a declared domain and range are evidence enough to offer a relation for a relation, whatever its name
        if s >= MIN_SIMILARITY[kind] or kind == "object" and term.domain and term.range:
            scored.append((s, term))
    scored.sort(key=lambda st: (-st[0], st[1].iri))
    ok, refused, same = [], [], None
    for s, term in scored:
        why = property_problem(idx, vocab, name, term) if kind != "class" else ""
        if why:
            refused.append(why)
        elif s == 1.0 and same is None:
            same = term
        else:
            ok.append(term)
    return ok[:MAX_CANDIDATES], refused[:MAX_CANDIDATES], same


def _describe(vocab: Vocabulary, term: Term) -> str:
    def short(iri: str) -> str:
        return vocab.names.get(iri, iri)

    bits = [f'"{term.label}"' if term.label else ""]
    if term.comment:
        bits.append(term.comment[:120])
    if term.domain:
        bits.append("of " + " or ".join(map(short, term.domain)))
    if term.range:
        bits.append("to " + short(term.range) if term.kind == "object" else term.range)
    if term.unit:
        bits.append("in " + term.unit)
    return f"- {vocab.names[term.iri]}: " + "; ".join(b for b in bits if b)


def _examples(idx: EntitiesIndex, name: str) -> str:
    if name in idx.classes:
        members = [i.label for i in idx.individuals.values() if name in i.classes][:4]
        sup = ", ".join(idx.classes[name].superclasses)
        return (f"Its members include: {', '.join(members)}." if members else "It has no members yet.") + \
            (f" It is a kind of {sup}." if sup else "")
    p = idx.properties[name]
    uses = [(i, f) for i, f in idx.iter_facts() if f.property == name][:3]

    def thing(ind: str) -> str:
        classes = idx.individuals[ind].classes
        return idx.individuals[ind].label + (f" (a {', '.join(classes)})" if classes else "")

    shown = "; ".join(f"{thing(i.name)} {name} {thing(f.object) if f.object else f.literal}"
                      f"{' ' + (f.unit or p.unit) if (f.unit or p.unit) and not f.object else ''}" for i, f in uses)
    return f"Used as: {shown}." if shown else "It is not used yet."


def _choose(model: ChatModel, idx: EntitiesIndex, vocab: Vocabulary, name: str, kind: str, options: list[Term],
            trace: Trace | None) -> tuple[Term | None, str]:
    by_name = {vocab.names[t.iri]: t for t in options}
    text = prompts.render("align_term", kind={"class": "class", "object": "relation (object property)",
                                              "datatype": "value (datatype property)"}[kind],
                          term=name, examples=_examples(idx, name),
                          candidates="\n".join(_describe(vocab, t) for t in options))
    choice = choose_one(model, text, "choose", "Choose the vocabulary term that means the same, or none.", "choice",
                        ["none", *by_name], system=prompts.render("system_builder"), trace=trace,
                        label=f"align {name}")
    if choice is None:
        return None, "model gave no answer"
    if choice == "none":
        return None, "model said none"
    return by_name[choice], "model chose"


def _slot(idx: EntitiesIndex, vocab: Vocabulary, iri: str, holder: str | None) -> str:
    """The index name for a vocabulary term: its own name unless another entity holds it."""
    name = vocab.names[iri]
    held = idx.classes.get(name) or idx.properties.get(name) or idx.individuals.get(name)
    if held is None or name == holder or getattr(held, "iri", "") == iri:  # free, or this term already (text step)
        return name
    prefix = next((p for p, ns in sorted(vocab.prefixes.items()) if iri.startswith(ns)), "voc")
    base, n = f"{prefix}_{name}", 2
    name = base
    while idx.kind_of(name) is not None and name != holder:
        name, n = f"{base}{n}", n + 1
    return name


def _decide(model: ChatModel, idx: EntitiesIndex, vocab: Vocabulary, names: list[str], sim: _Similarity,
            trace: Trace | None, records: list[Alignment]) -> dict[str, list[str]]:
    """Per built term: its compatible candidates, then the same-name one or the model's choice; vocabulary IRI ->
    the built names that chose it. Same-name matches are decided first and their terms are not offered to other
    built terms; a term is not offered to a built property that holds values on the same things as the built
    property that chose it (one thing, two values of one concept). Appends an Alignment per term to `records`."""
    found = {}
    for name in names:
        kind = "class" if name in idx.classes else idx.properties[name].kind
        found[name] = (kind, *_candidates(idx, vocab, name, kind, sim))
    chosen: dict[str, list[str]] = {}
    for name in names:
        same = found[name][3]
        if same is not None and same.iri not in chosen:
            chosen[same.iri] = [name]
    by_name = {built[0]: iri for iri, built in chosen.items()}
    for name in names:
        kind, ok, refused, same = found[name]
        if name in by_name:
            term, how = vocab.terms[by_name[name]], "same name"
            ok = [t for t in ok if t.iri != term.iri]
        else:
            ok = [t for t in ok if _offered(idx, name, kind, chosen.get(t.iri, []), by_name)]
            term, how = _choose(model, idx, vocab, name, kind, ok, trace) if ok else (None, "no candidate")
            if term is not None:
                chosen.setdefault(term.iri, []).append(name)
        rec = Alignment(name, kind, iri=term.iri if term else "", how=how, candidates=[vocab.names[t.iri] for t in ok],
                        refused=refused)
        records.append(rec)
    return chosen


def _offered(idx: EntitiesIndex, name: str, kind: str, others: list[str], same_named: dict[str, str]) -> bool:
    """Whether a vocabulary term already chosen by the built terms `others` may be offered to `name` too: never when
    one of them has its name or `name` is a class; a property only when they hold values on other things."""
    if not others:
        return True
    if kind == "class" or any(b in same_named for b in others):
        return False
    mine = _holders(idx, name)
    return not any(mine & _holders(idx, b) for b in others)


def _holders(idx: EntitiesIndex, prop: str) -> set[str]:
    return {i.name for i, f in idx.iter_facts() if f.property == prop}


def _place(idx: EntitiesIndex, vocab: Vocabulary, term: Term, built: list[str], merge: Any) -> str:
    """The index name of a vocabulary term; the first built term that chose it is renamed to it, the others merged
    into it (`merge`: merge_class or merge_property). A name not yet in the index is for the caller to add."""
    name = _slot(idx, vocab, term.iri, built[0] if built else None)
    if built:
        if built[0] != name:
            idx.rename(built[0], name)
        for other in built[1:]:
            merge(other, name)
    return name


def _values_to_things(idx: EntitiesIndex, prop: str, cls: str) -> None:
    """A text property the vocabulary says is a relation to `cls`: each value names a thing of that class (an
    individual of it with that label, or a new one, labelled with the value and sourced like the fact)."""
    p = idx.properties[prop]
    p.kind, p.range, p.unit, p.dimension = "object", cls, "", ""
    by_label = {normalize(i.label): i.name for i in idx.individuals.values() if cls in i.classes}
    for ind, f in list(idx.iter_facts()):
        if f.property != prop or f.literal is None:
            continue
        key = normalize(f.literal)
        if key not in by_label:
            name = unique_name(safe_name(f.literal) or cls, lambda n: idx.kind_of(n) is not None)
            idx.add_individual(name, [cls], label=f.literal, source=dict(f.source))
            by_label[key] = name
        f.object, f.literal, f.datatype, f.unit = by_label[key], None, "", ""


def _class_names(vocab: Vocabulary, placed: dict[str, str], iris: list[str]) -> list[str]:
    return [placed[i] for i in iris if i in placed]


def align(model: ChatModel, idx: EntitiesIndex, vocab: Vocabulary, trace: Trace | None = None,
          use_embeddings: bool = True) -> list[dict[str, Any]]:
    """Map the built index onto `vocab` in place; the alignment records (see the module docstring)."""
    sim = _Similarity(use_embeddings)
    idx.prefixes.update(vocab.prefixes)
    records: list[Alignment] = []
    placed: dict[str, str] = {}  # vocabulary IRI -> index name
    # ---- classes
    chosen = _decide(model, idx, vocab, sorted(n for n, c in idx.classes.items() if not c.iri and n not in _OWN_TERMS),
                     sim, trace, records)
    for term in vocab.of_kind("class"):
        name = _place(idx, vocab, term, chosen.get(term.iri, []), idx.merge_class)
        if name in idx.classes:
            c = idx.classes[name]
            if c.label and c.label not in (name, term.label):
                c.roles.append(f"built as {c.label}")
        else:
            c = idx.add_class(name)
        c.iri, c.label = term.iri, term.label or c.label
        if term.comment and term.comment not in c.roles:
            c.roles.append(term.comment)
        placed[term.iri] = name
    for term in vocab.of_kind("class"):
        c = idx.classes[placed[term.iri]]
        c.superclasses = list(dict.fromkeys(c.superclasses + _class_names(vocab, placed, term.superclasses)))
        c.disjoint = list(dict.fromkeys(c.disjoint + _class_names(vocab, placed, term.disjoint)))
    # ---- individuals: the same name or label is the same individual (exact work, no model)
    for term in vocab.of_kind("individual"):
        classes = _class_names(vocab, placed, term.classes)
        same = next((i for i in idx.individuals.values() if not i.iri and
                     normalize(term.label) in (normalize(i.label), normalize(i.name))), None)
        name = same.name if same else _slot(idx, vocab, term.iri, None)
        ind = idx.add_individual(name, classes, label=term.label)
        ind.iri = term.iri
        placed[term.iri] = name
    # ---- properties
    chosen = _decide(model, idx, vocab, sorted(n for n, p in idx.properties.items()
                                               if not p.iri and n not in _OWN_TERMS), sim, trace, records)
    for term in vocab.of_kind("object", "datatype"):
        for built in chosen.get(term.iri, []):
            if term.kind == "object" and idx.properties[built].kind == "datatype":
                _values_to_things(idx, built, placed[term.range])
        name = _place(idx, vocab, term, chosen.get(term.iri, []), idx.merge_property)
        if name in idx.properties:
            p = idx.properties[name]
        else:
            p = idx.add_property(name, term.kind)
        p.iri, p.label, p.functional = term.iri, term.label or p.label, term.functional
        if term.comment and term.comment not in p.roles:
            p.roles.append(term.comment)
        domain = _class_names(vocab, placed, term.domain)
        if domain:
            p.domain = domain
        if term.kind == "object" and term.range in placed:
            p.range = placed[term.range]
        elif term.kind == "datatype" and term.range:
            p.range = term.range
            for _, f in idx.iter_facts():  # values keep their lexical form, typed as the vocabulary says
                if f.property == name and f.literal is not None and check_literal(f.literal, term.range) is None:
                    f.datatype = term.range
        if term.unit:
            p.unit, p.dimension = term.unit, dimension_of(term.unit) or p.dimension
        placed[term.iri] = name
    for rec in records:
        rec.name = placed.get(rec.iri, rec.term)
        if trace is not None:
            trace.write("align", alignment=asdict(rec))
    log.info("vocabulary: %d of %d built terms aligned", sum(1 for r in records if r.iri), len(records))
    return [asdict(r) for r in records]


def align_vocabulary(model: ChatModel, idx: EntitiesIndex, vocab: Vocabulary, trace: Trace, progress: Progress
                     ) -> list[dict[str, Any]]:
    """The vocabulary step of a build (`--schema`): `align`; returns the alignments. The coverage entries and link
    records that name a renamed or merged term follow the index (EntitiesIndex.track)."""
    progress.begin("vocabulary", "aligning with your vocabulary")
    alignments = align(model, idx, vocab, trace)
    progress.end("vocabulary")
    return alignments


def iri_share(idx: EntitiesIndex, vocab: Vocabulary) -> dict[str, Any]:
    """How many of the classes and properties that hold data are the vocabulary's terms (the builder's own text-chunk
    terms aside)."""
    used_classes = {c for i in idx.individuals.values() for c in i.classes} - _OWN_TERMS
    used_props = {f.property for _, f in idx.iter_facts()} - _OWN_TERMS
    iris = set(vocab.terms)
    out: dict[str, Any] = {}
    for what, names, pool in (("classes", used_classes, idx.classes), ("properties", used_props, idx.properties)):
        given = sum(1 for n in names if pool[n].iri in iris)
        out[what] = {"used": len(names), "vocabulary": given, "new": sorted(n for n in names if pool[n].iri not in iris)}
    return out
