"""What to ask the model about a sentence: each value with the things that may hold it (code's order) and the names
it may be stored under; each pair of things the sentence joins with the relations it may be (the sentence's own
words, or the vocabulary's relations that fit what the two things are, ranked by how close they are to what joins
them)."""

from __future__ import annotations

import re
from typing import Any, Callable

from ontocore.text import LINK_WORDS, singular, stem

from ..ontology.index import EntitiesIndex
from ..ontology.names import safe_name
from .choosing import Link, ValueAsk
from .classes import (CLASS_SIMILARITY, agent_clash, agent_like, can_be, class_of_people, kind_can_be, named_class,
                      names_people, person_class, reads_as_people, unplaced, vocabulary_class)
from .naming import modifier_name, relation_name, value_names
from .quantities import unit_text
from .reading import Reading, Thing
from .resolving import Resolved
from .state import TextState

MAX_LINKS = 6


def proposals(idx: EntitiesIndex, reading: Reading, resolved: dict[str, Resolved], state: TextState
               ) -> tuple[list[ValueAsk], list[Link], list[dict[str, Any]], dict[str, str]]:
    """The values and links of a sentence to ask the model about, the values skipped with their reason, and the
    complements that are their clause's subject."""
    things = {t.id: t for t in reading.things if t.id in resolved}
    same = same_as(reading, things)
    for complement, named in same.items():  # "Gull Point, a marina ...": a new Gull Point is a Marina
        r = resolved.get(named)
        if r is not None and r.new_name and not r.new_class and things[complement].kind and \
                not things[complement].plural:
            r.new_class = things[complement].kind
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
        if v.of_phrase and owners and owners[0] == same.get(v.owner, v.owner):
            owners = owners[:1]  # the grammar says whose measure it is: the model only names it
        if not owners:
            skipped.append({**entry, "status": "skipped", "reason": "no thing the sentence speaks of could hold it"})
            continue
        options = value_options(idx, v, reading, state)
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
        asks.append(ValueAsk(v.id, owners[:4], options, line, v.verb if certain else "",
                             fixed=v.of_phrase and len(owners) == 1))
    state.kinds = {t.id: t.kind or t.title_kind for t in reading.things}
    for complement, subject in same.items():  # "X is a pump": X is what the pump is
        if complement in things and things[complement].kind:
            state.kinds[subject] = things[complement].kind
    named = {tid for tid, t in things.items() if t.named and not described(t) or resolved[tid].individuals}
    links = joined_pairs(reading, things, same, state, named)
    for t in reading.things:  # the prompt shows what a pronoun or description points to
        r = resolved.get(t.id)
        if r is not None and r.referent:
            t.referent = r.referent
    return asks, links, skipped, same


def same_as(reading: Reading, things: dict[str, Thing]) -> dict[str, str]:
    """A complement that says what the subject is ("X is a 1959 ferry inspected by Y"), or an apposition that
    says what a name is ("X, a depot of 2,400 m²"): the named thing itself, for the links and values of its phrase."""
    out: dict[str, str] = {}
    text = reading.text
    ordered = sorted(things.values(), key=lambda t: t.start)
    for a, b in zip(ordered, ordered[1:]):  # "Harbor Point, a marina of 300 berths": the marina is Harbor Point
        if a.proper and not b.proper and not b.individuals and re.fullmatch(r"\s*,\s*", text[a.end - reading.start:b.start - reading.start]) and \
                re.match(r"(?:a|an)\s", b.text, re.I):
            out[b.id] = out.get(a.id, a.id)
    for c in reading.clauses:
        if not c.copula or not c.subject:
            continue
        for prep, a in c.arguments:
            t = things.get(a)
            if not prep and t is not None and t.role == "complement" and not t.proper and \
                    (not t.individuals or t.known_before_head):  # ("X is a Lund Rail engine": an engine)
                out[a] = c.subject
    return out


def value_options(idx: EntitiesIndex, v: Any, reading: Reading, state: TextState) -> list[str]:
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
        if not rng and not fits_value(r["label"], q, reading, state):
            continue  # a property of no declared range takes a value only when its label fits what is said
        fits.append(name)
    return fits[:6]


def fits_value(label: str, q: Any, reading: Reading, state: TextState) -> bool:
    """Whether a property's label fits a value: a word of it is in the sentence (written in lower case, not a word
    of a name), or it is close to the value's kind (a date, a length, ...) by sentence embeddings."""
    words = {w.lower() for w in re.findall(r"[A-Za-z]{3,}", label)}
    said = {m.group(0).lower() for m in re.finditer(r"[A-Za-z]{3,}", reading.text)
            if m.group(0).islower() or not reading.text[:m.start()].strip()}  # ("Vestby Time Gazette": no time)
    if words & said:
        return True
    kind = q.dimension or "number"
    return state.embedder is not None and float(state.embedder.similarity(label, kind)) >= CLASS_SIMILARITY


def described(t: Thing) -> bool:
    """Whether a thing with a name in its phrase is still a description: its label opens with a word in lower case
    and holds no number, after a name's possessive if any ("early Fjordsoft app called HS", "Fjordsoft's
    discontinued native Tern app": a kind of app; "room 3", "P-200 printer", "Ola's Bakery" are names)."""
    words = t.label.split()
    owner = next((k for k, w in enumerate(words[:-1]) if re.search(r"['’]s?$", w)), -1)
    words = words[owner + 1:]  # (after a name's possessive, of one word or several: "Vestby Ferry Company's")
    return bool(words) and words[0].isalpha() and words[0].islower() and not re.search(r"\d", " ".join(words))


def joined_pairs(reading: Reading, things: dict[str, Thing], same: dict[str, str], state: TextState,
                 named: set[str] | None = None) -> list[Link]:
    """Pairs of things the sentence joins: a clause's subject and each thing after its verb; a thing and a name inside
    its phrase. Each with the relations the model may choose.

    With the user's vocabulary, a relation joins things a person can name: both ends are `named` (a name or code,
    or a thing already known, a pronoun or description that points back to one), but for what "is" says a named
    thing is ("X was a welder": the vocabulary may hold what X is). A relation between two things the text only
    describes ("the pump ... a spare pump") would state a fact about individuals nobody can ask for by name. What
    "is" says X is, when it is a kind the relation's domain has ("X is a report" where a relation goes from
    documents to documents), is X's class: no value of that relation."""
    out: list[Link] = []
    seen: set[tuple[str, str]] = set()

    def add(s: str, o: str, words: str, name: str, kind: str, as_written: bool = False) -> None:
        s, o = same.get(s, s), (o if as_written else same.get(o, o))
        if s == o or s not in things or o not in things or (s, o) in seen or (o, s) in seen:
            return
        if things[s].role == "measure" or things[o].role == "measure" or things[o].condition:
            return
        if state.relations and named is not None and (s not in named or (o not in named and not as_written)):
            return
        if as_written:  # what "is" says X is: X's class is not yet known from the very thing being linked
            said = state.kinds.get(s, "")  # (but "X is a skipper" says X is a person, whatever else it says)
            state.kinds[s] = things[s].kind or things[s].title_kind or person_class(things[o].kind, state)
            named_of = any(x.owner == o and x.prep == "of" and x.named and not described(x) for x in reading.things)
            options = link_options(things[s], things[o], words, name, state, evident=False,
                                   keep=lambda r: kind_value(things[o], r, state, named_of) and
                                   can_be(things[s], r["domain"], state))
            state.kinds[s] = said
        else:
            options = link_options(things[s], things[o], words, name, state)
        if not options:
            return
        seen.add((s, o))
        titled = [rel for rel in options if state.relations and titled_as(state.relations[rel]["label"], things[o])]
        for group in ([[rel] for rel in titled] if len(titled) > 1 else [options]):  # "by author and photographer
            out.append(Link(f"L{len(out) + 1}", s, o, words, group, kind))  # Ann Lee": each title says one

    for c in reading.clauses:
        if not c.subject or c.condition:
            continue
        for prep, a in c.arguments:
            t = things.get(a)
            if t is None:
                continue
            of = next((x for x in reading.things if x.owner == a and x.prep == "of" and x.id in things), None)
            role_noun = (c.copula and not prep or prep == "as") and not t.proper and not t.individuals and \
                not t.plural and (t.text.lower().startswith("the ") or of is not None and of.start < t.start)
            if of is not None and role_noun:  # "the P-300 serves as the backup of the P-200" (or "as the P-200's
                # backup"): backupOf
                seen.add((a, of.id))
                add(c.subject, of.id, f"{c.verb} {prep + ' ' if prep else ''}the {t.head} of",
                    safe_name(f"{singular(t.head)} of", lower_first=True), "clause")
                if state.relations:  # "X was the 14th warden of Y": the office is what X is, with Y in its name
                    add(c.subject, a, f"{c.verb} {prep}".strip(), "", "clause", as_written=True)
                continue
            if c.copula and not prep and t.role == "complement" and (not t.proper or t.title) and not t.individuals:
                if state.relations:  # "X was a swimmer", "X was Warden of the Marches" (an office: a name with its
                    # title): the vocabulary may have a relation for what X is
                    add(c.subject, a, c.verb, "", "clause", as_written=True)
                continue
            if prep == "as" and state.relations and not t.individuals:  # "X served as mayor": what X is (but "as
                add(c.subject, a, f"{c.verb} as", "", "clause", as_written=t.head.lower() not in PARTITIVES)
                continue  # part of the upgrade" is no kind of what X is, and no link of its own)
            verb = c.adjective if c.copula and c.adjective and prep else c.verb  # "is essential for": essentialFor
            add(c.subject, a, f"{c.verb} {c.adjective + ' ' if verb == c.adjective else ''}{prep}".strip(),
                relation_name(verb, prep), "clause")
    for t in reading.things:
        if t.owner and t.id in things and (not state.relations or t.named or t.individuals):
            owner = things.get(t.owner)
            # what "is" says the subject is, with a phrase of its own: "X is a reality for Y" -> realityFor
            of_what = owner is not None and t.owner in same  # "X is a variant of Y": what X is, of Y
            name = safe_name(f"{owner.head} {t.prep}", lower_first=True) if of_what and t.prep != "of" else \
                modifier_name(t.prep)
            add(t.owner, t.id, f"{owner.head} {t.prep}" if of_what else t.prep, name, "modifier")
            subject = _author_of_work(reading, t, owner) if state.relations else ""
            if subject:
                add(subject, t.id, f"{owner.head} by", safe_name(f"{owner.head} by", lower_first=True), "modifier")
    return out[:MAX_LINKS]


PARTITIVES = frozenset({"part", "member", "piece", "portion", "share", "half", "one"})  # what X is a part of


def _author_of_work(reading: Reading, t: Thing, owner: Thing | None) -> str:
    """The clause subject that a name after "by" inside an unnamed thing after "with" or "to" works for ("X was
    written by A with photographs by B": B, of the photographs, is X's photographer), or ""."""
    if owner is None or t.prep != "by" or not t.named or owner.named or owner.prep not in ("with", "to") or \
            owner.owner:
        return ""
    clause = next((c for c in reading.clauses if any(a == owner.id for _, a in c.arguments)), None)
    return clause.subject if clause is not None else ""


def kind_value(t: Thing, r: dict[str, Any], state: TextState, named_of: bool = False) -> bool:
    """Whether what "is" says a thing is (`t`: "a driver" in "X is a driver") can be a value of the relation `r`:
    when it names no class of the vocabulary, maybe (the model decides); when it names one, only a class of the
    relation's range that is not of its domain (a Driver is a Role, the range of `role`), and of a relation from
    people or to sorts of things (`_of_people_or_sorts`). "X is a report" where `r` goes from documents to
    documents says what X is: X's class, no value of `r`. A kind is never one person: no
    value of a relation whose range is a class of people ("X is a logbook" is no inspector of X), nor the range
    class itself ("X is a small depot" is no home depot of X: X is a depot), unless `named_of`: a name after
    "of" makes it one of that class ("X was the third warden of Vestby": the office of warden of Vestby)."""
    if class_of_people(r.get("range") or "", state):
        return False
    if not _of_people_or_sorts(r, state):
        return False  # "X is a sea kayak": what a thing that is no person is, is its class
    if r.get("range") and named_class(t.label, state) == r["range"] and not named_of:
        return False  # "X is a proprietary <range>" says what X is (a kind of the range is a value: a Driver;
        # "X was the third <range> of Y" names one)
    kind = t.kind or (t.title_kind if t.proper else "")  # an office written as a name: "Warden of Vestby"
    if not vocabulary_class(kind, state):  # (what X serves "as" is a post whatever it is closest to, but an
        # office with a name, "as Harbour Master of Vestport", only of the range closest to it)
        return t.role != "complement" and not (t.proper and t.title) or \
            _kind_of_range(t.kind_label or t.label, r.get("range") or "", state)
    return kind_can_be(kind, [r["range"]], state, strict=True) and not kind_can_be(kind, r["domain"], state, True)


SORT_WORDS = frozenset({"type", "kind", "category", "class", "sort", "variety", "grade", "style"})


def _of_people_or_sorts(r: dict[str, Any], state: TextState) -> bool:
    """Whether a kind can be a value of `r` at all: what "is" says a person is, is a value (their trade, rank or
    office: a relation from people); what it says a thing that is no person is, is that thing's class ("X is a
    sea kayak" is no part, product or model X has), but for a relation to sorts ("vessel type", "fuel grade").
    A relation without domain may be either (the model decides)."""
    domains = [d for d in r.get("domain") or [] if d]
    if not domains or any(reads_as_people(d, state) for d in domains):
        return True
    label = state.class_labels.get(r.get("range") or "", "")
    return bool(label.split()) and label.split()[-1].lower() in SORT_WORDS


KIND_RANGE_SIMILARITY = 0.33  # the least similarity of a kind and the range it is a value of (sentence embeddings)
KIND_IS_CLASS = 0.9  # a kind this close to the range's own label is that class ("X is a hospital")


def _kind_of_range(kind: str, rng: str, state: TextState) -> bool:
    """Whether a kind that names no class of the vocabulary ("a cardiologist", "an anaesthetist") can be a value of
    a relation whose range is `rng` ("medical specialty"): of the classes the vocabulary's relations range over,
    `rng` is the one closest to the kind, close enough, and not the very class (then "X is a <range>" says what X
    is). A kind closer to another range ("a keen gardener" to person rather than to hospital) is no value of this
    relation; nor is one nearly as close (offered those too, the model chose the wrong relation more often).
    Without an embedder or a range, the model decides."""
    if state.embedder is None or not rng or not kind or rng not in state.class_labels:
        return True
    ranges = sorted({r.get("range") for r in state.relations.values() if r.get("range") in state.class_labels})
    best = state.embedder.rank(kind, [state.class_labels[n] for n in ranges], top=1)
    return bool(best) and ranges[best[0][0]] == rng and KIND_RANGE_SIMILARITY <= best[0][1] < KIND_IS_CLASS


RELATION_CHOICES = 3
CLEAR_LEAD = 0.3  # a relation this far ahead of the next is the only one offered
MIN_RELATION_SCORE = 0.35  # below it, no relation of the vocabulary is offered for a link (none is asked)
SHOWN_SIMILARITY = 0.45  # joining words this close to a relation's label (sentence embeddings) say that relation


def link_options(s: Thing, o: Thing, words: str, name: str, state: TextState, evident: bool = True,
                 keep: Callable[[dict[str, Any]], bool] | None = None) -> list[str]:
    """The relations the model may choose for a link: the sentence's own words without a vocabulary; with one, its
    object relations whose domain and range the two things can be (by the class their head noun names), the
    closest RELATION_CHOICES to what the sentence says between them (sentence embeddings, else name overlap).
    `evident`: only relations the sentence shows (`shown_by`); what "is" says a thing is has its own checks
    (`keep`: whether a relation may join the two at all, asked before they are ranked)."""
    if not state.relations:
        return [name] if name else []
    fits = []
    # the joining words name a relation ("inspected by": inspector): another is not what they say, even when
    # the one they name cannot join these two
    named = {rel for rel, r in state.relations.items() if r["kind"] == "object" and
             (_shares_stem(r["label"], words) or titled_as(r["label"], o))}
    for rel, r in state.relations.items():
        if r["kind"] != "object" or (evident and not shown_by(words, s, o, r, state)) or (keep and not keep(r)):
            continue
        if evident and named and rel not in named:
            continue
        if not _joins(s, o, r, rel in named, state):
            continue
        if not r["range"] and not _said(r["label"], f"{words} {o.label} {o.title}"):
            continue  # no range to check the object against: only when the sentence's words name the relation
        if TIMED.search(r["label"]) and not DATED.search(o.label):
            continue  # a relation of a date or time ("issue date") takes a date, never a thing a name names
        fits.append(rel)
    titled = [f for f in fits if titled_as(state.relations[f]["label"], o)]
    if len(titled) > 1:
        return titled  # "by author and photographer Ann Lee": each title names its relation
    scored = sorted(((relation_score(words, s, o, state.relations[f], state), f) for f in fits), reverse=True)
    if not scored or scored[0][0] < MIN_RELATION_SCORE:
        return []  # nothing the vocabulary has is close to what joins them: no question to ask
    if len(scored) > 1 and scored[0][0] - scored[1][0] >= CLEAR_LEAD:
        return [scored[0][1]]  # one relation is clearly what the words say: the model only confirms it, or not
    return [f for _, f in scored[:RELATION_CHOICES]]


def _joins(s: Thing, o: Thing, r: dict[str, Any], named: bool, state: TextState) -> bool:
    """Whether a relation may join two things, in the sentence's order (s in its domain, o in its range) or the
    other way round, by the classes they can be and by how their names read (`agent_clash`). `named`: the words
    name the relation ("reviewed by": reviewer); where a flat vocabulary says nothing of how the thing's class
    stands to the relation's ("X is a handbook ... reviewed by Y", the reviewer's domain "document"), the words
    are believed for the subject (never for an object of another class: an office is no vote). The other way
    round past a clash only for a subject that reads as the range does and an object that may be of the domain
    ("Kessler Works built the Vale Runner", never "the Vale Runner was built by Ada Lind")."""
    def may_be(t: Thing, classes: list[str]) -> bool:
        return can_be(t, classes, state) or named and unplaced(t, classes, state)

    person = titled_person(o, state)  # ("named after geologist Ola Berg": no site of a survey, either way round)
    clash = agent_clash(o, r["range"], state) or person and bool(r["range"]) and not reads_as_people(r["range"], state)
    if person and not any(reads_as_people(d, state) for d in r["domain"] if d) and r["range"] and \
            not reads_as_people(r["range"], state):
        return False
    if may_be(s, r["domain"]) and can_be(o, [r["range"]], state) and not clash:
        return True  # (the words decide what the subject may be, never that a thing of a class is of another:
        # "was elected the first Warden of Vestby" is no vote)
    if not (can_be(o, r["domain"], state) and can_be(s, [r["range"]], state)) or agent_clash(s, r["range"], state):
        return False
    return not clash or agent_like(s, r["range"], state) and not any(agent_clash(o, d, state)
                                                                      for d in r["domain"] if d)


TIMED = re.compile(r"\b(?:date|time|year|day|month)s?\b", re.IGNORECASE)  # a relation label naming a moment
DATED = re.compile(r"\d|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b", re.IGNORECASE)


def shown_by(words: str, s: Thing, o: Thing, r: dict[str, Any], state: TextState) -> bool:
    """Whether a sentence shows a vocabulary relation between two things: a word of its label shares its stem with
    the words that join them or with the things' head nouns ("inspected by" ~ inspector, "the crew's skipper" ~
    skipper of crew), the joining words mean what the label says (sentence embeddings: "made by" ~ manufacturer), or
    both things are known members of its domain and range. A relation only a model's guess puts between two names
    ("tested by A and shipped by B": B as the designer) is stated by nothing."""
    words = titled(words, o)
    if _shares_stem(r["label"], f"{words} {o.head} {s.head}"):
        return True
    if state.embedder is not None and any(w.lower() not in FUNCTION_WORDS for w in words.split()) and \
            float(state.embedder.similarity(words, r["label"])) >= SHOWN_SIMILARITY:
        return True  # (a bare "in" is as close to "elected in" as to "located in": only the classes can show it)
    rng, dom = r.get("range") or "", [d for d in r.get("domain") or [] if d]
    return bool(rng and dom) and can_be(s, dom, state, strict=True) and can_be(o, [rng], state, strict=True)


def titled_person(t: Thing, state: TextState) -> bool:
    """Whether a name is written with a title for people ("geologist Ola Berg", "the author Ann Lee"): a person, by
    sentence embeddings of the title (`names_people`); an office is no person ("Warden of Vestby": the title is a
    word of its name)."""
    return state.embedder is not None and any(names_people(state.embedder, x) for x in (t.title, *t.titles)
                                              if x and x.lower() not in t.label.lower())


def titled(words: str, o: Thing) -> str:
    """The words that join two things, with the title the second one's name is written with ("to" + "the port" of
    "to the port Vestport", "at" + "the depot" of "at the depot Kolbotn"): what the object is, said."""
    return f"{words} the {' and '.join([*o.titles, o.title]).lower()}" if words and o.title else words


def titled_as(label: str, o: Thing) -> bool:
    """Whether a title the object's name is written with is the word a relation's label names ("by photographer
    Ann Lee": photographer; "at the port Vestport": port of call; a "surveyor" names no "site of ... survey")."""
    head = label_head(label)
    return any(_said(head, x) for x in (o.title, *o.titles) if x)


def label_head(label: str) -> str:
    """The word a relation's label names: its last word before "of", "by", "for", "in", "to", "from", "at" or "on"
    ("site of geological survey": site; "home port": port; "lyrics by": lyrics)."""
    words = re.split(r"\s+(?:of|by|for|in|to|from|at|on)\b", label.strip(), maxsplit=1)[0].split()
    return words[-1] if words else label


def _shares_stem(label: str, words: str) -> bool:
    """Whether a word of a label (five letters or more) begins as a word of `words` does (its first five letters)."""
    stems = {w[:5].lower() for w in re.findall(r"[A-Za-z]{5,}", words)}
    return any(w[:5].lower() in stems for w in re.findall(r"[A-Za-z]{5,}", label))


def _said(label: str, words: str) -> bool:
    """Whether a word of a relation's label shares its stem with one of `words` ("published" ~ publication date)."""
    said = {stem(w) for w in re.findall(r"[a-z]{4,}", words.lower())}
    return any(stem(w) in said for w in re.findall(r"[a-z]{4,}", label.lower()))


def orient(reading: Reading, links: list[Link], decision: Any, state: TextState) -> None:
    """The direction of each chosen vocabulary relation, by code: the two things' classes against its domain and
    range when they are known; else, for a relation named by an agent ("inspector", "reviewer") that the verb
    joining them shares its stem with, the voice: "X inspected Y" (active) makes X the inspector of Y, "Y was
    inspected by X" too (and "a vessel inspected ..., X" in the passive, whatever joins them); else the sentence's
    order."""
    for k in links:
        s, rel, o = decision.links.get(k.id, (k.subject, "none", k.object))
        r = state.relations.get(rel)
        if r is None or r["kind"] != "object":
            continue
        st, ot = reading.thing(s), reading.thing(o)
        if st is None or ot is None:
            continue
        dom = [d for d in r.get("domain") or [] if d]
        rng = [r["range"]] if r.get("range") else []
        fits = (can_be(st, dom, state, strict=True), can_be(ot, rng, state, strict=True))
        swapped = (can_be(ot, dom, state, strict=True), can_be(st, rng, state, strict=True))
        if sum(swapped) > sum(fits):
            decision.links[k.id] = (o, rel, s)
            continue
        if sum(fits) > sum(swapped):
            continue
        label = r["label"].lower()
        agent = re.search(r"(?:or|er|ist|ant)\b", label) is not None
        stems = {w[:5] for w in re.findall(r"[a-z]{5,}", k.words.lower())}
        passive = any(c.passive for c in reading.clauses if any(a == k.object for _, a in c.arguments))
        if agent and any(w[:5] in stems for w in re.findall(r"[a-z]{5,}", label)) and \
                not re.search(r"\bby$", k.words.lower()) and not passive:
            decision.links[k.id] = (o, rel, s)  # "Ann Lee inspected Storm Bay": inspector(Storm Bay, Ann Lee)


# what a relation's label says its value is: a place ("place found", "location"), or an agent ("finder", "maker or
# seller", "made by"): "by" after a verb names the agent, "at", "near", "in" a place, "for", "to" whom it is done for
PLACE_WORDS = frozenset("site place location venue locality headquarters".split())
AGENT_LABEL = re.compile(r"^[a-z]+(?:or|er|ist|ant)\b(?!.*\bof\b)|\bby$")
LOCATIVE = frozenset({"at", "near", "in"})
FOR_WHOM = frozenset({"for", "to"})


def role_clash(words: str, label: str) -> bool:
    """Whether the preposition that joins two things says another role than the relation's label: an agent ("found
    by X") for a place relation, or a place ("found at X") for an agent relation, or whom it was done for when the
    label is the verb's own agent ("designed for X": no designer; "belongs to X" may still say an owner)."""
    last = words.lower().split()[-1] if words.split() else ""
    label = label.lower()
    if last == "by":
        return bool(PLACE_WORDS & set(re.findall(r"[a-z]+", label)))
    agent = len(label.split()) <= 3 and AGENT_LABEL.search(label) is not None
    return agent and (last in LOCATIVE or last in FOR_WHOM and _shares_stem(label, words))


def one_role_per_relation(reading: Reading, links: list[Link], decision: Any, state: TextState) -> None:
    """A clause's arguments joined by different prepositions play different parts: when the model gives one
    vocabulary relation to several of them ("found by P at O near B": the place found three times), code
    keeps the arguments of the one preposition the relation fits best (relation_score; the first in the sentence on
    a tie) and says "none" for the others. Arguments listed with "and" share their preposition and stay."""
    groups: dict[tuple[str, str, str], dict[str, list[Link]]] = {}
    for k in links:
        s, rel, o = decision.links.get(k.id, (k.subject, "none", k.object))
        if k.kind != "clause" or rel not in state.relations:
            continue
        arg = reading.thing(k.object)
        if arg is None:
            continue
        prep = k.words.split()[-1].lower() if k.words.split() else ""
        groups.setdefault((k.subject, rel, arg.verb), {}).setdefault(prep, []).append(k)
    for (subject, rel, _), by_prep in groups.items():
        if len(by_prep) < 2:
            continue
        r = state.relations[rel]
        st = reading.thing(subject)

        def fit(group: list[Link]) -> float:
            return max(relation_score(k.words, st, reading.thing(k.object), r, state) for k in group)
        best = max(by_prep.values(), key=fit)  # (max keeps the first of equal scores: the sentence's order)
        for group in by_prep.values():
            if group is not best:
                for k in group:
                    decision.links[k.id] = (k.subject, "none", k.object)
                    decision.by[k.id] = "code"


def listed_alike(reading: Reading, links: list[Link], decision: Any) -> None:
    """Things listed together play one part: "X is an engineer, inventor and racing driver" gives each listed thing
    the relation the model chose for the first of the list, when that relation is offered for it (code says so);
    when the model chose none for the first, the others keep the model's own choice."""
    first_of = {(k.subject, k.object): k for k in links if k.kind == "clause"}
    for k in links:
        t = reading.thing(k.object)
        head = first_of.get((k.subject, t.conjunct_of)) if t is not None and t.conjunct_of else None
        if head is None or k.kind != "clause":
            continue
        s, rel, o = decision.links.get(head.id, (head.subject, "none", head.object))
        if rel == "none" or rel not in k.options or decision.links.get(k.id, ("", "", ""))[1] == rel:
            continue
        decision.links[k.id] = (k.subject, rel, k.object) if o == head.object else (k.object, rel, k.subject)
        decision.by[k.id] = "code"


def relation_score(words: str, s: Thing, o: Thing, r: dict[str, Any], state: TextState) -> float:
    """How close a relation is to what the sentence says between two things: its label against the words that join
    them ("inspected by" ~ inspector), a word of the same stem counting most; then the whole link against the
    relation read with its domain and range."""
    label = r["label"]
    clash = role_clash(words, label)
    words = titled(words, o)
    said = f"{s.label} {words} {o.label}"
    score = 0.5 if _shares_stem(label, f"{words} {o.head} {s.head}") else 0.0
    if clash:
        score -= 1.0  # "found by X" is no site, "found at X" no finder
    rng, dom = r.get("range") or "", [d for d in r.get("domain") or [] if d]
    if rng and (can_be(o, [rng], state, strict=True) or o.role == "complement" and state.embedder is not None
                and not vocabulary_class(o.kind, state) and _kind_of_range(o.kind_label or o.label, rng, state)):
        score += 0.5  # "X was a welder": a welder is what the relation's range is (a kind of it, or closest to it)
    if dom and can_be(s, dom, state, strict=True):
        score += 0.25
    if state.embedder is not None:
        score += float(state.embedder.similarity(*_content(words or said, label)))
        score += 0.5 * float(state.embedder.similarity(said, f"{r['domain_label'] or 'a thing'} {label} "
                                                             f"{r['range_label'] or 'a thing'}"))
    else:
        from ..ontology.names import similarity
        score += max(similarity(words, label), similarity(said, label))
    return score


FUNCTION_WORDS = LINK_WORDS | frozenset("at from as into onto or is was were are be been being has had have".split())


def _content(words: str, label: str) -> tuple[str, str]:
    """The words that join two things and a relation's label, each without its function words when both keep
    some: "music by" against "composer" and "lyrics by" is "music" against "composer" and "lyrics" (a shared "by"
    makes any "... by" label close to any "... by" words)."""
    kept = [" ".join(w for w in text.split() if w.lower() not in FUNCTION_WORDS) for text in (words, label)]
    return (kept[0], kept[1]) if all(kept) else (words, label)
