"""Checks of superlatives and rankings: the thing a superlative asks for (not only its value), the direction of
the ranking, a ranking at all, a ranking by an average nobody asked for, one top value or the top of each group, a
time superlative ranked by a date, and an amount ranked by alphabetical order; with the bounded repairs (the
ranking turned around, ranked by the values themselves)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ontocore.text import fold, singular

from ..answer import Cell
from ..question import (AVERAGED, DOWN, ORDER_WORDS, ORDINAL, QUANTITY, TIME_SUPERLATIVE, UP, WHICH, Question,
                        asks_per_group, noun_phrase, ranks_itself, superlative_direction)
from ..sqlplan.plan import Agg, Col, Order, Plan, Query, Scalar, SetQuery, walk
from ..sqlplan.schema import Schema, is_number_text
from .check import Check
from .plan_parts import aggregates_in, scalars_in
from .tables import column_words, is_numeric, phrase_tables


def superlative_thing_problem(q: Question, plan: Plan, schema: Schema, table_texts: Any = None,
                              mentions: list | None = None) -> str:
    """"What is the highest tower?", "the lightest bike", "the first ship launched": when the words after the
    superlative (or first / last / oldest ...) name a table (and no column of it), the question asks for that
    thing; a plan that returns only numbers or dates (the top value, MAX or MIN) answers "how high" or "when", not
    "which". ('' when the superlative qualifies a column, as in "the highest price", the superlative follows "of"
    as in "the height of the tallest X", the question asks "how ..." or "when", its which/what noun is a column
    ("in which year did the oldest X open"), or the plan returns anything but numbers.) `table_texts(table)`: a
    table's labels in every language (the question may be the English reading of another language's, over an
    ontology labelled in that one). The words after the superlative may also name a value the plan selects the
    things by ("the cheapest tulip", a value of the products' kind: the product is asked); the group keys of a
    per-group answer ("per depot, the heaviest parcel") are not the answer's own columns."""
    if q.kind in ("count", "yesno") or not isinstance(plan, Query) or not plan.select or {"how", "when"} & set(
            q.words):
        return ""  # ("how much does the most recent X cost", "when did the first X open" ask for the value)
    if q.head and any(singular(q.head) in column_words(schema, Col("", t.name, c.name))
                      for t in schema.tables.values() for c in t.columns.values() if c.kind != "id"):
        return ""  # "in which year did the oldest X open": the head names a column, the value is asked for
    words = q.words
    head = phrase_tables(schema, [q.head], table_texts) if q.head and words[0] in WHICH else []
    answer = list(plan.select)
    if head and any(w in (UP | DOWN | ORDINAL) - QUANTITY for w in words) and not asks_per_group(q) and all(
            is_numeric(schema, it.expr, dates=True) for it in answer):  # "which X has the lowest Y": an X is asked
        return (f"the question asks which {head[0].name} has the "
                f"{' '.join(w for w in words if w in UP | DOWN | ORDINAL)} value, but the query returns only the "
                f"number: select the {head[0].name} (ORDER BY the value ... LIMIT 1), and the value beside it if "
                "you like.")
    # "the height of the tallest X" asks for a value of the top thing: only a superlative not after "of" asks for it
    # ("maximum" / "minimum" name a quantity: "the maximum death toll" asks for the number)
    phrases = [noun_phrase(words[i + 1:]) for i, w in enumerate(words[:-1]) if w in (UP | DOWN | ORDINAL) - QUANTITY
               and "of" not in words[max(0, i - 2):i]]
    if (asks_per_group(q) or "per" in words) and not q.head:  # "per depot, the heaviest parcel": not the depots
        keys = {g.alias.lower() for g in plan.group_by if isinstance(g, Col)}
        answer = [it for it in plan.select if it.expr not in plan.group_by and not (
            isinstance(it.expr, Col) and it.expr.alias.lower() in keys)] or answer
    for phrase in phrases:
        tables = phrase_tables(schema, phrase, table_texts) if phrase else []
        if not tables and phrase and any(
                m.exact and [singular(w) for w in fold(m.text).split()[:1]] == [singular(phrase[0])]
                for m in mentions or []):
            tables = [t for t in (schema.table(plan.sources[0].table),) if t is not None]  # the things selected
        elif not tables or any(phrase[0] in column_words(schema, Col("", t.name, c.name))
                               for t in tables for c in t.columns.values() if c.kind != "id"):
            continue
        if tables and all(is_numeric(schema, it.expr, dates=True) for it in answer):
            return (f"the question asks which {tables[0].name} is the "
                    f"{' '.join(w for w in words if w in UP | DOWN | ORDINAL)}"
                    f", but the query returns only the number: select the {tables[0].name} (ORDER BY the value "
                    "... LIMIT 1), and the value beside it if you like.")
    return ""


def plan_direction(plan: Plan) -> str:
    """"up" / "down" when the plan picks the top / bottom (ORDER BY ... LIMIT, MAX / MIN), else ""."""
    if not isinstance(plan, Query):
        return ""
    dirs = set()
    if plan.order_by and plan.limit is not None:
        dirs.add("up" if plan.order_by[0].desc else "down")
    else:
        for it in plan.select:
            for a in aggregates_in(it.expr):
                if a.func in ("max", "min"):
                    dirs.add("up" if a.func == "max" else "down")
        for e in scalars_in(plan.where):
            d = plan_direction(e.query)
            if d:
                dirs.add(d)
    return dirs.pop() if len(dirs) == 1 else ""


def _ranks(plan: Plan) -> bool:
    """Does any part of the plan pick a top or bottom (ORDER BY ... LIMIT, MAX, MIN), at any depth?"""
    return any((isinstance(n, Query) and bool(n.order_by) and n.limit is not None)
               or (isinstance(n, Agg) and n.func in ("max", "min")) for n in walk(plan))


def direction_problem(q: Question, plan: Plan) -> str:
    want, got = superlative_direction(q), plan_direction(plan)
    if not want or not got or want == got or q.kind == "yesno":
        return ""
    words = "most / highest / largest" if want == "up" else "least / lowest / smallest"
    order = "ORDER BY ... DESC or MAX" if want == "up" else "ORDER BY ... ASC or MIN"
    return f"the question asks for the {words}, but the query picks the other end: use {order}."


def flip_direction(plan: Plan) -> Plan | None:
    """The plan with its superlative turned around (ORDER BY direction, MAX <-> MIN), None when it has none."""
    if not isinstance(plan, Query):
        return None
    if plan.order_by and plan.limit is not None:
        first = replace(plan.order_by[0], desc=not plan.order_by[0].desc)
        return replace(plan, order_by=(first,) + plan.order_by[1:])

    def swap(e: Any) -> Any:
        from dataclasses import fields, is_dataclass

        if isinstance(e, Agg) and e.func in ("max", "min"):
            return replace(e, func="min" if e.func == "max" else "max")
        if isinstance(e, Scalar):
            flipped = flip_direction(e.query)
            return replace(e, query=flipped) if flipped is not None else e
        if is_dataclass(e) and not isinstance(e, type) and not isinstance(e, (Query, SetQuery)):
            return replace(e, **{f.name: swap(getattr(e, f.name)) for f in fields(e)})
        if isinstance(e, tuple):
            return tuple(swap(x) for x in e)
        return e

    flipped = replace(plan, select=swap(plan.select), where=swap(plan.where))
    return flipped if flipped != plan else None


def _ranked_average(q: Question, plan: Plan) -> Agg | None:
    """The AVG(...) a plan ranks its groups by when the question asks for no average (none of AVERAGED) and the
    plan returns none (AVG only in ORDER BY): "which X has the most reliable Y" asks for the X of the top Y,
    not for the X whose Ys are best on average."""
    if not isinstance(plan, Query) or not plan.group_by or plan.limit is None or len(plan.order_by) != 1:
        return None
    agg = plan.order_by[0].expr
    if (not isinstance(agg, Agg) or agg.func != "avg" or agg.arg is None or AVERAGED & set(q.words)
            or aggregates_in((plan.select, plan.having))):
        return None
    return agg


def average_rank_problem(q: Question, plan: Plan) -> str:
    """A superlative answered by ranking groups by an average the question does not ask for (`_ranked_average`)."""
    agg = _ranked_average(q, plan)
    if agg is None:
        return ""
    return ("the query ranks groups by an average (AVG in ORDER BY), but the question asks for no average: rank "
            "the rows by the value itself (ORDER BY the column, without GROUP BY), or say MAX / MIN.")


def ranked_by_values(q: Question, plan: Plan) -> Plan | None:
    """The plan ranked by the values themselves (the bounded repair of average_rank_problem): with LIMIT 1, the
    rows ordered by the averaged column, without GROUP BY (the X of the top Y); with a larger limit, each group
    ranked by its top value (MAX, or MIN ranking upward), so that a group comes once."""
    agg = _ranked_average(q, plan)
    if agg is None:
        return None
    desc = plan.order_by[0].desc
    if plan.limit == 1:
        return replace(plan, group_by=(), order_by=(Order(agg.arg, desc),), distinct=False)
    return replace(plan, order_by=(Order(Agg("max" if desc else "min", agg.arg), desc),))


FREQUENCY = frozenset({"common", "frequent", "often", "usual"})


def ranked_by_frequency(q: Question, plan: Plan) -> Plan | None:
    """"The most common / least frequent X" asks for the value that occurs most (least) often among the rows: a
    plan that lists the values without ranking them (or ranks them alphabetically: ORDER BY the selected text
    itself ... LIMIT) is ranked by code: GROUP BY the value, ORDER BY COUNT(*), LIMIT (1 unless the plan said
    more). None when the question asks no frequency, the plan groups or aggregates, or returns more than one
    column."""
    direction = superlative_direction(q)
    if (not direction or not FREQUENCY & set(q.words) or not isinstance(plan, Query) or len(plan.select) != 1
            or plan.group_by or plan.having is not None or aggregates_in(plan.select)):
        return None
    value = plan.select[0].expr
    if plan.order_by and (plan.limit is None or [o.expr for o in plan.order_by] != [value]):
        return None  # ranked by something else: not a list of values
    return replace(plan, group_by=(value,), order_by=(Order(Agg("count"), direction == "up"),),
                   limit=plan.limit or 1, distinct=False)


def ranking_problem(q: Question, plan: Plan) -> str:
    """A superlative question ("the most X") whose plan picks no top or bottom anywhere answers another question."""
    if _ranks(plan):
        return ""
    return ("the question asks for a top or bottom (a superlative), but the query ranks nothing: order by the asked "
            "value and LIMIT, or compare with MAX / MIN.")


def one_top_problem(q: Question, plan: Plan, rows: list[list[Cell]]) -> str:
    """"What is the largest X, and which Y has it?" (a superlative, and no word of groups: each, every, per, by)
    answered by MAX or MIN per group with no LIMIT gives the top of every group, several rows where one is asked."""
    if (not isinstance(plan, Query) or not plan.group_by or plan.limit is not None or len(rows) < 2
            or {"each", "every", "per", "by", "different", "all"} & set(q.words) or asks_per_group(q)):
        return ""
    if not any(a.func in ("max", "min") for it in plan.select for a in aggregates_in(it.expr)):
        return ""
    return ("the question asks for one top value, but the query gives the top of each group (GROUP BY with MAX / "
            "MIN): rank all rows (ORDER BY the value ... LIMIT 1), or compare with the overall MAX / MIN.")


def _ranked(plan: Query) -> list[Any]:
    """What the plan picks the top or bottom of: ORDER BY ... LIMIT's first key, and MAX / MIN's arguments."""
    out = [plan.order_by[0].expr] if plan.order_by and plan.limit is not None else []
    return out + [a.arg for it in plan.select for a in aggregates_in(it.expr) if a.func in ("max", "min")]


def time_rank_problem(q: Question, plan: Plan, schema: Schema) -> str:
    """"The most recent / latest / earliest / newest X" ranks X by a date or a time: a plan that ranks by a number
    or a text of a table that has a date or time column answers another superlative ("the costliest")."""
    if not isinstance(plan, Query) or not set(q.words) & TIME_SUPERLATIVE:
        return ""
    for e in _ranked(plan):
        if not isinstance(e, Col):
            continue
        table = schema.table(e.table)
        col = table.column(e.column) if table else None
        if col is None or col.kind != "value" or col.sql_type in ("DATE", "TIMESTAMP", "TIME") or ranks_itself(
                q, col.name, table.name):
            continue
        times = [c.name for c in table.columns.values() if c.kind == "value"
                 and c.sql_type in ("DATE", "TIMESTAMP", "TIME")]
        if times:
            return (f"the question asks for the most recent / earliest, but the query ranks by {e.column}, which is "
                    f"no date: rank by {' or '.join(times[:2])} (ORDER BY ... LIMIT 1) and select {e.column}.")
    return ""


def _numeric_text(col: Any) -> bool:
    """Are a text column's values numbers, dates or times written as text (their order is an amount's)?"""
    samples = [str(v).strip() for v in getattr(col, "samples", []) or []]
    return bool(samples) and all(is_number_text(v) or v[:1].isdigit() for v in samples)  # numbers, dates, times


def text_rank_problem(q: Question, plan: Plan, schema: Schema) -> str:
    """A superlative ("the rarest", "the most", "the cheapest") answered by the top row of an alphabetical order
    (ORDER BY a text column ... LIMIT) ranks by spelling, not by an amount, unless the question asks for an order
    of names."""
    if not isinstance(plan, Query) or not plan.order_by or plan.limit is None or ORDER_WORDS.search(fold(q.text)):
        return ""
    if not any(w in UP or w in DOWN or (len(w) > 5 and w.endswith("est")) for w in q.words):
        return ""  # no superlative ("the first three names"): an order of names may be meant
    e = plan.order_by[0].expr
    table = schema.table(e.table) if isinstance(e, Col) else None
    col = table.column(e.column) if table else None
    if col is None or col.kind != "value" or col.sql_type != "TEXT" or _numeric_text(col):
        return ""
    return (f"the query picks the top row by {e.column}, a text (in alphabetical order), but the question ranks "
            "by an amount: order by the number or the count the question ranks by.")


SUPERLATIVE_THING_RETURNED = Check(
    "superlative_thing_returned", 120,
    lambda a: superlative_thing_problem(a.q, a.plan, a.schema, a.table_texts, a.mentions),
    lambda a: bool((UP | DOWN | ORDINAL) & set(a.q.words)))  # (both ways too: "the lightest and the heaviest X")
SUPERLATIVE_DIRECTION = Check(
    "superlative_direction", 130, lambda a: direction_problem(a.q, a.plan),
    lambda a: bool(superlative_direction(a.q) and plan_direction(a.plan)),
    repair=lambda a: flip_direction(a.plan), repair_note="ORDER BY / MAX-MIN turned around", repair_rank=1)
RANKED_AS_ASKED = Check(
    "ranked_as_asked", 140, lambda a: average_rank_problem(a.q, a.plan),
    lambda a: bool(superlative_direction(a.q) and plan_direction(a.plan)),
    repair=lambda a: ranked_by_values(a.q, a.plan), repair_note="ranked by the values, not an average",
    repair_rank=6)
SUPERLATIVE_RANKED = Check("superlative_ranked", 150, lambda a: ranking_problem(a.q, a.plan),
                           lambda a: bool(superlative_direction(a.q)) and not plan_direction(a.plan)
                           and a.q.kind != "yesno",
                           repair=lambda a: ranked_by_frequency(a.q, a.plan),
                           repair_note="the values ranked by how often they occur", repair_rank=6)
ONE_TOP_VALUE = Check("one_top_value", 280, lambda a: one_top_problem(a.q, a.plan, a.rows),
                      lambda a: bool(superlative_direction(a.q)) and a.q.kind not in ("yesno", "count"))
TIME_RANKED = Check("time_ranked", 290, lambda a: time_rank_problem(a.q, a.plan, a.schema),
                    lambda a: bool(set(a.q.words) & TIME_SUPERLATIVE))
RANKED_BY_AMOUNT = Check("ranked_by_amount", 320, lambda a: text_rank_problem(a.q, a.plan, a.schema),
                         lambda a: isinstance(a.plan, Query) and bool(a.plan.order_by) and a.plan.limit is not None,
                         repair=lambda a: ranked_by_frequency(a.q, a.plan),
                         repair_note="the values ranked by how often they occur", repair_rank=6)
