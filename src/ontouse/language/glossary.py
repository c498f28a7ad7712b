"""The ontology's words told to a translation, and the words of a question that name them.

The prompt names the ontology's own words in each target language (`vocabulary`: the labels of its classes, of its
properties and of the few named things used as values, in that language), so that the model translates a noun into
the word the data uses rather than a word of its own.

With the multilingual sentence-embedding model installed (crosslingual.py: in the `local` extra, or the
`multilingual` extra alone), the prompt also names the words of the question that probably name one of those words
(`glossary`). With a bilingual dictionary into English installed (bilingual.py), it names the class or named
value that a word the model found nothing for translates to (`dictionary_glossary`: "regadores", watering can),
and a class or value labelled in several words that the question says in other words (`label_glosses`: "pás de
jardim" for "pelle de jardin"); a translation that leaves such a word out is told it once. A word the dictionary
lacks that spells a class's label in any language ("veleros", "veleiro") is named as a hint (`spelling_glossary`).

Words the ontology itself labels in the question's language are read by code (`label_glossary`: a class labelled
in German is named by its English label); a translation that does not use such a word is asked again once, told it
(`swapped_words`, `missing_words`)."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Any

from ontocore.embeddings import split_name
from ontocore.text import QUOTED, STOP, fold

from ..storage.querycheck import QueryError
from .detection import DEFAULT as ENGLISH_CODE
from .detection import base_code

log = logging.getLogger(__name__)

MAX_TERMS = 60  # words of the ontology named per target language in the prompt
MAX_ENDING = 3  # letters a word's other form may add to it (same_word)
MAX_VALUE_ROWS = 25  # a class whose labelled members are named as words: at most this many members


@dataclass
class Term:
    """One of the ontology's words: a class, a shown property or a named value, with its labels by language."""

    iri: Any
    name: str = ""  # the view's name for it ("" for a named value)
    labels: dict[str, list[str]] = field(default_factory=dict)  # ISO 639-1 code ("" untagged) -> labels

    def word(self, lang: str, main: str) -> str:
        """Its word in `lang` ("" when it has none; in the main label language the view's name stands in)."""
        found = self.labels.get(lang) or ([split_name(self.name).lower()] if lang == main and self.name else [])
        return found[0] if found else ""

    def texts(self) -> list[str]:
        """Every label it has, in any language, and the view's name."""
        out = [t for texts in self.labels.values() for t in texts] + ([split_name(self.name)] if self.name else [])
        return list(dict.fromkeys(out))


def ontology_terms(store: Any, schema: Any) -> list[Term]:
    """The ontology's words: its classes (largest first), the properties the view shows, and the members of small
    classes that other things link to (the named values: a status, a colour), each with its labels by language."""
    items: list[tuple[Any, str]] = []  # (IRI, the view's name for it)
    values: set[Any] = set()
    tables = sorted(schema.tables.values(), key=lambda t: (-t.count, t.name))
    for t in tables:
        items.append((t.cls, t.name))
    for t in tables:
        for c in t.columns.values():
            if c.kind != "id" and c.prop is not None and not c.hidden and not c.is_label:
                items.append((c.prop, c.name))
                target = schema.tables.get(c.target.lower()) if c.kind == "link" and c.target else None
                if target is not None and 0 < target.count <= MAX_VALUE_ROWS:
                    values.add(target.cls)
    terms = {iri: Term(iri, name) for iri, name in reversed(items)}  # the first name of an IRI wins
    terms = {iri: terms[iri] for iri in dict.fromkeys(i for i, _ in items)}
    props = " ".join(p.n3() for p in schema.label_props) or "<http://www.w3.org/2000/01/rdf-schema#label>"
    query = ("SELECT ?x ?l WHERE { { VALUES ?x { %s } VALUES ?p { %s } ?x ?p ?l } UNION "
             "{ VALUES ?c { %s } VALUES ?p { %s } ?x a ?c ; ?p ?l } }")
    try:
        rows = store.select(query % (" ".join(i.n3() for i in terms), props,
                                     " ".join(c.n3() for c in sorted(values)) or "<urn:x-none>", props),
                            max_rows=20 * (len(terms) + len(values) * MAX_VALUE_ROWS) + 100).rows
    except QueryError as e:
        log.info("the ontology's words were not read: %s", e)
        rows = []
    # in one order whatever store answers (a file and an endpoint list rows differently): the prompt is the same
    for x, label in sorted(rows, key=lambda r: (str(r[0]), getattr(r[1], "language", None) or "", str(r[1]))):
        term = terms.setdefault(x, Term(x))
        texts = term.labels.setdefault(base_code(getattr(label, "language", None)), [])
        text = " ".join(str(label).split())
        if text and text not in texts:
            texts.append(text)
    return list(terms.values())


def vocabulary(terms: list[Term], lang: str, main: str, limit: int = MAX_TERMS) -> list[str]:
    """The ontology's words in `lang` (ontology_terms' order; in the main label language the view's own names stand
    in for a thing without a label in it), each once, at most `limit`."""
    first: dict[str, str] = {}
    for term in terms:
        w = term.word(lang, main)
        if w:
            first.setdefault(w.casefold(), w)
    return list(first.values())[:limit]


_LETTERS = re.compile(r"[^\W\d_]+", re.UNICODE)


def same_word(a: str, b: str) -> bool:
    """Two folded words are one word in another form: equal, or one starts with the other and is at most
    MAX_ENDING letters longer, or (both of five letters or more) they part at the shorter one's last letter
    ("lantern" / "lanterns", "barca" / "barche", "veleiro" / "veleiros"; not "which" / "white"). No word list: the
    rule only ever compares a question's word with one of the ontology's own labels."""
    if a == b:
        return True
    short, long_ = sorted((a, b), key=len)
    if len(short) < 3 or len(long_) - len(short) > MAX_ENDING:
        return False
    common = len(_common_prefix(short, long_))
    return common == len(short) or (len(short) >= 5 and common >= len(short) - 1)


def _common_prefix(a: str, b: str) -> str:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return a[:n]


def _words(text: str) -> list[tuple[str, str]]:
    """(the word as written, folded) for the words of a text outside its quoted names."""
    return [(m.group(0), fold(m.group(0))) for m in _LETTERS.finditer(QUOTED.sub(" , ", text))]


def _find(words: list[str], key: list[str]) -> int:
    """Where the words `key` stand in `words` (each in some form, in order), or -1."""
    for i in range(len(words) - len(key) + 1):
        if all(same_word(w, k) for w, k in zip(words[i:i + len(key)], key)):
            return i
    return -1


def label_glossary(question: str, terms: list[Term], source: str, target: str, main: str) -> list[tuple[str, str]]:
    """(words of the question, the ontology's word in `target` they name), read from the ontology's own labels:
    a term labelled in the question's language `source` whose label stands in the question (in some form:
    same_word) is named by its word in `target` ("Stiefel" with a label "Stiefel"@de: "boot" in English). Longer
    labels first; a word of the question names one term at most; a word the question already uses as it is in
    `target` needs no telling."""
    asked = _words(question)
    folded = [f for _, f in asked]
    found: list[tuple[int, int, str]] = []
    for term in terms:
        word = term.word(target, main)
        if not word:
            continue
        for label in term.labels.get(source, []):
            key = [w for w in (fold(x) for x in _LETTERS.findall(label)) if len(w) > 1]
            if key and (i := _find(folded, key)) >= 0:
                found.append((i, i + len(key), word))
    found.sort(key=lambda f: (f[0] - f[1], f[0]))
    taken: set[int] = set()
    out: list[tuple[str, str]] = []
    for i, j, word in found:
        if taken & set(range(i, j)):
            continue
        taken |= set(range(i, j))
        span = " ".join(w for w, _ in asked[i:j])
        if [f for f in folded[i:j]] != [fold(w) for w in _LETTERS.findall(word)]:
            out.append((span, word))
    return out


def _uses(words: list[str], word: str) -> bool:
    """Every word of `word` of three letters or more stands somewhere in `words` (folded) in some form."""
    keys = [k for k in (fold(x) for x in _LETTERS.findall(word)) if len(k) > 2]
    return bool(keys) and all(any(same_word(w, k) for w in words) for k in keys)


def keeps_part(text: str, word: str) -> bool:
    """The translation `text` uses some word of three letters or more of `word`, in some form (`_uses`)."""
    words = [f for _, f in _words(text)]
    return any(_uses(words, part) for part in _LETTERS.findall(word) if len(part) > 2)


def missing_words(text: str, pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The pairs whose word in the target language the translation `text` does not use: a word of it of three
    letters or more that stands nowhere in the text in any form (same_word)."""
    words = [f for _, f in _words(text)]
    return [(span, word) for span, word in pairs if not _uses(words, word)]


def swapped_words(text: str, question: str, pairs: list[tuple[str, str]], vocab: list[str]) -> list[tuple[str, str]]:
    """The pairs the translation `text` lost for another of the ontology's words (`vocab`, in the target language:
    the words of its classes) that the question does not name: "Stiefel" (boot) written "sandals". A lost word
    with none of them in its place ("Kessel" written "pot") is a translation's own wording, not a wrong name."""
    lost = missing_words(text, pairs)
    if not lost:
        return []
    words = [f for _, f in _words(text)]
    asked = [fold(w) for w in _LETTERS.findall(question)]  # its quoted names too: "Open Ocean" names no ocean class
    told = {w.casefold() for _, w in pairs}
    others = [w for w in vocab if w.casefold() not in told and _uses(words, w) and not _uses(asked, w)]
    return lost if others else []


def glossary(linker: Any, question: str, terms: list[Term], lang: str, main: str) -> list[tuple[str, str]]:
    """(words of the question, the ontology's word in `lang` they name) by a multilingual sentence-embedding model
    (crosslingual.py), for the terms that have a word in `lang`; words the question already uses as they are
    need no telling ("Tier" in a German question names the animal, whose German label it is: it is told as "animal"
    for English, and left out for German)."""
    named = [t for t in terms if t.word(lang, main)]
    found = [(span, named[i].word(lang, main)) for span, i in linker.links(question, [t.texts() for t in named])]
    return [(span, word) for span, word in found if span.casefold() != word.casefold()]


def _label_words(text: str) -> list[str]:
    """The folded words of a label or a translation, without what brackets hold ("height (m)": height) and with a
    run-together name split ("WateringCan": watering can)."""
    text = re.sub(r"\([^)]*\)|\[[^\]]*\]", " ", text)
    return [w for w in (fold(x) for x in _LETTERS.findall(split_name(text) if " " not in text.strip() else text))
            if w]


def _inflected(a: str, b: str) -> bool:
    """Two folded English words are one: equal, or one is the other with at most two more letters at its end
    ("rake" / "rakes"; not "can" / "canopy")."""
    short, long_ = sorted((a, b), key=len)
    return a == b or (len(short) >= 3 and long_.startswith(short) and len(long_) - len(short) <= 2)


def _means(translation: str, word: str) -> bool:
    """A dictionary's translation is the ontology's word: the same words, each in some form (_inflected)."""
    a, b = _label_words(translation), _label_words(word)
    return bool(a) and len(a) == len(b) and all(_inflected(x, y) for x, y in zip(a, b))


def contradicted(dictionary: Any, span: str, word: str) -> bool:
    """A bilingual dictionary has an entry for every word of four letters or more of `span` (or for its
    dictionary form) and no translation of any of them shares a word with the ontology's `word` (in some form):
    "caro" (expensive, dear) says no "fragile"."""
    words = [w for w, _ in _words(span) if len(w) >= 4]
    if dictionary is None or not words:
        return False
    found = dictionary.lookup(words)
    if any(found.get(w) is None for w in words):
        return False
    keys = [k for k in _label_words(word) if len(k) > 2]
    return not any(same_word(w, k) for t in (x for w in words for x in found[w] or []) for w in _label_words(t)
                   for k in keys)


def _phrases(question: str, longest: int = 3) -> list[tuple[int, int, str]]:
    """(first word, after the last, text) of every run of one to `longest` words of the question outside its quoted
    names, longest first."""
    words = [w for w, _ in _words(question)]
    return [(i, i + n, " ".join(words[i:i + n])) for n in range(longest, 0, -1) for i in range(len(words) - n + 1)]


def _apart(found: list[tuple[int, int, str]], asked: list[str]) -> list[tuple[str, str]]:
    """(words of the question, word) for the found (first word, after the last, word) runs, longer runs first, a
    word of the question in one run at most; in the question's order."""
    found = sorted(found, key=lambda f: (f[0] - f[1], f[0]))
    taken: set[int] = set()
    out: list[tuple[int, str, str]] = []
    for i, j, word in found:
        if not taken & set(range(i, j)):
            taken |= set(range(i, j))
            out.append((i, " ".join(asked[i:j]), word))
    return [(span, word) for _, span, word in sorted(out)]


def dictionary_glossary(dictionary: Any, question: str, terms: list[Term], target: str,
                        main: str) -> list[tuple[str, str]]:
    """(words of the question, the ontology's word in `target` they translate to) by a bilingual dictionary
    (bilingual.py): a run of one to three words of the question whose entry (or its dictionary form's) gives
    one of the ontology's words in `target` as a translation ("regadores": watering can, when a class is
    labelled "watering can"). Longer runs first; a word of the question names one word at most; in the question's
    order. `terms`: the words it may name (the answer loop gives the classes and named values: a dictionary's
    translations of a verb, or of a word that is also a verb's form - "era", was or an age - too often look like a
    property's word)."""
    if dictionary is None:
        return []
    words = list(dict.fromkeys(t.word(target, main) for t in terms if t.word(target, main)))
    runs = [r for r in _phrases(question) if any(len(w) >= 3 for w in r[2].split())]
    read = dictionary.lookup([text for _, _, text in runs])
    found = []
    for i, j, text in runs:
        word = next((w for t in read.get(text) or [] for w in words if _means(t, w)), "")
        if word and fold(text) != fold(word):
            found.append((i, j, word))
    return _apart(found, [w for w, _ in _words(question)])


MIN_SPELLING_LETTERS = 5  # a word shorter than this is not compared by its spelling (spelling_glossary)
SPELLING_LIKENESS = 0.65  # how alike a word must spell a label (difflib's ratio, folded, a plural's "s" dropped)
SPELLING_MARGIN = 0.1  # how much less alike the nearest label of any other class must be


def _alike(a: str, b: str) -> float:
    return SequenceMatcher(None, a, b).ratio()


def _spelled(span: list[tuple[str, str]], unknown: set[str], label: list[str]) -> float:
    """How alike the run of words `span` ((as written, folded) pairs) spells a label's words: the likeness of the
    whole (0 for a label of another number of words, or when a word of the run the dictionary lacks spells no word
    of the label SPELLING_LIKENESS alike: "vacinas gripadas" is no "vacuna antigripal")."""
    if len(label) != len(span):
        return 0.0
    said, label = [_gloss(f) for _, f in span], [_gloss(x) for x in label]
    if any(w in unknown and max(_alike(f, x) for x in label) < SPELLING_LIKENESS for (w, _), f in zip(span, said)):
        return 0.0
    return _alike(" ".join(said), " ".join(label))


def spelling_glossary(dictionary: Any, question: str, terms: list[Term], target: str,
                      main: str) -> list[tuple[str, str]]:
    """(words of the question, the ontology's word in `target` they name) by spelling alone, for words the
    bilingual dictionary has no entry for: a run of one to three words of the question, one of them unknown to the
    dictionary and of MIN_SPELLING_LETTERS letters or more, none written with a capital (a name, or the question's
    first word), that spells a class's label of as many words, in any language, at least SPELLING_LIKENESS alike
    and SPELLING_MARGIN more alike than any other class's label ("veleros", which the dictionary lacks, spells
    "veleiro" of a class labelled "sailboat" in English: one word in two languages). Longer runs first; a
    word the question already says as it is in `target` needs no telling. Nothing without a dictionary: it is
    what tells a word of the language from one it does not know."""
    if dictionary is None:
        return []
    asked = _words(question)
    named = [(t, t.word(target, main)) for t in terms if t.word(target, main)]
    longest = max((len(_label_words(x)) for t, _ in named for x in t.texts()), default=0)
    runs = [r for r in _phrases(question, min(longest, 3))
            if not any(w[:1].isupper() for w, _ in asked[r[0]:r[1]])]
    candidates = {w for i, j, _ in runs for w, f in asked[i:j] if len(f) >= MIN_SPELLING_LETTERS and f not in STOP}
    read = dictionary.lookup(sorted(candidates)) if candidates else {}
    unknown = {w for w in candidates if read.get(w) is None}
    found: list[tuple[int, int, str]] = []
    for i, j, _ in runs:
        if not unknown & {w for w, _ in asked[i:j]}:
            continue
        span = asked[i:j]
        likeness = sorted(((max((_spelled(span, unknown, _label_words(x)) for x in term.texts()), default=0.0), word)
                           for term, word in named), reverse=True)
        if not likeness or likeness[0][0] < SPELLING_LIKENESS:
            continue
        best, word = likeness[0]
        if all(best - other >= SPELLING_MARGIN for other, w in likeness[1:] if w != word) \
                and not _uses([f for _, f in asked[i:j]], word):
            found.append((i, j, word))
    return _apart(found, [w for w, _ in asked])

MAX_GAP = 3  # other words a label's words may stand apart by in the question (label_glosses)


def _gloss(text: str) -> str:
    """A translation as compared: its folded words, a plural's "s" dropped ("spades": spade)."""
    return " ".join(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
                    for w in _label_words(text))


def _glosses(translations: list[str] | None) -> set[str]:
    """A dictionary's translations of a word, each whole ("watering can" is no "can"), without function words."""
    return {g for g in (_gloss(t) for t in translations or []) if g and not all(w in STOP for w in g.split())}


def _content(translations: list[str] | None) -> bool:
    """A word whose first translation is not a function word alone ("en": in; "des": a)."""
    return bool(translations) and not all(w in STOP for w in _label_words(translations[0]))


def label_glosses(dictionaries: Any, question: str, lang: str, terms: list[Term], target: str,
                  main: str) -> list[tuple[str, str]]:
    """(words of the question, the ontology's word in `target` for a label of two or more words they say), read
    through bilingual dictionaries into English (`dictionaries(lang)`: bilingual.open_dictionary): each
    word of a label that is no function word has a translation that a translation of a word of the question has
    too, each by another word of the question, at most MAX_GAP words apart. A label "pelle de jardin"@fr (shovel,
    garden) is said by a question's "pás de jardim" (shovel, garden) or "pale da giardino": the English word of that
    class is "garden shovel". Labels in English are read as their own translations."""
    own = dictionaries(lang)
    if own is None:
        return []
    asked = [w for w, _ in _words(question)]
    read = own.lookup(asked)
    said = [_glosses(read.get(w)) for w in asked]
    wanted: dict[str, list[tuple[Term, list[str]]]] = {}  # label language -> (term, the label's words)
    for term in terms:
        if not term.word(target, main):
            continue
        for label_lang, labels in term.labels.items():
            for label in labels:
                words = [w for w, _ in _words(label)]
                if len(words) >= 2 and (label_lang == ENGLISH_CODE or dictionaries(label_lang) is not None):
                    wanted.setdefault(label_lang, []).append((term, words))
    found: list[tuple[int, int, str]] = []
    for label_lang, items in wanted.items():
        lookup = {} if label_lang == ENGLISH_CODE else dictionaries(label_lang).lookup(
            sorted({w for _, words in items for w in words}))
        for term, words in items:
            if label_lang == ENGLISH_CODE:
                meant = [{_gloss(w)} for w in words if len(w) > 2 and fold(w) not in STOP]
            else:
                meant = [_glosses(lookup.get(w)) for w in words if _content(lookup.get(w))]
            if len(meant) < 2 or not all(meant):
                continue
            places: list[int] = []
            for gloss in meant:
                hit = next((i for i, g in enumerate(said) if i not in places and g & gloss), None)
                if hit is None:
                    break
                places.append(hit)
            else:
                if max(places) - min(places) < len(places) + MAX_GAP:
                    found.append((min(places), max(places) + 1, term.word(target, main)))
    return _apart(found, asked)


__all__ = ["Term", "contradicted", "dictionary_glossary", "glossary", "keeps_part", "label_glossary", "label_glosses",
           "missing_words", "ontology_terms", "same_word", "spelling_glossary", "swapped_words", "vocabulary"]
