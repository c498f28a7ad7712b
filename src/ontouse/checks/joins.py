"""Checks of joins: two columns joined (or a column compared with the set a subquery selects) that nothing
relates, a table the question does not mention joined only to lead back to rows the plan reads already (with
its bounded repair: the plan without that table), and one that a table is reached through although it refers to
the asked rows itself."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ontocore.text import singular

from ..question import Question
from ..sqlplan.plan import Col, InQuery, Join, Plan, Query, Source, columns_in, walk
from ..sqlplan.schema import Schema
from .check import Check
from .plan_parts import aggregates_in, joins_in
from .tables import terms_of


def _joined_values_related(schema: Schema, j: Join) -> bool:
    """Do the two joined columns hold related values: a link and the thing it points at, a key column and the
    column it refers to, two columns referring to the same key or linking to the same table, or two columns of the
    same name (a value both tables hold: a state, a code)?"""
    lt, rt = schema.table(j.left.table), schema.table(j.right.table)
    a = lt.column(j.left.column) if lt else None
    b = rt.column(j.right.column) if rt else None
    if a is None or b is None or a.name.lower() == b.name.lower():
        return True
    if a.kind == "id" or b.kind == "id":
        thing, other = (rt, a) if b.kind == "id" else (lt, b)
        if other.kind == "id" or (other.kind == "link" and other.target):
            return True
        return bool(other.key_of) and other.key_of.split(".", 1)[0].lower() == thing.name.lower()

    def key(c) -> str:
        return c.key_of.lower() if c.key_of else ""
    if key(a) == f"{rt.name}.{b.name}".lower() or key(b) == f"{lt.name}.{a.name}".lower():
        return True
    return bool(_target(a)) and _target(a) == _target(b)


def _target(c: Any) -> str:
    """The table a column points at, by a link or by a key (lower case), or ''."""
    return (c.target if c.kind == "link" else c.key_of.split(".", 1)[0] if c.key_of else "").lower()


def _keyed(schema: Schema, c: Col) -> bool:
    """Is the column a link, or a key column that refers to another table's rows?"""
    table = schema.table(c.table)
    col = table.column(c.column) if table else None
    return col is not None and (col.kind == "link" or bool(col.key_of))


def _link_to_key(schema: Schema, a: Col, b: Col) -> bool:
    """Is one of the two a link to the other's table, and the other a column that tells that table's rows apart
    (a thing compared with its own number)?"""
    for x, y in ((a, b), (b, a)):
        tx, ty = schema.table(x.table), schema.table(y.table)
        cx, cy = (tx.column(x.column) if tx else None), (ty.column(y.column) if ty else None)
        if cx is not None and cx.kind == "link" and cx.target.lower() == ty.name.lower() and ty.tells_rows_apart(cy):
            return True
    return False


def compared_sets(plan: Plan) -> list[Join]:
    """`x IN (SELECT y ...)` and `x NOT IN (...)` of a plan, each as the join of x and y it stands for (a subquery
    that selects one column)."""
    return [Join(n.expr, n.query.select[0].expr) for n in walk(plan)
            if isinstance(n, InQuery) and isinstance(n.expr, Col) and isinstance(n.query, Query)
            and len(n.query.select) == 1 and isinstance(n.query.select[0].expr, Col)]


def join_problem(plan: Plan, schema: Schema) -> str:
    """A join of two columns whose values nothing relates (no link, no key between them, not the same value
    named alike) pairs rows by coincidence: the rows it returns are not related things (a link joined with a column
    that tells the linked table's rows apart pairs each row with the thing it links to). The same for a key or a
    link compared with a set (IN / NOT IN a subquery) of values it does not refer to: it never matches, and NOT IN
    keeps every row."""
    for j in joins_in(plan):
        if not (_joined_values_related(schema, j) or _link_to_key(schema, j.left, j.right)):
            return (f"the join {j.left.alias}.{j.left.column} = {j.right.alias}.{j.right.column} pairs values that no "
                    f"link or key relates ({j.left.table}.{j.left.column} does not refer to {j.right.table}): join "
                    f"on the column that refers to the other table (REFERENCES), or on its link.")
    for j in compared_sets(plan):
        if (_keyed(schema, j.left) or _keyed(schema, j.right)) and not (
                _joined_values_related(schema, j) or _link_to_key(schema, j.left, j.right)):
            return (f"{j.left.table}.{j.left.column} is compared with the values of {j.right.table}.{j.right.column} "
                    f"(IN a subquery), which no link or key relates: no value can match. Compare the column that "
                    f"refers to the other table (REFERENCES) with the key it refers to, or a link with iri.")
    return ""


def _detours(q: Question, plan: Plan, schema: Schema, table_texts: Any = None) -> list[tuple[Source, list[str]]]:
    """The sources of the plan that only lead back to what it already reads (each with the aliases it joins): a
    table none of whose columns the plan reads but in joins, all of them on one link column of its own to the
    rows of another source (`X.link = Y.iri`, every Y of one table), and that the question does not name by any
    word of its names (`_stem`). Joined so, it only repeats the rows of Y - once per row of X that links to it -
    and keeps the Y that some X links to: "which suppliers deliver X" read through the rows of an order list that
    the question never mentions. Only for a plain query (not a union) without COUNT(*), and never its first
    source."""
    if not isinstance(plan, Query) or len(plan.sources) < 2 or any(
            a.func == "count" and a.arg is None for a in aggregates_in((plan.select, plan.order_by, plan.having))):
        return []  # COUNT(*) counts the rows of every source
    said = {w for w in (singular(x) for x in q.words) if len(w) > 2}
    out = []
    for src in plan.sources[1:]:  # (the first is what the plan reads about)
        table = schema.table(src.table)
        if table is None or src.optional:
            continue
        a = src.alias.lower()
        joins = [j for j in plan.joins if a in (j.left.alias.lower(), j.right.alias.lower())]
        rest = replace(plan, joins=tuple(j for j in plan.joins if j not in joins), sources=())
        if not joins or any(c.alias.lower() == a for c in columns_in(rest, deep=True)):
            continue
        own = [j.left if j.left.alias.lower() == a else j.right for j in joins]
        other = [j.right if j.left.alias.lower() == a else j.left for j in joins]
        col = table.column(own[0].column)
        if (col is None or col.kind != "link" or any(c.column != own[0].column for c in own)
                or any(o.column != "iri" or o.alias.lower() == a or o.table != other[0].table for o in other)
                or any(j.optional for j in joins)):
            continue
        if any(_stem(w) == _stem(n) for w in said for term in terms_of(table, table_texts) for n in term.split()):
            continue
        out.append((src, list(dict.fromkeys(o.alias for o in other))))
    return out


def _stem(word: str) -> str:
    """A word as it is compared with a table's names in `_detours`: its first four letters ("posted" and
    "posting", "enrolled" and "enrolment" are one word there, which is the safe side: a named table is no
    detour)."""
    return word[:4]


def detour_problem(q: Question, plan: Plan, schema: Schema, table_texts: Any = None) -> str:
    """A table joined that the question does not name and whose only part is to lead back to rows the plan reads
    already (`_detours`): it repeats or drops those rows by a relation the question does not ask about."""
    found = _detours(q, plan, schema, table_texts)
    if not found:
        return ""
    src, aliases = found[0]
    return (f"the query joins {src.table} ({src.alias}), which the question does not mention, only to come back to "
            f"{', '.join(aliases)}: it repeats or drops rows by a relation not asked about. Leave {src.table} out.")


def without_detour(q: Question, plan: Plan, schema: Schema, table_texts: Any = None) -> Plan | None:
    """The plan without the first table `_detours` finds (the bounded repair of detour_problem): its source and
    joins dropped, and the sources it joined, all of one table and so one row, read as the first of them. None
    when the plan has no such table, or the rest is no longer joined together."""
    found = _detours(q, plan, schema, table_texts)
    if not found:
        return None
    src, aliases = found[0]
    keep, merged = aliases[0], {a.lower() for a in aliases[1:]}

    def swap(e: Any) -> Any:
        from dataclasses import fields, is_dataclass

        if isinstance(e, Col) and e.alias.lower() in merged:
            return replace(e, alias=keep)
        if is_dataclass(e) and not isinstance(e, type):
            return replace(e, **{f.name: swap(getattr(e, f.name)) for f in fields(e)})
        if isinstance(e, tuple):
            return tuple(swap(x) for x in e)
        return e

    gone = {src.alias.lower()} | merged
    joins = []
    for j in plan.joins:
        if src.alias.lower() in (j.left.alias.lower(), j.right.alias.lower()):
            continue
        j = swap(j)
        if j.left != j.right and j not in joins:
            joins.append(j)
    sources = tuple(s for s in plan.sources if s.alias.lower() not in gone)
    linked, todo = {sources[0].alias.lower()}, True
    while todo:
        todo = False
        for j in joins:
            ends = {j.left.alias.lower(), j.right.alias.lower()}
            if ends & linked and not ends <= linked:
                linked |= ends
                todo = True
    if linked != {s.alias.lower() for s in sources}:
        return None
    return replace(plan, sources=sources, joins=tuple(joins),
                   **{f: swap(getattr(plan, f)) for f in ("select", "where", "group_by", "having", "order_by")})


def _refers_to(schema: Schema, c: Col) -> str:
    """The table a plan's column refers to (`_target` of its view column), or ''."""
    table = schema.table(c.table)
    col = table.column(c.column) if table else None
    return _target(col) if col is not None else ""


def bridge_problem(q: Question, plan: Plan, schema: Schema, table_texts: Any = None) -> str:
    """A table the question does not mention (by any word of its names, `_stem`), read only in two joins, one to
    the plan's thing A and one to a table C that pairs two columns referring to A's table (`B.followed = C.mate`:
    "the one B links to is the one C links to") while C refers to A's table itself: C is reached through B's rows
    by a relation the question does not ask about ("people with two teammates" read through the people they
    follow). Left to the model: which of C's links to A the question means is its to say."""
    if not isinstance(plan, Query) or len(plan.sources) < 3:
        return ""
    said = {_stem(singular(w)) for w in q.words if len(w) > 2}
    for src in plan.sources[1:]:
        a = src.alias.lower()
        joins = [j for j in plan.joins if a in (j.left.alias.lower(), j.right.alias.lower())]
        rest = replace(plan, joins=tuple(j for j in plan.joins if j not in joins), sources=())
        table = schema.table(src.table)
        if (len(joins) != 2 or table is None or any(c.alias.lower() == a for c in columns_in(rest, deep=True))
                or any(_stem(w) in said for term in terms_of(table, table_texts) for w in term.split())):
            continue
        for j in joins:
            own, other = (j.left, j.right) if j.left.alias.lower() == a else (j.right, j.left)
            shared = _refers_to(schema, own)
            if (shared and shared == _refers_to(schema, other) and shared != other.table.lower()
                    and any(s.table.lower() == shared for s in plan.sources)):
                return (f"the query reaches {other.table} through {src.table} ({src.alias}), which the question does "
                        f"not mention: {own.alias}.{own.column} = {other.alias}.{other.column} pairs two references "
                        f"to {shared}. {other.table} refers to {shared} itself: join it to the {shared} row the "
                        f"question is about directly, and leave {src.table} out.")
    return ""


JOINS_RELATED = Check("joins_related", 160, lambda a: join_problem(a.plan, a.schema))
JOINS_THROUGH_UNASKED = Check("joins_through_unasked", 165,
                              lambda a: bridge_problem(a.q, a.plan, a.schema, a.table_texts))
JOINS_ASKED = Check(
    "joins_asked", 170, lambda a: detour_problem(a.q, a.plan, a.schema, a.table_texts),
    repair=lambda a: without_detour(a.q, a.plan, a.schema, a.table_texts),
    repair_note="left out a table the question does not mention, joined only to come back", repair_rank=7)
