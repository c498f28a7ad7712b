"""The text step of a build, sentence by sentence: code reads the sentence's grammar and proposes (text/reading.py:
the things, values and clauses; text/naming.py: the names), the model chooses (text/choosing.py: one small
constrained call per sentence that states something), code checks and writes the facts with their provenance
(the chunk and the sentence), and every clause ends in the coverage: a value or a link written, or the reason it
was not.

Things become individuals: a known individual when the sentence names one (or a class's members when it speaks of
them in the plural), the earlier thing a pronoun or a definite description points back to ("the printer" after
"the P-200"), else a new individual named by its phrase, of the class its head noun names ("the night safe" ->
NightSafe, a Safe). A thing "is" something ("X is a genus") gets that kind as its class.

With the user's vocabulary (`--schema`), a link is one of the vocabulary's relations and a value one of its datatype
properties; its domain and range give the things their classes. A statement the vocabulary has no term for is not
written: it is listed in the coverage as a new term the text would need (`outside_vocabulary`)."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any

from ontocore.llm import ChatModel
from ontocore.progress import Progress
from ontocore.prompts import build as prompts
from ontocore.text import singular
from ontocore.trace import Trace

from .concepts import resolve, unit_key, with_unit
from ..index import EntitiesIndex, Fact
from ..ingest import Chunk
from ..names import normalize, safe_name, unique_name
from .mentions import find_mentions, mention_spans, members
from .quantities import find_quantities, unit_text
from ..vocabulary import Vocabulary
from . import grammar
from .choosing import NONE, Decision, Link, ValueAsk, choose
from .naming import modifier_name, relation_name, value_names
from .properties import package_words, rename_in_coverage, review_properties
from .reading import Reading, Thing, read_sentence

log = logging.getLogger(__name__)

MAX_LINKS = 6
_CONDITION = re.compile(r"\b((?:if|when|unless|while|during|once)\s+[^,.;]{3,40})", re.I)


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
    history: dict[str, list[Known]] = field(default_factory=dict)  # file -> what it spoke of, newest last
    merges: list[dict[str, Any]] = field(default_factory=list)
    vocab: Vocabulary | None = None
    system: str = ""
    relations: dict[str, dict[str, Any]] = field(default_factory=dict)  # vocabulary relation name -> its term
    outside: list[dict[str, str]] = field(default_factory=list)  # statements the vocabulary has no term for
    embedder: Any = None  # the sentence-embedding model, to rank a vocabulary's relations for a link (or None)
    class_labels: dict[str, str] = field(default_factory=dict)  # vocabulary class name -> its label
    kind_classes: dict[str, str] = field(default_factory=dict)  # kind word -> the vocabulary class it names
    kinds: dict[str, str] = field(default_factory=dict)  # this sentence's things -> what they are (a kind word)


# ---- the vocabulary ------------------------------------------------------------------------------------------

def _relations(vocab: Vocabulary | None) -> dict[str, dict[str, Any]]:
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
        out[name] = {"kind": t.kind, "label": t.label or name, "domain": [vocab.names.get(d, "") for d in t.domain],
                     "domain_label": " or ".join(label(d) for d in t.domain if d),
                     "range": vocab.names.get(t.range, t.range) if t.kind == "object" else t.range,
                     "range_label": label(t.range) if t.kind == "object" else t.range, "unit": t.unit}
    return out


def _system(relations: dict[str, dict[str, Any]]) -> str:
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


# ---- the step ------------------------------------------------------------------------------------------------

def read_texts(model: ChatModel, idx: EntitiesIndex, chunks: list[Chunk], trace: Trace, progress: Progress,
               vocab: Vocabulary | None = None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every chunk in order, then the review of properties that may be one concept; returns the chunks' coverage
    entries and the merges."""
    state = new_state(chunks, vocab)
    if state.relations:
        from ontocore import embeddings
        state.embedder = embeddings.Embedder() if embeddings.available() else None
        state.class_labels = {vocab.names.get(t.iri, ""): t.label or vocab.names.get(t.iri, "")
                              for t in vocab.of_kind("class")} if vocab is not None else {}
    keep = getattr(model, "keep_prefix", None)
    if keep is not None and chunks:
        keep(state.system)
    entries: list[dict[str, Any]] = []
    progress.begin("text", f"reading {len(chunks)} text chunk(s)", total=len(chunks))
    for i, c in enumerate(chunks, 1):
        before = model.usage.snapshot()
        entry = read_chunk(model, idx, c, trace, state)
        after = model.usage.snapshot()
        entry["llm"] = {"calls": after[0] - before[0], "prompt_tokens": after[1] - before[1],
                        "completion_tokens": after[2] - before[2], "seconds": round(after[3] - before[3], 2)}
        entries.append(entry)
        progress.advance("text", f"text chunk {i} of {len(chunks)}")
    if chunks:
        review_properties(model, idx, trace, state.merges)
        rename_in_coverage(entries, state.merges)
    progress.end("text")
    return entries, state.merges


def read_chunk(model: ChatModel, idx: EntitiesIndex, chunk: Chunk, trace: Trace, state: TextState) -> dict[str, Any]:
    """Facts and links of one chunk into the index; returns its coverage entry."""
    body = " " * chunk.lead + chunk.text[chunk.lead:]  # headings give context, never things or values
    known_names = [m for m in find_mentions(idx, body, limit=40) if "TextChunk" not in idx.individuals[m].classes]
    spans = mention_spans(idx, body, known_names)
    quantities = find_quantities(body, [(a, b) for a, b, _ in spans])
    file = chunk.file
    history = state.history.setdefault(file, [])
    numbers: list[dict[str, Any]] = []
    links: list[dict[str, Any]] = []
    clauses: list[dict[str, Any]] = []
    outside_before = len(state.outside)
    for n, sentence in enumerate(grammar.parse(body)):
        reading = read_sentence(body, sentence, quantities, spans, n)
        resolved = _resolve(idx, reading, history)
        asks, link_asks, skipped, same = _proposals(idx, reading, resolved, state)
        decision = Decision()
        things = [t.id for t in reading.things if t.id in resolved and t.id not in same]
        if (asks or link_asks) and things:
            decision = choose(model, reading, asks, link_asks, things, state.system, "", trace,
                              f"sentence {chunk.id}.{n + 1}", directed=bool(state.relations))
        for vid, (owner, prop) in list(decision.values.items()):
            decision.values[vid] = (same.get(owner, owner), prop)
        written = _write(idx, chunk, reading, resolved, asks, link_asks, decision, state)
        numbers += skipped + written["numbers"]
        links += written["links"]
        clauses.append({"sentence": reading.text, "values": len(reading.values),
                        "facts": sum(1 for e in written["numbers"] if e["status"] == "covered"),
                        "links": len(written["links"]),
                        "status": "stated" if any(e["status"] == "covered" for e in written["numbers"])
                        or written["links"] or written["kinds"] else "skipped",
                        "reason": "" if any(e["status"] == "covered" for e in written["numbers"]) or written["links"]
                        or written["kinds"] else _why_nothing(reading, asks, link_asks, decision)})
        _remember(idx, reading, resolved, history)
    chunk_ind = _keep_chunk(idx, chunk, known_names)
    stated = any(c["status"] == "stated" for c in clauses)
    return {"chunk": chunk.id, "individual": chunk_ind, "status": "covered" if stated else "skipped",
            "reason": "" if stated else "no fact read; its text is kept as a TextChunk",
            "numbers": numbers, "links": links, "clauses": clauses,
            **({"outside_vocabulary": state.outside[outside_before:]} if state.relations else {})}


def plan_chunk(idx: EntitiesIndex, chunk: Chunk, state: TextState) -> list[dict[str, Any]]:
    """What the step would ask the model about one chunk, without asking (`ontobuild --dry-run`): per sentence, the
    values and links it would show and the prompt and reply sizes in characters and tokens (at most)."""
    from .choosing import reply_budget, user_prompt
    body = " " * chunk.lead + chunk.text[chunk.lead:]
    quantities = find_quantities(body)
    out = []
    for n, sentence in enumerate(grammar.parse(body)):
        reading = read_sentence(body, sentence, quantities, [], n)
        resolved = _resolve(idx, reading, [])
        asks, links, _, same = _proposals(idx, reading, resolved, state)
        things = [t.id for t in reading.things if t.id in resolved and t.id not in same]
        if (asks or links) and things:
            out.append({"sentence": reading.text, "values": len(asks), "links": len(links),
                        "prompt_characters": len(user_prompt(reading, asks, links, things)),
                        "completion_tokens_at_most": reply_budget(asks, links, bool(state.relations))})
    return out


def new_state(chunks: list[Chunk], vocab: Vocabulary | None = None) -> TextState:
    """The step's state at its start: the package words of the texts, the vocabulary's relations, the system prompt."""
    state = TextState(packages=package_words(chunks), vocab=vocab)
    state.relations = _relations(vocab)
    state.system = _system(state.relations)
    return state


def _why_nothing(reading: Reading, asks: list[ValueAsk], links: list[Link], decision: Decision) -> str:
    if not reading.things and not reading.values:
        return "names no thing and gives no value"
    if not asks and not links:
        return "no value with a thing to hold it, and no two things joined"
    if not decision.answered:
        return "the model gave no usable answer"
    return "the model said it states none of the values or links code read"


# ---- what each thing is -------------------------------------------------------------------------------------

@dataclass
class Resolved:
    """What a thing of the sentence stands for."""
    individuals: list[str]  # known individuals (or members of a class); [] for a new thing
    new_name: str = ""  # a new individual's name
    new_label: str = ""
    new_class: str = ""
    referent: str = ""  # how the prompt names what a pronoun or description points to
    stated_of: str = ""  # a plural or class: the words that name the group
    made: list[str] = field(default_factory=list)  # the individuals it became when written
    aliases: list[str] = field(default_factory=list)  # other names the text gives it


def _resolve(idx: EntitiesIndex, reading: Reading, history: list[Known]) -> dict[str, Resolved]:
    """Each thing of the sentence: known individuals, a class's members, what a pronoun or definite description
    points back to, or a new individual. A phrase after "of" that names no thing of its own is part of its owner's
    name ("the cost of repairs"), and no thing of its own."""
    out: dict[str, Resolved] = {}
    folded: set[str] = set()
    for t in reading.things:
        low = t.head.lower()
        if t.individuals:
            out[t.id] = Resolved(list(dict.fromkeys(t.individuals)))
            continue
        if low in ("it", "its", "this", "he", "she", "him", "her", "his", "they", "them", "these", "those", "their",
                   "both", "each"):
            want_plural = low in ("they", "them", "these", "those", "their", "both", "each")
            earlier = next((k for k in reversed(history) if k.plural == want_plural or
                            (want_plural and len(k.individuals) > 1)), None) or (history[-1] if history else None)
            if earlier is not None and earlier.individuals:
                out[t.id] = Resolved(list(earlier.individuals), referent=earlier.label,
                                     stated_of=earlier.label if len(earlier.individuals) > 1 else "")
                t.refers = earlier.label
            continue  # a pronoun that points to nothing is no thing
        kind = t.kind
        if t.plural and kind and not t.owner:  # "Helmets must be kept ...": the members of a class the tables know
            cls = next((c for c in idx.classes if normalize(c) == normalize(kind)), "")
            group = _narrowed(idx, reading, t, members(idx, cls)) if cls else []
            if group:
                out[t.id] = Resolved(group, stated_of=t.label, referent=t.label + (" (all)" if t.generic else ""))
                continue
        definite = t.text.lower().startswith(("the ", "this ", "that ")) and not t.proper and not t.plural
        if definite and kind:  # "the printer": the nearest earlier thing of that kind
            earlier = next((k for k in reversed(history) if k.kind == kind and k.individuals and
                            len(k.individuals) == 1), None)
            if earlier is None:
                cls = next((c for c in idx.classes if normalize(c) == normalize(kind)), "")
                group = members(idx, cls) if cls else []
                if len(group) == 1:
                    earlier = Known(idx.individuals[group[0]].label, kind, group, False)
            if earlier is not None:
                out[t.id] = Resolved(list(earlier.individuals), referent=earlier.label)
                t.refers = earlier.label
                continue
        if not t.head[:1].isalpha():
            continue
        label = t.label
        inner = [x for x in reading.things if x.owner == t.id and (x.named or x.individuals or x.prep == "of")]
        if not t.named and inner and not t.owner:  # "cartridges for the P-200 printer", "the cost of repairs"
            label = f"{t.label} {inner[0].prep} {inner[0].label}"
            if inner[0].prep == "of" and not (inner[0].named or inner[0].individuals):
                folded.add(inner[0].id)
        out[t.id] = Resolved([], new_name=safe_name(label), new_label=label,
                             new_class="" if t.proper else t.kind,
                             stated_of=t.label if t.generic else "", aliases=list(t.aliases))
    for tid in folded:
        out.pop(tid, None)
    return out


def _narrowed(idx: EntitiesIndex, reading: Reading, t: Thing, group: list[str]) -> list[str]:
    """A class's members narrowed by the names the phrase gives them: a name inside it ("roasters of the Hestia
    line", "the pumps at North Yard") or a capitalized word before the head ("the KV pumps"): the members that hold
    that name as a value or are linked to a thing of that name. The whole group when nothing narrows it."""
    words = [x.label for x in reading.things if x.owner == t.id and (x.named or x.individuals)]
    words += [w for w in re.findall(r"\b[A-Z][\w-]*", t.text) if w.lower() not in ("the", "all", "our", "these",
                                                                                   "those", "each", "every")
              and normalize(w) != normalize(t.head)]
    for word in words:
        key = normalize(word)
        kept = [m for m in group if any(
            (f.literal is not None and key in normalize(str(f.literal))) or
            (f.object is not None and f.object in idx.individuals and
             key in normalize(idx.individuals[f.object].label or f.object)) for f in idx.individuals[m].facts)]
        group = kept or group
    return group


def _remember(idx: EntitiesIndex, reading: Reading, resolved: dict[str, Resolved], history: list[Known]) -> None:
    """What the sentence spoke of, for later pronouns and descriptions: its subject last (the likeliest referent)."""
    order = sorted(reading.things, key=lambda t: (t.role == "subject", t.start))
    for t in order:
        r = resolved.get(t.id)
        if r is None or t.condition:
            continue
        names = r.individuals or r.made
        if not names:
            continue
        kinds = {c for n in names for c in idx.individuals[n].classes} if names else set()
        kind = t.kind or next(iter(kinds), "")
        history.append(Known(t.label if not t.refers else t.refers, kind, names, t.plural or len(names) > 1))
    del history[:-12]


# ---- what to ask ---------------------------------------------------------------------------------------------

def _proposals(idx: EntitiesIndex, reading: Reading, resolved: dict[str, Resolved], state: TextState
               ) -> tuple[list[ValueAsk], list[Link], list[dict[str, Any]], dict[str, str]]:
    """The values and links of a sentence to ask the model about, the values skipped with their reason, and the
    complements that are their clause's subject."""
    things = {t.id: t for t in reading.things if t.id in resolved}
    same = _same_as(reading, things)
    asks: list[ValueAsk] = []
    skipped: list[dict[str, Any]] = []
    for v in reading.values:
        q = v.quantity
        entry = {"number": q.id, "value": q.value, "unit": unit_text(q), "written": q.written,
                 "sentence": reading.text}
        if v.condition:
            skipped.append({**entry, "status": "skipped", "reason": "part of a condition ('if ...'): kept as the "
                                                                      "qualifier of the sentence's other facts"})
            continue
        owners = []
        for tid in (v.measure_of, v.owner, v.subject):
            tid = same.get(tid, tid)
            if tid in things and things[tid].role != "measure" and tid not in owners:
                owners.append(tid)
        for c in reading.clauses:  # the clause's other things, then the sentence's subject
            if c.verb == v.verb:
                for _, a in c.arguments:
                    a = same.get(a, a)
                    if a in things and things[a].role != "measure" and a not in owners:
                        owners.append(a)
        subject = next((t.id for t in reading.things if t.role == "subject" and t.id in things), "")
        if subject and subject not in owners:
            owners.append(subject)
        if v.measure_of == "previous" or not owners:
            owners += [t.id for t in reading.things if t.id in things and t.refers and t.id not in owners]
        if not owners:
            skipped.append({**entry, "status": "skipped", "reason": "no thing the sentence speaks of could hold it"})
            continue
        options = _value_options(idx, v, reading, state)
        if not options:
            skipped.append({**entry, "status": "skipped",
                            "reason": "no property of the vocabulary holds such a value" if state.relations else
                            "no name for what it measures"})
            if state.relations:
                state.outside.append({"sentence": reading.text, "value": q.written})
            continue
        kind = q.dimension or "number"
        where = f"after '{v.verb}'" if v.verb else ""
        line = (f"{v.id} {q.written} (a {kind}{', ' + q.qualifier if q.qualifier else ''})"
                f"{', ' + where if where else ''}; property: {', '.join(options)}")
        certain = v.explicit and owners[0] == same.get(v.subject, v.subject) and not v.measure and \
            not v.owner and things[owners[0]].head.lower() not in ("it", "they", "them", "this", "these")
        asks.append(ValueAsk(v.id, owners[:4], options, line, v.verb if certain else ""))
    state.kinds = {t.id: t.kind for t in reading.things}
    for complement, subject in same.items():  # "X is a genus": X is what the genus is
        if complement in things and things[complement].kind:
            state.kinds[subject] = things[complement].kind
    links = _links(reading, things, same, state)
    for t in reading.things:  # the prompt shows what a pronoun or description points to
        r = resolved.get(t.id)
        if r is not None and r.referent:
            t.referent = r.referent
    return asks, links, skipped, same


def _same_as(reading: Reading, things: dict[str, Thing]) -> dict[str, str]:
    """A complement that says what the subject is ("X is a 1959 cartoon directed by Y"): the subject itself, for
    the links and values of its phrase."""
    out: dict[str, str] = {}
    for c in reading.clauses:
        if not c.copula or not c.subject:
            continue
        for prep, a in c.arguments:
            t = things.get(a)
            if not prep and t is not None and t.role == "complement" and not t.proper and not t.individuals:
                out[a] = c.subject
    return out


def _value_options(idx: EntitiesIndex, v: Any, reading: Reading, state: TextState) -> list[str]:
    q = v.quantity
    if not state.relations:
        return value_names(idx, v, reading, state.packages)
    fits = []
    for name, r in state.relations.items():
        if r["kind"] != "datatype":
            continue
        rng = r["range"] or ""
        if q.datatype in ("xsd:date", "xsd:gYear", "xsd:gMonthDay") and rng not in ("xsd:date", "xsd:gYear",
                                                                                     "xsd:dateTime", ""):
            continue
        if q.datatype == "xsd:time" and rng not in ("xsd:time", ""):
            continue
        if q.is_number() and rng not in ("xsd:integer", "xsd:decimal", "xsd:double", "") or \
                (q.is_number() and r["unit"] and r["unit"] != q.unit):
            continue
        if not q.is_number() and rng in ("xsd:integer", "xsd:decimal", "xsd:double"):
            continue
        if not rng and not _says(r["label"], q, reading, state):
            continue  # a property of no declared range takes a value only when its label fits what is said
        fits.append(name)
    return fits[:6]


def _says(label: str, q: Any, reading: Reading, state: TextState) -> bool:
    """Whether a property's label fits a value: a word of it is in the sentence, or it is close to the value's kind
    (a date, a length, ...) by sentence embeddings."""
    words = {w.lower() for w in re.findall(r"[A-Za-z]{3,}", label)}
    if words & {w.lower() for w in re.findall(r"[A-Za-z]{3,}", reading.text)}:
        return True
    kind = q.dimension or "number"
    return state.embedder is not None and float(state.embedder.similarity(label, kind)) >= CLASS_SIMILARITY


def _links(reading: Reading, things: dict[str, Thing], same: dict[str, str], state: TextState) -> list[Link]:
    """Pairs of things the sentence joins: a clause's subject and each thing after its verb; a thing and a name inside
    its phrase. Each with the relations the model may choose."""
    out: list[Link] = []
    seen: set[tuple[str, str]] = set()

    def add(s: str, o: str, words: str, name: str, kind: str, as_written: bool = False) -> None:
        s, o = same.get(s, s), (o if as_written else same.get(o, o))
        if s == o or s not in things or o not in things or (s, o) in seen or (o, s) in seen:
            return
        if things[s].role == "measure" or things[o].role == "measure" or things[o].condition:
            return
        options = _link_options(things[s], things[o], words, name, state)
        if not options:
            return
        seen.add((s, o))
        out.append(Link(f"L{len(out) + 1}", s, o, words, options, kind))

    for c in reading.clauses:
        if not c.subject or c.condition:
            continue
        for prep, a in c.arguments:
            t = things.get(a)
            if t is None:
                continue
            of = next((x for x in reading.things if x.owner == a and x.prep == "of" and x.id in things), None)
            role_noun = (c.copula and not prep or prep == "as") and not t.proper and not t.individuals and \
                not t.plural and t.text.lower().startswith("the ")
            if of is not None and role_noun:  # "the P-300 serves as the backup of the P-200": backupOf
                seen.add((a, of.id))
                add(c.subject, of.id, f"{c.verb} {prep + ' ' if prep else ''}the {t.head} of",
                    safe_name(f"{singular(t.head)} of", lower_first=True), "clause")
                continue
            if c.copula and not prep and t.role == "complement" and not t.proper and not t.individuals:
                if state.relations:  # "X was a swimmer": the vocabulary may have a relation for what X is
                    add(c.subject, a, c.verb, "", "clause", as_written=True)
                continue
            verb = c.adjective if c.copula and c.adjective and prep else c.verb  # "is essential for": essentialFor
            add(c.subject, a, f"{c.verb} {c.adjective + ' ' if verb == c.adjective else ''}{prep}".strip(),
                relation_name(verb, prep), "clause")
    for t in reading.things:
        if t.owner and t.id in things and (not state.relations or t.named or t.individuals):
            owner = things.get(t.owner)
            # what "is" says the subject is, with a phrase of its own: "X is a reality for Y" -> realityFor
            of_what = owner is not None and t.owner in same  # "X is a cultivar of Y": what X is, of Y
            name = safe_name(f"{owner.head} {t.prep}", lower_first=True) if of_what and t.prep != "of" else \
                modifier_name(t.prep)
            add(t.owner, t.id, f"{owner.head} {t.prep}" if of_what else t.prep, name, "modifier")
    return out[:MAX_LINKS]


RELATION_CHOICES = 3
MIN_RELATION_SCORE = 0.35  # below it, no relation of the vocabulary is offered for a link (none is asked)


def _link_options(s: Thing, o: Thing, words: str, name: str, state: TextState) -> list[str]:
    """The relations the model may choose for a link: the sentence's own words without a vocabulary; with one, its
    object relations whose domain and range the two things can be (by the class their head noun names), the
    closest RELATION_CHOICES to what the sentence says between them (sentence embeddings, else name overlap)."""
    if not state.relations:
        return [name] if name else []
    fits = []
    for rel, r in state.relations.items():
        if r["kind"] != "object":
            continue
        if not (_can_be(s, r["domain"], state) and _can_be(o, [r["range"]], state)) and \
                not (_can_be(o, r["domain"], state) and _can_be(s, [r["range"]], state)):
            continue
        fits.append(rel)
    scored = sorted(((_relation_score(words, s, o, state.relations[f], state), f) for f in fits), reverse=True)
    if not scored or scored[0][0] < MIN_RELATION_SCORE:
        return []  # nothing the vocabulary has is close to what joins them: no question to ask
    return [f for _, f in scored[:RELATION_CHOICES]]


def _relation_score(words: str, s: Thing, o: Thing, r: dict[str, Any], state: TextState) -> float:
    """How close a relation is to what the sentence says between two things: its label against the words that join
    them ("directed by" ~ director), a word of the same stem counting most; then the whole link against the
    relation read with its domain and range."""
    said = f"{s.label} {words} {o.label}"
    label = r["label"]
    stems = {w[:5].lower() for w in re.findall(r"[A-Za-z]{5,}", words + " " + o.head + " " + s.head)}
    shared = any(w[:5].lower() in stems for w in re.findall(r"[A-Za-z]{5,}", label))
    score = 0.5 if shared else 0.0
    rng, dom = r.get("range") or "", [d for d in r.get("domain") or [] if d]
    if rng and vocabulary_class(state.kinds.get(o.id, o.kind), state) == rng:
        score += 0.5  # "X was a swimmer": a swimmer is what the relation's range is
    if dom and vocabulary_class(state.kinds.get(s.id, s.kind), state) in dom:
        score += 0.25
    if state.embedder is not None:
        score += float(state.embedder.similarity(words or said, label))
        score += 0.5 * float(state.embedder.similarity(said, f"{r['domain_label'] or 'a thing'} {label} "
                                                             f"{r['range_label'] or 'a thing'}"))
    else:
        from ..names import similarity
        score += max(similarity(words, label), similarity(said, label))
    return score


def _can_be(t: Thing, classes: list[str], state: TextState) -> bool:
    """Whether a thing can be a member of one of the classes: always, unless what it is (its head noun, or what
    "is" says it is) names another class of the vocabulary (a "novel" is no Human)."""
    wanted = [c for c in classes if c]
    own = vocabulary_class(state.kinds.get(t.id, t.kind), state)
    if not wanted or not own or state.vocab is None:
        return True
    iri = next((i for i, n in state.vocab.names.items() if n == own), "")
    ancestors = {state.vocab.names.get(a, "") for a in state.vocab.superclasses_closure(iri)} if iri else {own}
    return any(w in ancestors for w in wanted)


CLASS_SIMILARITY = 0.6  # the least sentence-embedding similarity of a kind word and a vocabulary class's label


def vocabulary_class(kind: str, state: TextState) -> str:
    """The vocabulary class a kind word names: its label or name, else the closest label by sentence embeddings
    ("genus" -> taxon) when close enough; "" for none. Remembered per word."""
    if not kind or not state.class_labels:
        return ""
    if kind in state.kind_classes:
        return state.kind_classes[kind]
    words = " ".join(re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])", kind)).lower()
    found = next((name for name, label in state.class_labels.items()
                  if normalize(label) == normalize(kind) or normalize(name) == normalize(kind)), "")
    if not found and state.embedder is not None:
        names = list(state.class_labels)
        best = state.embedder.rank(words, [state.class_labels[n] for n in names], top=1)
        if best and best[0][1] >= CLASS_SIMILARITY:
            found = names[best[0][0]]
    state.kind_classes[kind] = found
    return found


# ---- writing -------------------------------------------------------------------------------------------------

def _individuals(idx: EntitiesIndex, r: Resolved, chunk: Chunk, cls: str = "") -> list[str]:
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


def _qualifier(q: Any, sentence: str, state: TextState) -> str:
    parts = [q.qualifier] if q.qualifier else []
    pack = q.package or next((p for p in q.per if p in state.packages), "")
    if pack:
        parts.append(f"per {pack}")
    tail = sentence[sentence.find(q.written) + len(q.written):] if q.written in sentence else ""
    cond = _CONDITION.match(tail.lstrip(" ,")) if tail else None  # "within 24 hours if chilled": this value's
    if cond:
        parts.append(" ".join(cond.group(1).split()))
    return "; ".join(p for p in parts if p)


def _write(idx: EntitiesIndex, chunk: Chunk, reading: Reading, resolved: dict[str, Resolved], asks: list[ValueAsk],
           links: list[Link], decision: Decision, state: TextState) -> dict[str, Any]:
    numbers: list[dict[str, Any]] = []
    written_links: list[dict[str, Any]] = []
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
        subjects = _individuals(idx, r, chunk, cls if not r.individuals else "")
        if not subjects:
            numbers.append({**entry, "status": "skipped", "reason": "its thing could not be named"})
            continue
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
        source = {"chunk": chunk.id, "sentence": reading.text}
        if r.stated_of:
            source["stated_of"] = r.stated_of
        qualifier = _qualifier(q, reading.text, state)
        for s in subjects:
            idx.add_fact(s, Fact(name, literal=q.value, datatype=p.range or q.datatype, unit=unit_text(q),
                                 qualifier=qualifier, source=dict(source)))
        numbers.append({**entry, "status": "covered", "individuals": subjects, "individual": subjects[0],
                        "property": name, "decided_by": decision.by.get(ask.id, "model"),
                        **({"qualifier": qualifier} if qualifier else {}),
                        **({"stated_of": r.stated_of} if r.stated_of else {})})
    for k in links:
        s, rel, o = decision.links.get(k.id, (k.subject, NONE, k.object))
        if rel == NONE or s not in resolved or o not in resolved:
            if state.relations and rel == NONE and k.kind == "clause":
                state.outside.append({"sentence": reading.text, "link": k.words})
            continue
        vocab = state.relations.get(rel)
        dom = vocab["domain"][0] if vocab and vocab["domain"] and vocab["domain"][0] else ""
        rng = vocab["range"] if vocab and vocab.get("range") else ""
        subjects = _individuals(idx, resolved[s], chunk, dom if not resolved[s].individuals else "")
        objects = _individuals(idx, resolved[o], chunk, rng if not resolved[o].individuals else "")
        if not subjects or len(objects) != 1:
            continue
        obj = objects[0]
        domain = idx.individuals[subjects[0]].classes[0] if idx.individuals[subjects[0]].classes else ""
        rng_cls = idx.individuals[obj].classes[0] if idx.individuals[obj].classes else ""
        prop = idx.ensure_object_property(rel, domain, rng_cls, f"From text, e.g. '{reading.text}'")
        source = {"chunk": chunk.id, "sentence": reading.text}
        if len(subjects) > 1:
            source["stated_of"] = resolved[s].stated_of or reading.thing(s).label  # type: ignore[union-attr]
        for subj in subjects:
            if subj != obj and idx.add_fact(subj, Fact(prop, object=obj, source=dict(source))):
                written_links.append({"chunk": chunk.id, "subject": subj, "property": prop, "object": obj,
                                      "decided_by": decision.by.get(k.id, "model")})
    kinds += _kinds(idx, reading, resolved, chunk, state)
    return {"numbers": numbers, "links": written_links, "kinds": kinds}


def _kinds(idx: EntitiesIndex, reading: Reading, resolved: dict[str, Resolved], chunk: Chunk,
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
            names = _individuals(idx, subj, chunk, "")
        cls = _vocabulary_class(comp.kind, state) or comp.kind
        for name in names:
            ind = idx.individuals[name]
            cls_name = idx.ensure_class(cls, "A kind of thing the text speaks of")
            if cls_name not in ind.classes:
                ind.classes.append(cls_name)
                n += 1
    return n


def _vocabulary_class(kind: str, state: TextState) -> str:
    if state.vocab is None:
        return ""
    for t in state.vocab.of_kind("class"):
        if normalize(t.label or "") == normalize(kind) or normalize(state.vocab.names.get(t.iri, "")) == \
                normalize(kind):
            return state.vocab.names.get(t.iri, "")
    return ""


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
