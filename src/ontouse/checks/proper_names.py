"""A proper name the question writes that the data does not hold and the plan never compares ("the ferries
registered in the Northern Isles", where the data writes the place otherwise): a plan that drops the condition after
the value check refused the name answers the question without it, and its number looks right. The named values
the data holds are checked by named_values_used (named.py); this check reads the names the linking found nothing
for: capitalized words that do not open a sentence, and quoted texts, that name no table or column of the view; in
a question that reads as English (two English function words of three letters or more)."""

from __future__ import annotations

import re

from ontocore.text import QUOTED, fold, quoted, singular

from ..language.detection import english_cue
from ..question import Question
from ..sqlplan.plan import Plan
from ..sqlplan.schema import Schema
from .check import Check
from .plan_parts import literals_in
from .tables import table_terms

# capitalized words that are no names of things (calendar words, the first person)
_NOT_NAMES = frozenset("i january february march april may june july august september october november december "
                       "monday tuesday wednesday thursday friday saturday sunday".split())


def written_names(text: str) -> list[str]:
    """The proper names the text writes: runs of capitalized words that do not open a sentence, and quoted texts
    ("How many berths does Lower Quay have? List 'Dock 4' too." -> ["Lower Quay", "Dock 4"])."""
    names = quoted(text)
    rest = QUOTED.sub(" ", text)
    run: list[str] = []
    tokens = rest.split()
    for i, token in enumerate(tokens + [""]):
        word = token.strip(",;:()?!.")
        before = tokens[i - 1] if i else ""
        abbreviation = bool(re.fullmatch(r"[A-Z][a-z]{0,2}\.", before))  # "Mr. Holt", "St. Ives"
        opens = i == 0 or (before.endswith((".", "?", "!", ":")) and not abbreviation)
        if word[:1].isupper() and not opens and fold(word) not in _NOT_NAMES:
            run.append(word)
            if token.endswith((",", ";", "?", "!", ")")) or (token.endswith(".") and not re.fullmatch(
                    r"[A-Z][a-z]{0,2}\.", token)):
                names.append(" ".join(run))
                run = []
            continue
        if run:
            names.append(" ".join(run))
            run = []
    return list(dict.fromkeys(names))


def _view_words(schema: Schema) -> set[str]:
    from ontocore.embeddings import split_name

    words = {"id"} | {w for t in schema.tables.values() for term in table_terms(t) for w in term.split()}  # (rows)
    for t in schema.tables.values():
        for c in t.columns.values():
            for text in (split_name(c.name), c.label, c.english):
                words |= {singular(w) for w in re.findall(r"[^\W\d_]+", fold(text or ""))}
    return words


def unmatched_names(q: Question, plan: Plan, mentions: list, schema: Schema) -> list[str]:
    """The names `written_names` finds that no mention of the question covers, that do not name the view's tables
    or columns, and that no text the plan compares contains (or is contained in, 3 letters or more)."""
    said = [fold(getattr(m, "text", "")) for m in mentions] + [fold(getattr(m, "value", "")) for m in mentions]
    lits = [x for x in literals_in(plan) if x]
    view = None
    out = []
    for name in written_names(q.text):
        n = fold(name)
        if any(s and (s in n or n in s) for s in said):
            continue
        if any(n == x or n in x or (len(x) >= 3 and x in n) for x in lits):
            continue
        if any(len(w) > 2 and any(w in x for x in lits) for w in n.split()):
            continue  # a part of it compared (LIKE '%word%')
        view = _view_words(schema) if view is None else view
        if all(singular(w) in view or (w.endswith("s") and w[:-1] in view) for w in re.findall(r"[^\W\d_]+", n)):
            continue  # "the ID", "each Ranger": the view's own names
        out.append(name)
    return out


def unmatched_name_problem(q: Question, plan: Plan, mentions: list, schema: Schema) -> str:
    missing = unmatched_names(q, plan, mentions, schema)
    if not missing:
        return ""
    return (f"the question names {' and '.join(repr(s) for s in missing)}, which the data does not hold as written, "
            "but the query compares nothing with it: keep the condition on the column that holds such names (the "
            "data may write it otherwise: LIKE '%word%' for a part of it).")


# (English only: other languages capitalize other words, and a question in one is read after its translation)
NAMES_COMPARED = Check("names_compared", 225, lambda a: unmatched_name_problem(a.q, a.plan, a.mentions, a.schema),
                       lambda a: english_cue(a.q.words) >= 2)
