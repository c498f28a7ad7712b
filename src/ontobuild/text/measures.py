"""What a value measures and whose it is, read from the phrases around it: a measure noun before it ("a capacity of
40 crates", "the transit time is 12 days") names what it measures and the thing that has that measure owns it; a
value inside or right after a thing's phrase ("a 12 m² kiosk", "a depot of 2,400 m²") is that thing's. Part of
reading a sentence (text/reading.py `read_sentence`)."""

from __future__ import annotations

import re
from typing import Any

from ontocore.text import singular

from .concepts import QUANTITY_NOUNS
from .grammar import DETERMINERS, Phrase, Word, name_words
from .tagging import known_word
from .kinds import is_event

# the things and the reading are text/reading.py's Thing and Reading (which imports this module): typed as Any here

# nouns that name what a value measures rather than a thing ("a capacity of 40 crates", "the transit time is
# 12 days"): the value belongs to the thing that has that measure
MEASURE_NOUNS = (QUANTITY_NOUNS - {"draft", "draught", "head", "stay", "stock", "term", "window"}) | {
    "coefficient", "conductivity", "constant", "current", "energy", "factor", "fluence", "fraction", "gain", "gap",
    "growth", "hardness", "index", "loss", "margin", "mobility", "modulus", "overhead", "percentage", "permeability",
    "population", "porosity", "proportion", "ratio", "resistance", "return", "strain", "stress", "tension",
    "viscosity", "wavelength"}


_FILLER = r"(?:(?:about|around|only|up|to|at|least|most|roughly|approximately|nearly|between|from|below|above|" \
          r"under|over|less|more|than|just|typically|usually|always|still|now)\s+){0,4}"
_VALUE_FOLLOWS = re.compile(r"\s+(?:is|are|was|were|averages|averaged|ranges|ranged|range|reaches|reached|equals|"
                            r"stands at)\s+" + _FILLER + r"[-+−]?\d")


def holders_split(phrases: list[Phrase], text: str, sentence_start: int) -> list[Phrase]:
    """The phrases with a thing written right before a measure noun split off as a phrase of its own, as "the pipe's
    diameter" would be: a name ("Vestby Depot storage capacity" -> "Vestby Depot", "storage capacity") or a common
    noun ("the pipe diameter" -> "the pipe", "diameter"; "hose diameters"), the thing that has the measure when it
    points back to one (text/resolving.py). Only a measure that a value follows ("... capacity is 40 crates"):
    "kilns of the Vega range" is a name."""
    out: list[Phrase] = []
    for p in phrases:
        tags = [_tag_at_start(w, sentence_start) for w in p.words]
        names = [k for k, t in enumerate(tags) if t in ("NNP", "NNPS", "CD")]
        k = names[-1] + 1 if names else len(tags) - 1
        possessed = bool(out) and out[-1].kind == "NP" and (out[-1].words[-1].tag == "POS" or
                                                          out[-1].words[0].tag == "PRP$")  # ("the kiln's peak ...")
        if p.kind == "NP" and 1 <= k < len(tags) and all(t in ("NN", "NNS") for t in tags[k:]) and \
                singular(p.words[-1].lower) in MEASURE_NOUNS and "POS" not in tags and p.pp is None and \
                not possessed and _VALUE_FOLLOWS.match(text, p.end) and \
                (names or tags[k - 1] in ("NN", "NNS") and singular(p.words[k - 1].lower) not in MEASURE_NOUNS):
            words = [Word(w.text, t, w.start, w.end) for w, t in zip(p.words, tags)]
            out += [Phrase("NP", words[:k], p.pp, holder=True), Phrase("NP", words[k:])]
        else:
            out.append(p)
    return out


def _tag_at_start(w: Word, sentence_start: int) -> str:
    """A word's tag; a sentence's first word that the lexicon knows as a noun in lower case is that noun ("Hose
    diameters range ...": the tagger's NNP or JJ for a capital)."""
    if w.start == sentence_start and known_word(w.lower) in ("NN", "NNS"):
        return known_word(w.lower)
    return w.tag


def measures(text: str, phrases: list[Phrase], things: dict[int, Any], r: Any) -> None:
    """A value after "of" a measure noun ("a capacity of 40 crates") or after "is" with a measure noun as the
    subject ("its storage time is 20 days"): that noun names what the value measures, and the thing it belongs to
    is the one that has it (the clause's subject, or the thing inside the measure's phrase: "the weight of a box")."""
    for i, p in enumerate(phrases):
        if i not in things:
            continue
        t = things[i]
        head = singular(t.head.lower())
        loose = head in QUANTITY_NOUNS and head not in MEASURE_NOUNS  # "head", "draft": a measure only before "of"
        if head not in MEASURE_NOUNS and not loose:
            continue
        for v in r.values:
            q = v.quantity
            after = text[t.end:q.start]
            if loose and not re.match(r"\s+of\b", after):
                continue  # ("a suction head of at least 2.5 m", never "the head is ...")
            of_value = re.fullmatch(r"\s+(?:of|at|around|about|:|=|is|are|was|were|of about|of up to|of at least|"
                                    r"of at most|reaches|stands at|averages|equals)\s*(?:about\s+|around\s+|only\s+|"
                                    r"up to\s+|at least\s+|at most\s+|roughly\s+|approximately\s+)?", after)
            if not of_value:
                continue
            v.measure = " ".join(w.lower for w in name_words(phrases[i].words) if w.lower not in DETERMINERS)
            inner = next((x for x in things.values() if x.owner == t.id), None)
            if inner is not None and inner.holder and not inner.named:  # ("the pipe diameter": both words)
                v.measure = f"{inner.label} {v.measure}"
            if inner is not None:  # "the weight of a box is 3 kg": the box's
                v.measure_of = inner.id
            elif t.role in ("object", "complement") or t.prep:
                clause = next((c for c in r.clauses if any(a == t.id for _, a in c.arguments)), None)
                v.measure_of = clause.subject if clause else ""
            else:  # the subject itself is the measure ("the storage time is 12 days"): whose, if a word says
                owner = re.search(r"\b(its|their)\b", t.text, re.I)
                v.measure_of = "" if owner is None else "previous"
            t.role = "measure"
    for v in r.values:  # "Pressure in the network must stay below 9 bar": the subject names what it measures
        subject = r.thing(v.subject) if v.subject else None
        if v.measure or subject is None or singular(subject.head.lower()) not in MEASURE_NOUNS or subject.named:
            continue
        inner = next((x for x in r.things if x.owner == subject.id), None)
        v.measure = " ".join(w for w in subject.label.split() if w.lower() not in DETERMINERS)
        if inner is not None and inner.holder and not inner.named:
            v.measure = f"{inner.label} {v.measure}"
        v.measure_of = inner.id if inner is not None else ("previous" if re.match(r"(?i)\s*(its|their)\b",
                                                                                   subject.text) else "")
        subject.role = "measure"
    for v in r.values:  # "the first departure from Varnes is at 05:45": the time of the named thing's event
        q = v.quantity
        if v.measure or q.dimension not in ("time", "time of day", "date") or not v.subject:
            continue
        subject = r.thing(v.subject)
        inner = next((x for x in r.things if subject is not None and x.owner == subject.id and
                      (x.named or x.individuals)), None)
        if subject is None or inner is None or subject.named or \
                not is_event(subject.head, moment=q.dimension != "time"):
            continue
        v.measure, v.measure_of = subject.label, inner.id
        subject.role = "measure"


def value_owners(phrases: list[Phrase], things: dict[int, Any], r: Any) -> None:
    """A value inside or right before a thing's phrase ("70% of the trials", "a 12 m² kiosk", "20 oak saplings"), or
    right after it joined by "of" ("a depot of 2,400 m²"): that thing."""
    for v in r.values:
        q = v.quantity
        for i, p in enumerate(phrases):
            if i not in things:
                continue
            t = things[i]
            if p.start <= q.start < p.end:  # "a 12 m² kiosk": the value qualifies the thing it is in
                v.owner = t.id
                break
            k = phrases.index(p)
            if not q.package and t.head.lower() not in MEASURE_NOUNS and singular(t.head.lower()) not in \
                    MEASURE_NOUNS and k + 2 < len(phrases) and phrases[k + 1].words and phrases[k + 1].words[0].lower == "of" and \
                    len(phrases[k + 1].words) == 1 and phrases[k + 2].start <= q.start < phrases[k + 2].end and \
                    q.end == phrases[k + 2].end:
                v.owner, v.of_phrase = t.id, True  # "a depot of 2,400 m²": the depot's own measure
                break
            if q.end <= p.start and p.pp is not None and p.pp.words[0].lower == "of" and \
                    phrases.index(p.pp) > 0 and phrases[phrases.index(p.pp) - 1].start <= q.start:
                v.owner = t.id  # "70% of the trials"
                break
