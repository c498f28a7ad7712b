"""A negated verb answered over the rows joined to each thing (`excluded_by_rows`, one of the named repairs of
repairs.repair_plan).

"Which huts do not have Ada posted there?" written `FROM hut h JOIN ranger r ON r.posted_at = h.iri WHERE
r.name != 'Ada'` keeps every hut where anyone else is posted (Ada's own hut among them) and drops the huts where
nobody is: an inner join keeps only the things that have some joined row, and `!=` tests each row, not the thing.
The question excludes the things that have such a row, so the plan becomes `FROM hut h WHERE h.iri NOT IN (SELECT
r.posted_at FROM ranger r WHERE r.name = 'Ada')`. A `NOT IN` on the joined reference beside it (the exclusion
written once more) is kept, read on the thing's own column. The excluded value may sit further along a chain of
joins from the referring rows (the fruit of a tree, read through the rows of who tends which tree): the whole
chain goes into the subquery.

Only when code can tell that this is the reading: the question's verb is negated ("do not have", "never",
"without": `question.verb_negated`, not "other than" or "that are not X", which negate the joined thing); the
joined table's rows refer to the things (several rows per thing can exist); and the joined tables are used for
nothing else than their joins and those exclusions (not shown, grouped, ordered or compared otherwise)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace

from .checks.plan_parts import top_conditions
from .checks.tables import refers
from .question import Question, verb_negated
from .sqlplan.plan import And, Cmp, Col, InQuery, Item, Join, Lit, Or, Query, Source, columns_in, walk
from .sqlplan.schema import Schema

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Excluded:
    """The joined part a per-row exclusion reads: its sources (the one whose rows refer to the things first), the
    joins among them, the join to the things, the things' column and the reference."""
    sources: tuple[Source, ...]
    joins: tuple[Join, ...]
    link: Join
    thing: Col
    ref: Col

    @property
    def aliases(self) -> set[str]:
        return {s.alias.lower() for s in self.sources}


def _part(q: Query, start: str, cut: Join) -> set[str]:
    """The aliases reached from `start` by the joins other than `cut`."""
    seen, todo = {start}, [start]
    while todo:
        a = todo.pop()
        for j in q.joins:
            ends = {j.left.alias.lower(), j.right.alias.lower()}
            if j is not cut and a in ends:
                for b in ends - seen:
                    seen.add(b)
                    todo.append(b)
    return seen


def _excluded_side(q: Query, schema: Schema) -> _Excluded | None:
    """The joined part whose rows refer to the things, when every use of it beside its joins is an exclusion
    (module docstring); None otherwise."""
    first = q.sources[0].alias.lower()
    conds = top_conditions(q.where)
    for join in q.joins:
        for ref, thing in ((join.left, join.right), (join.right, join.left)):
            part = _part(q, ref.alias.lower(), join)
            if first in part or thing.alias.lower() in part or not refers(schema, ref, thing):
                continue
            sources = [s for s in q.sources if s.alias.lower() in part]
            if any(s.optional for s in sources):
                continue
            inner = [j for j in q.joins if j is not join and j.left.alias.lower() in part]
            own = [c for c in conds if any(col.alias.lower() in part for col in columns_in(c))]
            outside = [it.expr for it in q.select] + list(q.group_by) + [o.expr for o in q.order_by] + [q.having]
            outside += [c for c in conds if not any(c is o for o in own)]
            outside += [x for j in q.joins if j is not join and not any(j is i for i in inner) for x in (j.left,
                                                                                                        j.right)]
            if any(isinstance(n, Col) and n.alias.lower() in part for e in outside for n in walk(
                    e, subqueries=False)):
                continue
            if own and all(_row_test(c, part) or _excluded_again(c, ref) for c in own) and any(
                    _row_test(c, part) for c in own):
                sources.sort(key=lambda s: s.alias.lower() != ref.alias.lower())
                return _Excluded(tuple(sources), tuple(inner), join, thing, ref)
    return None


def _row_test(c: object, part: set[str]) -> bool:
    """`alias.column != 'value'` (or a number), on an alias of the part."""
    return (isinstance(c, Cmp) and c.op == "!=" and isinstance(c.left, Col) and c.left.alias.lower() in part
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
    conds = top_conditions(q.where)
    tests = [c for c in conds if _row_test(c, side.aliases)]
    held = [Cmp("=", c.left, c.right) for c in tests]
    sub = Query(select=(Item(side.ref),), sources=side.sources, joins=side.joins,
                where=held[0] if len(held) == 1 else Or(tuple(held)))
    kept = [c for c in conds if not any(c is t for t in tests) and not _excluded_again(c, side.ref)]
    kept += [InQuery(side.thing, c.query, negated=True) for c in conds if _excluded_again(c, side.ref)]
    kept.append(InQuery(side.thing, sub, negated=True))
    where = kept[0] if len(kept) == 1 else And(tuple(kept))
    log.info("excluded_by_rows: %s rows != ... read as %s NOT IN (...)", side.ref.table, side.thing.column)
    dropped = side.joins + (side.link,)
    return replace(q, sources=tuple(s for s in q.sources if s.alias.lower() not in side.aliases),
                   joins=tuple(j for j in q.joins if not any(j is d for d in dropped)), where=where), True
