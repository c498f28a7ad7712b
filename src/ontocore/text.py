"""Text helpers for both tools, in one place: fold (lower case without accents), the words of a text, the
singular of an English noun, a word's stem, and the English function words that carry no topic (stop words).

Two stop lists, one built from the other: `LINK_WORDS`, the few articles, prepositions and conjunctions that do
not tell two names apart ("Box of Pens" ~ "Pens Box"), and `STOP`, those plus the function words of a question
(auxiliaries, interrogatives, pronouns, request verbs)."""

from __future__ import annotations

import re
import unicodedata

LINK_WORDS = frozenset("the a an of and for with in on to by".split())
STOP = LINK_WORDS | frozenset(
    "at from or but not no is are was were be been being do does did has have had what which who whom whose when "
    "where why how many much that this these those there their its it they them we our us you your i me my all any "
    "some give show list find tell return get also as than then into about".split())

STEM = 5  # words are compared by their first letters ("enrolled" ~ "enrolment", "approved" ~ "approval")
WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?|\d+(?:[.,]\d+)*", re.UNICODE)  # a word or a number, in any script
_NAME_WORD = re.compile(r"[A-Za-z0-9]+")
# a quoted name or value in a question: '...', "...", “...”, ‘...’, „...“, «...»; a quote mark inside a word is an
# apostrophe, not a quote (French d'animaux, Italian nell'acquario, English keepers')
QUOTED = re.compile(r"(?<!\w)'([^']{1,80})'(?!\w)|\"([^\"]{1,80})\"|“([^”]{1,80})”"
                    r"|(?<!\w)‘([^’]{1,80})’(?!\w)|„([^“”]{1,80})[“”]|«\s?([^»]{1,80}?)\s?»")


def quoted(text: str) -> list[str]:
    """The quoted names and values of a text, in order, without their quotes."""
    return [next(g for g in m.groups() if g) for m in QUOTED.finditer(text)]


def fold(text: str) -> str:
    """Lower case without accents, for matching names and values."""
    text = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in text if not unicodedata.combining(ch)).casefold()


def ascii_fold(text: str) -> str:
    """`text` in ASCII: accents dropped, other non-ASCII characters removed."""
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")


def tokens(text: str) -> list[str]:
    """The words of a text, folded (lower case, no accents), in order."""
    return [fold(m.group(0)) for m in WORD.finditer(text)]


def name_tokens(text: str) -> set[str]:
    """The ASCII words of a name (camelCase split, lower case), without `LINK_WORDS`."""
    text = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", ascii_fold(text))
    return {t.lower() for t in _NAME_WORD.findall(text)} - LINK_WORDS


# English nouns that end in "s" in the singular and take "-es" in the plural (buses, statuses, lenses): the
# regular rules cannot tell "buses" (bus) from "fuses" (fuse); Greek "-sis" nouns whose plural is "-ses" likewise
_S_NOUNS = frozenset(
    "bus gas bias alias atlas canvas lens iris status campus bonus census virus circus chorus surplus apparatus "
    "prospectus syllabus plus minus consensus corpus focus radius stimulus fungus cactus".split())
_SIS_NOUNS = frozenset("crisis thesis hypothesis diagnosis synthesis prognosis parenthesis emphasis".split())


# the English nouns whose plural ends in -ves for a singular in -f or -fe (every other -ves plural drops its s:
# valves, sleeves, drives); a short one only as a whole word ("olives" is no olife), a longer one also at the end
# of a compound ("bookshelves")
_VES_NOUNS = {"calves": "calf", "elves": "elf", "halves": "half", "hooves": "hoof", "knives": "knife",
              "leaves": "leaf", "lives": "life", "loaves": "loaf", "scarves": "scarf", "selves": "self",
              "sheaves": "sheaf", "shelves": "shelf", "thieves": "thief", "wives": "wife", "wolves": "wolf",
              "wharves": "wharf", "dwarves": "dwarf"}


# the English nouns whose plural changes the word itself (a man, two men)
_CHANGED_NOUNS = {"people": "person", "children": "child", "women": "woman", "men": "man", "feet": "foot",
                  "teeth": "tooth", "geese": "goose", "mice": "mouse", "oxen": "ox"}


def singular(word: str) -> str:
    """An English noun in the singular by the regular rules, keeping its case: Hoists -> Hoist, batteries ->
    battery, Boxes -> Box, sizes -> size, buses -> bus, analyses -> analysis, loaves -> loaf, Shelves -> Shelf;
    words that look plural but are not stay (status, series, species). (A plural that changes the word, "children",
    or one kept from Latin or Greek, "criteria", stays: `irregular_singulars` gives its candidates.)"""
    low = word.lower()
    if len(word) <= 3 or low.endswith(("series", "species", "news")):
        return word
    if low.endswith("ses") and low[:-2] in _S_NOUNS:
        return word[:-2]
    if low.endswith("ses") and (low.endswith("yses") or low[:-2] + "is" in _SIS_NOUNS):
        return word[:-2] + ("IS" if word[-3:].isupper() else "is")
    if low.endswith("ies") and len(word) > 4:
        return word[:-3] + ("Y" if word[-3:].isupper() else "y")
    if low.endswith(("xes", "ches", "shes", "sses", "zzes")):
        return word[:-2]
    for plural, one in _VES_NOUNS.items():  # the few nouns in -f / -fe: loaves -> loaf, knives -> knife
        if low.endswith(plural) and (len(plural) > 5 or len(low) == len(plural) or low[-len(plural) - 1] in " -"):
            end = one.upper() if word[-3:].isupper() else one
            return word[:len(word) - len(plural)] + (end[:1].upper() + end[1:] if word[-len(plural):][:1].isupper()
                                                     else end)
    if low.endswith("s") and not low.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def irregular_singulars(word: str) -> list[str]:
    """The singulars a noun could have where the regular rules keep it (`singular`), to try where the word as it
    is names nothing: the few plurals that change the word (children -> child, women -> woman, also at the end
    of a longer compound: grandchildren) and the Latin and Greek plurals English keeps (criteria -> criterion,
    curricula -> curriculum, fungi -> fungus, indices -> index, matrices -> matrix, formulae -> formula). Lower
    case; empty for a word without such an ending."""
    low = word.lower()
    for plural, one in _CHANGED_NOUNS.items():
        if low == plural or (low.endswith(plural) and len(plural) > 3 and len(low) > len(plural) + 2):
            return [low[:len(low) - len(plural)] + one]
    if len(low) < 4:
        return []
    if low.endswith("ices"):
        return [low[:-4] + "ex", low[:-4] + "ix"]
    if low.endswith("ae"):
        return [low[:-1]]
    if low.endswith("a"):
        return [low[:-1] + "on", low[:-1] + "um"]
    if low.endswith("i"):
        return [low[:-1] + "us"]
    return []


def stem(word: str) -> str:
    """A word's first `STEM` letters in the singular, for comparing words of one root."""
    return singular(word)[:STEM]
