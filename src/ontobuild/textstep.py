"""The text step of a build: for each chunk, code reads the quantities (textnumbers), the things and relations
(textsubjects) and proposes a property per quantity (concepts); the model is asked only where code cannot
decide (several candidate subjects, or no words naming the quantity), choosing among letters and existing
properties; code checks the answer (a cost is never a duration), writes typed facts with their qualifiers on
every thing a plural or group names, and lists every skipped number with its reason. After all chunks,
properties that may mean the same concept are shown to the model and merged (`review_properties`).
`read_texts` is the step as a build runs it."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field, replace
from typing import Any

from ontocore.agent import run_agent
from ontocore.errors import ToolArgumentError
from ontocore.llm import ChatModel
from ontocore.progress import Progress
from ontocore.prompts import build as prompts
from ontocore.text import singular
from ontocore.tools import Tool
from ontocore.trace import Trace
from ontocore.units import unit as unit_of

from .concepts import (GENERIC, Concept, candidates, concept_problem, concept_words, modifier_words, named_in,
                       propose, resolve, unit_key, with_unit)
from .index import EntitiesIndex, Fact
from .ingest import Chunk
from .names import participle_noun, safe_name
from .textmentions import find_mentions, sentence_at, sentences
from .textnumbers import Quantity, find_quantities, unit_text
from .textsubjects import _VERB, ChunkReading, Thing, quantity_candidates, read_chunk

log = logging.getLogger(__name__)

PROP_NAME = {"type": "string", "pattern": "^[a-z][A-Za-z0-9]{1,50}$"}
_LETTERS = "ABCD"
_CONDITION = re.compile(r"\b((?:if|when|unless|while|during|once)\s+[^,.;]{3,40}|(?:at|during|in)\s+(?:night|"
                        r"weekends?|winter|summer|spring|autumn|peak hours|off-peak hours))", re.I)


@dataclass
class TextState:
    """What the text step keeps across chunks: package words, the last subject per file, merges made."""
    packages: set[str] = field(default_factory=set)
    prior: dict[str, Thing] = field(default_factory=dict)
    merges: list[dict[str, Any]] = field(default_factory=list)
    kinds: dict[str, str] = field(default_factory=dict)  # bare plural noun -> "thing" or "activity" (the model's)


def package_words(chunks: list[Chunk]) -> set[str]:
    """Words the texts use for packages ("sold in cases of 6" -> case): a quantity per package is one concept."""
    out = set()
    for c in chunks:
        for m in re.finditer(r"\b(?:in|into|on|onto)\s+([a-z]{3,}s)\s+(?:of|with|containing)\s+"
                             r"(?:\d|one|two|three|four|five|six|ten|twelve)|\b([a-z]{3,}s)\s+(?:with|containing|holding)"
                             r"\s+\d+\s+(?:[A-Za-z]+\s+)?(?:pieces|units|items)\b", c.text, re.I):
            out.add(singular((m.group(1) or m.group(2)).lower()))
    return out


def read_texts(model: ChatModel, idx: EntitiesIndex, chunks: list[Chunk], trace: Trace, progress: Progress
               ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The text step of a build: every chunk in order (`extract_chunk`), then the review of the properties that may
    be one concept (`review_properties`); returns the chunks' coverage entries (naming the properties their facts
    ended in, after the merges) and the merges."""
    entries: list[dict[str, Any]] = []
    state = TextState(packages=package_words(chunks))
    progress.begin("text", f"reading {len(chunks)} text chunk(s)", total=len(chunks))
    for i, c in enumerate(chunks, 1):
        before = model.usage.snapshot()
        entries.append(extract_chunk(model, idx, c, trace, state))
        progress.advance("text", f"text chunk {i} of {len(chunks)}{_speed(model, before)}")
    if chunks:
        review_properties(model, idx, trace, state)
        _rename_in_coverage(entries, state.merges)
    progress.end("text")
    return entries, state.merges


def _rename_in_coverage(chunks: list[dict[str, Any]], merges: list[dict[str, Any]]) -> None:
    """Coverage entries name the property a fact ended in, after merges."""
    into = {m["merged"]: m["into"] for m in merges}
    for c in chunks:
        for e in c["numbers"]:
            while e.get("property") in into:
                e["property"] = into[e["property"]]


def _speed(model: ChatModel, before: tuple[int, int, int, float]) -> str:
    """", 24 tokens/s": the completion speed of the model's calls since `before` (a usage snapshot)."""
    now = model.usage.snapshot()
    tokens, secs = now[2] - before[2], now[3] - before[3]
    return f", {tokens / secs:.0f} tokens/s" if secs > 0 and tokens > 0 else ""


def _file_of(chunk: Chunk) -> str:
    return chunk.id.rsplit("#", 1)[0] if "#" in chunk.id else chunk.id.rsplit("_", 1)[0]


def extract_chunk(model: ChatModel, idx: EntitiesIndex, chunk: Chunk, trace: Trace, state: TextState
                  ) -> dict[str, Any]:
    """Facts and relations of one chunk into the index; returns its coverage entry."""
    body = " " * chunk.lead + chunk.text[chunk.lead:]  # headings give context, never things or numbers
    view = replace(chunk, text=body)
    known = [m for m in find_mentions(idx, body, limit=40) if "TextChunk" not in idx.individuals[m].classes]
    reading = read_chunk(idx, body, known, state.prior.get(_file_of(chunk)), state.packages)
    quantities = find_quantities(body, reading.skip)
    for q in quantities:  # "20 Oak saplings": a count of the named thing's units
        if not q.dimension:
            named = next((t for t in reading.things if q.end <= t.start <= q.end + 2 and t.individuals and
                          not body[q.end:t.start].strip()), None)
            noun = re.match(r"\s+([a-z]{3,}s)\b", body[named.end:]) if named else None
            if noun:
                q.unit, q.dimension = singular(noun.group(1)), "count"
                pack = re.search(r"\b([a-z]{3,}s)\s+(?:with|containing|of)\s+$", body[max(0, q.start - 30):q.start])
                if pack and singular(pack.group(1).lower()) in state.packages:
                    q.package, q.per = singular(pack.group(1).lower()), [singular(pack.group(1).lower())]
    for q in quantities:  # "one jar per crate", "crates of 24 jars": how many units one package holds
        if q.dimension == "count" and q.per and q.per[-1] in state.packages:
            q.package, q.unit = q.per[-1], "unit"
        elif q.package:
            q.unit = "unit"
    quantity_candidates(idx, reading, quantities, state.packages)
    _kinds_or_rules(reading, state)
    proposals = {q.id: propose(q, state.packages, _opening(body, q.start)) for q in quantities}
    for q in quantities:  # a generic name, and the sentence names an existing property's concept: that property
        same = named_in(idx, q, sentence_at(body, q.start), state.packages) if proposals[q.id].generic else ""
        if same:
            proposals[q.id] = Concept(same, same, False)
    ask = [q for q in quantities if q.id in reading.candidates and not _in_condition(body, q.start) and
           (len(reading.candidates[q.id]) > 1 or proposals[q.id].generic)]
    choices: dict[str, dict[str, str]] = {}
    if ask:
        choices = _ask_model(model, idx, view, reading, ask, proposals, state, trace)
    entries: list[dict[str, Any]] = []
    for q in quantities:
        entries.append(_write(idx, view, reading, q, proposals[q.id], choices.get(q.id), state))
    links = _write_relations(idx, view, reading)
    if reading.subjects:
        state.prior[_file_of(chunk)] = list(reading.subjects.values())[-1]
    chunk_ind = _keep_chunk(idx, chunk, known)
    covered = [e for e in entries if e["status"] == "covered"]
    return {"chunk": chunk.id, "individual": chunk_ind, "status": "covered" if covered or links else "skipped",
            "reason": "" if covered or links else "no fact read; its text is kept as a TextChunk",
            "numbers": entries, "links": links}


def _kinds_or_rules(reading: ChunkReading, state: TextState) -> None:
    """A bare plural opening a sentence ("Ladders are inspected ...", "Refunds are paid ...") is a kind of
    thing or a rule about an activity: `kind_or_activity` says which (remembered across chunks), and candidates,
    subjects and relations keep only that reading."""
    for qid, opts in reading.candidates.items():
        drop: set[int] = set()
        for t in opts:
            if t.other is None:
                continue
            noun = t.other.label.lower()
            if noun not in state.kinds:
                state.kinds[noun] = kind_or_activity(noun)
            drop.add(id(t) if state.kinds[noun] == "thing" else id(t.other))
        reading.candidates[qid] = [o for o in opts if id(o) not in drop]
    for a, t in list(reading.subjects.items()):  # subjects and relations follow the same reading
        if t.other is not None and state.kinds.get(t.other.label.lower()) == "thing":
            reading.subjects[a] = t.other
    for rel in reading.relations:
        if rel.subjects.other is not None and state.kinds.get(rel.subjects.other.label.lower()) == "thing":
            rel.subjects = rel.subjects.other


# Words that stand for the two readings, for the sentence-embedding model. (The 1.5B model, asked with an enum,
# answered "thing" for every noun, payments and orders too.)
_OBJECT_WORDS = ["chair", "tool", "machine", "vehicle", "device", "container", "garment", "spare part", "equipment",
                 "bottle"]
_ACTIVITY_WORDS = ["payment", "purchase", "request", "booking", "cancellation", "procedure", "transaction",
                   "complaint", "appointment", "application"]


def kind_or_activity(noun: str) -> str:
    """"thing" when `noun` names a kind of physical thing (ladders, tyres, uniforms), "activity" when it
    names something done (refunds, bookings, payments): the closer of the two groups of words above in the
    sentence-embedding model (mean of the three most similar). Without that model: "activity" (a rule, as
    before)."""
    from ontocore import embeddings
    if not embeddings.available():
        return "activity"
    global _EMBEDDER
    if _EMBEDDER is None:
        _EMBEDDER = embeddings.Embedder()
    vectors = _EMBEDDER.embed([noun, *_OBJECT_WORDS, *_ACTIVITY_WORDS])
    sims = vectors[1:] @ vectors[0]
    n = len(_OBJECT_WORDS)
    obj, act = sorted(sims[:n])[-3:], sorted(sims[n:])[-3:]
    return "thing" if sum(obj) > sum(act) else "activity"


_EMBEDDER = None


def _opening(text: str, pos: int) -> str:
    """The first word of the sentence holding `pos`."""
    a = next((a for a, b in sentences(text) if a <= pos < b), 0)
    m = re.match(r"\s*([A-Za-z]+)", text[a:])
    return m.group(1) if m else ""


def _options(reading: ChunkReading, q: Quantity) -> list[Thing]:
    return reading.candidates.get(q.id, [])


def _thing_text(t: Thing) -> str:
    if t.individuals:
        return t.label + (f" ({', '.join(t.individuals)})" if len(t.individuals) > 1 else "")
    return f"{t.label} (new {t.new_class})"


def _ask_model(model: ChatModel, idx: EntitiesIndex, chunk: Chunk, reading: ChunkReading, ask: list[Quantity],
               proposals: dict[str, Any], state: TextState, trace: Trace) -> dict[str, dict[str, str]]:
    lines = []
    names: dict[str, list[str]] = {}
    for q in ask:
        opts = _options(reading, q)
        names[q.id] = _concept_options(idx, q, chunk.text, proposals[q.id], reading, state)
        lines.append(f"{q.id}: {q.written!r} in \"{sentence_at(chunk.text, q.start)}\"\n"
                     f"  about: " + "; ".join(f"{_LETTERS[i]} = {_thing_text(t)}" for i, t in enumerate(opts)) +
                     "\n  property: one of " + ", ".join(names[q.id]))
    sink: dict[str, Any] = {"attempts": 0}
    by_id = {q.id: q for q in ask}

    def add_facts(facts: list[dict[str, Any]]) -> str:
        sink["attempts"] += 1
        errors, good = [], {}
        for f in facts:
            q = by_id.get(str(f.get("id")))
            if q is None:
                continue
            about, prop = str(f.get("about", "none")), str(f.get("property", ""))
            n_opts = len(_options(reading, q))
            if about != "none" and (about not in _LETTERS or _LETTERS.index(about) >= n_opts):
                errors.append(f"{q.id}: about must be one of {', '.join(_LETTERS[:n_opts])} or none")
                continue
            problem = concept_problem(prop, q) if prop else ""
            if prop and prop not in names[q.id]:
                problem = f"property must be one of {', '.join(names[q.id])}"
            if problem:
                errors.append(f"{q.id}: {problem}")
                good[q.id] = {"about": about, "property": ""}
                continue
            good[q.id] = {"about": about, "property": prop}
        sink["facts"] = {**sink.get("facts", {}), **good}
        if errors and sink["attempts"] < 2:
            raise ToolArgumentError("The other entries were kept. Fix these and call add_facts again with only "
                                    "them: " + "; ".join(errors))
        return "ok"

    item = {"type": "object", "properties": {"id": {"type": "string", "enum": [q.id for q in ask]},
                                             "about": {"type": "string", "enum": [*_LETTERS, "none"]},
                                             "property": {"type": "string",
                                                          "enum": sorted({n for v in names.values() for n in v})}},
            "required": ["id", "about", "property"], "additionalProperties": False}
    tool = Tool("add_facts", "Say what each number is about and which property it is.",
                {"type": "object", "properties": {"facts": {"type": "array", "items": item, "maxItems": len(ask) + 2}},
                 "required": ["facts"], "additionalProperties": False}, add_facts, terminal=True)
    text = prompts.render("extract_facts", chunk_id=chunk.id, text=chunk.text.strip(), items="\n".join(lines))
    messages = [{"role": "system", "content": prompts.render("system_builder")}, {"role": "user", "content": text}]
    result = run_agent(model, messages, [tool], max_turns=3, trace=trace, label=f"facts {chunk.id}",
                       max_tokens=80 + 40 * len(ask))
    if result.state != "answered":
        log.warning("no answer for the numbers of %s: %s", chunk.id, result.reason)
    return sink.get("facts", {})


def _concept_options(idx: EntitiesIndex, q: Quantity, text: str, proposal: Concept, reading: ChunkReading,
                     state: TextState) -> list[str]:
    """Property names the model may choose for a quantity: existing properties of the same kind, names made of
    the nouns of its sentence and the quantity's kind ("stays in stock 12 days" -> stockTimeDays), and code's
    proposal. The model never writes a name freely: a small model copies instructions."""
    out = candidates(idx, q, proposal.name, state.packages)
    if proposal.generic:
        a, b = next(((a, b) for a, b in sentences(text) if a <= q.start < b), (0, len(text)))
        named = {w.lower() for t in reading.things for w in re.findall(r"[A-Za-z]+", t.label)}
        kind = {"time": "time", "money": "cost", "ratio": "level", "count": "count", "date": "date",
                "time of day": "time"}.get(q.dimension, "")
        nouns = [w for w in re.findall(r"\b[a-z]{4,}\b", text[a:b]) if w not in named and w not in _NOT_NOUN
                 and not w.endswith(("ly", "ed", "ing")) and not unit_of(w) and w not in GENERIC
                 and singular(w) not in state.packages and not _VERB.fullmatch(w) and not re.search(r"\b" + w + r"\s+(?:the|an?|\d)", text[a:b])]
        stems = [participle_noun(w) for w in re.findall(r"\b[a-z]{4,}ed\b", text[a:b])]
        nouns += [w for w in stems if len(w) > 3 and w not in _NOT_NOUN]  # "replaced every 3 weeks": replace
        if re.search(r"\bevery\s*$", text[max(a, q.start - 8):q.start]) and kind == "time":
            kind = "interval"
        for t in reading.candidates.get(q.id, [])[:1]:  # "Return policy": returnTime
            if not t.individuals:
                nouns = [w.lower() for w in t.label.split() if w.lower() not in _NOT_NOUN | {"policy"}][-1:] + nouns
        for w in dict.fromkeys(sorted(nouns, key=lambda w: abs(text.find(w, a) - q.start))):
            if kind == "count":  # "rated 91.5 points": ratePoints
                out.append(with_unit(safe_name(singular(w), lower_first=True), q, state.packages))
            elif kind:
                out.append(with_unit(safe_name(f"{singular(w)} {kind}", lower_first=True), q, state.packages))
    out.append(proposal.name)
    return list(dict.fromkeys(out))[:6]


_NOT_NOUN = {"must", "should", "with", "from", "into", "than", "then", "that", "this", "these", "those", "their",
             "there", "where", "when", "which", "while", "each", "every", "both", "also", "only", "about", "around",
             "stay", "stays", "keep", "kept", "takes", "take", "make", "made", "have", "does", "done", "will", "they",
             "them", "more", "less", "most", "least", "over", "under", "after", "before", "within", "average", "some",
             "above", "below", "free", "open", "closed", "standard", "working", "same", "other", "such"}


def _materialize(idx: EntitiesIndex, t: Thing, chunk_id: str) -> list[str]:
    """The individuals a thing stands for, creating a new one (and its class) when the text introduces it."""
    if t.individuals:
        return list(t.individuals)
    name = t.new_name
    if name in idx.individuals:
        return [name]
    if idx.kind_of(name) is not None:
        name += "Thing"
    cls = t.new_class or "Thing"
    if cls == name or cls.lower() == name.lower():  # a class is a kind, never the thing's own name
        words = re.findall(r"[A-Z][a-z0-9]*", name)
        cls = words[-1] if len(words) > 1 else "Thing"
    cls = idx.ensure_class(cls, "A kind of thing the text speaks of")
    return [idx.ensure_individual(name, t.label, cls, "", {"chunk": chunk_id})]  # its source says where from


def _in_condition(text: str, pos: int) -> bool:
    """Whether `pos` lies in a sentence's leading condition ("If the wind exceeds 20 m/s, ...") that a main
    clause with a number of its own follows."""
    a, b = next(((a, b) for a, b in sentences(text) if a <= pos < b), (0, len(text)))
    m = re.match(r"\s*(?:If|When|Whenever|Once|Unless|While|As soon as)\b[^,;]{3,80}?,", text[a:b])
    return m is not None and pos < a + m.end() and re.search(r"\d", text[a + m.end():b]) is not None


def _qualifier(q: Quantity, chunk: Chunk, state: TextState) -> str:
    parts = [q.qualifier] if q.qualifier else []
    pack = q.package or next((p for p in q.per if p in state.packages), "")
    if pack:
        parts.append(f"per {pack}")
    sentence = sentence_at(chunk.text, q.start)
    cond = _CONDITION.search(sentence)
    if cond:
        parts.append(" ".join(cond.group(1).split()))
    lead = re.match(r"\s*((?:With|Without|Under|During)\s[^,.;]{3,40}),", sentence)
    if lead and not cond:  # "On a busy day, the ride takes 35 minutes"
        parts.append(" ".join(lead.group(1).split()).lower())
    return "; ".join(p for p in parts if p)


def _write(idx: EntitiesIndex, chunk: Chunk, reading: ChunkReading, q: Quantity, proposed: Concept,
           choice: dict[str, str] | None, state: TextState) -> dict[str, Any]:
    entry: dict[str, Any] = {"chunk": chunk.id, "number": q.id, "value": q.value, "unit": unit_text(q),
                             "written": q.written}
    opts = _options(reading, q)
    if _in_condition(chunk.text, q.start):
        return {**entry, "status": "skipped", "reason": "part of a condition ('if ...'): kept as the qualifier of "
                                                         "the sentence's other facts"}
    if not opts:
        return {**entry, "status": "skipped", "reason": reading.reasons.get(q.id, "no subject could be read")}
    if not q.dimension and proposed.generic:
        return {**entry, "status": "skipped", "reason": "a bare number: the text does not say what it counts or "
                                                         "measures"}
    if choice is not None and choice.get("about") == "none":
        return {**entry, "status": "skipped", "reason": "the model said it measures none of the things read"}
    decided = "code"
    thing = opts[0]
    if choice is not None and choice.get("about") in _LETTERS[:len(opts)]:
        thing, decided = opts[_LETTERS.index(choice["about"])], "model"
    name = proposed.name
    if choice and choice.get("property"):
        picked = with_unit(choice["property"], q, state.packages)
        if not concept_problem(picked, q) and not _junk_concept(picked) and \
                (proposed.generic or picked in idx.properties):
            name = picked
    if thing.individuals == [] and safe_name(thing.label).lower() == name.lower():
        return {**entry, "status": "skipped", "reason": "its property would be the thing's own name"}
    prop_name = resolve(idx, name, q, state.packages)
    subjects = _materialize(idx, thing, chunk.id)
    domain = idx.individuals[subjects[0]].classes[0] if idx.individuals[subjects[0]].classes else ""
    prop = idx.ensure_datatype_property(prop_name, q.datatype, domain, unit_key(q, state.packages),
                                        f"From text, e.g. '{sentence_at(chunk.text, q.start)}'")
    p = idx.properties[prop]
    p.dimension = p.dimension or q.dimension
    source = {"chunk": chunk.id, "sentence": sentence_at(chunk.text, q.start)}
    if len(subjects) > 1 or thing.how in ("class", "group"):
        source["stated_of"] = thing.label
    qualifier = _qualifier(q, chunk, state)
    for s in subjects:
        idx.add_fact(s, Fact(prop, literal=q.value, datatype=p.range or q.datatype, unit=unit_text(q),
                             qualifier=qualifier, source=dict(source)))
    return {**entry, "status": "covered", "individuals": subjects, "individual": subjects[0], "property": prop,
            "decided_by": decided, **({"qualifier": qualifier} if qualifier else {}),
            **({"stated_of": thing.label} if "stated_of" in source else {})}


_JUNK = {"name", "value", "property", "quantity", "number", "data", "info", "item", "thing", "amount", "unit"}


def _junk_concept(name: str) -> bool:
    """A property name that names no quantity: "name", "valueHours"."""
    words = [w.lower() for w in re.findall(r"[a-z]+|[A-Z][a-z]*", name)]
    words = [w for w in words if w not in ("min", "max")]
    return not words or words[0] in _JUNK


def _generic(name: str) -> bool:
    words = re.findall(r"[a-z]+|[A-Z][a-z]*", name)
    core = [w.lower() for w in words if w.lower() not in ("min", "max")]
    return bool(core) and core[0] in GENERIC


def _write_relations(idx: EntitiesIndex, chunk: Chunk, reading: ChunkReading) -> list[dict[str, Any]]:
    out = []
    for rel in reading.relations:
        subjects = _materialize(idx, rel.subjects, chunk.id)
        objs = _materialize(idx, rel.obj, chunk.id)
        obj = objs[0] if len(objs) == 1 else None
        if obj is None:
            continue
        domain = idx.individuals[subjects[0]].classes[0] if idx.individuals[subjects[0]].classes else ""
        rng = idx.individuals[obj].classes[0] if idx.individuals[obj].classes else ""
        prop = idx.ensure_object_property(rel.name, domain, rng, f"From text, e.g. '{rel.sentence}'")
        source = {"chunk": chunk.id, "sentence": rel.sentence}
        if len(subjects) > 1:
            source["stated_of"] = rel.subjects.label
        for s in subjects:
            if s != obj:
                idx.add_fact(s, Fact(prop, object=obj, source=dict(source)))
                out.append({"chunk": chunk.id, "subject": s, "property": prop, "object": obj})
    return out


def _keep_chunk(idx: EntitiesIndex, chunk: Chunk, mentions: list[str]) -> str:
    """Every chunk stays in the ontology as a TextChunk with its text and links to what it mentions."""
    cls = idx.ensure_class("TextChunk", "A passage of the input text, kept verbatim")
    name = idx.ensure_individual(safe_name("chunk " + chunk.id), chunk.id, cls, "", {"chunk": chunk.id})
    prop = idx.ensure_datatype_property("text", "xsd:string", cls, "", "The verbatim text of a chunk")
    idx.add_fact(name, Fact(prop, literal=chunk.text, datatype="xsd:string", source={"chunk": chunk.id}))
    link = idx.ensure_object_property("mentions", cls, "", "A text chunk mentions an individual")
    for m in mentions:
        idx.add_fact(name, Fact(link, object=m, source={"chunk": chunk.id}))
    return name


# ---- one concept, one property ---------------------------------------------------------------------------

def synonym_groups(idx: EntitiesIndex) -> list[list[str]]:
    """Datatype properties that may mean one concept: the same dimension, unit and bound, at least one read from
    text, never two of them on one individual, held by things of a shared class or one naming the other's concept
    with a word in front (maxCoreTemperatureC and maxTemperatureC: the same bound, of a part of another thing)."""
    by_sig: dict[tuple[str, str, str], list[str]] = {}
    from_text = {f.property for _, f in idx.iter_facts() if "chunk" in f.source}
    for name, p in idx.properties.items():
        if p.kind != "datatype" or not p.dimension:
            continue
        bound = name[:3] if name[:3] in ("min", "max") and name[3:4].isupper() else ""
        by_sig.setdefault((p.dimension, p.unit, bound), []).append(name)
    out = []
    for names in by_sig.values():
        if len(names) < 2:
            continue
        holders = {n: {i.name for i, f in idx.iter_facts() if f.property == n} for n in names}
        kinds = {n: {c for h in holders[n] for c in idx.individuals[h].classes} for n in names}
        group: list[str] = []
        for n in sorted(names, key=lambda n: -len(holders[n])):
            # never on one individual together, held by things of a shared class, at least one read from text
            if all(not (holders[n] & holders[g]) and (kinds[n] & kinds[g] or modifier_words(idx, n, g) or
                                                       modifier_words(idx, g, n)) for g in group):
                group.append(n)
        if len(group) > 1 and set(group) & from_text:
            out.append(group)
    return out


def review_properties(model: ChatModel, idx: EntitiesIndex, trace: Trace, state: TextState) -> None:
    """Show each group of possibly synonymous properties to the model; merge the ones it says are the same."""
    for group in synonym_groups(idx):
        lines = []
        for n in group:
            uses = [(i, f) for i, f in idx.iter_facts() if f.property == n]
            examples = "; ".join(f"{i.label} {f.literal} ({f.source.get('sentence', '')[:90]})" for i, f in uses[:2])
            lines.append(f"- {n}: {examples}")
        p = idx.properties[group[0]]
        sink: dict[str, Any] = {}

        def decide(same: bool) -> str:
            sink["same"] = bool(same)
            return "ok"

        tool = Tool("decide", "Say whether these properties are one concept.",
                    {"type": "object", "properties": {"same": {"type": "boolean"}}, "required": ["same"],
                     "additionalProperties": False}, decide, terminal=True)
        text = prompts.render("same_concept", signature=f"{p.dimension}, {p.unit}", lines="\n".join(lines))
        messages = [{"role": "system", "content": prompts.render("system_builder")}, {"role": "user", "content": text}]
        run_agent(model, messages, [tool], max_turns=2, trace=trace, label="same concept", max_tokens=30)
        if not sink.get("same"):
            continue
        state.merges += merge_synonyms(idx, group, f"same {p.dimension} in {p.unit}; the model confirmed one concept")


def merge_synonyms(idx: EntitiesIndex, group: list[str], why: str) -> list[dict[str, Any]]:
    """Merge a group of properties that mean one concept into the one `_keeper` picks; a name with words in front
    of the kept concept (maxCoreTemperatureC into maxTemperatureC) leaves them on each moved value as its
    qualifier ("core temperature"). Returns the merges, for the report."""
    keep = _keeper(idx, group)
    merges = []
    for n in group:
        if n == keep:
            continue
        said = " ".join(concept_words(idx, n)) if modifier_words(idx, n, keep) else ""
        for _, f in idx.iter_facts():
            if said and f.property == n and said not in f.qualifier:
                f.qualifier = "; ".join(x for x in (said, f.qualifier) if x)
        moved = idx.merge_property(n, keep)
        merges.append({"merged": n, "into": keep, "facts": moved,
                       "why": why + (f"; each value keeps the qualifier {said!r}" if said else "")})
    return merges


def _keeper(idx: EntitiesIndex, group: list[str]) -> str:
    """The name a merged group keeps: one used by structured data, else a specific one, else the most used."""
    def uses(n: str) -> int:
        return sum(1 for _, f in idx.iter_facts() if f.property == n)

    def from_data(n: str) -> bool:
        return any("file" in f.source and "chunk" not in f.source for _, f in idx.iter_facts() if f.property == n)

    def general(n: str) -> bool:  # no other member's concept is contained in it with a word in front
        return not any(modifier_words(idx, n, g) for g in group if g != n)

    return max(group, key=lambda n: (from_data(n), general(n), not _generic(n), uses(n), -len(n)))
