"""A question, parsed once: its words, the numbers and quoted or capitalised names it mentions, and the kind of
answer it wants. The kinds come from English grammar (interrogatives, auxiliaries, quantifiers), not from any
domain: a yes/no question opens with an auxiliary verb, a count asks "how many", a per-group answer says "each",
"per" or "every".

The grammar words the answer checks read live here too (ontouse.checks): superlatives and their direction,
ordinals, comparatives, negations, what a "how many" counts, the noun phrase a which / what asks for, a second
question joined by "and what", and the words that ask for an average, a rounding or an order."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ontocore.text import STOP, fold, quoted, singular, tokens
from ontocore.text import WORD as _WORD

# English function words (closed classes): auxiliaries that open a yes/no question, determiners and pronouns.
AUXILIARIES = frozenset("is are was were am do does did has have had can could will would shall should may might "
                        "must".split())
GROUPING = frozenset("each per every".split())
_NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(?:[.,]\d+)*(?![\w])")


@dataclass
class Question:
    text: str
    words: list[str] = field(default_factory=list)  # folded words, in order
    numbers: list[float] = field(default_factory=list)
    quoted: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)  # runs of capitalised words not at the start
    kind: str = "other"  # yesno | count | other
    grouped: bool = False  # asks for one answer per group ("each", "per", "every")
    asks_names: bool = False  # asks for the names of things (then a selected name is a value, not the thing)
    head: str = ""  # the noun a "which ..." / "what ..." question asks for ("which beekeepers" -> "beekeeper")
    labels: tuple[str, ...] = ()  # label languages in order of preference (ontouse.language.detection.preference)

    @property
    def content_words(self) -> list[str]:
        return [w for w in self.words if w not in STOP]


def parse_question(text: str) -> Question:
    text = " ".join(text.split())
    q = Question(text=text, words=tokens(text))
    for m in _NUMBER.finditer(text):
        raw = m.group(0).replace(",", "") if re.fullmatch(r"[-+]?\d{1,3}(,\d{3})+(\.\d+)?", m.group(0)) else \
            m.group(0).replace(",", ".")
        try:
            q.numbers.append(float(raw))
        except ValueError:
            pass
    q.quoted = quoted(text)
    raw = [m.group(0) for m in _WORD.finditer(text)]
    run: list[str] = []
    for i, w in enumerate(raw + [""]):
        if i > 0 and w[:1].isupper():
            run.append(w)
            continue
        if run:
            q.names.append(" ".join(run))
            run = []
    if q.words and q.words[0] in AUXILIARIES and not _request(q.words):
        q.kind = "yesno"
    elif re.search(r"\bhow many\b|^(?:what is|what's|find|give|return|tell me|show) (?:me )?the (?:total )?"
                   r"number of\b|^count\b", fold(text)):
        q.kind = "count"
    q.grouped = any(w in GROUPING for w in q.words)
    q.asks_names = any(singular(w) == "name" and not _in_condition(q.words, i) for i, w in enumerate(q.words))
    for i, w in enumerate(q.words[:4]):  # "which X", "in which X", "what X" (not "what is")
        if w in ("which", "what") and i + 1 < len(q.words) and q.words[i + 1] not in STOP:
            q.head = singular(q.words[i + 1])
            break
    return q


# words that open a condition on a thing's name ("whose last name is ...", "with the name ..."), not a request for it
_CONDITION_OPENERS = frozenset(("whose", "with", "where", "having"))


def _in_condition(words: list[str], i: int) -> bool:
    """Is the name word at `i` part of a condition ("the id of the member whose last name is Berg"), not asked for?
    An opener up to three words before it ("What name is used for ..." still asks for one)."""
    return any(w in _CONDITION_OPENERS for w in words[max(0, i - 3):i])


# "can you list ...", "could you tell me which ...": a request worded as a question, not a yes/no question
_REQUEST_VERBS = frozenset("list show give tell name find count return provide display enumerate identify".split())


def _request(words: list[str]) -> bool:
    """Does a question that opens with an auxiliary ask the listener to do something ("Can you list the X?",
    "Would you please show me ...", "Do you know which ...")?"""
    rest = [w for w in words[1:5] if w not in ("please", "kindly")]
    if len(rest) < 2 or rest[0] not in ("you", "we", "i"):
        return False
    return rest[1] in _REQUEST_VERBS or (rest[1] == "know" and len(rest) > 2 and rest[2] in (
        "which", "what", "who", "how", "where", "when"))


# "which" / "what" that asks (opening the question or a clause after a comma, not a relative "the X which ...")
_ASKING = re.compile(r"(?:^|[,;:]\s*)(?:which|what)\s+([^\W_]+)", re.IGNORECASE)


def asks_several(q: Question) -> bool:
    """Does a question ask for things in the plural ("which rangers earn the most", "the names of the boats that
    carried the most"), not exactly one ("which ranger earns the most", "for the boats of 2020, which boat ...",
    "the name of the boat with the longest hull", "who ...")? An asking "which / what" and its noun decide; else
    the noun phrase nearest before the superlative (from its "the" to a function word: what is ranked) is plural."""
    asking = _ASKING.search(q.text)
    if asking and fold(asking.group(1)) not in STOP:
        noun = fold(asking.group(1))
        return singular(noun) != noun
    top = next((i for i, w in enumerate(q.words) if w in UP | DOWN | ORDINAL), 0)
    start = max((i for i, w in enumerate(q.words[:top]) if w == "the" and i + 1 < top), default=None)
    if start is None:
        return False
    phrase = []
    for w in q.words[start + 1:top]:
        if w in STOP:
            break
        phrase.append(w)
    return any(singular(w) != w for w in phrase)


# ---- the question's grammar words: English closed classes the answer checks read (ontouse.checks) ----------
# superlative words whose direction does not depend on the column (no "oldest": an age or a date)
UP = frozenset("most highest largest biggest greatest maximum heaviest longest tallest top costliest priciest".split())


DOWN = frozenset("least lowest smallest fewest minimum lightest shortest cheapest".split())


QUANTITY = frozenset({"maximum", "minimum"})  # superlatives that name the amount itself, not a thing


# the first or last in time ("the first ship launched", "the oldest bridge"): which thing, when a thing follows
ORDINAL = frozenset("first last earliest latest oldest newest".split())


IN_TIME = frozenset({"before", "after"})  # a comparison of two named things in time ("was A built before B?")


COMPARATIVE = frozenset("more less fewer greater larger bigger higher lower smaller heavier lighter longer shorter "
                        "older younger cheaper".split())


WHICH = frozenset({"which", "what"})


# words by which a which/what question asks for an amount ("what is the number of ...", "what total ...")
AMOUNT = frozenset("number numbers count total amount quantity many much sum size".split())


NEGATION = frozenset("no not never without none nobody nothing neither nor don't doesn't didn't isn't aren't "
                     "wasn't weren't haven't hasn't hadn't cannot can't won't".split())


AVERAGED = frozenset({"average", "averages", "averaged", "mean", "avg"})  # the words that ask for an average


# English number and time words (closed classes): a question that writes a number or a period in words
NUMBER_WORDS = frozenset("one two three four five six seven eight nine ten eleven twelve twenty thirty forty fifty "
                         "hundred thousand million billion dozen half quarter once twice single double".split())


TIME_WORDS = frozenset("day days week weeks month months year years today yesterday tomorrow ago since last past "
                       "next recent recently current this".split())


# superlatives of time: what they rank is a date or a time ("the most recent visit", "the earliest order")
TIME_SUPERLATIVE = frozenset("recent recently latest earliest newest".split())


SECOND_ASK = re.compile(r"\band (?:what|which|who|how many)\b|\bas well as\b|\balong with\b")


ORDER_WORDS = re.compile(r"\b(?:alphabetic\w*|lexicographic\w*|order|ordered|sort|sorted)\b")


# "round to two decimals", "rounded", "round it off", "round sensibly": the question asks for rounded numbers
# ("a round trip", "the first round" do not)
ROUND = re.compile(r"\brounded\b|\bround(?:ing)?\s+(?:to|off|up|down|it|them|\w+ly)\b")


# ---- the question's words ----------------------------------------------------------------------------------
def is_superlative(words: list[str], i: int) -> bool:
    """Is words[i] a superlative ("at least 3", "at most 5" are bounds, not superlatives)?"""
    return words[i] in UP | DOWN and not (i > 0 and words[i - 1] == "at" and words[i] in ("least", "most"))


def superlative_direction(q: Question) -> str:
    """"up" (most, highest, ...), "down" (least, lowest, ...) or "" (none, or both)."""
    words = q.words
    up = down = False
    for i, w in enumerate(words):
        if not is_superlative(words, i):
            continue
        up |= w in UP
        down |= w in DOWN
    return "up" if up and not down else "down" if down and not up else ""


def counted_phrase(q: Question) -> list[str]:
    """The words a "how many" question counts, singular ("how many reagent packs does" -> [reagent, pack])."""
    words = q.words
    for i in range(len(words) - 1):
        if words[i] == "how" and words[i + 1] == "many":
            out = []
            for w in words[i + 2:]:
                if w in STOP:
                    break
                out.append(w)
            return [singular(w) for w in out]
    m = re.search(r"\bnumber of ((?:[^\W\d_]+ ?){1,3})", fold(q.text))
    if m:
        out = []
        for w in m.group(1).split():
            if w in STOP:
                break
            out.append(singular(w))
        return out
    return []


def noun_phrase(words: list[str], limit: int = 3) -> list[str]:
    """The first words (singular, at most `limit`) up to the first function word: the noun phrase that follows."""
    out = []
    for w in words[:limit]:
        if w in STOP:
            break
        out.append(singular(w))
    return out


def asked_phrase(q: Question) -> list[str]:
    """The noun phrase after which / what / how many (singular words: "which coastal vehicles" gives coastal,
    vehicle), empty when the question starts otherwise."""
    words = q.words
    at = next((i for i, w in enumerate(words[:3]) if w in WHICH), None)
    if at is None:
        at = next((i + 1 for i, w in enumerate(words[:3]) if w == "how" and words[i + 1:i + 2] == ["many"]), None)
    return noun_phrase(words[at + 1:]) if at is not None else []


def excludes(q: Question, names: list[str] | None = None) -> bool:
    """Does the question exclude something? A negation that bounds a comparison ("no more than 40", "not higher
    than 2": a bound, not an exclusion) does not count, nor one inside a name the question says (`names`: the
    values it names whole, such as a title "Nobody Knows")."""
    words = q.words
    inside: set[int] = set()
    for name in names or ():
        span = [w for w in fold(name).split() if w]
        for i in range(len(words) - len(span) + 1):
            if span and words[i:i + len(span)] == span:
                inside.update(range(i, i + len(span)))
    for i, w in enumerate(words):
        if i in inside:
            continue
        if w in NEGATION and not any(x == "than" or x in COMPARATIVE for x in words[i + 1:i + 6]):
            return True
    return False


def verb_negated(q: Question) -> bool:
    """Is the negation on the verb of the things asked about ("that do not have", "does not use", "have not
    booked", "with no", "without", "never"), rather than on a thing joined to them ("visits that are not on a
    Monday", "other than")?"""
    words = q.words
    for i, w in enumerate(words):
        if w in ("without", "never") or (w == "no" and i > 0 and words[i - 1] in ("with", "have", "has", "had")):
            return True
        if w == "not" and i > 0 and words[i - 1] in ("do", "does", "did", "have", "has", "had"):
            return True
        if w in ("don't", "doesn't", "didn't", "dont", "doesnt", "didnt", "haven't", "hasn't", "hadn't"):
            return True
    return False


def asks_per_group(q: Question) -> bool:
    """Does the question ask for one answer per group ("for each X", "in every X", "for the different X")? Not
    `Question.grouped` alone: "miles per gallon" and "each time" group nothing."""
    return bool(re.search(r"\b(?:for|in|of|by) (?:each|every)\b|\bfor (?:all )?(?:of )?(?:the )?different\b",
                          fold(q.text)))


def ranks_itself(q: Question, column: str, table: str = "") -> bool:
    """Does the question put the column right after its time superlative ("the latest year", "the earliest
    start"): then that column is what is ranked, whatever its type. The words the column shares with its table's
    name are the table's ("the most recent visit" does not name visit_fee)."""
    from itertools import pairwise

    from ontocore.embeddings import split_name

    names = ({singular(w) for w in split_name(column).split()} - {singular(w) for w in split_name(table).split()}
             - STOP)
    words = q.words
    return any(w in TIME_SUPERLATIVE and singular(n) in names for w, n in pairwise(words))


def named_sides(q: Question, mentions: list) -> list[str]:
    """The things a comparison question names ("does A have more X than B", "which of A or B"): values the
    question names whole, two or more."""
    words = set(q.words)
    before_than = {a for a, b in zip(q.words, q.words[1:]) if b == "than" and len(a) > 4 and a.endswith("er")}
    if not (((words & COMPARATIVE or before_than) and "than" in words) or ("or" in words and q.head)
            or (q.kind == "yesno" and words & IN_TIME)):  # "was A founded before B?"
        return []
    # only names the question writes as names (capitalised or quoted), not common words that happen to be values
    proper = {fold(n) for n in q.names + q.quoted}
    names = list(dict.fromkeys(m.value for m in mentions if getattr(m, "exact", False)
                               and any(fold(m.text) in p or f" {p} " in f" {fold(m.text)} " for p in proper)))
    return names if len(names) >= 2 else []  # (a name with "and" inside: "Bread and Salt Press" holds two names)


def _spans(words: list[str], phrase: list[str]) -> list[tuple[int, int]]:
    n = len(phrase)
    return [(i, i + n) for i in range(len(words) - n + 1) if n and words[i:i + n] == phrase]


def both_named(q: Question, mentions: list) -> list[tuple[str, str]]:
    """Pairs of values of one column that the question joins with "and" ("that speak A and B", "both A and B"),
    and of any two named things after "both" (A a row of one table, B a value of another's link): the things asked
    have both, not either."""
    from ontocore.text import tokens

    exact = [m for m in mentions if getattr(m, "exact", False)]
    words = q.words
    pairs = []
    for a in exact:
        for b in exact:
            if a is b or fold(a.value) == fold(b.value):
                continue
            for start, end in _spans(words, tokens(a.text)):
                if (a.table, a.column) != (b.table, b.column) and words[max(start - 1, 0):start] != ["both"]:
                    continue
                if end < len(words) and words[end] == "and" and _spans(words[end + 1:], tokens(b.text))[:1] == [
                        (0, len(tokens(b.text)))]:
                    pairs.append((a.value, b.value))
    return list(dict.fromkeys(pairs))
