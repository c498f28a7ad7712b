"""What a plan holds, as the checks read it: its aggregates and scalar subqueries (outside subqueries), its
constants, the conditions of a WHERE joined by AND, its joins, the parts that exclude rows, and the names a WHERE
clause fixes."""

from __future__ import annotations

from typing import Any

from ontocore.text import fold

from ..sqlplan.plan import (Agg, And, Cmp, Col, Exists, InList, InQuery, IsNull, Join, Like, Lit, Not, Plan, Query,
                            Scalar, SetQuery, Source, nodes_in)


def aggregates_in(e: Any) -> list[Agg]:
    from dataclasses import fields, is_dataclass

    if isinstance(e, Agg):
        return [e]
    if isinstance(e, Scalar):
        return []
    if is_dataclass(e) and not isinstance(e, type):
        return [a for f in fields(e) if f.name != "query" for a in aggregates_in(getattr(e, f.name))]
    if isinstance(e, tuple):
        return [a for x in e for a in aggregates_in(x)]
    return []


def scalars_in(e: Any) -> list[Scalar]:
    from dataclasses import fields, is_dataclass

    if isinstance(e, Scalar):
        return [e]
    if is_dataclass(e) and not isinstance(e, type):
        return [s for f in fields(e) if f.name != "query" for s in scalars_in(getattr(e, f.name))]
    if isinstance(e, tuple):
        return [s for x in e for s in scalars_in(x)]
    return []


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
    return [n for n in nodes_in(plan) if isinstance(n, Join)]


def literals_in(e: Any, out: list[str]) -> list[str]:
    from dataclasses import fields, is_dataclass

    if isinstance(e, Lit) and isinstance(e.value, str):
        out.append(fold(e.value))
    elif isinstance(e, Like):
        out.append(fold(e.pattern.replace("%", " ").replace("_", " ")))
    if is_dataclass(e) and not isinstance(e, type):
        for f in fields(e):
            literals_in(getattr(e, f.name), out)
    elif isinstance(e, tuple):
        for x in e:
            literals_in(x, out)
    return out


def has_aggregate(e: Any, func: str) -> bool:
    from dataclasses import fields, is_dataclass

    if isinstance(e, Agg) and e.func == func:
        return True
    if is_dataclass(e) and not isinstance(e, type):
        return any(has_aggregate(getattr(e, f.name), func) for f in fields(e))
    if isinstance(e, tuple):
        return any(has_aggregate(x, func) for x in e)
    return False


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
