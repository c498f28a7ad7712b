"""A negated verb answered over the rows joined to each thing (`excluded_by_rows`, one of the named repairs of
repairs.repair_plan).

"Which huts do not have Ada posted there?" written `FROM hut h JOIN ranger r ON r.posted_at = h.iri WHERE
r.name != 'Ada'` keeps every hut where anyone else is posted (Ada's own hut among them) and drops the huts where
nobody is: an inner join keeps only the things that have some joined row, and `!=` tests each row, not the thing.
The question excludes the things that have such a row, so the plan becomes `FROM hut h WHERE h.iri NOT IN (SELECT
r.posted_at FROM ranger r WHERE r.name = 'Ada')`. A `NOT IN` on the joined reference beside it (the exclusion
written once more) is kept, read on the thing's own column.

Only when code can tell that this is the reading: the question's verb is negated ("do not have", "never",
"without": `question.verb_negated`, not "other than" or "that are not X", which negate the joined thing); the
joined table's rows refer to the things (several rows per thing can exist); and the joined table is used for
nothing else than the join and those exclusions (not shown, grouped, ordered or compared otherwise)."""

from __future__ import annotations

import logging
from dataclasses import replace

from .checks.plan_parts import top_conditions
from .checks.tables import refers
from .question import Question, verb_negated
from .sqlplan.plan import And, Cmp, Col, InQuery, Item, Join, Lit, Or, Query, Source, columns_in, walk
from .sqlplan.schema import Schema

log = logging.getLogger(__name__)


def _excluded_side(q: Query, schema: Schema) -> tuple[Source, Join, Col, Col] | None:
    """The joined source whose rows refer to the things (with its join, the things' column and the reference)
    when every other use of it is an exclusion (module docstring); None otherwise."""
    for src in q.sources[1:]:
        alias = src.alias.lower()
        mine = [j for j in q.joins if alias in (j.left.alias.lower(), j.right.alias.lower())]
        if src.optional or len(mine) != 1:
            continue
        join = mine[0]
        ref, thing = (join.left, join.right) if join.left.alias.lower() == alias else (join.right, join.left)
        if thing.alias.lower() == alias or not refers(schema, ref, thing):
            continue
        conds = top_conditions(q.where)
        own = [c for c in conds if any(col.alias.lower() == alias for col in columns_in(c))]
        outside = [it.expr for it in q.select] + list(q.group_by) + [o.expr for o in q.order_by] + [q.having]
        outside += [c for c in conds if not any(c is o for o in own)]
        outside += [j.left for j in q.joins if j is not join] + [j.right for j in q.joins if j is not join]
        if any(isinstance(n, Col) and n.alias.lower() == alias for e in outside for n in walk(e, subqueries=False)):
            continue
        if own and all(_row_test(c, alias) or _excluded_again(c, ref) for c in own) and any(
                _row_test(c, alias) for c in own):
            return src, join, thing, ref
    return None


def _row_test(c: object, alias: str) -> bool:
    """`alias.column != 'value'` (or a number)."""
    return (isinstance(c, Cmp) and c.op == "!=" and isinstance(c.left, Col) and c.left.alias.lower() == alias
            and isinstance(c.right, Lit) and c.right.value is not None)


def _excluded_again(c: object, ref: Col) -> bool:
    """`ref NOT IN (SELECT ...)`: the exclusion written on the joined reference."""
    return isinstance(c, InQuery) and c.negated and c.expr == ref


def excluded_by_rows(q: Query, schema: Schema, question: Question) -> tuple[Query, bool]:
    """The plan with its per-row exclusions read as things excluded (module docstring), and whether it changed."""
    if not verb_negated(question) or len(q.sources) < 2:
        return q, False
    side = _excluded_side(q, schema)
    if side is None:
        return q, False
    src, join, thing, ref = side
    alias = src.alias.lower()
    conds = top_conditions(q.where)
    tests = [c for c in conds if _row_test(c, alias)]
    inner = Col("X1", ref.table, ref.column)
    held = [Cmp("=", Col("X1", c.left.table, c.left.column), c.right) for c in tests]
    sub = Query(select=(Item(inner),), sources=(Source(src.table, "X1"),),
                where=held[0] if len(held) == 1 else Or(tuple(held)))
    kept = [c for c in conds if not any(c is t for t in tests) and not _excluded_again(c, ref)]
    kept += [InQuery(thing, c.query, negated=True) for c in conds if _excluded_again(c, ref)]
    kept.append(InQuery(thing, sub, negated=True))
    where = kept[0] if len(kept) == 1 else And(tuple(kept))
    log.info("excluded_by_rows: %s rows != ... read as %s NOT IN (...)", src.table, thing.column)
    return replace(q, sources=tuple(s for s in q.sources if s is not src),
                   joins=tuple(j for j in q.joins if j is not join), where=where), True
