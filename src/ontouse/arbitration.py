"""Arbitration between plans that answer one question differently: decided by what code can check, not by veto.

A result that passed every check is compared with a second plan, written by the model another way (ask.py). When
the two results differ, the second opinion is not a veto: code decides, by rules it can check, which result answers
the question, and says which rule decided (`Verdict.rule`):

- `same_thing`: the two results are one answer written two ways: a thing's IRI, its name and its id (a key the
  thing's table holds once per row) are the same value, so "the pet's id" and "the pet" agree;
- `shape`: only one result has the shape the question asks for: one number for "how many" (not a list), several
  rows or a value per group for "each / per", things or values (not one bare number) for "which / what / list";
- `named`: one result reads more of what the question names: its words (tables, columns, values) cover more of the
  question's own words ("the make of the models" read from a `make` column, not from `model`), and no fewer;
- `majority`: when no rule decides, a third plan is asked; the result two of the three plans give is the answer;
- `undecided`: otherwise the answer is "Unsure", and names the two readings left.

The rules read the question's grammar (how many, each, which) and the plans' names; they hold no word of any domain."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from ontocore.text import STOP, fold, stem, tokens

from .agreement import same_answer
from .answer import Cell
from .checks.shape import is_number
from .question import Question
from .sqlplan.plan import Lit, Plan, columns_in, sources_in, walk

MAX_ROWS = 200  # results compared cell by cell through the things' identifiers (larger ones as they are)


@dataclass
class Reading:
    """One plan's result as arbitration sees it."""

    how: str  # first | sampled | reworded
    plan: Plan
    rows: list[list[Cell]]


@dataclass(frozen=True)
class Verdict:
    rule: str  # same_thing | shape | named | majority | undecided
    chosen: int | None  # the index of the reading that answers (None: undecided)
    detail: str = ""


# ---- one answer written two ways -----------------------------------------------------------------------------
def _keys(cell: Cell, identifiers: Callable[[str], set[str]]) -> set[str]:
    out = {fold(cell.value)}
    if cell.entity:
        out |= {cell.entity} | {fold(v) for v in identifiers(cell.entity)}
    if cell.label:
        out.add(fold(cell.label))
    if is_number(cell):
        out.add(f"{float(cell.value):.6g}")
    return out


def _row_matches(narrow: list[Cell], wide: list[Cell], identifiers: Callable[[str], set[str]]) -> bool:
    """Does every cell of `narrow` name a value of a different cell of `wide`?"""
    free = [_keys(c, identifiers) for c in wide]
    for cell in narrow:
        mine = _keys(cell, identifiers)
        hit = next((i for i, keys in enumerate(free) if keys & mine), None)
        if hit is None:
            return False
        free.pop(hit)
    return True


def same_thing(first: Sequence[Sequence[Cell]], second: Sequence[Sequence[Cell]],
               identifiers: Callable[[str], set[str]]) -> bool:
    """Do two results give the same things, reading a thing's IRI, name and id as one value (agreement.same_answer
    first: the same values, or one result's columns a part of the other's)? Every row of each must match a row of
    the other."""
    if same_answer(first, second):
        return True
    if not first or not second or len(first) > MAX_ROWS or len(second) > MAX_ROWS:
        return False
    narrow, wide = sorted((list(first), list(second)), key=lambda rows: len(rows[0]))
    matched_wide = set()
    for row in narrow:
        hits = [i for i, other in enumerate(wide) if _row_matches(list(row), list(other), identifiers)]
        if not hits:
            return False
        matched_wide.update(hits)
    return len(matched_wide) == len(wide)


# ---- the shape the question asks for ---------------------------------------------------------------------------
_AMOUNT = frozenset({"average", "mean", "total", "sum", "number", "count", "maximum", "minimum", "percentage",
                     "ratio", "much", "many", "proportion", "share", "id", "ids", "code", "year", "age"})


def _one_number(rows: Sequence[Sequence[Cell]]) -> bool:
    return len(rows) == 1 and len(rows[0]) == 1 and is_number(rows[0][0])


def _asks_things(q: Question) -> bool:
    """"Which X ...", "List ...", "What are ...": things or values asked, not an amount."""
    w = q.words
    listing = bool(w) and (w[0] in ("which", "list") or (w[0] == "what" and len(w) > 1 and w[1] in ("are", "were")))
    return listing and not set(w) & _AMOUNT


def shape_fits(q: Question, rows: Sequence[Sequence[Cell]]) -> bool:
    """Whether a result has the shape the question asks for (a yes/no question: any)."""
    if q.kind == "yesno" or not rows:
        return True
    if q.kind == "count":
        if q.grouped:
            return len(rows) > 1 or len(rows[0]) > 1
        return len(rows) == 1 and any(is_number(c) for c in rows[0])
    if q.grouped:
        return len(rows) > 1 or len(rows[0]) > 1
    if _asks_things(q):
        return not _one_number(rows)  # things or values asked, not one bare number
    return True


# ---- what the question names -----------------------------------------------------------------------------------
def _stems(text: str) -> set[str]:
    from ontocore.embeddings import split_name

    return {stem(w) for w in tokens(split_name(text)) if w not in STOP and len(w) > 1}


def question_stems(q: Question) -> set[str]:
    return {stem(w) for w in q.words if w not in STOP and len(w) > 1 and not w.isdigit()}


def plan_stems(plan: Plan, schema: Any) -> set[str]:
    """The words of what a plan reads: its tables, its columns (names and labels) and its constants."""
    out: set[str] = set()
    for s in sources_in(plan):
        table = schema.table(s.table)
        out |= _stems(s.table) | (_stems(table.label) if table is not None and table.label else set())
    for c in columns_in(plan, deep=True):
        if c.column == "iri":
            continue
        table = schema.table(c.table)
        col = table.column(c.column) if table is not None else None
        out |= _stems(c.column) | (_stems(col.label) if col is not None and col.label else set())
    for lit in (n.value for n in walk(plan) if isinstance(n, Lit) and isinstance(n.value, str)):
        out |= {stem(w) for w in tokens(fold(lit)) if w not in STOP}
    return out


def coverage(q: Question, plan: Plan, schema: Any) -> set[str]:
    """The question's own words that name something the plan reads."""
    return question_stems(q) & plan_stems(plan, schema)


# ---- the decision ------------------------------------------------------------------------------------------------
def _describe(reading: Reading) -> str:
    from .results import MISSING

    cells = ["; ".join(c.text() or MISSING for c in row) for row in reading.rows[:3]]
    more = f" (and {len(reading.rows) - 3} more)" if len(reading.rows) > 3 else ""
    return f"{reading.how}: " + " | ".join(cells) + more


def arbitrate(q: Question, readings: Sequence[Reading], schema: Any,
              identifiers: Callable[[str], set[str]]) -> Verdict:
    """Which of two readings (each passed every check) answers the question (the rules of the module docstring, in
    order); Verdict.chosen None when no rule decides."""
    a, b = readings[0], readings[1]
    yesno = q.kind == "yesno"
    if same_answer(a.rows, b.rows, yesno) or (not yesno and same_thing(a.rows, b.rows, identifiers)):
        return Verdict("same_thing", 0, "the two plans give the same things (a thing's IRI, name and id are one)")
    if yesno:
        return Verdict("undecided", None, f"two readings: {_describe(a)}; {_describe(b)}")
    fits = [shape_fits(q, r.rows) for r in readings[:2]]
    if fits[0] != fits[1]:
        i = fits.index(True)
        return Verdict("shape", i, f"only the {readings[i].how} plan's result has the shape the question asks for")
    cover = [coverage(q, r.plan, schema) for r in readings[:2]]
    if cover[0] != cover[1] and (cover[0] > cover[1] or cover[1] > cover[0]):
        i = 0 if cover[0] > cover[1] else 1
        extra = ", ".join(sorted(cover[i] - cover[1 - i]))
        return Verdict("named", i, f"the {readings[i].how} plan reads more of what the question names ({extra})")
    return Verdict("undecided", None, f"two readings: {_describe(a)}; {_describe(b)}")


def majority(readings: Sequence[Reading], yesno: bool, identifiers: Callable[[str], set[str]]) -> int | None:
    """The first reading that another reading agrees with (two of three plans), None when all differ."""
    for i, r in enumerate(readings):
        for s in readings[i + 1:]:
            if same_answer(r.rows, s.rows, yesno) or (not yesno and same_thing(r.rows, s.rows, identifiers)):
                return i
    return None


__all__ = ["Reading", "Verdict", "arbitrate", "majority", "same_thing", "shape_fits", "coverage"]
