"""What each quantity of a text is about, as code can read it: the things a chunk speaks of (known individuals,
a class named in the plural, a group named together, new proper names, noun phrases with their own facts),
the subject of each sentence (with "they/both/its" pointing back), and for each quantity the candidate
subjects in order of likelihood. The model chooses among these candidates (textstep.py); a quantity with no
candidate is skipped with the reason, never put on a guess. A chunk, a document or a heading is never a
subject."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ontocore.text import singular
from ontocore.units import currency, unit as unit_of

from .index import EntitiesIndex
from .names import normalize, safe_name
from .textmentions import members, mention_spans, sentences
from .textnumbers import Quantity

# function words that never start or make a thing's name
_FUNCTION = {"the", "a", "an", "this", "that", "these", "those", "its", "their", "our", "your", "his", "her", "all",
             "each", "every", "both", "some", "any", "no", "of", "and", "or", "to", "in", "on", "at", "for", "with",
             "by", "from", "as", "is", "are", "was", "were", "be", "been", "it", "they", "them", "we", "you", "if",
             "when", "because", "since", "while", "also", "only", "not", "must", "can", "may", "should", "will",
             "there", "here", "than", "then", "per", "about", "up", "down", "out", "over", "under", "after",
             "before", "within", "between", "into", "onto", "upon", "inside", "outside", "such", "other", "more",
             "most", "less", "least", "very", "which", "who", "what", "where", "how", "why", "do", "does", "did",
             "has", "have", "had", "so", "but", "yet", "once", "twice", "average", "total", "new", "below", "above",
             "beneath", "near", "behind", "beside"}
_PRONOUN = re.compile(r"^\s*(?:(they|them|their|both|these|those|each|all of them|it|its|this|each of them)\b)",
                      re.I)
_PLURAL_PRONOUNS = {"they", "them", "their", "both", "these", "those", "each", "all of them", "each of them"}
# verbs and participles that end a sentence's opening noun phrase
_VERB = re.compile(r"\b(?:is|are|was|were|has|have|had|can|cannot|will|may|must|should|need|needs|takes?|covers?|"
                   r"holds?|ships?|stays?|lasts?|runs?|costs?|weighs?|weighing|operates?|uses?|keeps?|gets?|"
                   r"reaches?|delivers?|contains?|offers?|provides?|requires?|measures?|opens?|closes?|starts?|"
                   r"ends?|accepts?|sails?|leaves?|arrives?|serves?|produces?|makes?|sells?|buys?|works?|burns?|"
                   r"carr(?:y|ies)|seats?|belongs?|applies|apply|feeds?|draws?|flows?|handles?|stands?|lies|"
                   r"[a-z]{3,}ed)\b")
_ANNOUNCE = re.compile(r"\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d{1,2})\s+"
                       r"(?:[a-z]+\s+)?([a-z]{3,}s)\b")
_PROPER = re.compile(r"\b[A-Z][\w'’-]*(?:\s+(?:[A-Z0-9][\w'’-]*|de|of|la|van|von|del))*")
# "kept in a cold room", "stored in a dry shed": a place a sentence puts things in
_NOUN_PHRASE = re.compile(r"\b(?:an?|the|one)\s+((?:[a-z]+[\s-]){0,2}[a-z]{3,})\s+of\s*$")
_PLACE = re.compile(r"\b((?:stored|kept|placed|held|housed|located|parked|moored|installed)\s+(?:[a-z]+\s+)?"
                    r"(?:at|in|inside|on|under|near|within|next to))\s+(?:an?|the|one)\s+", re.I)


_MONTH_NAMES = {"january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
                "november", "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov",
                "dec"}


@dataclass
class Thing:
    """Something a chunk speaks of: known individuals (one, a group or a class's members) or a new thing."""
    label: str  # as the text names it
    individuals: list[str] = field(default_factory=list)  # known individuals it stands for
    new_name: str = ""  # a new individual's name
    new_class: str = ""  # its class
    start: int = 0
    end: int = 0
    plural: bool = False
    how: str = ""  # why code reads it so: "named", "group", "class", "pronoun", "new name", "noun phrase"
    other: "Thing | None" = None  # another reading the model may prefer ("Ladders are inspected": a kind, or a rule)

    def key(self) -> tuple[str, ...]:
        return tuple(self.individuals) or (self.new_name,)


@dataclass
class Relation:
    """A relation a sentence states: subject things, a property name from the sentence's words, an object."""
    subjects: Thing
    name: str
    obj: Thing
    sentence: str


@dataclass
class ChunkReading:
    text: str
    things: list[Thing] = field(default_factory=list)
    subjects: dict[int, Thing] = field(default_factory=dict)  # sentence start -> its subject
    candidates: dict[str, list[Thing]] = field(default_factory=dict)  # quantity id -> candidate subjects
    reasons: dict[str, str] = field(default_factory=dict)  # quantity id -> why there is no candidate
    relations: list[Relation] = field(default_factory=list)
    skip: list[tuple[int, int]] = field(default_factory=list)  # spans of names (numbers in them are no quantity)


def _class_plural(cls: str) -> str:
    words = re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", cls)
    if not words:
        return ""
    last = words[-1].lower()
    plural = last[:-1] + "ies" if last.endswith("y") and last[-2:-1] not in "aeiou" else \
        last + ("es" if last.endswith(("s", "x", "ch", "sh")) else "s")
    return " ".join([w.lower() for w in words[:-1]] + [plural])


def _class_words(cls: str) -> str:
    """A class name as lower-case words: "PumpStation" -> "pump station"."""
    return " ".join(w.lower() for w in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+", cls))


def _new_name_class(phrase: str, announced: dict[str, str]) -> str:
    """The class of a new named thing: what the text announced ("operates three depots") or its head noun."""
    for cls in reversed(list(announced)):
        return cls
    words = [w for w in re.findall(r"[A-Za-z]+", phrase) if w.lower() not in _FUNCTION]
    head = words[-1] if words else "Thing"
    return safe_name(singular(head))


def read_chunk(idx: EntitiesIndex, text: str, known: list[str], prior: Thing | None = None,
               packages: set[str] = frozenset()) -> ChunkReading:  # type: ignore[assignment]
    """Things, sentence subjects and relations of one chunk. `known` are the individuals it mentions;
    `prior` the subject the previous chunk of the same file ended with (for an opening pronoun)."""
    r = ChunkReading(text)
    spans = mention_spans(idx, text, known)
    spans = [s for s in spans if not any(o != s and o[0] <= s[0] and s[1] <= o[1] and (o[1] - o[0]) > (s[1] - s[0])
                                         for o in spans)]
    low = text.lower()
    things: list[Thing] = []
    # a class named in the plural: its members (a known individual of the same name, such as a category
    # "Lamps", is not what the text means: it speaks of the members)
    for cls in idx.classes:
        plural = _class_plural(cls)
        if not plural or cls == "TextChunk":
            continue
        for m in re.finditer(r"(?<![a-z])(?:all\s+(?:the\s+)?)?" + re.escape(plural) + r"(?![a-z])", low):
            inside_name = any(a <= m.start() and m.end() < b or a < m.start() < b for a, b, _ in spans)
            group = members(idx, cls)
            if group and not inside_name:
                things.append(Thing(text[m.start():m.end()], group, start=m.start(), end=m.end(), plural=True,
                                    how="class"))
        # "at every workshop", "for each bus": every member of the class
        single = _class_words(cls)
        for m in re.finditer(r"\b(?:every|each)\s+(" + re.escape(single) + r")(?![a-z])", low):
            group = members(idx, cls)
            if group and not any(a <= m.start(1) < b for a, b, _ in spans):
                things.append(Thing(text[m.start():m.end()], group, start=m.start(), end=m.end(), plural=True,
                                    how="every"))
    things = _narrowed(idx, text, things, spans)
    plural_spans = [(t.start, t.end) for t in things]
    spans = [sp for sp in spans if not any(a <= sp[0] < b for a, b in plural_spans)]
    r.skip = [(a, b) for a, b, _ in spans]
    for a, b, name in spans:
        if not any(t.start == a and t.individuals == [name] for t in things):
            things.append(Thing(text[a:b], [name], start=a, end=b, how="named"))
    things.sort(key=lambda t: t.start)
    things = _groups(text, things)
    things += _new_things(idx, text, things, r.skip)
    things.sort(key=lambda t: t.start)
    r.things = things
    history = [prior] if prior is not None else []
    for a, b in sentences(text):
        subject = _sentence_subject(text, a, b, things, history, packages)
        if subject is not None:
            r.subjects[a] = subject
            history.append(subject)
    r.relations = _relations(text, things, r)
    return r


def _category_class(idx: EntitiesIndex, name: str) -> str:
    """The class a category individual stands for ("Garden Tools" -> GardenTool), if the index has one."""
    ind = idx.individuals[name]
    key = normalize(singular(ind.label or name))
    for c in idx.classes:
        if normalize(c) == key or normalize(singular(c)) == key:
            return c
    return ""


def _narrowed(idx: EntitiesIndex, text: str, things: list[Thing], spans: list[tuple[int, int, str]]) -> list[Thing]:
    """A class plural narrowed by the category the text names with it: "Outdoor lamps products", "Products from
    the Garden Tools line" -> the members of that category, not every product."""
    out = []
    for t in things:
        if t.how == "class":
            for a, b, name in spans:
                before = re.fullmatch(r"\s*", text[b:t.start]) is not None and b <= t.start  # "<Category> products"
                after = t.end <= a and re.fullmatch(r"\s+(?:from|of|in)\s+(?:the\s+)?", text[t.end:a]) is not None
                cls = _category_class(idx, name) if before or after else ""
                group = members(idx, cls) if cls else []
                if group:
                    label = text[a:b] if before else t.label
                    t = Thing(label, group, start=min(a, t.start), end=max(b, t.end), plural=True, how="class")
                    break
            t = _such_as(idx, text, t, spans)
            t = _by_values(idx, text, t, spans)
        out.append(t)
    return out


def _holds(idx: EntitiesIndex, member: str, word: str) -> bool:
    """Whether a member has a value written `word` (a literal, or a linked thing's label or name)."""
    key = normalize(word)
    for f in idx.individuals[member].facts:
        if f.literal is not None and normalize(f.literal) == key:
            return True
        if f.object is not None and f.object in idx.individuals:
            other = idx.individuals[f.object]
            if key in (normalize(other.label), normalize(other.name)):
                return True
    return False


def _by_values(idx: EntitiesIndex, text: str, t: Thing, spans: list[tuple[int, int, str]]) -> Thing:
    """A class plural narrowed by the values the text qualifies it with: "the KX pumps", "pumps of the KX
    series", "the pumps at North Yard" -> the members holding that value (or linked to that thing)."""
    words: list[str] = []
    before = re.search(r"(?:^|\s)([A-Z][\w-]*)\s+$", text[max(0, t.start - 20):t.start])
    if before and before.group(1).lower() not in ("the", "all", "our", "these", "those", "each", "every"):
        words.append(before.group(1))
    after = re.match(r"\s+(?:of|from|in)\s+the\s+([A-Z][\w-]*)\s+(?:series|line|range|family|type|model|class)\b",
                     text[t.end:])
    if after:
        words.append(after.group(1))
    at = re.match(r"\s+(?:at|in|of)\s+(?:the\s+)?", text[t.end:t.end + 16])
    place = next((name for a, b, name in spans if at and a == t.end + at.end()), None)
    group = list(t.individuals)
    codes = re.match(r"\s+((?:[A-Z][\w-]*\d[\w-]*)(?:\s*(?:,|and|or|&)\s*[A-Z][\w-]*\d[\w-]*)*)", text[t.end:])
    if codes:  # "Units K-2 and K-5": the members whose name ends with those codes
        wanted = {normalize(c) for c in re.findall(r"[A-Z][\w-]*\d[\w-]*", codes.group(1))}
        named = [m for m in group if any(normalize(idx.individuals[m].label or m).endswith(c) for c in wanted)]
        if named:
            return Thing(t.label + codes.group(0), named, start=t.start, end=t.end + codes.end(), plural=True,
                         how="group")
    for w in words:
        kept = [m for m in group if _holds(idx, m, w)]
        group = kept or group
    if place:
        kept = [m for m in group if any(f.object == place for f in idx.individuals[m].facts)]
        group = kept or group
    if group == t.individuals:
        return t
    return Thing(t.label, group, start=t.start, end=t.end, plural=True, how="class")


def _such_as(idx: EntitiesIndex, text: str, t: Thing, spans: list[tuple[int, int, str]]) -> Thing:
    """"Products of the line, such as A and B, are ...": the examples the text names are what it speaks of (a
    named part, such as a variant, stands for the member it belongs to)."""
    m = re.compile(r"[^.;]{0,60}?,?\s+such as\s+").match(text, t.end)
    if not m:
        return t
    listed: list[str] = []
    pos = m.end()
    for a, b, name in sorted(spans):
        if a < pos:
            continue
        if a > pos + 3 and not re.fullmatch(r"[\s,]*(?:and|or)?\s*", text[pos:a]):
            break
        owner = name if name in t.individuals else next(
            (mem for mem in t.individuals if any(f.object == name for f in idx.individuals[mem].facts)), None)
        if owner and owner not in listed:
            listed.append(owner)
        pos = b
    if not listed:
        return t
    return Thing(t.label, listed, start=t.start, end=t.end, plural=True, how="class")


def _groups(text: str, things: list[Thing]) -> list[Thing]:
    """Things listed together ("A, B and C", "Widgets (A, B and C)", "the A and B lamps") as one group, which a
    later plural of the same noun ("Lamps stay ...") or a pronoun points to."""
    out: list[Thing] = []
    i = 0
    while i < len(things):
        t = things[i]
        j, chain = i, [t]
        while j + 1 < len(things) and re.fullmatch(r"\s*(?:,|and|&|or|as well as|,\s*and)\s*(?:the\s+)?",
                                                      text[things[j].end:things[j + 1].start]):
            j += 1
            chain.append(things[j])
        if t.how == "class" and j == i and i + 1 < len(things) and text[t.end:things[i + 1].start].strip() == "(":
            k, listed = i + 1, []
            while k < len(things) and things[k].how == "named" and things[k].start < text.find(")", t.end):
                listed += things[k].individuals
                k += 1
            if listed:
                out.append(Thing(text[t.start:things[k - 1].end], listed, start=t.start, end=things[k - 1].end,
                                 plural=True, how="group"))
                i = k
                continue
        if t.how == "class" and i + 1 < len(things) and things[i + 1].how == "named" and \
                re.fullmatch(r"\s*", text[t.end:things[i + 1].start]):
            k, listed = i + 1, []  # "Units K-2 and K-5 are ...": those units
            while k < len(things) and things[k].how == "named" and \
                    re.fullmatch(r"\s*(?:,|and|&|or|,\s*and)?\s*", text[things[k - 1].end:things[k].start]):
                listed += things[k].individuals
                k += 1
            out.append(Thing(text[t.start:things[k - 1].end], listed, start=t.start, end=things[k - 1].end,
                             plural=True, how="group"))
            i = k
            continue
        if len(chain) > 1 and all(c.how == "named" for c in chain):
            noun = re.match(r"\s+([a-z]{3,}s)\b", text[chain[-1].end:])
            end = chain[-1].end + (noun.end() if noun else 0)
            out.append(Thing(text[t.start:end], [n for c in chain for n in c.individuals], start=t.start, end=end,
                             plural=True, how="group"))
            if noun:  # "the A and B lamps": a later "Lamps" means this group
                word = noun.group(1)
                for m in re.finditer(r"(?<![a-z])" + re.escape(word) + r"(?![a-z])", text.lower()):
                    if m.start() > end:
                        out.append(Thing(text[m.start():m.end()], [n for c in chain for n in c.individuals],
                                         start=m.start(), end=m.end(), plural=True, how="group"))
            i = j + 1
            continue
        out.append(t)
        i += 1
    # a group's noun beats the class plural at the same place
    return [t for t in out if not (t.how == "class" and any(o.how == "group" and o.start <= t.start < o.end + 1
                                                                and o is not t for o in out))]


def _new_things(idx: EntitiesIndex, text: str, things: list[Thing], skip: list[tuple[int, int]]) -> list[Thing]:
    """Things the index does not know yet: proper names the text introduces ("Cedar Barn covers ...") and
    noun phrases with a measure of their own ("a cold room of 25 m²", "kept in a dry shed")."""
    out: list[Thing] = []
    taken = [(t.start, t.end) for t in things] + skip
    values = _value_names(idx)
    announcements = [(m.end(), safe_name(singular(m.group(1)))) for m in _ANNOUNCE.finditer(text)
                     if not unit_of(m.group(1)) and not currency(m.group(1)) and
                     not any(x <= m.start() < y for x, y in taken)]
    for a, b in sentences(text):
        for m in _PLACE.finditer(text, a, b):  # "kept in a dry shed": a place, a thing of its own
            np = re.match(r"((?:[a-z]+[\s-]){0,2}[a-z]{3,})\b(?!\s*\d)", text[m.end():])
            words = []
            for w in np.group(1).split() if np else []:
                if w in _FUNCTION or words and len(w) > 4 and w.endswith(("ed", "ing")) or \
                        _VERB.fullmatch(w) and not w.endswith("ed"):
                    break
                words.append(w)
            if words and len(words[-1]) > 4 and words[-1].endswith("ed"):
                words = []
            if words and not any(x <= m.end() < y for x, y in taken):
                phrase = " ".join(words)
                s0 = m.end()
                out.append(Thing(phrase, new_name=safe_name(phrase), new_class=safe_name(singular(phrase.split()[-1])),
                                 start=s0, end=s0 + len(np.group(1)), how="noun phrase"))
                taken.append((s0, s0 + len(np.group(1))))
        for m in _PROPER.finditer(text, a, b):
            s, e = m.start(), m.end()
            words = m.group(0).split()
            while words and (words[0].lower() in _FUNCTION or words[0].isdigit()):
                s += len(words[0]) + 1
                words = words[1:]
            if any(w.lower().rstrip(".") in _MONTH_NAMES for w in words):
                continue  # "3 February 2031": a date, not a name
            if len(words) == 1 and re.search(r"\b(?:from|to|at|in|near|via)\s+$", text[max(a, s - 6):s], re.I) and \
                    not any(x < e and s < y for x, y in taken):
                cls = values.get(normalize(words[0]))
                if cls:  # "from Oakridge": a name the tables hold as a value (a town column): a thing of its own
                    out.append(Thing(words[0], new_name=safe_name(words[0]), new_class=cls, start=s, end=e,
                                     how="new name"))
                    taken.append((s, e))
                continue
            if len(words) < 2 or any(x < e and s < y for x, y in taken) or unit_of(words[-1]) or \
                    any(w.isupper() and len(w) > 1 for w in words[:1]) and len(words) < 2:
                continue
            if s == a or text[a:s].strip() == "":  # at a sentence start: a name only when a verb follows
                if not _VERB.match(text[e:e + 30].strip() + " "):
                    continue
            label = " ".join(words)
            announced = {c: c for end, c in announcements if end <= s}
            out.append(Thing(label, new_name=safe_name(label), new_class=_new_name_class(label, announced), start=s,
                             end=e, how="new name"))
            taken.append((s, e))
    return out


def _value_names(idx: EntitiesIndex) -> dict[str, str]:
    """Names the tables hold as plain text values (normalized) -> the class their column names ("base_town" ->
    Town): a single word the text names as a thing ("from Oakridge") is one of them. Read once per index (the
    tables are mapped before the text; one pass over the facts, not one per chunk)."""
    cached = _VALUE_NAMES.get(id(idx))
    if cached is not None and cached[0] is idx:
        return cached[1]
    out: dict[str, str] = {}
    for ind in idx.individuals.values():
        for f in ind.facts:
            if isinstance(f.literal, str) and f.literal[:1].isupper() and " " not in f.literal.strip() and \
                    not any(ch.isdigit() for ch in f.literal) and f.property in idx.properties:
                words = re.findall(r"[A-Z]?[a-z]+", f.property)
                if words and idx.properties[f.property].kind == "datatype" and len(words[-1]) > 2:
                    out.setdefault(normalize(f.literal), safe_name(singular(words[-1].lower())))
    _VALUE_NAMES.clear()  # one index at a time
    _VALUE_NAMES[id(idx)] = (idx, out)
    return out


_VALUE_NAMES: dict[int, tuple[EntitiesIndex, dict[str, str]]] = {}


def _sentence_subject(text: str, a: int, b: int, things: list[Thing], history: list[Thing],
                      packages: set[str] = frozenset()) -> Thing | None:  # type: ignore[assignment]
    """The subject of a sentence: the thing it opens with (before its verb), a pronoun's referent, or a new
    thing from its opening noun phrase. An opening place ("At Oakridge the office opens ...") is skipped."""
    place = re.match(r"\s*(?:At|In|On|From)\s+(?:the\s+)?[A-Z][\w-]*(?:\s+[A-Z][\w-]*)*,?\s+(?=[Tt]he\s|[Aa]n?\s|[Oo]ur\s)",
                     text[a:b])
    if place:
        a += place.end()
    cond = re.match(r"\s*(?:If|When|Once|Whenever|While|As soon as|Unless)\b[^,.;]{3,80},\s*", text[a:b])
    if cond:  # "If the wind exceeds 20 m/s, the bus wash runs ...": the main clause's subject
        a += cond.end()
    sentence = text[a:b]
    verb = _VERB.search(sentence)
    guess = re.match(r"\s*(?:[Tt]he|[Aa]n?|[Oo]ur)?\s*(?:[A-Za-z][\w-]*\s+){1,3}?([a-z]{3,}s)\s+(?:up\b|at\b|to\b|on\b|in\b|"
                     r"an?\b|the\b|\d)", sentence)
    if guess and any(t.start <= a + guess.start(1) < t.end for t in things):
        guess = None  # "The KX buses at ...": "buses" names the thing, it is no verb here
    if guess and (verb is None or guess.start(1) < verb.start()):
        verb = re.compile(re.escape(guess.group(1))).search(sentence, guess.start(1))
    head_end = a + (verb.start() if verb else len(sentence))
    opening = [t for t in things if a <= t.start < head_end]
    lead = re.match(r"\s*(?:(?:a|an|the|one)\s+)?([a-z]+)\s+of\s+", sentence, re.I)
    if opening and lead and opening[0].start > a + lead.end() - 2 and singular(lead.group(1).lower()) in packages:
        return opening[0]  # "A crate of X weighs": about X
    np = re.match(r"\s*(?:[Tt]he|[Aa]n?|[Oo]ur)\s+((?:[a-z][a-z-]+\s+){0,2}[a-z][a-z-]+)\s+(at|in|on|near|inside|of)\s+",
                  sentence)
    event = np is not None and np.group(2) == "of" and opening and \
        re.match(r"\s*(?:is|are|was|were)\b", text[opening[0].end:]) is not None  # "the inspection of X is due"
    if opening and np and not event and a + np.end() <= opening[0].start + 4 and not _quantity_noun(np.group(1)) and \
            not _VERB.fullmatch(np.group(1).split()[-1]):
        phrase = np.group(1)  # "The cold store at Yard B has ...": the store, not the yard
        label = f"{phrase} of {opening[0].label}" if np.group(2) == "of" else phrase  # a part: whose it is
        return Thing(label, new_name=safe_name(label), new_class=safe_name(singular(phrase.split()[-1])),
                     start=a + np.start(1), end=a + np.end(1), how="noun phrase")
    part = re.match(r"\s*((?:[A-Za-z][a-z-]+\s+){0,2}[a-z][a-z-]+s)\s+of\s+(?:each|every|all|the|our)\b", sentence)
    if part and not _quantity_noun(part.group(1)) and singular(part.group(1).split()[-1].lower()) not in packages \
            and part.group(1).split()[0].lower() not in _FUNCTION:  # "Spare keys of each workshop are kept ..."
        phrase = " ".join(part.group(1).split()[:-1] + [singular(part.group(1).split()[-1])])
        return Thing(phrase, new_name=safe_name(phrase), new_class=safe_name(singular(part.group(1).split()[-1])),
                     start=a + part.start(1), end=a + part.end(1), plural=True, how="noun phrase")
    if opening:
        return opening[0]
    qnp = re.match(r"\s*(?:[Tt]he\s+)?[A-Za-z]+\s+(?:in|of|at)\s+the\s+((?:[a-z][a-z-]+\s+){0,2}[a-z][a-z-]+)\s+", sentence)
    if qnp and _quantity_noun(sentence.split()[0].lower() if sentence.split()[0].lower() != "the"
                              else sentence.split()[1].lower()):
        phrase = qnp.group(1)  # "Pressure in the brake line must stay ...": the line
        words = []
        for w in phrase.split():
            if w in _FUNCTION or _VERB.fullmatch(w):
                break
            words.append(w)
        if words:
            phrase = " ".join(words)
            return Thing(phrase, new_name=safe_name(phrase), new_class=safe_name(singular(words[-1])),
                         start=a + qnp.start(1), end=a + qnp.start(1) + len(phrase), how="noun phrase")
    every = [t for t in things if t.how == "every" and a <= t.start < b]
    if every and not opening:
        return every[0]  # "Tyres are checked at every workshop at 06:15": about each workshop
    previous = history[-1] if history else None
    pron = _PRONOUN.match(sentence)
    if pron and previous is not None:
        if pron.group(1).lower() in _PLURAL_PRONOUNS:  # "Both", "They": the last thing that was several
            return next((t for t in reversed(history) if t.plural or len(t.individuals) > 1), previous)
        return previous
    m = re.match(r"\s*(?:(?:[Tt]he|[Oo]ur|[Aa]ll|[Ee]very|[Ee]ach|[Aa]n?)\s+)?([A-Za-z][A-Za-z-]+(?:\s+[a-z][a-z-]+){0,2})",
                 sentence)
    if m and verb:
        words = []
        tokens = m.group(1).split()
        rest = sentence[m.end(1):]
        for i, w in enumerate(tokens):
            follower = tokens[i + 1] if i + 1 < len(tokens) else (re.match(r"\s*(\S+)", rest) or [None, ""])[1]
            participle = words and w.endswith("ing") and re.fullmatch(r"(?:an?|the|its|their|\d[\d,.]*)", follower or "")
            if w.lower() in _FUNCTION or _VERB.fullmatch(w.lower()) or participle or \
                    (verb is not None and w == verb.group(0)):
                break
            words.append(w)
        phrase = " ".join(words)
        if not words or any(unit_of(w) or currency(w) for w in words):
            return previous
        nxt = re.match(r"\s*([a-z]+)", sentence[sentence.find(words[-1]) + len(words[-1]):])
        if singular(words[-1].lower()) in packages or _quantity_noun(words[-1].lower()) or \
                (nxt and _quantity_noun(nxt.group(1)) and not (
                    verb is not None and nxt.group(1) == verb.group(0) and
                    not re.match(r"\s*(?:is|are|was|were)\b", sentence[verb.end():]))):
            return previous  # "Crates, each weighing ...", "Handling costs are ...": still the last thing
        m = re.search(re.escape(phrase), sentence)
        head = words[-1].lower()
        if head.endswith("s") and not head.endswith("ss"):
            phrase = " ".join(words[:-1] + [singular(words[-1])])
        kind = head.endswith("s") and not head.endswith("ss") and len(words) > 1  # "Spare lids are washed"
        if kind:
            return Thing(phrase, new_name=safe_name(phrase), new_class=safe_name(singular(head)), start=a + m.start(),
                         end=a + m.end(), plural=True, how="noun phrase")
        if head.endswith("ing") or (head.endswith("s") and not sentence.lstrip()[:3].lower() == "the"):
            label = f"{phrase} policy"  # "Refunds are paid ...", "Express handling takes ...": a rule
            kind_of_thing = None
            if not head.endswith("ing"):  # "Ladders are inspected ...": maybe a kind of thing (kind_or_activity says)
                written = " ".join(words)  # "ladders" (in general), a Ladder
                kind_of_thing = Thing(written, new_name=safe_name(written), new_class=safe_name(singular(head)),
                                      start=a + m.start(), end=a + m.end(), plural=True, how="noun phrase")
            return Thing(label, new_name=safe_name(label), new_class="Policy", start=a + m.start(),
                         end=a + m.end(), how="noun phrase", other=kind_of_thing)
        return Thing(phrase, new_name=safe_name(phrase), new_class=safe_name(singular(head)), start=a + m.start(),
                     end=a + m.end(), how="noun phrase")
    return previous


def _in_sentence(text: str, pos: int) -> tuple[int, int]:
    return next(((a, b) for a, b in sentences(text) if a <= pos < b), (0, len(text)))


def quantity_candidates(idx: EntitiesIndex, r: ChunkReading, quantities: list[Quantity],
                        packages: set[str]) -> None:
    """For each quantity, its candidate subjects (best first) into `r.candidates`, or a reason into `r.reasons`."""
    text = r.text
    for q in quantities:
        a, b = _in_sentence(text, q.start)
        clause = max(text.rfind(";", a, q.start), text.rfind(", and", a, q.start), text.rfind(" and ", a, q.start)
                     if re.search(r"\band\s+(?:the\s+)?[A-Z]", text[a:q.start]) else -1, a)
        out: list[Thing] = []
        # "a cold room of 25 m²": the noun phrase the measure is of, a new thing
        np = _NOUN_PHRASE.search(text[max(a, q.start - 50):q.start])
        phrase = " ".join(w for w in np.group(1).split() if w not in _FUNCTION) if np else ""
        if phrase and q.dimension not in ("count", "money") and not _quantity_noun(phrase):
            start = q.start - len(np.group(0)) + np.group(0).find(np.group(1))
            near = [t for t in r.things if t.start <= start < t.end + 2 or start <= t.start < q.start or
                    re.fullmatch(r",\s*(?:an?|the|one)\s+", text[t.end:start])]  # "X, a hall of 60 m²": X
            if near and near[-1].how == "new name" and re.fullmatch(r",\s*(?:an?|the|one)\s+", text[near[-1].end:start]):
                near[-1].new_class = safe_name(singular(phrase.split()[-1]))  # "X, a depot of ...": X is a depot
            thing = near[-1] if near else Thing(phrase, new_name=safe_name(phrase),
                                                new_class=safe_name(singular(phrase.split()[-1])), start=start,
                                                end=q.start, how="noun phrase")
            r.candidates[q.id] = [thing]
            continue
        # "a 500 m² hall": the noun phrase the measure qualifies
        if q.joined:
            np2 = re.match(r"\s*((?:[a-z][a-z-]+\s+){0,2}[a-z][a-z-]{2,})", text[q.end:])
            words = []
            for w in np2.group(1).split() if np2 else []:
                if w in _FUNCTION or _VERB.fullmatch(w):
                    break
                words.append(w)
            if words:
                subject = r.subjects.get(a)
                phrase = " ".join(words)
                label = f"{subject.label} {phrase}" if subject is not None and subject.how == "class" and \
                    len(subject.label.split()) <= 3 else phrase
                r.candidates[q.id] = [Thing(label, new_name=safe_name(label), new_class=safe_name(singular(words[-1])),
                                            start=q.end, end=q.end + len(np2.group(0)), how="noun phrase")]
                continue
        lead_np = re.match(r"(?:,\s*and|;|\band)\s+(?:a|an|the)\s+((?:[a-z][a-z-]+\s+){0,2}[a-z][a-z-]+)\s+(?:holds?|weighs?|"
                           r"costs?|takes?|has|have|is|are|needs?|runs?|seats?|carries|covers?)\b", text[clause:q.start])
        if lead_np and not _quantity_noun(lead_np.group(1)) and clause > a and \
                singular(lead_np.group(1).split()[-1]) not in packages:
            phrase = lead_np.group(1)  # "..., and a spare tank holds 60 L": the tank
            r.candidates[q.id] = [Thing(phrase, new_name=safe_name(phrase), new_class=safe_name(singular(phrase.split()[-1])),
                                        start=clause + lead_np.start(1), end=clause + lead_np.end(1), how="noun phrase")]
            continue
        # "A crate of X weighs 9 kg", "the X ships in crates of 6": the nearest thing before it in its clause
        local = [t for t in r.things if clause <= t.start and t.end <= q.start and
                 not re.search(r"\b(?:at|in|inside|into|to|from|near|within|on)\s+(?:the\s+|an?\s+)?$",
                               text[max(a, t.start - 12):t.start], re.I)]
        subject = r.subjects.get(a)
        if subject is not None and not subject.individuals:  # "The compressor of Bus Juniper must reach": the part
            local = [t for t in local if not (subject.end <= t.start and
                                              re.fullmatch(r"\s+of\s+(?:the\s+)?", text[subject.end:t.start]))]
        if local:
            out.append(local[-1])
        if subject is not None and subject not in out:
            out.append(subject)
        # things named after it in the sentence ("20 copies of X")
        after = [t for t in r.things if q.end <= t.start <= q.end + 2 and t.individuals and
                 not text[q.end:t.start].strip()]  # "20 Oak saplings"
        if after:
            out = after[:1]
        place = [m for m in _PLACE.finditer(text, a, q.start)]
        holder = next((t for t in r.things if place and t.start == place[-1].end()), None)
        climate = q.dimension in ("temperature", "pressure") or \
            q.dimension == "ratio" and re.match(r"[^.;,]{0,30}\bhumidity\b", text[q.end:]) is not None
        if holder is not None and climate:  # "kept in the cold shed at 5 to 15 °C": the place's conditions
            out = [holder]
        out = [t for t in out if not _is_package(t, packages)]
        out += [t.other for t in out if t.other is not None and t.other not in out]
        if out:
            r.candidates[q.id] = out[:4]
        else:
            r.reasons[q.id] = "no thing the sentence speaks of could be read"


def _quantity_noun(phrase: str) -> bool:
    from .concepts import QUANTITY_NOUNS
    return singular(phrase.split()[-1]) in QUANTITY_NOUNS


def _is_package(t: Thing, packages: set[str]) -> bool:
    return not t.individuals and normalize(singular(t.label.split()[-1])) in {normalize(p) for p in packages}


_REL_VERB = re.compile(r"^[\s)]*(?:(?:are|is|were|was|must be|should be|will be)\s+)?(?:also\s+|all\s+)?"
                       r"([a-z]{3,}(?:ed|en|wn)|kept|held|built|left|put|set|laid|hung|sold|made|found|sent)\s+"
                       r"(?:[a-z]+ly\s+)?(at|in|inside|on|under|near|within|to|from|by|for)\s+"
                       r"(?:an?\s+|the\s+)?$", re.I)


_REL_TAIL = re.compile(r"\b(?:is|are|was|were|be)\s+(?:also\s+|all\s+)?([a-z]{3,}(?:ed|en|wn)|kept|held|built|left|put|set|laid|hung|sold|made|found|sent)\s+"
                       r"(?:[a-z]+ly\s+)?(at|in|inside|on|under|near|within|to|from|by|for)\s+(?:an?\s+|the\s+)?$", re.I)
_LOCATED = re.compile(r"^\s*(?:of\s+[^,.;]{0,25}?\s+)?(inside|within|next to|near|behind|beside|at)\s+(?:the\s+)?$",
                      re.I)


def _relations(text: str, things: list[Thing], r: ChunkReading) -> list[Relation]:
    """Relations a sentence states between two things with a participle and a preposition ("A and B are stored at
    C" -> storedAt); named from the sentence's own words."""
    out: list[Relation] = []
    for a, b in sentences(text):
        subject = r.subjects.get(a)
        inside = sorted([t for t in things if a <= t.start < b] +
                        ([subject] if subject is not None and subject.how == "noun phrase" and a <= subject.start < b
                         and subject not in things else []), key=lambda t: t.start)
        for obj in inside:
            head = text[a:obj.start]
            m = None
            for cand in ([subject] if subject else []) + [t for t in inside if t.end <= obj.start]:
                if cand is None or cand is obj or cand.start > obj.start and cand.how != "pronoun":
                    continue
                gap = text[max(cand.end, a) if cand.start >= a else a:obj.start]
                gap = gap[gap.rfind(",") + 1:] if "," in gap and not re.search(r"\b(?:are|is)\b", gap[gap.rfind(","):]) \
                    else gap
                if cand is subject and cand.how == "noun phrase":  # "Spare keys of each workshop are kept in"
                    gap = re.sub(r"^\s+of\s+[^,.;]{0,30}?(?=\s+(?:are|is|were|was|must|should|will)\b)", "", gap)
                m = _REL_VERB.search(gap[-60:]) if cand.start >= a else _REL_TAIL.search(gap[-60:])
                if m:
                    name = safe_name(f"{m.group(1)} {m.group(2)}", lower_first=True)
                    if not any(x.subjects.key() == cand.key() and x.obj.key() == obj.key() for x in out):
                        out.append(Relation(cand, name, obj, " ".join(text[a:b].split())))
                    break
            del head
        opening = re.match(r"\s*(?:At|In|On)\s+(?:the\s+)?", text[a:b])
        where = next((t for t in things if opening and t.start == a + opening.end()), None)
        if where is not None and subject is not None and subject.how == "noun phrase" and not subject.individuals \
                and subject.start > where.end:  # "At Oakridge the kiosk opens ...": the kiosk is at Oakridge
            out.append(Relation(subject, "locatedAt", where, " ".join(text[a:b].split())))
        for t1, t2 in zip(inside, inside[1:]):  # "a cage of 40 m² inside the depot": where a thing is
            if t1 is subject and not t1.individuals and t1.how == "noun phrase" and t2.individuals and \
                    re.fullmatch(r"\s+of\s+(?:the\s+)?", text[t1.end:t2.start]):
                out.append(Relation(t1, "partOf", t2, " ".join(text[a:b].split())))  # "the compressor of Bus Juniper"
                continue
            m = _LOCATED.match(text[t1.end:t2.start])
            if m and not t1.individuals and t1.how == "noun phrase":
                name = safe_name(f"located {m.group(1)}", lower_first=True)
                out.append(Relation(t1, name, t2, " ".join(text[a:b].split())))
    return out
