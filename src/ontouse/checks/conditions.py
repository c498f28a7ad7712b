"""Checks of a condition's logic: an exclusion the question asks for (and != over the rows joined to each thing,
which keeps every thing that has another row), both of two values asked and either returned, and a yes/no column
the question names by its word left unused."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from ontocore.text import STOP, fold, singular

from ..question import Question, both_named, excludes, verb_negated
from ..sqlplan.plan import (And, Cmp, Col, InList, Lit, Or, Plan, Query, SetQuery, Source, columns_in, is_aggregate,
                            walk)
from ..sqlplan.schema import Schema
from .check import Check
from .plan_parts import excluding, top_conditions
from .tables import refers


def _many_side(plan: Query, alias: str, schema: Schema) -> bool:
    """Is the source `alias` joined to another source as rows that refer to it (the orders of a customer), or as
    rows that refer to the same thing as it does, several per thing (a city joined to its country's language rows
    by the country's code both hold)?"""
    for j in plan.joins:
        sides = {j.left.alias.lower(): j.left, j.right.alias.lower(): j.right}
        if alias in sides and len(sides) == 2:
            other = next(c for a, c in sides.items() if a != alias)
            table = schema.table(sides[alias].table)
            col = table.column(sides[alias].column) if table else None
            # several rows refer to one thing (not a one-to-one record of it)
            if col is not None and col.distinct < col.subjects and (
                    refers(schema, sides[alias], other) or _same_reference(schema, col, other)):
                return True
    return False


def _same_reference(schema: Schema, col: Any, other: Col) -> bool:
    """Do `col` and the column `other` both refer to one key of a third table?"""
    table = schema.table(other.table)
    theirs = table.column(other.column) if table else None
    return bool(col.key_of) and theirs is not None and theirs.key_of.lower() == col.key_of.lower()


def _many_path(plan: Query, alias: str, schema: Schema, seen: tuple[str, ...] = ()) -> bool:
    """Is the source `alias` one of several per asked thing: rows that refer to a joined thing (`_many_side`), or
    the thing such a row refers to (the tool of one of a workshop's loan rows: a workshop has several)?"""
    if _many_side(plan, alias, schema):
        return True
    first = plan.sources[0].alias.lower()
    for j in plan.joins:
        sides = {j.left.alias.lower(): j.left, j.right.alias.lower(): j.right}
        if alias not in sides or len(sides) != 2:
            continue
        other_alias, other = next((a, c) for a, c in sides.items() if a != alias)
        if other_alias in seen or other_alias == first or sides[alias].column.lower() != "iri":
            continue
        if refers(schema, other, sides[alias]) and _many_path(plan, other_alias, schema, seen + (alias,)):
            return True
    return False


def negation_problem(q: Question, plan: Plan, schema: Schema | None = None) -> str:
    """A question that excludes something ("not", "no", "without", "never") whose plan excludes nothing answers
    the question without its exclusion; one that excludes only with != on the rows joined to each thing (its
    orders, its visits) keeps every thing that has any other such row."""
    found = [n for n in walk(plan) if _excludes(n, schema)]
    kept = [n for n in walk(plan) if _flag_compared(n, schema) is False and n.op == "!="]
    if not found and kept:
        col, lit = (kept[0].left, kept[0].right) if isinstance(kept[0].left, Col) else (kept[0].right, kept[0].left)
        return (f"the question excludes something, but {col.alias}.{col.column} != {lit.value!r} keeps the rows whose "
                f"yes/no column says yes and excludes nothing: compare it with its other value, or exclude the "
                "things that have it with NOT IN (SELECT ...).")
    if not found:
        return ("the question excludes something (not / no / without / never), but the query excludes nothing: "
                "use NOT IN (SELECT ...), NOT EXISTS, != or EXCEPT for the excluded part.")
    if schema is not None and verb_negated(q):
        pairs = _excluded_over_rows(plan, schema)
        if pairs:
            return pairs
    if schema is None or not isinstance(plan, Query) or len(plan.sources) < 2 or not verb_negated(q):
        return ""
    top = [c for c in top_conditions(plan.where)]
    joined = {s.alias.lower() for s in plan.sources[1:] if not s.optional}
    if not all(isinstance(n, Cmp) and n.op == "!=" and any(n is c for c in top) for n in found):
        return ""
    for n in found:
        col = n.left if isinstance(n.left, Col) else n.right if isinstance(n.right, Col) else None
        if col is None or col.alias.lower() not in joined or not _many_path(plan, col.alias.lower(), schema):
            return ""
    n = found[0]
    col = n.left if isinstance(n.left, Col) else n.right
    return (f"{col.alias}.{col.column} != ... over the joined {col.table} rows keeps every thing that has any other "
            f"{col.table} row: to exclude the things that have it, use NOT IN (SELECT ... WHERE {col.column} = ...) "
            "or NOT EXISTS.")


_NO = frozenset("f n no false 0".split())  # the value of a yes/no column that says "no"


def _flag_compared(n: Any, schema: Schema | None) -> bool | None:
    """For a comparison of a yes/no column with one of its two values: whether it keeps the rows whose flag says
    no (`is_heated = 'F'`, `is_heated != 'T'`: the rooms that are not heated); None for any other node."""
    if schema is None or not isinstance(n, Cmp) or n.op not in ("=", "!="):
        return None
    col, lit = (n.left, n.right) if isinstance(n.left, Col) else (n.right, n.left)
    table = schema.table(col.table) if isinstance(col, Col) else None
    column = table.column(col.column) if table is not None else None
    if column is None or not isinstance(lit, Lit) or column.kind != "value" or not _yes_no(column):
        return None
    value = fold(str(lit.value)).strip()
    if value not in _YES_NO:
        return None
    return (value in _NO) == (n.op == "=")


def _excludes(n: Any, schema: Schema | None) -> bool:
    """Does the node exclude something: `excluding`, where a yes/no flag counts by what it keeps (= its "no"
    value excludes, != its "no" value keeps the rows that say yes and excludes nothing)?"""
    flag = _flag_compared(n, schema)
    return excluding(n) if flag is None else flag


def _excluded_over_rows(plan: Plan, schema: Schema) -> str:
    """A query over one table whose rows refer to the things it returns (several rows per thing: a table of
    pairs), selecting that reference and excluding with != on another column, returns every thing that has any
    other row ("the workshops that do not lend X" from rows (workshop, tool) with tool != X)."""
    for n in walk(plan):
        if not isinstance(n, Query) or len(n.sources) != 1 or len(n.select) != 1 or not isinstance(
                n.select[0].expr, Col):
            continue
        sel = n.select[0].expr
        table = schema.table(sel.table)
        col = table.column(sel.column) if table else None
        if col is None or not ((col.kind == "link" and col.target) or col.key_of) or col.distinct >= col.subjects:
            continue  # not a reference, or one row per thing
        for c in top_conditions(n.where):
            if isinstance(c, Cmp) and c.op == "!=" and isinstance(c.left, Col) and c.left.column != sel.column:
                return (f"{c.left.column} != ... over the rows of {table.name} keeps every {sel.column} that has any "
                        f"other {table.name} row: to exclude the ones that have it, use NOT IN (SELECT "
                        f"{sel.column} ... WHERE {c.left.column} = ...).")
    return ""


_FLIPPED = {"<=": ">", "<": ">=", ">=": "<", ">": "<="}


def negated_bound(q: Question) -> float | None:
    """The number of a bound the question's verb negates ("have not cost more than 1000", "did not score over 40"):
    the things asked about have no row beyond it; None when the question says no such thing."""
    if not verb_negated(q):
        return None
    m = re.search(r"\b(?:not|never|\w+n't)\b(?:\s+\w+){0,5}?\s+(?:more|less|fewer|greater|higher|lower|over|under|above|"
                  r"below)\s+(?:than\s+)?(-?\d+(?:\.\d+)?)", fold(q.text))
    return float(m.group(1)) if m else None


def bound_over_rows_problem(q: Question, plan: Plan, schema: Schema) -> str:
    """A negated bound ("the dogs that have not cost more than 1000") read as its opposite comparison on rows joined
    to each thing (treatments.cost <= 1000) keeps every thing with any one row within it, also those with another row
    beyond it: the things asked have none beyond it (or their total is within it)."""
    n = negated_bound(q)
    if n is None or not isinstance(plan, Query) or plan.group_by or len(plan.sources) < 2:
        return ""
    if any(_excludes(x, schema) for x in walk(plan)):
        return ""
    for c in top_conditions(plan.where):
        if not isinstance(c, Cmp) or c.op not in _FLIPPED:
            continue
        col, lit = (c.left, c.right) if isinstance(c.left, Col) else (c.right, c.left)
        if not isinstance(col, Col) or not isinstance(lit, Lit) or _number(lit.value) != n:
            continue
        if col.alias.lower() == plan.sources[0].alias.lower() or not _many_path(plan, col.alias.lower(), schema):
            continue
        return (f"{col.alias}.{col.column} {c.op} {lit.value} over the joined {col.table} rows keeps every thing that "
                f"has one such row, also those with another {col.table} row beyond it; the question says they have "
                f"not gone beyond it: exclude the things that have a row with {col.column} {_FLIPPED[c.op]} "
                f"{lit.value} (NOT IN (SELECT ...)), or GROUP BY the thing with HAVING on the total.")
    return ""


def _number(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _either(e: Any) -> list[tuple[Col, set[str]]]:
    """The columns a condition lets hold any of several texts (IN (...), or = ... OR = ... on one column)."""
    if isinstance(e, InList) and not e.negated and isinstance(e.expr, Col):
        return [(e.expr, {fold(str(v.value)) for v in e.values})]
    if isinstance(e, Or):
        cols: dict[Col, set[str]] = {}
        for item in e.items:
            if isinstance(item, Cmp) and item.op == "=" and isinstance(item.left, Col) and isinstance(item.right, Lit):
                cols.setdefault(item.left, set()).add(fold(str(item.right.value)))
        return list(cols.items())
    return []


def _several_per_thing(query: Query, col: Col, schema: Schema) -> bool:
    """Can one of the things the query answers about hold several values of `col`: the column holds several values
    per row, or the query answers about other rows than the column's (another source, or the thing a column of
    that row refers to: the workshops of rows of a table of (workshop, tool) pairs)? A thing with one value
    ("the tanks in hall A and hall B") has either, never both."""
    table = schema.table(col.table)
    c = table.column(col.column) if table else None
    if c is None:
        return False
    if c.count > c.subjects:
        return True
    for it in query.select:
        for used in columns_in(it.expr):
            if used.alias.lower() != col.alias.lower():
                return True
            u = table.column(used.column)
            if u is not None and ((u.kind == "link" and u.target) or u.key_of):
                return True
    return False


def both_problem(q: Question, plan: Plan, mentions: list, schema: Schema) -> str:
    """A question about things with both of two values ("that use A and B") answered by rows with either (IN, OR)
    counts or lists the things that have one of them. A plan that intersects (INTERSECT, two joined rows) or counts
    the matches per thing (HAVING) is not judged."""
    pairs = both_named(q, mentions)
    if not pairs or any(isinstance(n, SetQuery) and n.op == "intersect" for n in walk(plan)):
        return ""
    if any(isinstance(n, Query) and n.having is not None for n in walk(plan)):
        return ""
    for query in (n for n in walk(plan) if isinstance(n, Query)):
        for col, values in (x for c in top_conditions(query.where) for x in _either(c)):
            for a, b in pairs:
                if fold(a) in values and fold(b) in values and _several_per_thing(query, col, schema):
                    return (f"the question asks for things with both {a!r} and {b!r}, but the query keeps the rows "
                            f"with either ({col.alias}.{col.column} IN / OR): keep the things that have {a!r} and "
                            f"also have {b!r} (INTERSECT, or IN (SELECT ...) for each).")
    return ""


def both_intersected(q: Question, plan: Plan, mentions: list) -> Plan | None:
    """The bounded repair of both_problem: the query that keeps rows with either of the two named values (IN, OR
    of exactly those two) becomes the rows with the first INTERSECT the rows with the second; only for a query
    that lists things (no aggregate, no grouping). None when it does not apply."""
    if not isinstance(plan, Query) or plan.group_by or plan.having is not None or any(
            is_aggregate(it.expr) for it in plan.select):
        return None
    conds = top_conditions(plan.where)
    for i, c in enumerate(conds):
        for col, values in _either(c):
            for a, b in both_named(q, mentions):
                if values != {fold(a), fold(b)}:
                    continue
                rest = conds[:i] + conds[i + 1:]

                def having(value: str) -> Query:
                    items = rest + [Cmp("=", col, Lit(value))]
                    return replace(plan, where=items[0] if len(items) == 1 else And(tuple(items)), order_by=(),
                                   limit=None, offset=None)

                return SetQuery("intersect", having(a), having(b))
    return None


_FLAG_VERBS = ("is", "has", "have", "was", "are", "can")  # "is_automated", "hasGarden": a yes/no column's verb


_YES_NO = frozenset("t f y n yes no true false 0 1".split())  # how yes/no columns write their two values


def _yes_no(col: Any) -> bool:
    """Is the column a yes/no flag: a boolean, or two values written as yes / no, T / F, 1 / 0?"""
    if col.is_label or col.key_of or col.distinct != 2:
        return False
    samples = {fold(str(v)).strip() for v in col.samples or []}
    return col.sql_type == "BOOLEAN" or (len(samples) == 2 and samples <= _YES_NO)


def _flag_named(col: Any, asked: set[str]) -> str:
    """The question's word that names a yes/no column ("automated" for is_automated, "heated" for heated),
    or ''."""
    from ontocore.embeddings import split_name

    for name in (col.name, getattr(col, "label", "") or ""):
        letters = re.sub(r"[\W\d_]+", "", fold(name))
        words = [w for w in split_name(name).split() if w not in _FLAG_VERBS]
        for w in asked:
            if len(w) < 4:
                continue
            if "".join(words) == w or letters == w or any(letters == v + w for v in _FLAG_VERBS):
                return w
    return ""


def unused_flags(q: Question, plan: Plan, schema: Schema) -> list[tuple[str, str]]:
    """(word, table.column) for each yes/no column (two values) of a table the plan reads that the question names
    by a word ("automated stations": is_automated) and that no part of the plan uses."""
    asked = {singular(w) for w in q.words if w not in STOP} | {w for w in q.words if w not in STOP}
    used = {(c.table.lower(), c.column.lower()) for c in columns_in(plan, deep=True)}
    out = []
    for table_name in dict.fromkeys(n.table.lower() for n in walk(plan) if isinstance(n, Source)):
        table = schema.table(table_name)
        for col in table.columns.values() if table else ():
            if col.kind != "value" or not _yes_no(col) or (table.name.lower(), col.name.lower()) in used:
                continue
            word = _flag_named(col, asked)
            if word:
                out.append((word, f"{table.name}.{col.name}"))
    return out


def flag_problem(q: Question, plan: Plan, schema: Schema) -> str:
    """A question that names a yes/no column by its word ("the heated rooms", "the automated stations")
    restricts to the rows where it holds: a plan that never reads the column answers without the restriction."""
    found = unused_flags(q, plan, schema)
    if not found:
        return ""
    word, where = found[0]
    return (f"the question says '{word}', which is the yes/no column {where}, but the query does not use it: add "
            f"the condition on {where.split('.', 1)[1]}.")


EXCLUSION_KEPT = Check("exclusion_kept", 200, lambda a: negation_problem(a.q, a.plan, a.schema),
                       lambda a: excludes(a.q, [m.text for m in a.mentions if getattr(m, "exact", False)])
                       and a.q.kind != "yesno")
BOUND_OVER_ROWS = Check("bound_over_rows", 205, lambda a: bound_over_rows_problem(a.q, a.plan, a.schema),
                        lambda a: negated_bound(a.q) is not None)
BOTH_VALUES = Check("both_values", 230, lambda a: both_problem(a.q, a.plan, a.mentions, a.schema),
                    lambda a: bool(both_named(a.q, a.mentions)),
                    repair=lambda a: both_intersected(a.q, a.plan, a.mentions),
                    repair_note="the rows with each named value intersected", repair_rank=2)
FLAG_USED = Check("flag_used", 330, lambda a: flag_problem(a.q, a.plan, a.schema))
