"""What kind of thing a noun phrase names, as code can tell from its words: the class a head noun names, a title
written before a name ("the surveyor Ann Lee"), the office a name "X of Y" opens with, nouns that name an event,
and a phrase's name as a kind ("a retired Danish welder": welder). The grammar (text/grammar.py) gives the words;
text/reading.py asks these for each thing it reads."""

from __future__ import annotations

import re

from ontocore.text import singular

from ..ontology.names import safe_name
from .grammar import Word
from .tagging import NAME_PARTICLES, NOUN_TAGS, VERB_TAGS, known_word, word_classes


def noun_kind(noun: str) -> str:
    """The class a head noun names: singular, CamelCase ("bags" -> Bag); "" for a word that is no noun (a verb or
    a function word the tagger took for one)."""
    head = singular(noun)
    classes = word_classes(head)
    if classes and "NOUN" not in classes and "PROPN" not in classes:
        return ""
    last = head.lower().rsplit("-", 1)[-1]  # ("record-keeping": keeping)
    if known_word(last) in VERB_TAGS and not any(known_word(f).startswith("NN") for f in (last + "s", last + "es")):
        return ""  # a word the lexicon knows first as a verb, whose -s form is a verb too ("turn", "pull"), also
        # after a hyphen ("fault-finding": an activity, no kind of thing; but "a steel building": buildings)
    return safe_name(head)


def titled_name(words: list[Word]) -> tuple[list[Word], str]:
    """A name written after the common nouns that say what it is ("the Danish architect Ann Lee", "surveyor Bo Park"):
    the name's words and that title noun; the words themselves and "" when the phrase is not so written."""
    k = len(words)
    while k > 0 and words[k - 1].tag in ("NNP", "NNPS") and words[k - 1].text[:1].isupper():
        k -= 1
    if k == 0 or k == len(words) or words[k - 1].tag not in NOUN_TAGS or not words[k - 1].text.islower() or \
            "NOUN" not in word_classes(words[k - 1].text) or \
            not any(w.text[:1].isupper() and w.text[1:2].islower() for w in words[k:]) or \
            words[k - 1].text in NAME_PARTICLES:
        return words, ""  # ("Vincent van Gogh": a name's own lower-case word, no title; "the Danish-born
        # surveyor Ann Lee": a title after a name's adjective)
    return words[k:], words[k - 1].text


def office_of(words: list[Word]) -> str:
    """The common noun a name "X of Y" opens with, when it says what the named thing is ("Bank of the North" ->
    bank, "Warden of the Marches" -> warden); "" otherwise."""
    low = [w.lower for w in words]
    if "of" not in low or low.index("of") == 0:
        return ""
    head = words[low.index("of") - 1]
    last = head.lower.split("-")[-1]  # ("Vice-Warden of ...": a warden)
    if not head.text[:1].isupper() or known_word(last) not in ("NN", "NNS") or "NOUN" not in word_classes(last):
        return ""
    return last


_EVENT_ENDINGS = ("ing", "tion", "sion", "ure", "ment", "al", "ance", "ence", "ery", "ival")


def is_event(noun: str, moment: bool = False) -> bool:
    """A noun that names something that happens (a departure, an inspection, a crossing, a delivery, a removal):
    its time is the time of the thing it happens to. For a moment (a date, a time of day), a noun that is also a
    verb counts too ("the next overhaul is due on ..."); for a duration only the endings of an event do ("filters
    last 6 months" is the filters' own)."""
    low = noun.lower()
    classes = word_classes(low)
    return len(low) > 4 and "NOUN" in classes and (low.endswith(_EVENT_ENDINGS) or moment and "VERB" in classes)


# adjectives that say when or in which order a role was someone's, not what the role is
_BEARER_WORDS = frozenset("former retired late onetime erstwhile then current future ex first second third fourth "
                          "fifth last".split())


_DEMONYM = re.compile(r"(?:ish|ian|ean|an|ese|ic|i|ch|que|ss)$")


def _demonym(w: Word, nxt: Word) -> bool:
    """Whether a capitalized word the tagger took for a name is a word of origin before a common noun
    ("Scottish crane operator", "Swedish-Finnish welder"): its ending is one of those words' endings."""
    return w.tag == "NNP" and w.text[:1].isupper() and nxt.text[:1].islower() and \
        _DEMONYM.search(w.text.split("-")[-1].lower()) is not None


def kind_label(label_words: list[Word], head: Word, name_label: str) -> str:
    """A phrase's name as a kind: without the adjectives before its head that describe the one it is said of, a
    proper adjective ("Danish", "Swedish-Finnish") or a word of time or order ("former", "retired", "first");
    "" when no word goes."""
    if head not in label_words:
        return ""
    before = label_words[:label_words.index(head)]
    nxt = {id(w): n for w, n in zip(before, label_words[1:])}
    kept = [w for w in before if not (w.lower in _BEARER_WORDS or w.tag.startswith("JJ") and w.text[:1].isupper()
                                      or _demonym(w, nxt[id(w)]))]
    if len(kept) == len(before):
        return ""
    last = name_label.split()[-1] if name_label.split() else head.text
    return " ".join([w.text for w in kept] + [last])
