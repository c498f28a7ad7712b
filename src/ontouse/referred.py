"""A text compared with a key that refers to another table's rows (`value_of_referred`, one of the named repairs of
repairs.repair_plan): `WHERE s.berth_id = 'North quay'`, where berth_id holds the number of a berth and the berths'
own `berth` column holds 'North quay', has one reading: the sailings whose berth is the North quay. The referred
table is joined on the key and the text compared with its column. Only when the key column holds no such value and
exactly one text column of the referred table holds it (the same text ignoring case); otherwise the value check
tells the model where the text is, as before."""

from __future__ import annotations

import logging
from dataclasses import replace

from ontocore.text import fold

from .linking import ValueIndex
from .sqlplan.plan import And, Cmp, Col, Join, Lit, Query, Source
from .sqlplan.schema import Schema, Table

log = logging.getLogger(__name__)


def _holder(index: ValueIndex, table: Table, text: str) -> tuple[str, str] | None:
    """The one text column of `table` that holds `text` (same text ignoring case), with the value as held."""
    found = []
    for col in table.columns.values():
        if col.kind != "value" or col.prop is None or col.sql_type != "TEXT":
            continue
        same = [v for v in index.closest(col.prop, text, table) if fold(v) == fold(text)]
        if same:
            found.append((col.name, same[0]))
    return found[0] if len(found) == 1 else None


def value_of_referred(q: Query, schema: Schema, index: ValueIndex) -> tuple[Query, bool]:
    """Each top condition `a.key = 'text'` (module docstring) compared on the referred table, joined anew; the
    plan and whether it changed."""
    conds = list(q.where.items) if isinstance(q.where, And) else [q.where] if q.where is not None else []
    sources, joins, changed = list(q.sources), list(q.joins), False
    for i, c in enumerate(conds):
        if not (isinstance(c, Cmp) and c.op == "=" and isinstance(c.left, Col) and isinstance(c.right, Lit)
                and isinstance(c.right.value, str)):
            continue
        table = schema.table(c.left.table)
        col = table.column(c.left.column) if table is not None else None
        if col is None or col.kind != "value" or not col.key_of or col.prop is None or index.holds(
                col.prop, c.right.value, table):
            continue
        ref_name, ref_key = col.key_of.split(".", 1)
        ref = schema.table(ref_name)
        held = _holder(index, ref, c.right.value) if ref is not None else None
        if held is None:
            continue
        taken = {s.alias.lower() for s in sources}
        alias = next(f"R{n}" for n in range(1, len(taken) + 2) if f"r{n}" not in taken)
        sources.append(Source(ref.name, alias))
        joins.append(Join(c.left, Col(alias, ref.name, ref_key)))
        conds[i] = Cmp("=", Col(alias, ref.name, held[0]), Lit(held[1]))
        log.info("value_of_referred: %s.%s = %r read as %s.%s", table.name, col.name, c.right.value, ref.name,
                 held[0])
        changed = True
    if not changed:
        return q, False
    where = conds[0] if len(conds) == 1 else And(tuple(conds))
    return replace(q, sources=tuple(sources), joins=tuple(joins), where=where), True
