"""Part-of-speech tags for the tokens of a sentence: the Brill tagger of the `textblob` package (its lexicon,
morphological and contextual rules; pure Python, MIT, the data ships in the package), then code's repairs of its
context rules, each about the shape of a clause (text/grammar.py reads phrases from the tags)."""

from __future__ import annotations

import logging
import re
from functools import lru_cache
from typing import Any

log = logging.getLogger(__name__)

NOUN_TAGS = {"NN", "NNS", "NNP", "NNPS"}
AUXILIARIES = {"is", "are", "was", "were", "has", "have", "had", "does", "do", "did"}
VERB_TAGS = {"VB", "VBD", "VBG", "VBN", "VBP", "VBZ", "MD"}
FINITE_TAGS = {"VBD", "VBP", "VBZ", "MD"}
_FUNCTION_TAGS = {"PRP", "PRP$", "IN", "CC", "DT", "TO", "MD", "WDT", "WP", "EX", "RB"}


@lru_cache(maxsize=1)
def lexicon() -> Any:
    """The tagger's lexicon and rules (loaded once, lazily: about 100,000 words)."""
    try:
        from textblob.en import lexicon
    except ImportError:  # pragma: no cover - a dependency of the package
        log.warning("textblob is not installed: text is read by the shape of its words only")
        return None
    return lexicon


def word_classes(word: str) -> set[str]:
    """Every part of speech a word can have (universal tags: NOUN, VERB, ADJ, ADV, ...), from the lemma lexicon
    of the `lemminflect` package (the tagger's lexicon gives one tag per word: "last" only as an adjective)."""
    try:
        from lemminflect import getAllLemmas
    except ImportError:  # pragma: no cover - a dependency of the package
        return set()
    return set(getAllLemmas(word)) | set(getAllLemmas(word.lower()))


def verb_lemma(word: str) -> str:
    """A verb's dictionary form ("carries" -> carry, "written" -> write); the word itself when it is none."""
    try:
        from lemminflect import getAllLemmas
    except ImportError:  # pragma: no cover
        return word.lower()
    found = getAllLemmas(word.lower(), upos="VERB").get("VERB")
    return found[0] if found else word.lower()


def known_word(word: str) -> str:
    """The tag the lexicon gives a word ("" when it does not know it)."""
    lex = lexicon()
    if lex is None:
        return ""
    return lex.get(word) or lex.get(word.lower()) or ""



def tag(tokens: list[str]) -> list[str]:
    """Penn tags for the tokens: the Brill tagger (lexicon, morphology, context); numbers are CD, and a capitalized
    word the lexicon knows only in lower case keeps its lexicon tag at a sentence start."""
    lex = lexicon()
    if lex is None:
        return ["CD" if re.match(r"[+\-\u2212]?\d", t) else "NNP" if t[:1].isupper() else "NN" for t in tokens]
    from textblob._text import find_tags
    tagged = find_tags(list(tokens), lexicon=lex, morphology=lex.morphology, context=None, entities=lex.entities,
                       language="en")
    words = [t for t in tokens if t[:1].isalpha()]
    shouting = len(words) > 2 and all(t.isupper() for t in words)  # A SENTENCE IN CAPITALS
    for pair, token in zip(tagged, tokens):
        if re.fullmatch(r"[+\-\u2212]?\d+(?:[.,:]\d+)*%?", token):
            pair[1] = "CD"
        elif re.fullmatch(r"\d+(?:st|nd|rd|th)", token):  # "the 3rd floor": an ordinal
            pair[1] = "JJ"
        elif token in ("'s", "’s"):  # a possessive: "the lab's freezer"
            pair[1] = "POS"
        elif token.startswith("°"):
            pair[1] = "NN"
        elif re.fullmatch(r"[a-z]{1,2}[A-Z][A-Za-z]?", token):  # "pH", "eV", "dB": a measure or unit, no name
            pair[1] = "NN"
        elif re.fullmatch(r"[a-z]{1,3}-[A-Z][a-z]+", token):  # "Omar al-Sayed": a name's word with its particle
            pair[1] = "NNP"
        elif shouting is False and re.fullmatch(r"[A-Z]{2,}", token) and pair[1] in _FUNCTION_TAGS:
            pair[1] = "NNP"  # "the OR team": an acronym, not the word "or"
    before = [t for _, t in tagged]
    tagged = lex.context.apply(tagged)
    for k, pair in enumerate(tagged):  # "Hoses longer than", "the yard's van": a word in lower case is no name
        # unless it joins two capitalized words ("Ludwig van Beethoven")
        if pair[1] in ("NNP", "NNPS") and tokens[k].islower() and (known_word(tokens[k]) or word_classes(tokens[k])) and \
                not (0 < k < len(tokens) - 1 and tokens[k - 1][:1].isupper() and tokens[k + 1][:1].isupper()):
            pair[1] = known_word(tokens[k]) if known_word(tokens[k]) not in ("NNP", "NNPS") else "NN"
    for k in range(1, len(tokens) - 1):  # "by Truly Fine Charts", "to Very Able Staffing": a capitalized word after
        # a preposition and before another one opens a name, whatever the lexicon says of it
        if tokens[k][:1].isupper() and tokens[k - 1].islower() and (tagged[k - 1][1] in ("IN", "TO") and
                                                                    tagged[k][1].startswith(("RB", "JJ", "VB"))
                                                                    or tagged[k][1] == "MD") and \
                tokens[k + 1][:1].isupper() and tagged[k + 1][1] not in _FUNCTION_TAGS:
            tagged[k][1] = "NNP"  # (a modal verb is never written with a capital inside a sentence: "by Will Lund")
    for k in range(2, len(tokens)):  # "by Truly Fine Charts": a capitalized plural after a name's words ends the
        if tagged[k][1] == "NNS" and tokens[k][:1].isupper() and tokens[k - 1][:1].isupper() and (  # name
                tagged[k - 1][1] == "NNP" or tagged[k - 2][1] == "NNP" and tokens[k - 2][:1].isupper()):
            tagged[k][1] = "NNPS"
    for k in range(1, len(tokens) - 1):  # "by Nordic Bear Logistics", "Iron Stand Works": a capitalized word
        # between two names is a word of one name, whatever the lexicon says of it
        if tokens[k][:1].isupper() and tagged[k][1] not in ("NNP", "NNPS", "DT", "IN", "CC", "TO", "PRP", "PRP$") \
                and tagged[k - 1][1] in ("NNP", "NNPS") and tagged[k + 1][1] in ("NNP", "NNPS") and \
                tokens[k - 1][:1].isupper() and tokens[k + 1][:1].isupper():
            tagged[k][1] = "NNP"
    for k in range(1, len(tokens)):  # "Kim Jong-su", "Ola Sun-dal": a capitalized hyphenated word after a name's
        if re.fullmatch(r"[A-Z][a-z]+-[a-z]+", tokens[k]) and tagged[k - 1][1] == "NNP" and \
                tokens[k - 1][:1].isupper():  # word is one of it
            tagged[k][1] = "NNP"
    for k in range(2, len(tokens)):  # "by Ann Lee and Ivo Makes.": a capitalized "verb" that ends a name is a word
        # of it (a verb after a name is written in lower case)
        if tokens[k][:1].isupper() and tagged[k][1].startswith("VB") and tagged[k - 1][1] == "NNP" and \
                tokens[k - 1][:1].isupper() and (k + 1 == len(tokens) or tagged[k + 1][1] in (".", ",", ":", "CC")):
            tagged[k][1] = "NNP"
    for k in range(len(tokens) - 1):  # "and animated by Vestby Studio", "a memo short signed by Will Lund": a verb's
        if tokens[k + 1] == "by":  # participle before its agent; "by" is always a preposition
            tagged[k + 1][1] = "IN"
            if tagged[k][1] == "JJ" and tokens[k].endswith("ed") and "VERB" in word_classes(tokens[k].lower()) or \
                    tagged[k][1] == "VBD" and k + 2 < len(tokens) and tokens[k + 2][:1].isupper():
                tagged[k][1] = "VBN"
    tags = _repaired([t for _, t in tagged], tokens, before)
    _title_opening(tags, tokens)
    for k in range(1, len(tags)):  # what "'s" follows is a noun ("the pump's"), never an adjective
        if tags[k] == "POS" and tags[k - 1].startswith("JJ"):
            tags[k - 1] = "NNP" if tokens[k - 1][:1].isupper() else "NN"
    return tags


# joiners that are part of a person's name ("Anna de Vries", "Jan van Dijk"): no sign of a title
NAME_PARTICLES = frozenset({"de", "la", "le", "du", "des", "del", "della", "di", "da", "von", "van", "der", "den",
                            "y", "los", "las", "dos", "das", "ter", "zu"})
_TITLE_JOINERS = ("of", "the", "and", "a", "an", "to", "in", "on", "for", "at", "with", "from")


def _title_opening(tags: list[str], tokens: list[str]) -> None:
    """A title that opens the sentence, right before its verb in lower case (or an aside in brackets before it), is
    one name, its own verbs, marks and small words with it: "Hooray! was printed ...", "When the Tide Turns was
    printed", "Huset ved havet (The House by the Sea) is a guesthouse" (a run of capitalized words and small words, with
    a verb or a mark of its own, or words of another language: words the lexicon does not know)."""
    end = 0
    while end < len(tokens) and (tokens[end][:1].isupper() or tokens[end] in ("!", "?") or end and (
            tokens[end].isalpha() and tokens[end].islower() and tokens[end] not in _FINITE and
            (tags[end] not in ("VBZ", "VBD", "MD") or _unknown(tokens[end])))):
        end += 1
    verb = end
    if end < len(tokens) and tokens[end] == "(" and ")" in tokens[end:]:
        verb = tokens.index(")", end) + 1  # "Huset ved havet (The House by the Sea) is ..."
    if end < 2 or verb >= len(tokens) or not tokens[verb][:1].islower() or \
            not (tags[verb] in ("VBZ", "VBD", "MD") or tokens[verb] in _FINITE) or tokens[end - 1] in _TITLE_JOINERS:
        return
    marks = [k for k in range(end) if tokens[k] in ("!", "?")]
    own = end >= 3 and not marks and any(tags[k].startswith(("VB", "MD", "PRP")) and tokens[k][:1].isupper() and
                                         tokens[k] != "I" for k in range(1, end))  # (not "When Ola Berg arrived")
    lower = [t for t in tokens[1:end] if t.islower() and t not in _TITLE_JOINERS and t not in NAME_PARTICLES]
    unknown = sum(map(_unknown, lower))
    foreign = not marks and unknown >= 2 and 2 * unknown > len(lower)  # (one rare word: "The bluethroat is")
    if lower and not foreign:
        return  # words of a description ("The new depot (built 1990) is ...")
    if marks == [end - 1] or own or foreign:
        for k in range(end):
            tags[k] = "NNP"


def _unknown(token: str) -> bool:
    """A word in lower case that the lexicon does not know (of another language: "ved", "havet")."""
    return token.isalpha() and token.islower() and not word_classes(token) and known_word(token) in ("", "FW")


_FINITE = frozenset({"is", "was", "are", "were", "has", "had", "have", "will", "can", "may", "remains", "became"})


def _first_words(tags: list[str], tokens: list[str]) -> None:
    """The tags of a sentence's first words, where capitals say little: "Keys go ..." is a common noun, capitalized
    because it opens the sentence; "Harbor Suite is ..." a name, whatever the lexicon says of its words; "Woods is
    one of ...", a plural with a verb in the singular, a name."""
    if len(tokens) < 2:
        return
    first = known_word(tokens[0].lower())
    if not first and tokens[0].lower().endswith("s") and "NOUN" in word_classes(tokens[0].lower()):
        first = "NNS"  # ("Trolleys longer than 2 m": a plural the lexicon lacks)
    if tags[0] == "NNP" and first in ("NN", "NNS") and tags[1] not in ("NNP", "NNPS"):
        tags[0] = first
    singular = len(tokens) > 2 and (tags[2] == "VBZ" or tokens[2] in ("is", "was", "has"))
    if tokens[0][:1].isupper() and (tags[0] in NOUN_TAGS or tags[0] == "JJ" and singular) and \
            tokens[1][:1].isupper() and tokens[1][1:2].islower() and tags[1] in NOUN_TAGS:  # (also after a word
        # read as an adjective, before a verb in the singular: "Harbour Lights is a café")
        tags[0] = tags[1] = "NNP"
    elif tokens[0][:1].isupper() and tags[0] == "NNS" and (tags[1] == "VBZ" or tokens[1] == "was"):
        tags[0] = "NNP"


def _repaired(tags: list[str], tokens: list[str], lexical: list[str]) -> list[str]:
    """Corrections of the tagger's context rules, each about the shape of a clause: a preposition, determiner or
    conjunction keeps its own tag (a context rule never makes one a verb or a noun: "arrive after hours"); an
    adjective that ends a noun phrase after a noun, before a preposition or the clause's end, is the phrase's head
    noun ("the night safe at the gate"); a plural form tagged as a verb between a number or adjective and another
    verb is a noun ("eight runs succeeded"); and a clause without a finite verb gets one: the first word the lexicon
    knows as a verb that the context rules had turned into a noun, followed by a number, a determiner or a
    possessive ("cartridges for the printer hold 40 mL"), the word before it then a noun even when the tagger read
    it as an adjective ("the pump weighs 40 kg")."""
    tags = [t.split("-")[0] if re.fullmatch(r"NNPS?-[A-Z]+", t) else  # the lexicon's named entities ("NNP-PERS")
            "NN" if t == "VBG" and not tok.lower().endswith("ing") else t  # "publication" is no gerund
            for t, tok in zip(tags, tokens)]
    for i, (tag, own) in enumerate(zip(tags, lexical)):
        if own in ("IN", "TO", "DT", "CC") and (tag in VERB_TAGS or tag in NOUN_TAGS):
            tags[i] = own
        elif own in FINITE_TAGS and tokens[i].lower() in AUXILIARIES and tag not in VERB_TAGS:
            tags[i] = own  # "the pump is made by ...": "is" is never a noun
    for i in range(1, len(tags) - 1):  # "the pump is made": a word after a determiner, before a verb, is a noun
        if tags[i - 1] == "DT" and tags[i] in ("VB", "JJ") and tags[i + 1] in FINITE_TAGS and \
                tokens[i].islower() and "NOUN" in word_classes(tokens[i]):
            tags[i] = "NN"
    _first_words(tags, tokens)
    for i in range(1, len(tags) - 1):  # "must be launched within 5 minutes and seats 15 persons": a second verb
        if tokens[i - 1] in ("and", "or") and tags[i] == "NNS" and tags[i + 1] in ("CD", "DT", "PRP$") and \
                any(t in VERB_TAGS for t in tags[:i - 1]) and "VERB" in word_classes(tokens[i]):
            tags[i] = "VBZ"
    for i in range(1, len(tags)):  # "keys go", "they hold": a base form after its subject is a present tense
        if tags[i] == "VB" and (tags[i - 1] in NOUN_TAGS or tags[i - 1] == "PRP") and \
                not any(t in ("TO", "MD") for t in tags[max(0, i - 3):i]):
            tags[i] = "VBP"
    for i in range(2, len(tags) - 1):  # "the speed limit of the roads changed", "a starter set of tools
        # sold by ...": a noun's second word before "of", when a verb follows, is a noun (a verb directly
        # before "of" is rare: "consists of")
        if (tags[i] in ("VB", "VBP", "VBZ") or tags[i] in ("VBD", "VBN") and not tokens[i].lower().endswith("ed")) \
                and tags[i - 1] in ("NN", "NNS") and tags[i - 2] in ("DT", "PRP$", "JJ") \
                and tokens[i + 1].lower() == "of" and tokens[i].islower() and "NOUN" in word_classes(tokens[i]) and \
                any(t in FINITE_TAGS or t == "VBN" for t in tags[i + 2:]):
            tags[i] = "NN"
    for i in range(1, len(tags) - 1):  # "scanners go to room 3": a word between "to" and a number is a noun
        if tags[i] in ("VB", "VBP") and tokens[i - 1].lower() == "to" and tags[i + 1] == "CD" and \
                (i + 2 >= len(tags) or tags[i + 2] not in NOUN_TAGS) and "NOUN" in word_classes(tokens[i]):
            # ("has to check 4 valves": a verb, its count's noun after the number)
            tags[i] = "NN"
    if len(tags) > 2 and tags[0] in ("VBN", "VBD") and tokens[0].lower().endswith("ed") and \
            tags[1] in ("NN", "NNS") and any(t in ("MD", "VBZ", "VBP") for t in tags[2:]):
        tags[0] = "JJ"  # "Sealed drums must be moved": a participle before the subject's noun describes it
    for i in range(1, len(tags)):  # "the drum of ...": a determiner's adjective with no noun after it is the noun
        nxt = tags[i + 1] if i + 1 < len(tags) else "."
        if tags[i] == "JJ" and tags[i - 1] == "DT" and (nxt in ("IN", "TO", ".", ",", ":") or nxt in VERB_TAGS):
            tags[i] = "NN"
    for i in range(2, len(tags)):
        nxt = tags[i + 1] if i + 1 < len(tags) else "."
        if tags[i] == "JJ" and tags[i - 1] in ("NN", "NNS") and tags[i - 2] in ("DT", "JJ", "NN", "PRP$") and \
                (nxt in ("IN", "TO", ".", ",", ":", "CC") or nxt in VERB_TAGS) and tokens[i].islower():
            tags[i] = "NN"
    for i in range(1, len(tags) - 1):
        if tags[i] == "VBZ" and tags[i - 1] in ("CD", "JJ", "DT") and tags[i + 1] in ("VBD", "VBN") and \
                tokens[i].lower() not in AUXILIARIES:
            tags[i] = "NNS"
    _plural_subject(tags, tokens)
    clause_start = 0
    for i in range(len(tags) + 1):
        joined = i + 1 < len(tags) and (tokens[i] == "," or tokens[i] in ("and", "but", "or")) and \
            (tags[i + 1] in ("DT", "PRP$") or tags[i + 1] == "NNS" and i > 0 and tokens[i - 1] == ","
             and tokens[i] in ("and", "but"))  # "..., and a sack holds 60 kg", "..., and parcels travel"
        joined = joined or i + 1 < len(tags) and tokens[i] in ("and", "but", "or") and tags[i + 1] in FINITE_TAGS \
            and i > clause_start  # "a refill costs $9 and takes 2 days": the first predicate needs its own verb
        if i == len(tags) or tokens[i] in (";", ":") or tags[i] in ("WDT", "WP") or joined:
            _give_a_finite_verb(tags, tokens, lexical, range(clause_start, i))
            clause_start = i + 1
    return tags


def _give_a_finite_verb(tags: list[str], tokens: list[str], lexical: list[str], clause: range) -> None:
    """A clause without a finite verb gets one: the first word the lexicon knows as a verb that the context rules
    had turned into a noun, followed by a number, a determiner or a possessive ("cartridges for the printer hold 40
    mL"), the word before it then a noun; else a past participle after a noun ("the water level of the tanks
    dropped"), the past tense."""
    past = [k for k in clause if tags[k] == "VBN" and lexical[k] in ("VBD", "VBN") and k > clause.start and
            tags[k - 1] in ("NN", "NNS") and not any(tokens[j].lower() in AUXILIARIES for j in clause)]
    if not any(tags[k] in FINITE_TAGS for k in clause):
        candidates = [k for k in clause if k > clause.start and tags[k] in ("NN", "NNS", "JJ", "RB") and
                      "VERB" in word_classes(tokens[k]) and tokens[k].islower() and
                      (tags[k - 1] in ("NN", "NNS", "NNP", "NNPS", "CD") or _noun_read_as_adjective(
                          tags, tokens, k - 1)) and
                      (tags[k + 1] if k + 1 < len(tags) else "") in ("CD", "DT", "PRP$", "IN", "RB", "$",
                                                                     "JJR", "RBR")]
        # a noun before "of" with a past participle after ("the water level of the tanks dropped"): the
        # participle is the verb, not the noun
        candidates = [k for k in candidates if not (past and past[0] > k and tokens[k + 1].lower() == "of")]
        if past and not candidates:
            tags[past[0]] = "VBD"  # "the water level of the tanks dropped": the past tense, not a noun
        for k in candidates[:1]:  # "the pump weighs 40 kg": what the verb follows is the noun
            if _noun_read_as_adjective(tags, tokens, k - 1):
                tags[k - 1] = "NN"
        first_noun = next((k for k in clause if tags[k] in NOUN_TAGS), None)
        singular_subject = first_noun is not None and tags[first_noun] in ("NN", "NNP")
        agrees = [k for k in candidates  # "the ramp at the quay works at ...": the verb agrees with it
                  if (tokens[k].endswith("s") and not tokens[k].endswith("ss")) == singular_subject]
        for k in (agrees or candidates)[:1]:
            tags[k] = "VBZ" if tokens[k].endswith("s") and not tokens[k].endswith("ss") else "VBP"


def _plural_subject(tags: list[str], tokens: list[str]) -> None:
    """"The HX valves at Pier 4 need a torque of 60 N·m": after "the" and a name or modifier, a plural (that the
    tagger may read as a verb: "pumps") is the subject's head when a later word of the same clause, after a noun, is
    a verb in the plural ("need a", "run at"); that word is then the clause's verb."""
    for i in range(2, len(tags)):
        low = tokens[i].lower()
        if not (tags[i] in ("VBZ", "NNS") and tags[i - 2] == "DT" and tags[i - 1] in ("NNP", "NN", "JJ") and
                low.endswith("s") and "NOUN" in word_classes(low)):
            continue
        for k in range(i + 1, len(tags) - 1):
            if tokens[k] in (",", ";", ":") or tags[k] in ("CC", "WDT", "WP") or tags[k] in FINITE_TAGS and \
                    tags[k] != "VBP":
                break
            word = tokens[k].lower()
            if tags[k] in ("NN", "VB", "VBP") and tokens[k].islower() and not word.endswith("s") and \
                    "VERB" in word_classes(word) and tags[k - 1] in ("NN", "NNS", "NNP", "NNPS", "CD") and \
                    tags[k + 1] in ("DT", "CD", "IN", "PRP$", "TO"):
                tags[i], tags[k] = "NNS", "VBP"
                break


def _noun_read_as_adjective(tags: list[str], tokens: list[str], k: int) -> bool:
    """Whether the word at k is a noun the tagger read as an adjective after a determiner ("The pump weighs")."""
    return k >= 1 and tags[k] == "JJ" and tags[k - 1] == "DT" and "NOUN" in word_classes(tokens[k].lower())
