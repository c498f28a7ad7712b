"""What a plan holds, as the checks read it: its aggregates and scalar subqueries (outside subqueries), its
constants, the conditions of a WHERE joined by AND, its joins, the parts that exclude rows, and the names a WHERE
clause fixes."""

from __future__ import annotations

from typing import Any

from ontocore.text import fold

from ..sqlplan.plan import (Agg, And, Cmp, Col, Exists, InList, InQuery, IsNull, Join, Like, Lit, Not, Plan, Query,
                            Scalar, SetQuery, Source, walk)


def aggregates_in(e: Any) -> list[Agg]:
    """The aggregates of an expression, outside subqueries and outside other aggregates."""
    return [n for n in walk(e, subqueries=False, enter=lambda n: not isinstance(n, Agg)) if isinstance(n, Agg)]


def scalars_in(e: Any) -> list[Scalar]:
    """The scalar subqueries of an expression, outside other subqueries."""
    return [n for n in walk(e, subqueries=False) if isinstance(n, Scalar)]


def excluding(n: Any) -> bool:
    if isinstance(n, Not) or (isinstance(n, Cmp) and n.op == "!="):
        return True
    if isinstance(n, (Like, InList, InQuery, Exists)):
        return n.negated
    if isinstance(n, IsNull):
        return not n.negated
    return (isinstance(n, SetQuery) and n.op == "except") or (isinstance(n, Source) and n.optional)


def top_conditions(e: Any) -> list[Any]:
    """The conditions of a WHERE joined by AND (not inside OR / NOT / subqueries)."""
    if e is None:
        return []
    if isinstance(e, And):
        return [c for item in e.items for c in top_conditions(item)]
    return [e]


def joins_in(plan: Plan) -> list[Join]:
    return [n for n in walk(plan) if isinstance(n, Join)]


def literals_in(e: Any) -> list[str]:
    """The texts a plan compares anywhere (its text constants, and LIKE patterns with their wildcards as spaces),
    folded, in order."""
    return [fold(n.value) if isinstance(n, Lit) else fold(n.pattern.replace("%", " ").replace("_", " "))
            for n in walk(e) if (isinstance(n, Lit) and isinstance(n.value, str)) or isinstance(n, Like)]


def has_aggregate(e: Any, func: str) -> bool:
    """Does the expression hold the aggregate `func` anywhere (in subqueries too)?"""
    return any(isinstance(n, Agg) and n.func == func for n in walk(e))


def fixed_names(plan: Query, names: set[str]) -> list[str]:
    """The constants the plan's top-level WHERE sets one of `names` (lower-cased columns) to (=, or IN)."""
    conds = plan.where.items if isinstance(plan.where, And) else (plan.where,) if plan.where is not None else ()
    fixed: list[str] = []
    for c in conds:
        if isinstance(c, Cmp) and c.op == "=" and isinstance(c.left, Col) and isinstance(c.right, Lit):
            col, lits = c.left, [c.right]
        elif isinstance(c, InList) and not c.negated and isinstance(c.expr, Col):
            col, lits = c.expr, list(c.values)
        else:
            continue
        if col.column.lower() in names:
            fixed += [str(x.value) for x in lits]
    return fixed
