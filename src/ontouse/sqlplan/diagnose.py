"""Why a plan found nothing: which join or condition empties the result, told precisely to the model.

Each probe is the plan with one part left out (never an answer: a looser question's result is only used to
point at the part that empties this one). The probes are few and bounded: one per join, one per condition."""

from __future__ import annotations

import logging
from dataclasses import replace

from .compile import compile_plan
from .plan import And, Col, Plan, PlanError, Query, SetQuery, Source, used_aliases
from .joins import join_edges
from .schema import Schema
from ..storage.sparql import QueryError
from ..storage.store import Store

log = logging.getLogger(__name__)

MAX_PROBES = 8


def _count(schema: Schema, store: Store, plan: Plan) -> int | None:
    try:
        compiled = compile_plan(schema, plan)
        return store.select(compiled.sparql, max_rows=1, timeout_s=10).total
    except (PlanError, QueryError):
        return None


def _sql(e) -> str:
    from .plan import Cmp, Lit

    if isinstance(e, Cmp):
        return f"{_sql(e.left)} {e.op} {_sql(e.right)}"
    if isinstance(e, Col):
        return f"{e.alias}.{e.column}"
    if isinstance(e, Lit):
        return repr(e.value)
    return type(e).__name__.lower()


def diagnose_empty(schema: Schema, store: Store, plan: Plan) -> str:
    """A sentence saying which part of the plan leaves no rows ('' when no single part can be blamed)."""
    if isinstance(plan, SetQuery):
        left, right = _count(schema, store, plan.left), _count(schema, store, plan.right)
        if left == 0:
            return "the first SELECT (before " + plan.op.upper() + ") finds no rows: " + \
                (diagnose_empty(schema, store, plan.left) or "check its conditions.")
        if right == 0 and plan.op != "except":
            return "the second SELECT (after " + plan.op.upper() + ") finds no rows: " + \
                (diagnose_empty(schema, store, plan.right) or "check its conditions.")
        if plan.op == "intersect":
            return (f"each SELECT finds rows ({left} and {right}) but none is in both: make both select the "
                    "same kind of value (the same column of the same table).")
        return ""
    if plan.having is not None and _count(schema, store, replace(plan, having=None)):
        return "no group passes the HAVING condition."
    if plan.order_by and plan.group_by == () and _count(schema, store, replace(plan, order_by=(), limit=None,
                                                                                offset=None)):
        names = ", ".join(_sql(o.expr) for o in plan.order_by)
        return (f"ordering by {names} leaves no rows: none of the rows the conditions keep has a value there. "
                "Order by a column those rows have.")
    q = replace(plan, select=_select_of(plan.sources, plan), group_by=(), having=None, order_by=(), limit=None,
                offset=None, distinct=False)
    probes = 0
    base = Query(select=q.select, sources=q.sources, joins=q.joins)
    if q.joins and _count(schema, store, base) == 0:
        for j in q.joins:
            if probes >= MAX_PROBES:
                break
            probes += 1
            rest = tuple(x for x in q.joins if x is not j)
            used = {c.alias.lower() for x in rest for c in (x.left, x.right)} | {q.sources[0].alias.lower()}
            sources = tuple(s for s in q.sources if s.alias.lower() in used) or q.sources[:1]
            if _count(schema, store, Query(select=_select_of(sources, q), sources=sources, joins=rest)) != 0:
                pair = _same_pair(q, j)
                if pair and probes < MAX_PROBES:  # two conditions on the same two rows: is it this one, or both?
                    probes += 1
                    alone = tuple(s for s in q.sources if s.alias.lower() in
                                  {j.left.alias.lower(), j.right.alias.lower()})
                    if _count(schema, store, Query(select=_select_of(alone, q), sources=alone, joins=(j,))):
                        return _both_message(schema, j, pair)
                return _join_message(schema, q, j)
        return "the tables are joined on columns that never hold the same value."
    for src in plan.sources[1:]:  # a joined table the question does not use, which leaves nothing
        if probes >= MAX_PROBES:
            break
        if src.alias.lower() in used_aliases(plan):
            continue
        probes += 1
        joins = tuple(j for j in q.joins if src.alias.lower() not in (j.left.alias.lower(), j.right.alias.lower()))
        rest = replace(q, sources=tuple(s for s in q.sources if s is not src), joins=joins)
        if len(joins) == len(q.joins) - 1 and _count(schema, store, rest):
            return (f"joining {src.table} AS {src.alias} leaves no rows, and no column of it is selected or "
                    "compared: leave that table out if the question does not ask about it.")
    conds = list(q.where.items) if isinstance(q.where, And) else [q.where] if q.where is not None else []
    if len(conds) > 1:
        for c in conds:
            if probes >= MAX_PROBES:
                break
            probes += 1
            others = [x for x in conds if x is not c]
            rest = others[0] if len(others) == 1 else And(tuple(others))
            n = _count(schema, store, replace(q, where=rest))
            if n:
                return (f"with the condition {_sql(c)} nothing is left (without it {n} rows match): check that it "
                        "compares the right column with a value the data holds.")
    return ""


def _select_of(sources: tuple[Source, ...], q: Query):
    from .plan import Item

    return (Item(Col(sources[0].alias, sources[0].table, "iri")),)


def _same_pair(q: Query, j) -> list:
    """The other join conditions between the same two sources as `j`."""
    ends = {j.left.alias.lower(), j.right.alias.lower()}
    return [x for x in q.joins if x is not j and {x.left.alias.lower(), x.right.alias.lower()} == ends]


def _both_message(schema: Schema, j, others: list) -> str:
    """Two conditions that each match rows but never the same pair: one row would have to be two rows."""
    conds = [j, *others]
    text = " and ".join(f"{x.left.alias}.{x.left.column} = {x.right.alias}.{x.right.column}" for x in conds)
    a, b = j.left, j.right
    def cols_of(alias: str) -> set[str]:
        return {c.column.lower() for x in conds for c in (x.left, x.right) if c.alias.lower() == alias.lower()}

    if len(cols_of(a.alias)) > len(cols_of(b.alias)):  # the side read through different columns is the one to repeat
        a, b = b, a
    table = schema.table(b.table)
    name = table.name if table else b.table
    return (f"{a.alias} and {b.alias} are joined on {text}: each condition alone matches rows, but no pair of rows "
            f"matches all of them (one row of {name} would have to be the same in each). If the question relates "
            f"{a.alias} to different rows of {name}, join {name} once per condition, each with its own alias "
            f"(JOIN {name} AS {b.alias}a ON ... JOIN {name} AS {b.alias}b ON ...).")


def _join_message(schema: Schema, q: Query, j) -> str:
    a = schema.table(j.left.table)
    b = schema.table(j.right.table)
    text = f"the join {j.left.alias}.{j.left.column} = {j.right.alias}.{j.right.column} matches no pair of rows."
    ways = [f"{a.name}.{x} = {t}.{y}" for x, t, y in join_edges(schema, a) if t.lower() == b.name.lower()]
    if ways:
        text += f" {a.name} and {b.name} join on " + " or ".join(dict.fromkeys(ways)) + "."
    else:
        text += f" {a.name} and {b.name} have no direct link: join them through another table."
    return text


__all__ = ["diagnose_empty"]
