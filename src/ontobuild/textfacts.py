"""Facts from free text: code finds every number (with its unit) and every known entity in a chunk; the LLM
says which entity each number is about and what property it is; code writes the typed literal."""

from __future__ import annotations

import re
from typing import Any, Iterable

from .index import EntitiesIndex, Fact
from .mapping import ensure_class, ensure_datatype_property, ensure_individual
from .names import normalize, safe_name, similarity, singular
from .textmentions import (class_named, class_spans, members, mention_spans, sentence_at, sentence_naming,
                           sentences)
from .textnumbers import QUANTITY_NOUNS, NumberMention, match_number
from .units import currency, unit as unit_of

_GLUE = {"per", "of", "and", "or", "to", "for", "with", "in", "on", "at", "is", "are", "was", "were", "each",
         "total", "average", "approximately", "about", "which", "that", "the"}


def _glue(word: str) -> bool:
    """A word that does not name a thing: a function word or a verb form in -ing ("depending", "including")."""
    return word.lower() in _GLUE or word.lower().endswith("ing")


_NOT_SUBJECT = {"since", "because", "as", "when", "if", "in", "on", "at", "due", "average", "it", "this", "these",
                "they", "there", "total", "up"}
# where the opening noun phrase of a sentence ends: a verb, a participle, a preposition, a relative pronoun
_STOP_PHRASE = re.compile(r"\b(is|are|was|were|has|have|had|can|will|may|must|should|with|such|from|in|on|at|for|"
                          r"of|to|that|which|who|kept|(?:cover|use|hold|contain|include|measure|weigh|cost|take|need|"
                          r"offer|provide|keep|get|make|run|last|reach)s?|[a-z]{4,}ed|"
                          r"[a-z]{3,}ing(?=\s+(?:an?|the|its|their|up|about|over|only|\d)\b))\b|[,;:(]")


def sentence_subject(text: str, start: int, spans: list[tuple[int, int, str]]) -> str:
    """The subject of the sentence holding `start`: a known individual named in its first words, or a new
    CamelCase name from its opening noun phrase ("The east wing dedicated to prints ..." -> EastWing)."""
    s0 = max(text.rfind(". ", 0, start) + 2, 0) if text.rfind(". ", 0, start) >= 0 else 0
    head = [sp for sp in spans if s0 <= sp[0] <= s0 + 45 and sp[1] <= start]
    if head:
        return head[0][2]
    opening = re.sub(r"^(the|a|an|each|every|our|its)\s+", "", text[s0:start].strip(), flags=re.I)
    phrase = _STOP_PHRASE.split(opening, maxsplit=1)[0].strip()
    words = re.findall(r"[A-Za-z]+", phrase)
    if not words or len(words) > 4 or words[0].lower() in _NOT_SUBJECT or is_unit_word(words[-1]) or \
            all(is_unit_word(w) or _glue(w) for w in words):
        return ""
    return safe_name(phrase) + " (new)"


def subject_hint(text: str, num: NumberMention, spans: list[tuple[int, int, str]]) -> str:
    """The thing a number most likely measures, or "" when it is not clear: a known individual named right
    after it ("20 Dune copies"); the sentence's subject when a noun follows the number ("a 300 m²
    hall") or nothing known precedes it in its clause; else the nearest known one before it in the
    clause; else the entity the paragraph opens with ("The Dune novel, ...")."""
    after = [sp for sp in spans if 0 <= sp[0] - num.end <= 2]
    if after:
        return after[0][2]
    if num.joined:  # "three 2-TB disks": the noun phrase the measure qualifies
        phrase = _STOP_PHRASE.split(text[num.end:num.end + 60], maxsplit=1)[0]
        phrase = re.split(r"[.!?)]", phrase, maxsplit=1)[0]
        named = [sp for sp in spans if num.end <= sp[0] < num.end + len(phrase)]
        words = re.findall(r"[A-Za-z]+", phrase)[:3]
        if named:
            return named[0][2]
        if words and not all(_glue(w) for w in words):
            return safe_name(" ".join(words)) + " (new)"
    nxt = re.match(r"\s*([A-Za-z]+)", text[num.end:])
    clause = max(text.rfind(". ", 0, num.start), text.rfind(", ", 0, num.start), text.rfind("; ", 0, num.start))
    before = [sp for sp in spans if clause < sp[0] and sp[1] <= num.start]
    if before and not (nxt and not _glue(nxt.group(1))):
        return before[-1][2]
    opening = [sp for sp in spans if sp[0] <= 40]
    if opening:
        return opening[0][2]
    return sentence_subject(text, num.start, spans)


def resolve_subject(idx: EntitiesIndex, mention: str, candidates: list[str]) -> str | None:
    """The existing individual a subject mention refers to, preferring those mentioned in the chunk."""
    best, best_key = None, (0.0, False, 0)
    for name in candidates or []:
        ind = idx.individuals[name]
        score = max(similarity(mention, f) for f in [name, ind.label, *ind.aliases] if f)
        # on a tie, the thing itself (its name or label, word for word) before a part whose alias matches
        key = (score, mention.strip().lower() in (name.lower(), ind.label.lower()), -len(name))
        if key > best_key:
            best, best_key = name, key
    if best_key[0] >= 0.75:
        return best
    hits = idx.find(mention, kinds=("individual",), limit=1, threshold=0.85)
    return hits[0][2] if hits else None


def resolve_property(idx: EntitiesIndex, name: str) -> str:
    """Reuse an existing datatype property when the name is the same up to case and punctuation (units count:
    weightKg is not weightG)."""
    def key(n: str) -> str:
        return re.sub(r"[^a-z0-9]", "", n.lower())

    for pname, p in idx.properties.items():
        if p.kind == "datatype" and key(pname) == key(name):
            return pname
    return safe_name(name, lower_first=True)


# words that name what is counted or measured in any domain, not a thing of the data
GENERIC_WORDS = {"unit", "item", "piece", "thing", "value", "product", "element", "quantity", "total", "amount",
                 "number", "count"} | QUANTITY_NOUNS


def is_unit_word(mention: str, counted: Iterable[str] = ()) -> bool:
    """A subject that names a unit, a generic or quantity word, or what the text's numbers count ("Bottles" when
    a number of the chunk is "20 bottles"), instead of the thing measured."""
    words = {normalize(mention), mention.strip().lower()}
    words |= {singular(w) for w in words}
    return bool(words & (GENERIC_WORDS | {singular(c.lower()) for c in counted})) or \
        unit_of(mention.strip()) is not None or bool(currency(mention.strip()))


def class_of_new(mention: str) -> str:
    """The class of a new thing, from the head noun of its name: EastWing -> Wing."""
    words = re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", safe_name(mention))
    head = next((w for w in reversed(words) if w.isalpha() and len(w) > 2), "Thing")
    return singular(head[0].upper() + head[1:])



def _subject(idx: EntitiesIndex, mention: str, cls: str, chunk_id: str, candidates: list[str]) -> str:
    """The individual a mention names: an existing one (its alias grows) or a new one of class `cls`."""
    subject = resolve_subject(idx, mention, candidates)
    if subject is None:
        klass = ensure_class(idx, safe_name(cls or class_of_new(mention)), "")
        subject = ensure_individual(idx, safe_name(mention), mention, klass, f"Mentioned in {chunk_id}",
                                    {"chunk": chunk_id})
        candidates.append(subject)
    elif mention != idx.individuals[subject].label and mention not in idx.individuals[subject].aliases:
        idx.individuals[subject].aliases.append(mention)
    return subject


def named_in(idx: EntitiesIndex, mention: str, text: str, candidates: list[str]) -> bool:
    """Whether the text names this thing (itself, or a known individual it mentions): no invented names."""
    if normalize(mention) and normalize(mention) in normalize(text):
        return True
    hit = resolve_subject(idx, mention, candidates)
    return hit is not None and hit in candidates


_COORD = re.compile(r"^[\s,()&]*(?:(?:and|or|as well as)\s+)?(?:the\s+)?$", re.I)
_NOT_RELATION = {"and", "or", "the", "a", "an", "also", "both", "as", "well", "all", "its", "their"}


def _states_relation(between: str, sentence: str, prop: str) -> bool:
    """Whether the words between two mentions state the relation: its verb ("stored" for storedIn) when the
    sentence uses it, else any word that is not glue ("A and B" only lists them)."""
    stem = next(iter(re.findall(r"[a-z]+", prop)), "")[:4]
    words = re.findall(r"[a-z]+", between.lower())
    if stem and any(w.startswith(stem) for w in re.findall(r"[a-z]+", sentence.lower())):
        return any(w.startswith(stem) for w in words)
    return any(w not in _NOT_RELATION for w in words)


def _chain(text: str, spans: list[tuple[int, int, str]], first: tuple[int, int, str], idx: EntitiesIndex,
           avoid: str) -> list[str]:
    """The individual of `first` and those listed with it ("A, B and C") that share a class with it."""
    order = sorted(spans)
    i = order.index(first)
    out = [first[2]]
    kinds = set(idx.individuals[first[2]].classes)
    for step in (-1, 1):
        j, prev = i + step, first
        while 0 <= j < len(order):
            cand = order[j]
            gap = text[prev[1]:cand[0]] if step == 1 else text[cand[1]:prev[0]]
            if cand[0] < prev[1] and step == 1 or cand[1] > prev[0] and step == -1:
                j += step  # overlapping forms of one name
                continue
            if not _COORD.match(gap) or cand[2] == avoid or not kinds & set(idx.individuals[cand[2]].classes):
                break
            if cand[2] not in out:
                out.append(cand[2])
            prev, j = cand, j + step
    return out


_VOICED = re.compile(r"\b([a-z]{3,}(?:ed|en|wn))\s+(at|in|on|by|from|to|with|for|into|under|near)\b")


def stated_name(between: str, sentence: str, prop: str) -> str:
    """The relation's name as the sentence states it between the two things ("are stored at" -> storedAt), when
    the model's name is that verb in another voice ("stores") or a verb the sentence does not use; else the
    model's name."""
    verb = next(iter(re.findall(r"[a-z]+", prop)), "")
    stem = verb[:4]
    used = any(w.startswith(stem) for w in re.findall(r"[a-z]+", sentence.lower())) if stem else False
    m = next((m for m in _VOICED.finditer(between.lower()) if not used or m.group(1).startswith(stem)), None)
    if m is None or m.group(1) == verb:  # the model already used the sentence's verb form ("storedIn")
        return prop
    return safe_name(f"{m.group(1)} {m.group(2)}", lower_first=True)


def stated_pairs(idx: EntitiesIndex, text: str, candidates: list[str], subject: str, obj: str,
                 prop: str, subject_class: str | None = None) -> tuple[list[tuple[str, str]], str, str]:
    """(subject, object) pairs one sentence of the text states for a relation the model proposed: the two
    named in the same sentence with the relation's words between them (whichever comes first is the subject),
    widened to the things listed with the subject ("A, B and C are stored at X") or, when the sentence names
    the subject's whole class ("All frames are stored at X"), to every member of that class. [] when no
    sentence states it. Also returns the words between the two and the sentence ("" when none does)."""
    names = [n for n in dict.fromkeys([*candidates, subject, obj]) if n in idx.individuals]
    spans = mention_spans(idx, text, names)
    classes = class_spans(idx, text)
    for a, b in sentences(text):
        inside = [sp for sp in spans if a <= sp[0] and sp[1] <= b]
        o_sp = [sp for sp in inside if sp[2] == obj]
        if not o_sp:
            continue
        s_sp = [sp for sp in inside if sp[2] == subject and not (o_sp[0][0] <= sp[0] < o_sp[0][1])]
        if s_sp:
            left, right = sorted([s_sp[0], o_sp[0]])
            if _states_relation(text[left[1]:right[0]], text[a:b], prop):
                return [(m, right[2]) for m in _chain(text, inside, left, idx, right[2])], text[left[1]:right[0]], \
                    text[a:b]
            continue
        for c0, c1, cls in classes:
            if a <= c0 and c1 <= b and c1 <= o_sp[0][0] and (cls == subject_class or subject in members(idx, cls)) \
                    and _states_relation(text[c1:o_sp[0][0]], text[a:b], prop):
                return [(m, obj) for m in members(idx, cls) if m != obj], text[c1:o_sp[0][0]], text[a:b]
    return [], "", ""


def apply_links(idx: EntitiesIndex, chunk_id: str, candidates: list[str], links: list[dict[str, Any]],
                text: str) -> tuple[list[dict[str, Any]], list[str]]:
    """Relations the text states between two things, as object property facts; (links made, problems).
    The model proposes each relation; code keeps it only when one sentence states it (see stated_pairs)."""
    out: list[dict[str, Any]] = []
    problems: list[str] = []
    seen: set[tuple[str, str, str]] = set()
    for link in links:
        s_m, o_m = str(link.get("subject", "")).strip(), str(link.get("object", "")).strip()
        if not s_m or not o_m or normalize(s_m) == normalize(o_m) or is_unit_word(s_m) or is_unit_word(o_m):
            continue
        what = f"link {s_m} {link.get('property')} {o_m} dropped"
        unnamed = [m for m in (s_m, o_m) if not named_in(idx, m, text, candidates)]
        if unnamed:
            problems.append(f"{what}: {', '.join(unnamed)} is not in the text")
            continue
        name = safe_name(str(link.get("property") or "relatedTo"), lower_first=True)
        s_cls = class_named(idx, s_m)
        s = None if s_cls else resolve_subject(idx, s_m, candidates)
        known = set(idx.individuals)
        o = resolve_subject(idx, o_m, candidates) or _subject(idx, o_m, link.get("object_class", ""), chunk_id,
                                                               candidates)
        if s is None and not s_cls:
            s = _subject(idx, s_m, link.get("subject_class", ""), chunk_id, candidates)
        pairs, between, sentence = stated_pairs(idx, text, candidates, s or "", o, name, s_cls)
        name = stated_name(between, sentence, name) if pairs else name
        if not pairs:
            for new in set(idx.individuals) - known:  # made for this link only: not kept
                del idx.individuals[new]
                candidates.remove(new)
            problems.append(f"{what}: no sentence of the text states it")
            continue
        if idx.kind_of(name) not in (None, "property") or (name in idx.properties and idx.properties[name].kind != "object"):
            name += "Link"
        idx.add_property(name, "object", roles=[f"From text, e.g. {s_m} {name} {o_m}"])
        for a, b in pairs:
            if (a, name, b) not in seen:
                seen.add((a, name, b))
                sentence = sentence_naming(text, s_m, o_m)
                idx.add_fact(a, Fact(name, object=b, source={"chunk": chunk_id,
                                                             **({"sentence": sentence} if sentence else {})}))
                out.append({"chunk": chunk_id, "subject": a, "property": name, "object": b})
    return out, problems


def _fit(numbers: list[NumberMention], f: dict[str, Any]) -> float:
    """How well a fact's property fits the suggestion for the numbers of its value."""
    try:
        wanted = float(str(f.get("value", "")).replace(",", ""))
    except ValueError:
        return 0.0
    return max((similarity(str(f.get("property", "")), n.suggestion()) for n in numbers if float(n.value) == wanted),
               default=0.0)


_COLLECTIVE = re.compile(r"\b(both|each|all|every|they|their|them|these|those)\b", re.I)


def shared_by(idx: EntitiesIndex, text: str, num: NumberMention, subject: str) -> bool:
    """Whether the sentence of a number may speak of `subject` too: it names it, names its class in the plural
    ("Lamps must be kept below 30 °C") or speaks of several things ("Both last 25 days")."""
    a, b = next(((a, b) for a, b in sentences(text) if a <= num.start < b), (0, len(text)))
    sentence = text[a:b]
    if _COLLECTIVE.search(sentence) or any(a <= x < b for x, _, _ in mention_spans(idx, text, [subject])):
        return True
    return any(a <= x < b and subject in members(idx, cls) for x, _, cls in class_spans(idx, text))


def _source(chunk_id: str, text: str, num: NumberMention) -> dict[str, str]:
    sentence = sentence_at(text, num.start) if text else ""
    return {"chunk": chunk_id, **({"sentence": sentence} if sentence else {})}


def apply_facts(idx: EntitiesIndex, chunk_id: str, numbers: list[NumberMention], candidates: list[str],
                facts: list[dict[str, Any]], text: str = "") -> tuple[list[dict[str, Any]], list[str]]:
    """Write the LLM's facts as typed literals; returns (coverage entries of used numbers, problems).
    When two facts claim one number, the one whose property fits the number's unit and context wins; a number
    already used may serve another subject with the same property when its sentence may speak of it too
    ("Both stay 25 days"; see shared_by)."""
    used: list[dict[str, Any]] = []
    problems: list[str] = []
    taken: set[str] = set()
    for f in sorted(facts, key=lambda f: -_fit(numbers, f)):
        mention = str(f.get("subject", "")).strip()
        num = match_number(numbers, str(f.get("value", "")), str(f.get("property", "")), taken)
        again = None
        if num is None and mention:  # a number already used: may it serve this subject too?
            other = resolve_subject(idx, mention, candidates)
            again = next((e for e in used if e["value"] == str(f.get("value", "")).replace(",", "") and
                          e["property"] == resolve_property(idx, str(f.get("property", ""))) and
                          other not in (e["individual"], *e.get("also", []))), None)
            num = next((n for n in numbers if again and n.id == again["number"]), None)
            if num and (other is None or not text or not shared_by(idx, text, num, other)):
                problems.append(f"{num.id} ({num.value}) is about {again['individual']}; its sentence does not "
                                f"speak of {mention}")
                continue
        if num is None:
            problems.append(f"no unused number {f.get('value')!r} in the chunk")
            continue
        if not mention:
            problems.append(f"{num.id}: empty subject")
            continue
        subject = _subject(idx, mention, f.get("subject_class", ""), chunk_id, candidates)
        domain = idx.individuals[subject].classes[0] if idx.individuals[subject].classes else ""
        prop = ensure_datatype_property(idx, resolve_property(idx, str(f.get("property") or num.suggestion())), num.datatype,
                                        domain, num.unit, f"From text, e.g. '{num.context}'")
        added = idx.add_fact(subject, Fact(prop, literal=num.value, datatype=idx.properties[prop].range or num.datatype,
                                           unit=num.unit, source=_source(chunk_id, text, num)))
        if again is not None:
            again.setdefault("also", []).append(subject)
            continue
        taken.add(num.id)
        used.append({"chunk": chunk_id, "number": num.id, "value": num.value, "unit": num.unit,
                     "status": "covered", "individual": subject, "property": prop,
                     **({"subject_by": "code hint (the model named only a unit)"} if f.get("hinted") else {}),
                     **({} if added else {"note": "the same fact was already in the index; the text confirms it"})})
    used += rate_bases(idx, chunk_id, numbers, used, taken, text)
    return sorted(used, key=lambda e: int(e["number"][1:])), problems


def rate_bases(idx: EntitiesIndex, chunk_id: str, numbers: list[NumberMention], used: list[dict[str, Any]],
               taken: set[str], text: str) -> list[dict[str, Any]]:
    """The reference quantity of a rate the model took but whose base it left ("10 tons per 50 m²": 50 m²),
    as a fact of the same subject named after both (areaM2ForWeightTons), so no part of the rate is lost."""
    out = []
    for num in numbers:
        rate = next((e for e in used if num.base_of is not None and e["number"] == num.base_of.id), None)
        if rate is None or num.id in taken:
            continue
        subject, of = rate["individual"], rate["property"]
        domain = idx.individuals[subject].classes[0] if idx.individuals[subject].classes else ""
        prop = ensure_datatype_property(idx, resolve_property(idx, f"{num.suggestion()}For{of[0].upper()}{of[1:]}"),
                                        num.datatype, domain, num.unit,
                                        f"The reference quantity of {of}, from text, e.g. '{num.context}'")
        idx.add_fact(subject, Fact(prop, literal=num.value, datatype=idx.properties[prop].range or num.datatype,
                                   unit=num.unit, source=_source(chunk_id, text, num)))
        taken.add(num.id)
        out.append({"chunk": chunk_id, "number": num.id, "value": num.value, "unit": num.unit, "status": "covered",
                    "individual": subject, "property": prop, "subject_by": f"code: the base of the rate {rate['number']}"})
    return out
