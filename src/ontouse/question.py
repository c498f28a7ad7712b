"""A question, parsed once: its words, the numbers and quoted or capitalised names it mentions, and the kind of
answer it wants. The kinds come from English grammar (interrogatives, auxiliaries, quantifiers), not from any
domain: a yes/no question opens with an auxiliary verb, a count asks "how many", a per-group answer says "each",
"per" or "every"."""

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
    q.asks_names = any(singular(w) == "name" for w in q.words)
    for i, w in enumerate(q.words[:4]):  # "which X", "in which X", "what X" (not "what is")
        if w in ("which", "what") and i + 1 < len(q.words) and q.words[i + 1] not in STOP:
            q.head = singular(q.words[i + 1])
            break
    return q


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


def asks_several(q: Question) -> bool:
    """Does a question ask for things in the plural ("which rangers earn the most"), not exactly one ("which
    ranger earns the most", "who ...")?"""
    for i, w in enumerate(q.words[:4]):
        if w in ("which", "what") and i + 1 < len(q.words):
            noun = q.words[i + 1]
            return noun not in STOP and singular(noun) != noun
    return False
