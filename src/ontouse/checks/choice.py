"""A choice among named things: "Which was built first, A or B?", "Who is older, A or B?" asks for one of the
things it names, so the answer is one of them. A plan that returns the values it compares (the two dates, the two
ages) answers another question; the model is told to return the thing instead."""

from __future__ import annotations

from dataclasses import replace

from ontocore.text import fold

from ..answer import Cell
from ..question import Question
from ..sqlplan.plan import Col, Item, Order, Plan, Query
from ..sqlplan.schema import Schema
from .check import Check
from .named import compared_column, compared_way

ASKING = frozenset({"which", "who"})


def offered(q: Question, mentions: list) -> list[str]:
    """The things a "which ..., A or B?" question offers to choose from: values it names whole, written as names,
    joined by "or"; [] when the question offers no choice."""
    if q.kind != "other" or "or" not in q.words or not ASKING & set(q.words[:2]):
        return []
    proper = {fold(n) for n in q.names + q.quoted}  # written as names: capitalised ("Glass of Water") or quoted
    names = list(dict.fromkeys(m.value for m in mentions if getattr(m, "exact", False)
                               and any(fold(m.text) in p or f" {p} " in f" {fold(m.text)} " for p in proper)))
    return names if len(names) >= 2 else []


def _names(cell: Cell) -> set[str]:
    return {fold(x) for x in (cell.value, cell.label) if x}


def choice_problem(q: Question, rows: list[list[Cell]], mentions: list) -> str:
    things = offered(q, mentions)
    if not things or not rows:
        return ""
    wanted = {fold(t) for t in things}
    if any(_names(cell) & wanted for row in rows for cell in row):
        return ""
    return (f"the question asks which of {' or '.join(repr(t) for t in things)} it is, but the result names "
            "neither: select that thing (its iri) from the rows of those named, ordered by the value compared, "
            "and keep one (LIMIT 1), not the values compared.")


def chosen_thing(q: Question, plan: Plan, mentions: list, schema: Schema) -> Query | None:
    """The repair of a choice answered by the value compared: a plan that ranks the named things (ORDER BY the
    value ... LIMIT) and selects the value selects the thing of the ranked row instead; a plan that lists the
    values of the named things is ranked by the value, the way the question's words say ("earlier": the
    smaller). None when the words say no way or the plan reads no number or date."""
    if not offered(q, mentions) or not isinstance(plan, Query):
        return None
    if not plan.order_by or plan.limit is None:
        c = compared_column(plan, schema)
        way = compared_way(q, schema, c) if c is not None and not plan.group_by else ""
        if not way:
            return None
        plan = replace(plan, order_by=(Order(c, way == ">"),), limit=1)
    key = plan.order_by[0].expr
    if not isinstance(key, Col) or any(isinstance(it.expr, Col) and it.expr.column == "iri" for it in plan.select):
        return None
    return replace(plan, select=(Item(Col(key.alias, key.table, "iri")),), distinct=False)


ONE_OF_THE_NAMED = Check("one_of_the_named", 215, lambda a: choice_problem(a.q, a.rows, a.mentions),
                         lambda a: bool(offered(a.q, a.mentions)),
                         repair=lambda a: chosen_thing(a.q, a.plan, a.mentions, a.schema),
                         repair_note="the thing of the ranked row, not the value compared", repair_rank=2)
