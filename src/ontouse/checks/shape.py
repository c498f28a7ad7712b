"""Checks of the answer's shape: a number for "how many", values that are not blank, names asked and one number
returned, a second thing asked and one column returned, and plans that only return what the question itself names
(the names the WHERE clause fixes, a value's own row, the value the plan filters by)."""

from __future__ import annotations

import re
from typing import Any

from ontocore.text import fold, singular
from rdflib.namespace import DCTERMS, RDFS, SKOS

from ..answer import Cell
from ..question import AMOUNT, SECOND_ASK, Question
from ..sqlplan.plan import Agg, And, Cmp, Col, InList, Item, Join, Like, Lit, Plan, Query, Source
from ..sqlplan.schema import Column, Schema, Table
from .check import Check
from .plan_parts import fixed_names, literals_in
from .tables import asked_tables, is_numeric, links_named, question_link


def is_number(cell: Cell) -> bool:
    try:
        float(cell.value)
        return not cell.is_iri
    except ValueError:
        return False


def shape_problem(q: Question, rows: list[list[Cell]], aggregate_only: bool) -> str:
    """Why the result does not have the shape the question asks for ('' when it does)."""
    if q.kind == "count" and not q.grouped and not names_then_count(q) and rows:
        if len(rows) > 1 and not aggregate_only:
            return ("the question asks how many, but the query returns a list of rows instead of a number: "
                    "count them with COUNT(...).")
        if len(rows) == 1 and not any(is_number(c) for c in rows[0]):
            return "the question asks how many, but the query returns no number: use COUNT(...)."
    return ""


def blank_problem(rows: list[list[Cell]]) -> str:
    """Values that are empty or blank are never stated."""
    if rows and all(not c.value.strip() for r in rows for c in r):
        return "the query returns only empty values: select the column that holds what the question asks for."
    return ""


def echo_problem(plan: Plan, schema: Schema) -> str:
    """A query over joined tables that selects only the names it filters on returns the question's own words
    ("the department of the employee named X" answered with X). ('' when the plan is not such a query.)"""
    if not isinstance(plan, Query) or len(plan.sources) < 2 or not plan.select:
        return ""
    conds = plan.where.items if isinstance(plan.where, And) else (plan.where,) if plan.where is not None else ()
    named: dict[str, set[str]] = {}  # alias -> the columns compared with a constant
    for c in conds:
        if isinstance(c, Cmp) and c.op == "=" and isinstance(c.left, Col) and isinstance(c.right, Lit):
            named.setdefault(c.left.alias.lower(), set()).add(c.left.column.lower())
        elif isinstance(c, (Like, InList)) and isinstance(c.expr, Col):
            named.setdefault(c.expr.alias.lower(), set()).add(c.expr.column.lower())
    if not named:
        return ""
    echoed = []
    for it in plan.select:
        e = it.expr
        if not isinstance(e, Col) or e.alias.lower() not in named:
            return ""
        table = schema.table(e.table)
        col = table.column(e.column) if table else None
        names = {x.name.lower() for x in table.columns.values() if x.is_label} if table else set()
        cols = named[e.alias.lower()]
        if col is None or not (col.name.lower() in cols or (col.is_label and cols & names)):
            return ""
        echoed.append(f"{e.alias}.{col.name}")
    return (f"the query returns {', '.join(echoed)}, which the question itself names (the WHERE clause fixes it): "
            "select the column of the joined table that the question asks for instead.")


# properties that document a thing rather than state a fact of it
NOTES = frozenset({RDFS.comment, RDFS.seeAlso, RDFS.isDefinedBy, SKOS.definition, SKOS.note, SKOS.scopeNote,
                   DCTERMS.description})


def value_echo_problem(plan: Plan, schema: Schema) -> str:
    """A query over one table of things that serve as values (a colour, a status: named individuals that other
    things link to, with nothing but names of their own) which fixes that table's own name to a constant and
    returns only those rows or their count: it restates the value the question names, or counts it (1), instead
    of the things that have it ("which X have the status V" answered "V"). ('' when the plan is not such a query.)"""
    if not isinstance(plan, Query) or len(plan.sources) != 1 or not plan.select or plan.group_by:
        return ""
    source = plan.sources[0]
    table = schema.table(source.table)
    if table is None:
        return ""
    if any(c.kind == "value" and not c.is_label and c.prop not in NOTES for c in table.columns.values()):
        return ""
    referring = [f"{t.name}.{c.name}" for t in sorted(schema.tables.values(), key=lambda t: -t.count)
                 if t.name != table.name for c in t.columns.values()
                 if c.kind == "link" and not c.hidden and c.target.lower() == table.name.lower()]
    if not referring:
        return ""
    names = {c.name.lower() for c in table.columns.values() if c.is_label} | {"iri"}
    fixed = fixed_names(plan, names)
    if not fixed:
        return ""
    for it in plan.select:
        e = it.expr
        own = isinstance(e, Col) and e.column.lower() in names
        # a count of the rows themselves (not of what they link to: "how many members does the team X have")
        counted = isinstance(e, Agg) and e.func == "count" and (
            e.arg is None or (isinstance(e.arg, Col) and e.arg.column.lower() in names))
        if not (own or counted):
            return ""
    value = ", ".join(repr(v) for v in fixed[:3])
    return (f"{value} is a {table.name}, a value that other things have ({', '.join(referring[:4])}); the query "
            f"returns that value itself or counts it. Select (or count) the rows of the table the question asks "
            f"about, WHERE its column that links to {table.name} = {fixed[0]!r}.")


def things_with_value(q: Question, plan: Plan, schema: Schema, table_texts: Any = None) -> Plan | None:
    """The things that have a named value, in place of the value itself (the bounded repair of
    `not_the_value_itself`): "which stores does X manage" planned as the manager X's own row or its count reads
    the rows of the table the question names (asked_tables) joined by the one link between it and the value's
    table (`question_link`), under the same conditions - their count for a count question, else each once. None when
    the question names no such table, or no single link relates the two."""
    if not isinstance(plan, Query) or len(plan.sources) != 1 or plan.group_by:
        return None
    value = plan.sources[0]
    asked = [t for t in asked_tables(q, schema, table_texts) if t.name.lower() != value.table.lower()]
    table = schema.table(value.table)
    alias = next(a for a in ("things", "things_1", "things_2") if a != value.alias)
    join = question_link(q, asked[0], alias, table, value.alias) if asked and table is not None else None
    if join is None and asked and table is not None:  # several links between them: the one the question names
        join = _link_named(q, [asked[0]], table, alias, value.alias)[0]
    elif join is None and table is not None:
        own = links_named(q, [(table, c) for c in table.columns.values()], besides=table.name)
        if len(own) == 1:  # "how many rooms does the course X use": X's own link the question names
            col = Col(value.alias, table.name, own[0][1].name)
            select = Item(Agg("count", col, distinct=True)) if q.kind == "count" else Item(col)
            return Query(select=(select,), sources=(value,), where=plan.where, distinct=q.kind != "count")
        join, asked = _link_named(q, list(schema.tables.values()), table, alias, value.alias)
    if join is None:
        return None
    thing = Col(alias, asked[0].name, "iri")
    select = Item(Agg("count", thing, distinct=True)) if q.kind == "count" else Item(thing)
    return Query(select=(select,), sources=(Source(asked[0].name, alias), value), joins=(join,), where=plan.where,
                 distinct=q.kind != "count")


def _link_named(q: Question, tables: list[Any], table: Any, alias: str, value_alias: str) -> tuple[Any, list]:
    """The join of the things of `tables` that link to `table`'s rows by the one link the question names by a
    word's root ("how many pupils are in the grade X": `grade`), or by the only link there is; (None, [])
    otherwise."""
    referring = [(t, c) for t in tables if t.name != table.name for c in t.columns.values()
                 if c.kind == "link" and not c.hidden and c.target.lower() == table.name.lower()]
    pick = links_named(q, referring) or (referring if len(referring) == 1 else [])
    if len(pick) != 1:
        return None, []
    t, c = pick[0]
    return Join(Col(alias, t.name, c.name), Col(value_alias, table.name, "iri")), [t]


def restated_problem(q: Question, plan: Plan, rows: list[list[Cell]]) -> str:
    """An answer that is only one of the texts the plan filters by (one row, one column, equal to a constant of
    its WHERE clause) restates the question ("which shelf holds the lamp Aurora?" answered "Aurora").
    ('' when the answer is anything else.)"""
    if q.kind in ("yesno", "count") or not isinstance(plan, Query) or plan.where is None:
        return ""
    if len(rows) != 1 or len(rows[0]) != 1 or is_number(rows[0][0]):
        return ""
    cell = rows[0][0]
    said = {fold(t).strip() for t in (cell.value, cell.label) if t and not (t == cell.value and cell.is_iri)}
    filtered = {x.strip() for x in literals_in(plan.where)}
    if "or" in q.words and sum(1 for x in filtered if x and x in fold(q.text)) >= 2:
        return ""  # a choice between things the question names ("which came first, A or B?"): one of them
    if said & filtered:
        return (f"the answer {cell.label or cell.value!r} is the value the query filters by, so it restates the "
                "question: select the column that holds what the question asks about that thing.")
    return ""


def names_then_count(q: Question) -> bool:
    """"What are the names of ..., and how many ...": a count question that asks for names first (one count per
    thing named, the rows of a list)."""
    if q.kind != "count" or not q.asks_names:
        return False
    words = q.words
    first = next((i for i, w in enumerate(words) if singular(w) == "name"), len(words))
    return first <= 5 and any(w == "how" or w == "number" for w in words[first:])


def names_problem(q: Question, plan: Plan, aggregate_only: bool) -> str:
    """A question that asks for names ("what are the names of ...", also "... and how many ...") answered by one
    aggregate value and nothing else (a count, a sum, a maximum) answers another question."""
    if not q.asks_names or not aggregate_only or not isinstance(plan, Query) or q.kind == "yesno":
        return ""
    if q.kind == "count" and not names_then_count(q):
        return ""
    return ("the question asks for names, but the query returns only an aggregate (one number): select the names "
            "(with GROUP BY for a value per thing, or ORDER BY ... LIMIT for the top one).")


def names_per_thing(q: Question, plan: Plan, schema: Schema) -> Plan | None:
    """The repair of `names_returned` for "the names of the X and how many Y (each / they) ...": one aggregate of
    the rows joined to the X, over all of them, becomes one per X, shown with the X's name (grouped by the thing,
    so that two X of one name stay apart). Only for a plan that joins the X to other rows (an aggregate of the
    X's own rows per X would be one row each), without a ranking, and X a table the plan reads once."""
    from ..question import noun_phrase, superlative_direction
    from ..sqlplan.plan import columns_in, is_aggregate
    from .tables import phrase_tables

    if not isinstance(plan, Query) or plan.group_by or plan.order_by or plan.limit is not None:
        return None
    if len(plan.select) != 1 or not is_aggregate(plan.select[0].expr) or len(plan.sources) < 2 or \
            superlative_direction(q):
        return None
    words = q.words
    at = next((i for i, w in enumerate(words) if singular(w) == "name" and words[i + 1:i + 2] == ["of"]), None)
    if at is None:
        return None
    rest = words[at + 2:]
    while rest and rest[0] in ("the", "all", "each", "every", "our"):
        rest = rest[1:]
    tables = phrase_tables(schema, noun_phrase(rest))
    if len(tables) != 1:
        return None
    mine = [s for s in plan.sources if s.table.lower() == tables[0].name.lower()]
    label = tables[0].label_column() or _name_column(tables[0])
    if len(mine) != 1 or label is None:
        return None
    alias = mine[0].alias
    if any(c.alias == alias for c in columns_in(plan.select[0].expr)):
        return None  # an aggregate of the X's own values: one per X says nothing
    name = Col(alias, mine[0].table, label.name)
    return Query(select=(Item(name), plan.select[0]), sources=plan.sources, joins=plan.joins, where=plan.where,
                 group_by=(name, Col(alias, mine[0].table, "iri")), distinct=plan.distinct)


def _name_column(table: Table) -> Column | None:
    """The one text column of a table whose name ends in "name" (name, full_name), or None."""
    from ontocore.embeddings import split_name

    found = [c for c in table.columns.values() if c.kind == "value" and c.sql_type == "TEXT" and not c.hidden
             and split_name(c.name).split()[-1:] == ["name"]]
    return found[0] if len(found) == 1 else None


def second_ask_problem(q: Question, plan: Plan, schema: Schema) -> str:
    """A question that asks a second thing ("the highest X, and what Y is it?", "... as well as ...", "... along
    with ...") answered by one column answers only the first; one that asks how many and then a second amount
    ("how many rooms does each floor have, and what is their total area?") answered with one number answers one
    of them."""
    if q.kind == "yesno" or not isinstance(plan, Query):
        return ""
    text = fold(q.text)
    m = SECOND_ASK.search(text)
    if not m:
        return ""
    if len(plan.select) == 1:
        return (f"the question asks a second thing ('{m.group(0)} ...'), but the query returns one column: select "
                "a column for each thing asked.")
    after = set(re.findall(r"[^\W_]+", text[m.end():]))
    if "how many" not in text[:m.start()] or not (
            m.group(0).endswith("how many") or after & (AMOUNT | {"average", "mean"}) - {"many", "much"}):
        return ""
    numbers = [it for it in plan.select if it.expr not in plan.group_by and is_numeric(schema, it.expr)]
    if len(numbers) >= 2:
        return ""
    return (f"the question asks how many and a second amount ('{m.group(0)} ...'), but the query returns one "
            "number: select both (a COUNT and the other amount).")


SHAPE = Check("shape", 10, lambda a: shape_problem(a.q, a.rows, a.aggregate_only))
VALUES_PRESENT = Check("values_present", 20, lambda a: blank_problem(a.rows) if not a.aggregate_only else "")
NOT_AN_ECHO = Check("not_an_echo", 30, lambda a: echo_problem(a.plan, a.schema), lambda a: a.q.kind != "yesno")
NOT_THE_VALUE_ITSELF = Check(
    "not_the_value_itself", 40, lambda a: value_echo_problem(a.plan, a.schema), lambda a: a.q.kind != "yesno",
    repair=lambda a: things_with_value(a.q, a.plan, a.schema, a.table_texts),
    repair_note="the things that have the value, not the value itself", repair_rank=2)
NOT_THE_QUESTION_RESTATED = Check("not_the_question_restated", 50, lambda a: restated_problem(a.q, a.plan, a.rows),
                                  lambda a: a.q.kind != "yesno")
NAMES_RETURNED = Check("names_returned", 240, lambda a: names_problem(a.q, a.plan, a.aggregate_only),
                       lambda a: a.q.asks_names and a.q.kind != "yesno",
                       repair=lambda a: names_per_thing(a.q, a.plan, a.schema),
                       repair_note="one value per thing, shown with its name", repair_rank=3)
SECOND_ASK_ANSWERED = Check("second_ask_answered", 310, lambda a: second_ask_problem(a.q, a.plan, a.schema),
                            lambda a: bool(SECOND_ASK.search(fold(a.q.text))))
