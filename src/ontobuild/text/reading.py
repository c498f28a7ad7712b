"""What each sentence speaks of, as code reads it from its grammar (text/grammar.py): the things it names (noun
phrases, with the role each plays: the subject of a clause, an object, a complement after "is", or a modifier inside
another thing's phrase), the values it gives (text/quantities: numbers with units, dates, times of day), and for
each clause its subject, its verb and what follows the verb.

Code proposes; the model chooses (text/choosing.py). Nothing here decides what a quantity is about: it lists the
candidates in the order the grammar suggests (the subject of the clause whose verb the value follows; the thing
whose phrase holds it; the clause's objects), and says why, so that the choice is the model's and a rule can refuse
it (text/choosing.py `problems`: a value never goes to a name inside a modifier when the clause's head can hold it).

A thing's head noun gives its kind (a class named in the singular: "cool bag" -> Bag); a definite description
("the printer") or a pronoun ("it", "they") points back to the nearest earlier thing of that kind (`refers`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ontocore.text import singular
from ..values.units import unit as unit_of

from .quantities import Quantity
from .kinds import kind_label, noun_kind, office_of, titled_name
from .inside import conjuncts, modifiers, possessors
from .measures import holders_split, measures, value_owners
from .grammar import DETERMINERS, Phrase, Sentence, Word, clause_follows, is_subordinate, name_words
from .tagging import NOUN_TAGS, known_word, verb_lemma, word_classes

_PRONOUNS = {"it": "one", "they": "several", "them": "several", "its": "one", "their": "several", "this": "one",
             "these": "several", "those": "several", "he": "one", "she": "one", "him": "one", "her": "one",
             "his": "one", "both": "several", "each": "several"}
_QUANTIFIERS = {"one", "two", "three", "four", "five", "some", "many", "most", "each", "all", "several", "none",
               "few", "any", "both", "either", "neither", "half", "part", "majority", "minority"}
_COPULAS = {"is", "are", "was", "were", "be", "been", "being", "becomes", "became", "remains", "remained"}
_CONDITIONS = {"if", "when", "whenever", "unless", "once", "while", "until", "before", "after", "although",
               "though", "because", "since"}
_MID_CONDITIONS = {"if", "unless", "whenever"}  # after the main clause: a condition of it ("when", "after": a time)



@dataclass
class Thing:
    """A thing a sentence speaks of."""
    id: str  # "T1", per sentence
    text: str  # as written, the whole noun phrase ("the P-200 printer")
    label: str  # its name: without determiners; a plural kind in the singular ("cartridge")
    head: str  # its head noun as written ("printer")
    start: int
    end: int
    role: str  # "subject" | "object" | "complement" | "by" / "of" / "for" ... (after a preposition) | "other"
    verb: str = ""  # the verb of the clause it is an argument of
    owner: str = ""  # the thing whose phrase holds it ("T1" for "the P-200 printer" in "cartridges for the P-200 ...")
    prep: str = ""  # the preposition that introduces it
    proper: bool = False  # a name (capitalized words, a code)
    plural: bool = False
    generic: bool = False  # a kind in general ("Cartridges hold ...", "Helmets must be kept ...")
    individuals: list[str] = field(default_factory=list)  # known individuals it stands for
    refers: str = ""  # a pronoun or definite description: the earlier thing's key it points back to
    condition: bool = False  # inside a condition ("if the wind exceeds ...")
    in_parentheses: bool = False
    named: bool = False  # a word of its phrase is a name or a code ("the P-200 printer", "room 3")
    aliases: list[str] = field(default_factory=list)  # other names the sentence gives it in parentheses
    referent: str = ""  # what a pronoun or description points back to, as the prompt names it
    title: str = ""  # a common noun written before the name it is a title of ("surveyor" in "the surveyor Ann Lee")
    titles: list[str] = field(default_factory=list)  # titles listed before that one ("author" in "by author and
    # photographer Ann Lee")
    conjunct_of: str = ""  # the thing it is listed with ("Bo Park" in "by Ann Lee and Bo Park"): the same role
    known_before_head: bool = False  # the known names in its phrase all end before its common head noun ("a Lund
    # Rail engine"): the phrase is a thing of the head's kind that the name only qualifies
    kind_label: str = ""  # its name as a kind, when it differs from `label`: without the adjectives that describe
    # the one it is said of ("retired Danish welder" -> "welder"): what "X is a ..." gives as a value
    holder: bool = False  # the noun before a measure noun ("pipe" in "the pipe diameter"): the thing that has the
    # measure when it points back to one, else no thing ("transit" in "the transit time")

    @property
    def kind(self) -> str:
        """The class its head noun names: singular, CamelCase ("Bag"); none for a word that is no noun (a verb or a
        function word the tagger took for one)."""
        if self.proper or not self.head or not self.head[:1].isalpha():
            return ""
        return noun_kind(self.head)

    @property
    def title_kind(self) -> str:
        """The class a name's title names ("the surveyor Ann Lee" -> Surveyor), or ""."""
        return noun_kind(self.title) if self.title else ""

    def describe(self) -> str:
        """How the prompt shows it: its words and its role."""
        role = {"subject": "subject", "object": f"object of '{self.verb}'", "complement": f"what '{self.verb}' says "
                "it is"}.get(self.role, "")
        if not role and self.prep:
            role = f"after '{self.verb + ' ' if self.verb and not self.owner else ''}{self.prep}'"
        if self.owner:
            role += f", inside {self.owner}'s phrase"
        if self.condition:
            role += ", in a condition"
        return role


@dataclass
class Value:
    """A value a sentence gives: a quantity read by code, with the things its phrase or clause points to."""
    id: str  # "V1"
    quantity: Quantity
    verb: str = ""  # the verb it follows ("hold")
    subject: str = ""  # the subject of that clause (a Thing id)
    owner: str = ""  # the thing whose phrase holds it ("70% of the trials": the trials)
    of_phrase: bool = False  # the owner's phrase ends in it ("a depot of 2,400 m²"): no other thing can hold it
    measure: str = ""  # the noun that names what it measures ("capacity" in "a capacity of 40 crates")
    measure_of: str = ""  # the thing that measure belongs to ("Vestby Yard has a capacity of ...")
    condition: bool = False
    explicit: bool = False  # the clause's subject is written (see Clause.explicit)
    restricts: str = ""  # a condition that says which things the sentence is about ("boxes heavier than 25 kg")


@dataclass
class Clause:
    """A finite verb with its subject and what follows it."""
    verb: str  # as written, with its particle or preposition ("inspected by", "go into")
    lemma: str
    subject: str = ""  # Thing id
    arguments: list[tuple[str, str]] = field(default_factory=list)  # (preposition or "", Thing or Value id)
    copula: bool = False
    condition: bool = False
    start: int = 0
    relative_of: str = ""  # a relative clause ("that holds 40 tins"): the thing it is about
    adjective: str = ""  # what "is" says of the subject when it is an adjective ("is essential for ..."): the word
    explicit: bool = False  # its subject is written in the clause (or is its relative's antecedent), not inferred
    passive: bool = False  # its verb is a past participle without "have" ("was inspected", "a hull inspected by")


@dataclass
class Reading:
    text: str  # the sentence on one line
    start: int
    end: int
    things: list[Thing] = field(default_factory=list)
    values: list[Value] = field(default_factory=list)
    clauses: list[Clause] = field(default_factory=list)

    def thing(self, tid: str) -> Thing | None:
        return next((t for t in self.things if t.id == tid), None)


# a preposition and a bare noun that together say how or when, never a thing ("stored 16 days on average")
_IDIOMS = {("on", "average"), ("in", "stock"), ("in", "total"), ("in", "general"), ("in", "advance"),
           ("on", "time"), ("in", "time"), ("at", "once"), ("in", "person"), ("by", "hand"), ("in", "bulk"),
           ("on", "request"), ("in", "practice"), ("in", "addition"), ("at", "random"), ("on", "site"),
           ("for", "free"), ("in", "full"), ("in", "part"), ("on", "board"), ("at", "night"), ("at", "noon"),
           ("at", "midnight"), ("by", "night"), ("by", "day"), ("at", "dawn"), ("at", "dusk"), ("in", "series"),
           ("in", "parallel"), ("at", "rest"), ("in", "use"), ("in", "service"), ("on", "duty")}


def _lemma(word: Word) -> str:
    """A verb's dictionary form (holds -> hold, carries -> carry, has -> have); a past participle stays as written
    (it names a passive relation: "written by")."""
    if word.tag == "VBN":
        return word.lower
    return verb_lemma(word.text)


def _proper(words: list[Word]) -> bool:
    """A name: its head is capitalized (not only because it opens the sentence) or a code with digits."""
    head = words[-1]
    if re.search(r"\d", head.text) and re.search(r"[A-Za-z]", head.text):
        return True
    return head.tag in ("NNP", "NNPS") or (head.text[:1].isupper() and head.tag in NOUN_TAGS and
                                           not known_word(head.lower) and not (len(words) == 1 and head.tag ==
                                                                               "NNS" and word_classes(head.lower)))


def _closed(words: list[Word], label_words: list[Word]) -> int:
    """Where a name's label ends: after its last word, or after the closing parenthesis that follows it when the
    name opened one ("Harbour Lights (The Night Ferry)")."""
    end = label_words[-1].end
    rest = [w for w in words if w.start >= end]
    if rest and rest[0].text == ")" and sum(w.text == "(" for w in label_words) > sum(
            w.text == ")" for w in label_words):
        return rest[0].end
    return end


def _spans_of(known: list[tuple[int, int, str]], a: int, b: int) -> list[str]:
    return [name for s, e, name in known if a <= s and e <= b or s <= a < e]


def read_sentence(text: str, sentence: Sentence, quantities: list[Quantity],
                  known: list[tuple[int, int, str]], number: int = 0) -> Reading:
    """The reading of one sentence of `text`: its things, values and clauses. `quantities` are the chunk's values
    (quantities), `known` the spans where known individuals are named (start, end, individual name)."""
    r = Reading(sentence.text(text), sentence.start, sentence.end)
    opening = sentence.phrases[0] if sentence.phrases and _number_opens_name(sentence.phrases[0]) else None
    inside = [q for q in quantities if sentence.start <= q.start < sentence.end and not _names_part(text, q)
              and not _describes(sentence, q) and not (opening is not None and q.start == opening.start)]
    for i, q in enumerate(inside, 1):
        r.values.append(Value(f"V{i}", q))
    values = r.values
    phrases = holders_split(sentence.phrases, text, sentence.start)
    paren = _parenthesized(phrases)
    cond = _conditions(phrases)
    # things: noun phrases that are not values (their words are not a quantity) and not measure words
    things: dict[int, Thing] = {}  # phrase index -> thing
    n = 0
    for i, p in enumerate(phrases):
        if p.kind != "NP":
            continue
        words = p.words if p is opening else name_words(p.words)
        if not words or all(_in_value(w, values) for w in words):
            continue
        if _post_nominal(phrases, i, things):
            continue
        words = [w for w in words if not _in_value(w, values)]
        if not words or not any(w.is_noun() or w.tag in ("PRP", "PRP$") for w in words):
            continue
        head = next((w for w in reversed(words) if w.is_noun() or w.tag in ("PRP", "PRP$")), words[-1])
        if head.tag in ("PRP", "PRP$") and head.lower not in _PRONOUNS:
            continue  # "we", "you", "I": the writer or reader, never a thing of the text
        if len(words) == 1 and (unit_of(head.text) or unit_of(head.lower)) and head.tag in ("NN", "NNS"):
            continue  # "after hours", "for days": a unit without its number names no thing
        if len(words) == 1 and p.pp is not None and (p.pp.words[-1].lower, head.lower) in _IDIOMS:
            continue  # "on average", "in stock": a way of saying, no thing
        label_words = words[:words.index(head) + 1] if head in words else words
        label_words, title = titled_name(label_words)
        title = title or office_of(label_words)
        label = text[label_words[0].start:_closed(words, label_words)]
        plural = head.tag in ("NNS", "NNPS") or head.lower in ("they", "them", "these", "those", "both")
        proper = _proper(label_words)
        generic = plural and not proper and p.words[0].lower not in ("the", "these", "those", "its", "their") and \
            head.tag == "NNS"
        name_label = label if proper or not plural else text[label_words[0].start:head.start] + singular(head.text)
        if not proper and label_words[0].start == sentence.start and label_words[0].tag != "NNP" and \
                (known_word(label_words[0].lower) or word_classes(label_words[0].lower)) and \
                not label_words[0].text.isupper():
            # "Parcels that arrive ...": a common noun, capitalized by its place (but "OR staff": an acronym)
            name_label = name_label[:1].lower() + name_label[1:]
        n += 1
        tail = [w for w in words[words.index(head) + 1:] if w.tag == "CD"] if head in words else []
        number = bool(tail) and not plural
        if number:  # "room 3": the number is part of its name (it is no value: reading.read_sentence)
            label = name_label = text[label_words[0].start:tail[-1].end]
        t = Thing(f"T{n}", p.text(text), " ".join(name_label.split()), head.text, p.start, p.end, "other",
                  prep=p.pp.words[0].lower if p.pp else "", proper=proper, plural=plural, generic=generic,
                  individuals=_spans_of(known, p.start, p.end), in_parentheses=i in paren, condition=i in cond,
                  named=proper or any(w.tag in ("NNP", "NNPS") or re.search(r"\d", w.text) and not
                                      re.fullmatch(r"\d+(?:st|nd|rd|th)", w.text) for w in label_words)
                  or bool(number), title=title, kind_label=kind_label(label_words, head, name_label),
                  known_before_head=head.tag in ("NN", "NNS") and all(
                      e <= head.start for s, e, _ in known if p.start <= s < p.end), holder=p.holder)
        things[i] = t
    _aliases(phrases, things)
    gerund = _gerund_subject(text, phrases, things)
    if gerund is not None:
        n += 1
        things[0] = Thing(f"T{n}", gerund[0], gerund[0][:1].lower() + gerund[0][1:], gerund[1], gerund[2],
                          gerund[3], "subject")
    r.things = sorted(things.values(), key=lambda t: t.start)
    possessors(phrases, things)
    modifiers(phrases, things)
    conjuncts(phrases, things)
    r.things = sorted(things.values(), key=lambda t: t.start)  # (a title listed before a name's is no thing)
    r.clauses = _clauses(text, phrases, things, r.values, paren, cond)
    measures(text, phrases, things, r)
    value_owners(phrases, things, r)
    _restrictions(text, sentence, r.values)
    return r


def _restrictions(text: str, sentence: Sentence, values: list[Value]) -> None:
    """A value compared right after a noun ("boxes heavier than 25 kg need two people", "reagents older than 12
    months", "crates of more than 30 kg", "drums weighing more than 1 t") says which of them the sentence is
    about, not what they are: a condition, like "if ..."."""
    words = sentence.words
    for v in values:
        k = next((n for n, w in enumerate(words) if w.start >= v.quantity.start), len(words))
        if k < 3 or words[k - 1].lower != "than" or not (words[k - 2].tag in ("JJR", "RBR") or words[k - 2].lower in
                                                         ("more", "less", "fewer", "longer", "shorter", "later")):
            continue
        j = k - 3
        if j > 0 and (words[j].lower == "of" or words[j].tag in ("VBG", "VBN")):
            j -= 1  # "crates of more than", "drums weighing more than"
        if words[j].is_noun():
            v.condition = True
            v.restricts = " ".join(text[words[j].start:v.quantity.end].split())
            if words[j].start == sentence.start and words[j].tag not in ("NNP", "NNPS"):
                v.restricts = v.restricts[:1].lower() + v.restricts[1:]


def _number_opens_name(p: Phrase) -> bool:
    """A number that opens the sentence right before a name in the singular is part of the name ("4711 Cedar Court
    houses the archive"); not before a plural ("40 Lund Rail engines are ...": a count)."""
    w = p.words
    return p.kind == "NP" and len(w) > 1 and w[0].tag == "CD" and re.fullmatch(r"\d+", w[0].text) is not None and \
        w[1].tag == "NNP" and p.head.tag == "NNP"


def _post_nominal(phrases: list[Phrase], i: int, things: dict[int, Thing]) -> bool:
    """Letters written after a name and its comma, before its aside or verb ("Ada Voss, OBE (born 1950) is ...",
    "Mira Holm, PhD, leads ..."): an honour or degree of the name, no thing and no subject of its own."""
    p = phrases[i]
    if len(p.words) != 1 or not re.fullmatch(r"[A-Z]{2,5}|Ph\.?D\.?", p.words[0].text) or i < 2:
        return False
    before, after = phrases[i - 1], phrases[i + 1] if i + 1 < len(phrases) else None
    named = things.get(i - 2)
    return before.kind == "O" and before.words[0].text == "," and named is not None and named.proper and \
        after is not None and (after.kind == "VP" or after.kind == "O" and after.words[0].text == "(" or
                               after.kind == "O" and after.words[0].text == "," and i + 2 < len(phrases) and
                               phrases[i + 2].kind == "VP")


def _names_part(text: str, q: Quantity) -> bool:
    """A bare number right after a singular noun, with no unit, is part of a name ("room 3", "gate 12", "line 4"),
    not a value."""
    if q.dimension or q.unit or q.datatype not in ("xsd:integer",):
        return False
    before = re.search(r"([A-Za-z]+)\s+$", text[max(0, q.start - 30):q.start])
    if before is None:
        return False
    word = before.group(1)
    tag = known_word(word) or known_word(word.lower())
    return tag in ("NN", "NNP") and word.lower() not in DETERMINERS and not word.lower().endswith("s")


def _describes(sentence: Sentence, q: Quantity) -> bool:
    """A count inside a definite noun phrase describes the thing it names ("the two presses", "its 3 pumps"); it
    is no value of anything."""
    if q.dimension != "count":
        return False
    for p in sentence.phrases:
        if p.kind == "NP" and p.start < q.start < p.end and p.words[0].lower in ("the", "these", "those", "its",
                                                                                  "their", "our", "all", "both"):
            return True
    return False


def _in_value(w: Word, values: list[Value]) -> bool:
    return any(v.quantity.start <= w.start < v.quantity.end or w.start <= v.quantity.start < w.end for v in values)


def _gerund_subject(text: str, phrases: list[Phrase], things: dict[int, Thing]
                    ) -> tuple[str, str, int, int] | None:
    """A sentence that opens with a gerund phrase and goes on, with no comma, to its finite verb has that phrase as
    its subject ("Training new staff takes two weeks", "Washing the tanks costs €40"): (text, head, start, end)."""
    if not phrases or phrases[0].kind != "VP" or phrases[0].words[0].tag != "VBG":
        return None
    for k, p in enumerate(phrases[1:], 1):
        if p.kind == "O" and p.words[0].text in ",;:":
            return None
        if p.kind == "VP" and any(w.tag in ("VBZ", "VBP", "VBD", "MD") for w in p.words):
            end = phrases[k - 1].end
            for j in range(1, k):  # its words are no things of their own
                things.pop(j, None)
            return text[phrases[0].start:end], phrases[0].words[0].text, phrases[0].start, end
    return None


def _aliases(phrases: list[Phrase], things: dict[int, Thing]) -> None:
    """A name alone in parentheses right after a thing is another name of it ("Goods Received Note (GRN)",
    "the pump house (PH-2)"): an alias, not a thing of its own."""
    for i in range(len(phrases) - 3):
        a, open_, b, close = phrases[i:i + 4]
        if i in things and i + 2 in things and open_.kind == "O" and open_.words[0].text == "(" and \
                close.kind == "O" and close.words[0].text == ")" and b.kind == "NP":
            things[i].aliases.append(things[i + 2].label)
            del things[i + 2]


def _parenthesized(phrases: list[Phrase]) -> set[int]:
    out, depth = set(), 0
    for i, p in enumerate(phrases):
        if p.kind == "O" and p.words[0].text in "([":
            depth += 1
        elif p.kind == "O" and p.words[0].text in ")]":
            depth = max(0, depth - 1)
        elif depth:
            out.add(i)
    return out


def _conditions(phrases: list[Phrase]) -> set[int]:
    """Phrases inside a condition that opens the sentence ("If the wind exceeds 20 m/s, ..."): up to its comma; and
    inside one that follows the main clause ("..., or within 6 hours if the driver reports damage"): up to the
    next comma or the end (its things and verb say when, they are no facts of their own)."""
    out: set[int] = set()
    starts = [i for i, p in enumerate(phrases) if p.kind in ("PP", "O", "ADVP") and
              p.words[0].lower in (_CONDITIONS if i == 0 else _MID_CONDITIONS) and
              (i == 0 or any(q.kind == "VP" for q in phrases[i + 1:i + 4]))]
    for start in starts:
        for i in range(start, len(phrases)):
            if phrases[i].kind == "O" and phrases[i].words[0].text in (",", ";"):
                break
            out.add(i)
    return out


def _clauses(text: str, phrases: list[Phrase], things: dict[int, Thing], values: list[Value], paren: set[int],
             cond: set[int]) -> list[Clause]:
    """Each verb group with its subject (the nearest thing before it in its clause, the antecedent of "that/which/
    who", or the sentence's subject) and what follows it up to the next verb group."""
    out: list[Clause] = []
    sentence_subject = ""
    participles: list[str] = []  # the subjects of the participle clauses so far
    opening: list[Clause] = []  # participle clauses that open the sentence ("Built by A and painted by B, X is")
    reduced: Clause | None = None  # the participle clause just read that follows its noun ("cores taken at 30 cm")
    for i, p in enumerate(phrases):
        if p.kind != "VP" or i in paren or i in things:  # (a gerund subject is a thing, not a clause)
            continue
        finite = any(w.tag in ("VBZ", "VBP", "VBD", "MD") for w in p.words)
        participle = not finite and p.words[-1].tag in ("VBN", "VBG")
        if not finite and not participle:
            continue
        verb_words = [w for w in p.words if w.is_verb() or w.tag == "RP"]
        main = next((w for w in reversed(p.words) if w.is_verb() and w.lower not in ("be", "been", "being") or
                     w.lower in _COPULAS), p.words[-1])
        subject, relative, explicit = _subject_before(phrases, i, things, values, paren, out)
        after_comma = i > 0 and phrases[i - 1].kind == "O" and (
            phrases[i - 1].words[0].text == "," or phrases[i - 1].words[0].lower in ("and", "or") and i > 1 and
            phrases[i - 2].kind == "VP")  # "..., directed and written by X": the sentence's subject
        if participle and after_comma and sentence_subject:  # "X grew fast, reaching ...": the sentence's subject
            subject = sentence_subject
        elif participle and (participles or out and out[-1].subject) and i > 0 and phrases[i - 1].kind == "O" \
                and phrases[i - 1].words[0].lower in ("and", "or"):
            # "a guide written by A and checked by B", "X was drawn up by A and signed by B": what the verb
            # before "and" is about
            subject = participles[-1] if participles else out[-1].subject
        opens = participle and not subject and (all(q.kind == "O" for q in phrases[:i]) or opening and len(
            opening) == len(out) and phrases[i - 1].kind == "O" and phrases[i - 1].words[0].lower in ("and", "or"))
        follows = participle and not subject and not opens
        if follows:  # "a hull inspected by X": the phrase it follows
            k = i - 1
            while k >= 0 and (k not in things or k in paren):
                k -= 1
            if k >= 0:
                owner = things[k]
                subject = owner.owner or owner.id
        if finite and not subject and not relative and reduced is not None:
            subject, explicit = reduced.subject, True  # "Cores taken at 30 cm held 12% carbon": the cores held it
        if not subject and not relative:
            subject = sentence_subject
        if subject and not sentence_subject and not relative and not participle and i not in cond:
            sentence_subject = subject
        clause = Clause(" ".join(w.text for w in verb_words), " ".join(_lemma(w) for w in verb_words
                                                                       if w is main or w.tag == "RP"),
                        subject=subject, copula=main.lower in _COPULAS, condition=i in cond, start=p.start,
                        relative_of=subject if relative else "", explicit=explicit and finite,
                        passive=main.tag == "VBN" and not any(w.lower in ("has", "have", "had") for w in p.words))
        _take_arguments(clause, phrases, i, things, values, paren)
        out.append(clause)
        reduced = clause if participle and subject and not opens else None if finite else reduced
        if opens:
            opening.append(clause)
        if participle and subject:
            participles.append(subject)
    for c in opening:  # what an opening participle says is about the sentence's subject
        c.subject = c.subject or sentence_subject
    _give_values_a_verb(values, out)
    for t in things.values():
        if t.id == sentence_subject:
            t.role = "subject"
        elif any(c.subject == t.id for c in out) and t.role == "other" and not t.prep:
            t.role = "subject"
    return out


def _subject_before(phrases: list[Phrase], i: int, things: dict[int, Thing], values: list[Value], paren: set[int],
                    out: list[Clause]) -> tuple[str, bool, bool]:
    """(subject, relative, explicit) of the verb group at phrase i: the thing written before it in its clause."""
    aside = _before_aside(phrases, i, things, paren)
    if aside:
        return aside, False, True
    subject = ""
    k = i - 1
    relative = explicit = False
    while k >= 0:
        q = phrases[k]
        if k in paren or q.kind == "O" and q.words[0].text in "()[]":  # an aside is no part of the clause
            k -= 1
            continue
        if q.kind == "VP" and k in things:  # "Training new staff takes ...": the gerund phrase
            subject, explicit = things[k].id, True
            break
        if q.kind == "VP" and k not in paren:
            crossed = next((c for c in out if c.start == q.start), None)  # "Parcels that arrive ... go"
            if crossed is not None and crossed.relative_of:
                subject = crossed.relative_of
            break
        if q.kind == "NP" and k not in things and q.pp is None and \
                any(q.start <= v.quantity.start < q.end for v in values):
            break  # "12 sites were closed": a value is the subject; no thing is (but "parcels above 20 kg travel")
        if q.kind == "O" and is_subordinate(q.words[0]) and q.words[0].lower in ("that", "which", "who"):
            relative = True
            k -= 1
            while k >= 0 and (phrases[k].kind == "O" and phrases[k].words[0].text == "," or k in paren):
                k -= 1
            if k >= 0 and k in things:
                subject, explicit = things[k].id, True
                by_id = {t.id: t for t in things.values()}
                while q.words[0].lower == "who" and by_id[subject].prep in ("of", "in", "at", "with", "from") and \
                        by_id[subject].owner in by_id:  # "a captain of the Vestby Club who served", "an officer
                    subject = by_id[subject].owner  # in the Rail Guard who served": the captain, the officer
            break
        if k in things and things[k].verb:
            break  # an object of an earlier verb is not this verb's subject
        if k in things and not things[k].prep and k not in paren and not things[k].in_parentheses:
            subject, explicit = things[k].id, True
            break
        if k in things and things[k].prep == "of" and k >= 2 and phrases[k - 2].kind == "NP" and \
                k - 2 not in things and phrases[k - 2].words[-1].lower in _QUANTIFIERS:
            subject, explicit = things[k].id, True  # "One of the key dilemmas is ...": a dilemma
            break
        if q.kind == "NP" and q.words[0].tag == "EX":
            break  # "there is a concern": a thing exists, no subject
        k -= 1
    return subject, relative, explicit


def _before_aside(phrases: list[Phrase], i: int, things: dict[int, Thing], paren: set[int]) -> str:
    """The subject of a verb written right after an aside between commas that opens with a description or a
    participle: the thing before the aside ("The Vale Runner, a tank engine built by Kessler Works, is kept at ...",
    "The crane, built in 1990, lifts ..."), or with "which" / "who" ("The crane, which was built by Lund Steel,
    lifts ..."). A list ("A, B and C are ...") has no comma before the verb; an aside with another verb of its own
    ("X, and then Y was built, ...") is no aside."""
    if i < 4 or phrases[i - 1].kind != "O" or phrases[i - 1].words[0].text != ",":
        return ""
    k, finite, naming = i - 2, False, False
    while k > 0 and not (phrases[k].kind == "O" and phrases[k].words[0].text == ","):
        q = phrases[k]
        names = q.kind == "VP" and q.words[-1].lower in _NAMING  # "code named HS-2": another name, no clause
        naming = naming or names
        finite = finite or q.kind == "VP" and not names and any(w.tag in ("VBZ", "VBP", "VBD", "MD")
                                                                for w in q.words) or \
            q.kind == "O" and q.words[0].lower in ("and", "or", "but")
        k -= 1
    opener = phrases[k + 1] if k > 0 else None
    relative = opener is not None and opener.kind == "O" and opener.words[0].lower in ("which", "who")
    if opener is None or not relative and (finite or not (
            opener.kind == "VP" and opener.words[-1].tag in ("VBN", "VBG") or
            opener.kind == "NP" and (opener.words[0].lower in ("a", "an", "the") or naming) or
            opener.kind == "ADVP" and i - k > 3)):  # ("formerly Tern", "also known as Tern")
        return ""
    before = things.get(k - 1)
    if before is None or before.prep or before.in_parentheses or k - 1 in paren:
        return ""
    return before.id


_NAMING = frozenset({"named", "called", "known", "nicknamed", "dubbed", "titled", "renamed"})


def _take_arguments(clause: Clause, phrases: list[Phrase], i: int, things: dict[int, Thing], values: list[Value],
                    paren: set[int]) -> None:
    """What follows the verb, up to the next verb group or a clause boundary: the clause's arguments."""
    for k in range(i + 1, len(phrases)):
        q = phrases[k]
        if q.kind == "VP" and k not in paren:
            break
        if q.kind == "ADJP" and clause.copula and not clause.arguments and not clause.adjective:
            clause.adjective = q.words[-1].lower
            continue
        if q.kind == "O" and (q.words[0].text in (";",) or is_subordinate(q.words[0])):
            break
        if q.kind == "O" and q.words[0].lower in (",", "and", "but", "or") and clause_follows(phrases, k + 1):
            break  # "..., and a sack holds 60 kg": the next clause begins
        if k in things:
            t = things[k]
            if t.owner:
                continue
            if not t.prep:
                first = next((x for x in things.values() if x.id == t.conjunct_of), None)
                t.role = first.role if first is not None and first.role in ("complement", "object") else \
                    "complement" if clause.copula and not clause.arguments else "object"
            else:
                t.role = t.prep
            t.verb = clause.verb
            clause.arguments.append((t.prep, t.id))
        elif q.kind == "NP":
            for v in values:
                if q.start <= v.quantity.start < q.end and not v.verb:
                    v.verb, v.subject = clause.verb, clause.subject
                    v.condition, v.explicit = clause.condition, clause.explicit
                    clause.arguments.append((q.pp.words[0].lower if q.pp else "", v.id))


def _give_values_a_verb(values: list[Value], clauses: list[Clause]) -> None:
    """A value no verb group reached (one before the main verb: "Within 2 hours, samples must ...") takes a clause's."""
    for v in values:
        if not v.verb:
            before = [c for c in clauses if c.start <= v.quantity.start]
            after = [c for c in clauses if c.start > v.quantity.start and not c.condition and not c.relative_of]
            main = before[-1] if before else after[0] if after else None
            if main is not None:
                v.verb, v.subject, v.condition = main.verb, main.subject, main.condition
