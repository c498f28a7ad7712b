"""The shape of English sentences, as code can read it: sentences, words with their part of speech, and phrases
(noun phrases with their head and the prepositional phrases that modify them, verb groups), each with character
offsets into the text it was read from.

The part-of-speech tagger is the Brill tagger of the `textblob` package (its lexicon, morphological and contextual
rules; pure Python, MIT, the data ships in the package: nothing is downloaded); the phrases are found from the
tags by code (`phrases`). It is a shallow reading that can be wrong: it proposes candidates, it never decides
what a sentence means (text/reading.py lists what a clause speaks of; the model chooses among them).

English only: a text in another language is read as a sequence of names and numbers (its words are tagged by
their shape alone)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .tagging import FINITE_TAGS, NAME_PARTICLES, NOUN_TAGS, VERB_TAGS, known_word, tag

# a token: a number (with its decimals, thousands and a sign), a degree unit, a word (letters, digits, inner
# hyphens, dots of an abbreviation and apostrophes), or one other character
_TOKEN = re.compile(r"\d+(?:st|nd|rd|th)\b|[+\-\u2212]?\d+(?:[.,:]\d+)*%?|°[A-Za-z]*|(?:[A-Z]\.){2,}|(?<=[a-z] )[A-Z]\.(?= [A-Z][a-z])|"
                    r"['’]s\b|"
                    r"[^\W\d_](?:[\w]|['’](?![sS]\b)\w|-(?=\w)|\.(?=\w))*(?:\.(?=,))?|\d+[A-Za-z]\w*|\S", re.UNICODE)
# words after which a point does not end a sentence
_ABBREVIATIONS = {"mr", "mrs", "ms", "dr", "prof", "st", "no", "nos", "vs", "etc", "e.g", "i.e", "approx", "ca",
                  "inc", "ltd", "co", "corp", "jr", "sr", "fig", "figs", "eq", "ref", "vol", "pp", "p", "var",
                  "subsp", "sp", "spp", "cf", "al", "dept", "est", "min", "max", "jan", "feb", "mar", "apr", "jun",
                  "jul", "aug", "sep", "sept", "oct", "nov", "dec", "mt", "ft", "gen", "col", "lt", "capt", "sgt",
                  "rev", "hon", "gov", "sen", "rep", "bros", "u.s", "u.k", "op", "no"}
_SUBORDINATORS = {"that", "which", "who", "whom", "whose", "where", "when", "while", "because", "although",
                  "though", "if", "unless", "once", "since", "whereas", "as"}


@dataclass(frozen=True)
class Word:
    text: str
    tag: str  # Penn Treebank tag
    start: int
    end: int

    @property
    def lower(self) -> str:
        return self.text.lower()

    def is_noun(self) -> bool:
        return self.tag in NOUN_TAGS

    def is_verb(self) -> bool:
        return self.tag in VERB_TAGS


@dataclass
class Phrase:
    """A run of words: a noun phrase (NP), a verb group (VP), a preposition (PP), an adjective (ADJP) or adverb
    (ADVP) phrase, or one other word (O)."""
    kind: str
    words: list[Word]
    pp: "Phrase | None" = None  # the preposition this noun phrase is the object of ("for" in "for the printer")
    holder: bool = False  # the noun before a measure noun, split off ("the pipe" of "the pipe diameter")

    @property
    def start(self) -> int:
        return self.words[0].start

    @property
    def end(self) -> int:
        return self.words[-1].end

    def text(self, source: str) -> str:
        return source[self.start:self.end]

    @property
    def head(self) -> Word:
        """A noun phrase's head: its last noun (or last word); a verb group's last verb."""
        if self.kind == "NP":
            nouns = [w for w in self.words if w.is_noun() or w.tag in ("PRP", "CD")]
            return nouns[-1] if nouns else self.words[-1]
        if self.kind == "VP":
            verbs = [w for w in self.words if w.is_verb()]
            return verbs[-1] if verbs else self.words[-1]
        return self.words[-1]


@dataclass
class Sentence:
    start: int
    end: int
    words: list[Word] = field(default_factory=list)
    phrases: list[Phrase] = field(default_factory=list)

    def text(self, source: str) -> str:
        return " ".join(source[self.start:self.end].split())


_BEFORE_NAMES = {"mr", "mrs", "ms", "dr", "prof", "st", "mt", "gen", "col", "lt", "capt", "sgt", "rev", "hon", "gov",
                 "sen", "rep", "e.g", "i.e", "cf", "vs", "no", "nos", "fig", "figs", "eq", "ref", "vol", "pp", "p"}
_CLOSED_CLASS = {"DT", "PDT", "PRP", "PRP$", "IN", "CC", "WDT", "WP", "WRB", "EX", "RB", "RBS", "MD"}


def _opens_sentence(abbreviation: str, rest: str) -> bool:
    """Whether the capitalized word after an abbreviation that ends a unit or a name ("min.", "Inc.", "etc.") opens
    a new sentence: a function word ("About", "The", "It", "In"). A title or a reference before a name or number
    ("Dr.", "Fig.", "e.g.") never ends one."""
    if abbreviation in _BEFORE_NAMES:
        return False
    nxt = re.match(r"\s+[\"'“‘(\[]?([A-Z][a-z]+)\b", rest)
    return nxt is not None and known_word(nxt.group(1).lower()) in _CLOSED_CLASS


def split_sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence: a point, question or exclamation mark followed by a space and a capital,
    digit, quote or bracket ends one, but not after an abbreviation, an initial ("W. E. B."), or inside a number;
    a blank line always does; a semicolon does not (it joins clauses of one sentence)."""
    out: list[tuple[int, int]] = []
    start = 0
    for m in re.finditer(r"[.!?](?=[\"'”’)\]]*(?:\s+[\"'“‘(\[]?[A-Z0-9]|\s*$))|\n\s*\n", text):
        if m.group(0) == ".":
            before = re.search(r"([A-Za-z][A-Za-z.]*)$", text[start:m.start()])
            word = before.group(1).lower().rstrip(".") if before else ""
            initials = before is not None and re.fullmatch(r"(?:[A-Z]\.)*[A-Z]", before.group(1)) is not None and \
                not re.search(r"(?:\d\s*|°)[A-Z]$", text[max(start, m.start() - 4):m.start()])  # "450 W.", "°C."
            if (word in _ABBREVIATIONS and not _opens_sentence(word, text[m.end():])) or initials:
                continue  # "Dr. Lee", "W.E.B. Du Bois", "J. Smith" (but "... for 30 min. About half of ...")
        end = m.end()
        while end < len(text) and text[end] in "\"'”’)]":
            end += 1
        if text[start:end].strip():
            out.append((start, end))
        start = end
    if text[start:].strip():
        out.append((start, len(text)))
    return [(a + len(text[a:b]) - len(text[a:b].lstrip()), b) for a, b in out]


POSSESSIVE_PRONOUNS = frozenset({"its", "their"})  # of things; "his", "her", "our" stay in their phrase


def _possessed_thing(words: list[Word], j: int) -> bool:
    """Whether the words from j, after a possessive, are a thing of the possessor's and not the rest of a name: a
    common noun phrase ("the depot's capacity", "the P-200's cartridge"), not a name ("Mother's Kitchen Bakery")."""
    k = j
    while k < len(words) and (words[k].tag in ("JJ", "JJR", "JJS", "VBN", "VBG", "HYPH") or words[k].is_noun()):
        if words[k].tag in ("NNP", "NNPS"):
            return False
        k += 1
    return k > j and words[k - 1].is_noun()


def _phrases(words: list[Word]) -> list[Phrase]:
    """Phrases from the tags: a noun phrase is a determiner or possessive, numbers, adjectives and nouns ending in
    a noun (or a pronoun, or a number alone); a verb group is modals, adverbs and verbs; a preposition followed by a
    noun phrase marks that phrase as its object."""
    out: list[Phrase] = []
    i = 0
    while i < len(words):
        w = words[i]
        if w.tag in ("PRP", "EX") or (w.tag == "CD" and not _np_continues(words, i + 1)) or \
                w.tag == "PRP$" and w.lower in POSSESSIVE_PRONOUNS and _possessed_thing(words, i + 1):
            out.append(Phrase("NP", [w]))  # ("its weight": it, then its weight, as "the pump's weight")
            i += 1
            continue
        if w.tag in ("DT", "PRP$", "PDT", "CD", "JJ", "JJR", "JJS", "VBN", "POS") or w.is_noun() or \
                (w.tag == "VBG" and i > 0 and words[i - 1].tag in ("DT", "PRP$", "JJ", "IN")):  # "the growing X"
            j = i
            while j < len(words) and (words[j].tag in ("DT", "PRP$", "PDT", "CD", "JJ", "JJR", "JJS", "POS", "HYPH")
                                      or words[j].is_noun() or (words[j].tag in ("VBN", "VBG") and
                                                                _np_continues(words, j + 1) and
                                                                not _after_name(words, i, j))
                                      or (words[j].text in ("-", "&") and j > i and j + 1 < len(words)
                                          and words[j + 1].is_noun())):
                if j > i and words[j].tag in ("DT", "PDT", "PRP$") and words[j - 1].tag != "PDT":
                    break  # "a ... the", "... its": two phrases
                j += 1
                if words[j - 1].tag == "POS" and j - 1 > i and _possessed_thing(words, j):
                    break  # "the pump's flow rate": the pump, then its flow rate (but "Mother's Kitchen Bakery")
            span = words[i:j]
            if any(x.is_noun() or x.tag == "CD" for x in span) and not all(x.tag in ("VBN", "VBG") for x in span):
                while span and not (span[-1].is_noun() or span[-1].tag == "CD" or span[-1].tag == "POS" and
                                    len(span) > 1):  # it ends in a noun (or a possessive)
                    span = span[:-1]
                    j -= 1
                out.append(Phrase("NP", span))
                i = j
                continue
            if w.tag in ("VBN", "VBG"):
                k = i
                while k < len(words) and (words[k].is_verb() or words[k].tag in ("RB", "RP")):
                    k += 1
                out.append(Phrase("VP", words[i:k]))
                i = k
                continue
            if w.tag.startswith("JJ"):
                out.append(Phrase("ADJP", [w]))
                i += 1
                continue
        if w.is_verb() or (w.tag in ("RB", "RBR", "RBS") and i + 1 < len(words) and words[i + 1].is_verb()):
            j = i
            while j < len(words) and (words[j].is_verb() or words[j].tag in ("RB", "RBR", "RBS", "RP", "TO")
                                      and j + 1 < len(words) and words[j + 1].is_verb() or
                                      words[j].tag == "RP"):
                j += 1
            out.append(Phrase("VP", words[i:max(j, i + 1)]))
            i = max(j, i + 1)
            continue
        if w.tag in ("IN", "TO"):
            out.append(Phrase("PP", [w]))
            i += 1
            continue
        out.append(Phrase("ADVP" if w.tag.startswith("RB") else "O", [w]))
        i += 1
    out = _names(_titles(_years_apart(out)))
    for a, b in zip(out, out[1:]):
        if a.kind == "PP" and b.kind == "NP":
            b.pp = a
    return out


def _after_name(words: list[Word], i: int, j: int) -> bool:
    """A participle in lower case right after a name that opens its phrase is a verb of its own ("by Ola Berg
    using Vestby's camera"), no word of the phrase (but "a New Zealand racing driver")."""
    return j > i and words[j - 1].tag in ("NNP", "NNPS") and words[j].text.islower() and \
        all(w.tag in ("NNP", "NNPS") for w in words[i:j])


def _years_apart(phrases: list[Phrase]) -> list[Phrase]:
    """A year after the preposition that opens a sentence and the name written after it are two phrases ("In 2019
    Ann Lee opened ..."): the preposition governs the year, the name is the clause's subject."""
    out: list[Phrase] = []
    for i, p in enumerate(phrases):
        w = p.words
        if p.kind == "NP" and i == 1 and phrases[0].kind == "PP" and len(w) > 1 and w[0].tag == "CD" and \
                re.fullmatch(r"(?:1[0-9]|20)\d\d", w[0].text) and w[1].tag in ("NNP", "NNPS"):
            out += [Phrase("NP", w[:1]), Phrase("NP", w[1:])]
            continue
        out.append(p)
    return out


def _titles(phrases: list[Phrase]) -> list[Phrase]:
    """A name, a colon written against it, and another name are one title ("Storm Chasers 2: The Last Front",
    "Model K: Pro Edition"): one noun phrase."""
    out: list[Phrase] = []
    i = 0
    while i < len(phrases):
        p = phrases[i]
        if i + 2 < len(phrases) and p.kind == "NP" and phrases[i + 1].kind == "O" and \
                phrases[i + 1].words[0].text == ":" and phrases[i + 2].kind == "NP" and \
                p.words[-1].end == phrases[i + 1].start and \
                (p.words[-1].tag in ("NNP", "NNPS") or p.words[-1].tag == "CD" and p.words[0].tag == "NNP") and \
                phrases[i + 2].words[0].text[:1].isupper():
            words = p.words + phrases[i + 1].words + phrases[i + 2].words
            out.append(Phrase("NP", [Word(w.text, "NNP" if w.text != ":" else ":", w.start, w.end) for w in words]))
            i += 3
            continue
        out.append(p)
        i += 1
    return out


# lower-case words that may stand inside a name of capitalized words ("Bank of the North", "Comte de Vries")
NAME_JOINERS = {"of", "the", "a", "an", "and", "to", "in", "on", "for", "at", "by", "with", "from", "de", "la", "le",
                "du", "des", "del", "della", "di", "da", "von", "van", "der", "den", "y", "los", "las", "dos", "das",
                "ter", "zu", "&", "'s", "’s", ":", "-"}
# words that open a clause, not a name ("Before Ann Lee left ...")
_CLAUSE_OPENERS = _SUBORDINATORS | {"before", "after", "until", "till", "whether", "during", "for", "by", "with",
                                    "without", "in", "on", "at", "from", "to", "of", "per", "via"}
_ORDINALS = {"first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "last"}
_QUOTES = {'"': '"', "“": "”", "„": "“"}


def _merged(phrases: list[Phrase]) -> Phrase:
    """Phrases that together write one name: one noun phrase, every word a proper noun (the joiners and marks
    keep their own tag)."""
    words = [w for p in phrases for w in p.words]
    return Phrase("NP", [Word(w.text, "NNP" if w.text[:1].isalnum() and (w.text[:1].isupper() or w.tag in NOUN_TAGS
                                                                            or w.tag == "CD") else w.tag,
                              w.start, w.end) for w in words])


def _capitalized(w: Word) -> bool:
    return w.text[:1].isupper() or w.tag == "CD" or bool(re.match(r"\d", w.text))


def _names(phrases: list[Phrase]) -> list[Phrase]:
    """Names whose words the tagger splits into several phrases, each one noun phrase:
    - a quoted title of capitalized words ("The Long Night" in quotes, "We Ride at Dawn");
    - a name of capitalized words joined by "of" ("Bank of the North", "Museum of Fine Arts");
    - the name written right before a finite verb, as its subject, when every word of it is capitalized or a
      joiner and a joiner other than "and" holds it together ("The Year of the Flood was written ...", "Songs to
      Sing at Night is ..."), or "and" before a verb in the singular ("Salt and Pepper is a diner"): one title,
      not a list of things (not "Ann Lee and Bo Park wrote ...")."""
    out = list(phrases)
    # quoted titles
    i = 0
    while i < len(out):
        p = out[i]
        if p.kind == "O" and p.words[0].text in _QUOTES:
            close = _QUOTES[p.words[0].text]
            j = i + 1
            while j < len(out) and j - i <= 14 and not (out[j].kind == "O" and out[j].words[0].text in (close, '"')):
                j += 1
            inner = out[i + 1:j]
            words = [w for q in inner for w in q.words]
            if j < len(out) and words and 1 < len(words) <= 12 and words[0].text[:1].isupper() and \
                    not any(w.text in (".", ";") for w in words) and \
                    all(_capitalized(w) or w.lower in NAME_JOINERS or w.tag in ("PRP", "MD", "RB", "VB", "VBZ",
                                                                               "VBP", "VBD", "VBN", "IN", "TO",
                                                                               "DT", ",", "POS")
                        or not w.text[:1].isalnum() for w in words):
                out[i + 1:j] = [_merged(inner)]
                i += 3
                continue
        i += 1
    return _subject_names(_of_names(out))


def _of_names(phrases: list[Phrase]) -> list[Phrase]:
    """Names of capitalized words joined by "of" ("Bank of the North") or by a person's name particles ("Anna de
    Vries", "Ana de la Cruz"): one phrase each."""
    out = list(phrases)
    i = 0
    while i + 2 < len(out):
        a, of = out[i], out[i + 1]
        n = 1  # particles in a row ("Ana de la Cruz")
        while n < 3 and i + n + 2 < len(out) and len(out[i + n].words) == 1 and \
                out[i + n].words[0].text in NAME_PARTICLES and len(out[i + n + 1].words) == 1 and \
                out[i + n + 1].words[0].text in NAME_PARTICLES:
            n += 1
        b = out[i + n + 1]
        if a.kind == "NP" and (of.kind == "PP" and of.words[0].lower == "of" and n == 1 or len(of.words) == 1 and
                               of.words[0].text in NAME_PARTICLES) and b.kind == "NP" and \
                a.words[-1].tag in ("NNP", "NNPS") and all(_capitalized(w) or w.lower in NAME_JOINERS
                                                           for w in _content(a.words, modifiers=True)) and \
                _content(b.words) and all(_capitalized(w) or w.lower in NAME_JOINERS for w in _content(b.words)) \
                and b.words[-1].tag in ("NNP", "NNPS"):
            out[i:i + n + 2] = [_merged(out[i:i + n + 2])]
            continue
        i += 1
    return out


def _subject_names(phrases: list[Phrase]) -> list[Phrase]:
    """The name written right before a finite verb, as its subject, made one phrase (see `_names`)."""
    out = list(phrases)
    k = 0
    while k < len(out):
        p = out[k]
        if p.kind != "VP" or not any(w.tag in FINITE_TAGS for w in p.words[:1]) or k == 0:
            k += 1
            continue
        end = _name_end(out, k)  # "Bread and the Baker (2004) is ...": the name ends before the aside
        first = end
        while first > 0 and all(_capitalized(w) or w.lower in NAME_JOINERS for w in out[first - 1].words) and \
                out[first - 1].words[0].text not in (",", "(", ";", '"'):
            first -= 1
        while first < end:  # a name opens with a capital, never with a number or a preposition before one ("In 2008")
            w = out[first].words[0]
            nxt = out[first + 1].words[0] if first + 1 < end else None
            if not w.text[:1].isupper() or w.lower in _CLAUSE_OPENERS and nxt is not None and \
                    not nxt.text[:1].isupper():
                first += 1
                continue
            break
        singular = (p.words[0].tag == "VBZ" or p.words[0].lower == "was") and p.words[0].text[:1].islower()
        # ("Salt and Pepper is ...": one name; a capitalized "verb" is a name's word: "by Ann Lee and Ivo Makes.")
        if singular and first < end and any(w.lower in ("and", "&") for q in out[first:end] for w in q.words):
            while first >= 2 and out[first - 1].words[0].text == "," and out[first - 2].kind == "NP" and \
                    all(_capitalized(w) for w in out[first - 2].words):  # "Nets, Knots and the Sea is ...": a
                first -= 2  # list takes a verb in the plural
        run = [w for q in out[first:end] for w in q.words]
        joiners = {w.lower for w in run if w.lower in NAME_JOINERS and not _capitalized(w)} - NAME_PARTICLES
        opener = first == 0 and bool(run) and run[0].tag in ("IN", "TO") and run[0].lower not in _CLAUSE_OPENERS
        if end - first > 1 and 1 < len(run) <= 16 and _capitalized(run[-1]) and \
                (joiners - {"and", "&", "the", "a", "an"} or opener or singular and joiners & {"and", "&"}):
            out[first:end] = [_merged(out[first:end])]
            k -= end - first - 1
        k += 1
    return out


def _name_end(phrases: list[Phrase], k: int) -> int:
    """Where a name before the phrase `k` ends: before an aside in brackets right before it ("(2004)", "(second
    edition)"), else at `k`."""
    if k < 3 or phrases[k - 1].words[0].text != ")":
        return k
    j = k - 2
    while j > 0 and k - j <= 12 and phrases[j].words[0].text not in ("(", ")"):
        j -= 1
    return j if j > 0 and phrases[j].words[0].text == "(" else k


def _content(words: list[Word], modifiers: bool = False) -> list[Word]:
    """The words of a noun phrase without its leading determiner (and, with `modifiers`, the lower-case adjectives
    and ordinals before its capitalized words: "the second Warden")."""
    words = words[1:] if words and words[0].tag == "DT" else words
    while modifiers and len(words) > 1 and not _capitalized(words[0]) and (
            words[0].tag in ("JJ", "CD") or words[0].lower in _ORDINALS):
        words = words[1:]
    return words


def _np_continues(words: list[Word], i: int) -> bool:
    """Whether the word at i can go on a noun phrase (a noun, an adjective or number before a noun)."""
    while i < len(words) and words[i].tag in ("JJ", "JJR", "JJS", "CD", "VBN", "VBG", "HYPH"):
        i += 1
    return i < len(words) and words[i].is_noun()


def _abbreviations_joined(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The token spans with the point of an abbreviation or an initial inside a sentence joined to its word ("Hale
    Ltd. Rail Works", "Dr. Lee", "Ada B. Voss"): a point the sentence goes on after is no end of a clause."""
    out: list[tuple[int, int]] = []
    for k, (x, y) in enumerate(spans):
        if text[x:y] == "." and out and out[-1][1] == x and k + 1 < len(spans):
            word = text[out[-1][0]:x]
            if word.lower() in _ABBREVIATIONS or re.fullmatch(r"[A-Z]", word):
                out[-1] = (out[-1][0], y)
                continue
        out.append((x, y))
    return out


def parse(text: str) -> list[Sentence]:
    """The sentences of `text` with their words and phrases (offsets into `text`)."""
    out = []
    for a, b in split_sentences(text):
        spans = _abbreviations_joined(text, [(m.start(), m.end()) for m in _TOKEN.finditer(text, a, b)])
        if not spans:
            continue
        tags = tag([text[x:y] for x, y in spans])
        words = [Word(text[x:y], t, x, y) for (x, y), t in zip(spans, tags)]
        out.append(Sentence(a, b, words, _phrases(words)))
    return out


def is_subordinate(word: Word) -> bool:
    """A word that opens a clause inside a sentence ("that", "which", "because", ...)."""
    return word.lower in _SUBORDINATORS and word.tag in ("IN", "WDT", "WP", "WP$", "WRB")


# words that open a noun phrase without being part of the thing's name
DETERMINERS = {"the", "a", "an", "this", "that", "these", "those", "each", "every", "all", "both", "any", "some",
               "its", "their", "his", "her", "our", "your", "my", "no", "another", "other", "such", "either",
               "neither", "several", "many", "most", "few", "much", "more", "less"}


def name_words(words: list[Word]) -> list[Word]:
    """The words of a noun phrase that name the thing: without leading determiners, quantifiers and numbers."""
    i = 0
    while i < len(words) - 1 and (words[i].lower in DETERMINERS and words[i].tag != "NNP" or
                                  words[i].tag in ("DT", "PDT", "PRP$", "POS") or words[i].tag == "CD"):
        i += 1
    return words[i:]


def clause_follows(phrases: list[Phrase], k: int) -> bool:
    """Whether a new clause starts at phrase k: (a coordinator,) a noun phrase (with its prepositional phrases:
    "parcels above 20 kg"), then a finite verb group."""
    while k < len(phrases) and phrases[k].kind == "O" and phrases[k].words[0].lower in (",", "and", "but", "or"):
        k += 1
    if k >= len(phrases) or phrases[k].kind != "NP":
        return False
    k += 1
    while k + 1 < len(phrases) and phrases[k].kind == "PP" and phrases[k + 1].kind == "NP":
        k += 2
    return k < len(phrases) and phrases[k].kind == "VP" and \
        any(w.tag in ("VBZ", "VBP", "VBD", "MD") for w in phrases[k].words)
