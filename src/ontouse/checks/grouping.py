"""What a grouped query may show: each group's own values. A column a query neither groups by nor aggregates is shown
as the value of one of the group's rows, taken at random (the view compiles it to SAMPLE): "the smallest and the
largest weight of the items in each category" grouped by the category and showing an item's name beside the
category's smallest and largest weights states a name the data never pairs with those numbers.

A shown column is the group's own when it is a column of a grouped source (a group by a thing's key shows that
thing's name), or of a source a grouped source refers to (one per group: a product's category beside the product).
Any other, a source with several rows per group (the items of a category), is sent back (`loose_columns`); when the
plan groups by one column it does not show and shows one loose column, code shows the group's column in its place
(`group_shown`)."""

from __future__ import annotations

from dataclasses import replace

from ..question import Question
from ..sqlplan.plan import Col, Item, Plan, Query
from ..sqlplan.schema import Schema
from .check import Check
from .tables import refers, related


def _joined(plan: Query, a: str, b: str) -> list[tuple[Col, Col]]:
    """The column pairs of the joins between the sources `a` and `b` (a's column first)."""
    out = []
    for j in plan.joins:
        sides = {j.left.alias.lower(): j.left, j.right.alias.lower(): j.right}
        if a != b and a in sides and b in sides:
            out.append((sides[a], sides[b]))
    return out


def _points_at(schema: Schema, a: Col, b: Col) -> bool:
    """Does column `a` point at the row `b` stands for (a link to b's table and b its iri, or a key of b's column),
    one value per row or several?"""
    ta, tb = schema.table(a.table), schema.table(b.table)
    col = ta.column(a.column) if ta else None
    if col is None or tb is None:
        return False
    if col.kind == "link" and b.column.lower() == "iri":
        target = schema.table(col.target) if col.target else None
        return target is not None and related(target, tb)
    return bool(col.key_of) and col.key_of.lower() == f"{tb.name}.{b.column}".lower()


def loose_columns(plan: Plan, schema: Schema) -> list[Col]:
    """The selected columns of a grouped query that belong to no group (module docstring): of a source joined to a
    grouped one by a link or a key that does not make it the one row the grouped row refers to. [] when the plan is
    not grouped; a source joined otherwise (by values alike, or through other sources) is not judged."""
    if not isinstance(plan, Query) or not plan.group_by:
        return []
    grouped = {g.alias.lower() for g in plan.group_by if isinstance(g, Col)}
    out = []
    for item in plan.select:
        c = item.expr
        if not isinstance(c, Col) or c in plan.group_by or c.alias.lower() in grouped:
            continue
        pairs = [p for g in grouped for p in _joined(plan, c.alias.lower(), g)]
        if any(refers(schema, theirs, mine) for mine, theirs in pairs):
            continue  # the one row a grouped row refers to
        if any(_points_at(schema, mine, theirs) or _points_at(schema, theirs, mine) for mine, theirs in pairs):
            out.append(c)
    return out


def loose_problem(plan: Plan, schema: Schema) -> str:
    found = loose_columns(plan, schema)
    if not found:
        return ""
    c = found[0]
    return (f"{c.alias}.{c.column} is neither grouped nor aggregated: each group would show the {c.column} of one of "
            f"its rows, taken at random. Select the column the rows are grouped by instead, or GROUP BY "
            f"{c.alias}.{c.column} too if the question asks for one row per {c.column}.")


def group_shown(q: Question, plan: Plan, schema: Schema) -> Plan | None:
    """The plan showing the one column it groups by (and does not show) where it showed the one loose column."""
    found = loose_columns(plan, schema)
    if len(found) != 1 or not isinstance(plan, Query):
        return None
    keys = [g for g in plan.group_by if isinstance(g, Col)]
    if len(keys) != 1 or len(plan.group_by) != 1 or any(it.expr == keys[0] for it in plan.select):
        return None
    select = tuple(Item(keys[0], it.name) if it.expr == found[0] else it for it in plan.select)
    return replace(plan, select=select)


GROUPS_OWN_VALUES = Check("groups_own_values", 155, lambda a: loose_problem(a.plan, a.schema),
                          lambda a: isinstance(a.plan, Query) and bool(a.plan.group_by),
                          repair=lambda a: group_shown(a.q, a.plan, a.schema),
                          repair_note="the column the rows are grouped by shown", repair_rank=2)
