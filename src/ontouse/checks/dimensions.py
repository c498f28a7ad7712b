"""The measure an adjective of size is about. "Parcels lighter than 12" compares a weight, "the tallest tree" ranks
by a height, "more expensive than 40" compares a price: a plan that compares or ranks by another number of the same
rows (a volume, a girth) answers another question with rows whose shape passes every other check.

Code knows which words name each dimension (`DIMENSIONS`: the adjectives, and the words and units a column of that
dimension is named with). The check applies only where the question says one such adjective and the plan reads a
number for it: compared with the number right after "<adjective> than", or ranked by (ORDER BY ... LIMIT, or MIN/MAX)
for its superlative. When that column's words name nothing of the dimension, and a number column of a table the plan
reads does, the plan reads the wrong measure (`dimension_problem`); when exactly one such column is there, code reads
it instead (`dimension_read`). Where no column names the dimension, nothing is said: the view cannot tell."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..question import Question
from ..sqlplan.plan import Agg, Cmp, Col, Lit, Plan, Query, transform, walk
from ..sqlplan.schema import Schema
from .check import Check
from .tables import column_words


@dataclass(frozen=True)
class Dimension:
    """One measure: the adjectives that ask about it (comparative and superlative forms) and the words a column of
    that measure is named with (the measure's nouns and its usual units)."""
    adjectives: frozenset[str]
    words: frozenset[str]


def _dimension(adjectives: str, words: str) -> Dimension:
    return Dimension(frozenset(adjectives.split()), frozenset(words.split()))


DIMENSIONS = (
    _dimension("heavier lighter heaviest lightest", "weight mass kg kilogram gram lb pound ton tonne"),
    _dimension("taller tallest", "height tall altitude elevation"),
    _dimension("longer longest", "length long duration distance km mile"),
    _dimension("wider narrower widest narrowest", "width wide breadth"),
    _dimension("deeper shallower deepest shallowest", "depth deep"),
    _dimension("older younger oldest youngest", "age birth born birthday dob year date founded established built"),
    _dimension("faster slower fastest slowest", "speed velocity pace kmh mph"),
    _dimension("cheaper costlier pricier cheapest costliest priciest expensive",
               "price cost fee charge rate tariff eur usd dollar euro"),
)

_NUMBER = r"(-?\d+(?:[.,]\d+)?)"


@dataclass(frozen=True)
class Measured:
    """The column a plan reads for the question's adjective, and the dimension that adjective names."""
    col: Col
    dimension: Dimension
    adjective: str


def _said(q: Question) -> list[tuple[Dimension, str]]:
    """The dimensions the question's adjectives name, with the adjective (each once)."""
    out = []
    for d in DIMENSIONS:
        out += [(d, w) for w in dict.fromkeys(q.words) if w in d.adjectives]
    return out


def _compared(plan: Plan, number: float) -> list[Col]:
    """The columns the plan compares with `number` by <, <=, > or >=."""
    out = []
    for n in walk(plan):
        if not isinstance(n, Cmp) or n.op not in ("<", "<=", ">", ">="):
            continue
        for col, lit in ((n.left, n.right), (n.right, n.left)):
            if isinstance(col, Col) and isinstance(lit, Lit) and _number(lit.value) == number:
                out.append(col)
    return out


def _number(value: Any) -> float | None:
    try:
        return float(str(value).replace(",", "."))
    except (TypeError, ValueError):
        return None


def _ranked(plan: Plan) -> list[Col]:
    """The columns a plan ranks by: ORDER BY a column (or its MIN/MAX) with a LIMIT, and MIN/MAX selected."""
    out = []
    for n in walk(plan):
        if not isinstance(n, Query):
            continue
        if n.limit is not None:
            out += [o.expr for o in n.order_by if isinstance(o.expr, Col)]
            out += [o.expr.arg for o in n.order_by if isinstance(o.expr, Agg) and o.expr.func in ("min", "max")
                    and isinstance(o.expr.arg, Col)]
        out += [i.expr.arg for i in n.select if isinstance(i.expr, Agg) and i.expr.func in ("min", "max")
                and isinstance(i.expr.arg, Col)]
    return out


def measured(q: Question, plan: Plan) -> Measured | None:
    """The column the plan reads for the question's one adjective of size: the one compared with the number after
    "<adjective> than", or, for a superlative, the one ranked by. None when the question says no such adjective,
    several, or the plan reads none (or several) for it."""
    said = _said(q)
    if len(said) != 1:
        return None
    dim, adjective = said[0]
    m = re.search(rf"\b{adjective}\s+than\s+(?:about\s+|around\s+)?{_NUMBER}", q.text, re.I)
    if m is not None:
        cols = _compared(plan, float(m.group(1).replace(",", ".")))
    elif adjective.endswith("est") or adjective == "expensive" and re.search(r"\b(?:most|least)\s+expensive\b",
                                                                            q.text, re.I):
        cols = _ranked(plan)
    else:
        return None
    cols = list(dict.fromkeys(cols))
    return Measured(cols[0], dim, adjective) if len(cols) == 1 else None


def _names(schema: Schema, col: Col, dim: Dimension) -> bool:
    return bool(column_words(schema, col) & dim.words)


def _number_column(schema: Schema, col: Col) -> bool:
    table = schema.table(col.table)
    c = table.column(col.column) if table is not None else None
    return c is not None and c.kind == "value" and not c.is_label and not c.key_of and (
        c.numeric or c.sql_type in ("DATE", "DATETIME", "TIME"))


def dimension_columns(schema: Schema, plan: Plan, m: Measured) -> list[Col]:
    """The number columns that name the measure: of the compared column's own row first, else of the other tables
    the plan reads (each read as the plan's alias of its table)."""
    if not isinstance(plan, Query):
        return []
    own = [s for s in plan.sources if s.alias == m.col.alias] or []
    others = [s for s in plan.sources if s.alias != m.col.alias]
    for group in (own, others):
        found = []
        for s in group:
            table = schema.table(s.table)
            for c in (table.columns.values() if table is not None else ()):
                col = Col(s.alias, table.name, c.name)
                if _number_column(schema, col) and _names(schema, col, m.dimension):
                    found.append(col)
        if found:
            return found
    return []


def dimension_problem(q: Question, plan: Plan, schema: Schema) -> str:
    m = measured(q, plan)
    if m is None or _names(schema, m.col, m.dimension):
        return ""
    found = dimension_columns(schema, plan, m)
    if not found:
        return ""
    names = ", ".join(f"{c.alias}.{c.column}" for c in found)
    return (f"the question says {m.adjective!r}, but the query reads {m.col.alias}.{m.col.column}, which is not that "
            f"measure: read {'one of ' if len(found) > 1 else ''}{names}.")


def dimension_read(q: Question, plan: Plan, schema: Schema) -> Plan | None:
    """The plan with the one column that names the adjective's measure read where it read another (module
    docstring); None when there is not exactly one."""
    m = measured(q, plan)
    if m is None or _names(schema, m.col, m.dimension):
        return None
    found = dimension_columns(schema, plan, m)
    if len(found) != 1:
        return None
    new = found[0]
    return transform(plan, lambda n: new if n == m.col else n)


MEASURE_OF_ADJECTIVE = Check("measure_of_adjective", 147, lambda a: dimension_problem(a.q, a.plan, a.schema),
                             lambda a: bool(_said(a.q)),
                             repair=lambda a: dimension_read(a.q, a.plan, a.schema),
                             repair_note="the measure the question's adjective names read", repair_rank=2)
