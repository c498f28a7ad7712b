"""Repairs by code of a plan that ran and found no rows, tried before the model is told (each is kept only when it
finds rows and every answer check passes: AnswerLoop._code_repair).

(Before them, repairs.py's `named_on_its_source` is made on the plan as read.)

- `named_on_its_table`: a name the question gives, compared with the label of one table of the plan, while the
  question's linking says the named thing is a row of another table of the plan (`Ranger R JOIN Warden W ON
  R.hasWarden = W.iri WHERE R.label = 'X'` where X is the warden): the condition moves to that table's alias.
- `unasked_join_dropped`: a joined table none of whose columns the plan selects or compares, which the question
  does not name, and which leaves no rows: it only required a relation the question never states (a ranger's
  hut, for "what is the salary of X?"), so it is left out;
- `joined_by_the_link`: two tables of different things (no class in common) joined as one thing (`A.iri = B.iri`),
  which no row can satisfy, between which the view has exactly one link, are joined by that link; two tables
  joined by one of their two links, which pairs no rows (a sheet's `filedIn` binder, where the data states the
  binder's `holds`), are joined by the other.
- `both_values`: "which X ... both A and B" planned otherwise (the two named things intersected, which no thing
  is): the X linked to A and also to B (checks/asked.py's `things_with_both`, written from the question).
- `linked_to_named`: "which X ... N" that asks nothing else (`asks_only_the_linked`: no number, ranking, amount,
  negation or second named value): the X linked to N by the link between their tables, the one the question's
  words name where there are several (checks/asked.py's `things_of_named`), when X's rows have names.

Each of the others applies only to a plain query (no set operation) and adds no condition."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ontocore.text import STOP, fold, singular, tokens

from .checks.asked import things_of_named, things_with_both
from .question import Question
from .repairs import named_on_its_source
from .sqlplan.joins import join_edges
from .sqlplan.plan import And, Cmp, Col, Join, Lit, Plan, Query, used_aliases
from .sqlplan.schema import Schema
from .written import asks_only_the_linked, names_its_things


def _conditions(q: Query) -> list[Any]:
    return list(q.where.items) if isinstance(q.where, And) else [q.where] if q.where is not None else []


def _where(items: list[Any]) -> Any:
    return None if not items else items[0] if len(items) == 1 else And(tuple(items))


def named_on_its_table(plan: Plan, schema: Schema, mentions: list) -> Query | None:
    """`named_on_its_table` (module docstring); None when no condition moves."""
    if not isinstance(plan, Query):
        return None
    items, moved = _conditions(plan), False
    for i, c in enumerate(items):
        if not (isinstance(c, Cmp) and c.op == "=" and isinstance(c.left, Col) and isinstance(c.right, Lit)
                and isinstance(c.right.value, str)):
            continue
        named = {m.table.lower() for m in mentions if getattr(m, "exact", False)
                 and fold(m.value) == fold(c.right.value)}
        if not named or c.left.table.lower() in named:
            continue
        others = [s for s in plan.sources if s.table.lower() in named and s.alias.lower() != c.left.alias.lower()]
        table = schema.table(others[0].table) if len(others) == 1 else None
        if table is None or table.column(c.left.column) is None:
            continue
        items[i] = Cmp("=", Col(others[0].alias, others[0].table, c.left.column), c.right)
        moved = True
    return replace(plan, where=_where(items)) if moved else None


def joined_by_the_link(plan: Plan, schema: Schema) -> Query | None:
    """`joined_by_the_link` (module docstring); None when no join changes."""
    if not isinstance(plan, Query):
        return None
    joins, changed = list(plan.joins), False
    for i, j in enumerate(joins):
        a, b = schema.table(j.left.table), schema.table(j.right.table)
        if j.optional or a is None or b is None or a.name == b.name:
            continue
        now = (j.left.column.lower(), j.right.column.lower())
        ways = {(x, y) for x, t, y in join_edges(schema, a) if t.lower() == b.name.lower()}
        if now == ("iri", "iri") and not set(a.classes) & set(b.classes):
            other = ways
        elif now in {(x.lower(), y.lower()) for x, y in ways}:  # a link the data does not state this way round
            other = {(x, y) for x, y in ways if (x.lower(), y.lower()) != now}
        else:
            continue
        if len(other) == 1:
            x, y = other.pop()
            joins[i] = Join(Col(j.left.alias, a.name, x), Col(j.right.alias, b.name, y))
            changed = True
    return replace(plan, joins=tuple(joins)) if changed else None


def unasked_join_dropped(plan: Plan, q: Question, table_texts: Any = None) -> Query | None:
    """`unasked_join_dropped` (module docstring): the plan without the joined tables it does not use and the
    question does not name (each left with its one join); None when there is none."""
    if not isinstance(plan, Query) or len(plan.sources) < 2:
        return None
    used = used_aliases(plan)
    said = {singular(w) for w in q.words}
    out = plan
    for src in plan.sources[1:]:
        alias = src.alias.lower()
        joins = [j for j in out.joins if alias in (j.left.alias.lower(), j.right.alias.lower())]
        if alias in used or src.optional or len(joins) != 1 or _named(src.table, said, table_texts):
            continue
        out = replace(out, sources=tuple(s for s in out.sources if s is not src),
                      joins=tuple(j for j in out.joins if j is not joins[0]))
    return out if out is not plan else None


def _named(table: str, said: set[str], table_texts: Any) -> bool:
    """Whether the question names the table by a word of its name or of one of its labels."""
    from ontocore.embeddings import split_name

    texts = {split_name(table)} | set(table_texts(table) if table_texts else ())
    return any({singular(w) for w in tokens(t)} - STOP & said for t in texts if t)


def empty_repairs(plan: Plan, schema: Schema, q: Question, mentions: list, table_texts: Any = None,
                  index: Any = None) -> list[tuple[str, Query, str]]:
    """The repairs to try, in order, as (name, plan, note): the condition moved to its table (and a join that
    leaves unused dropped with it), then the unasked join dropped alone. `plan`: the plan as read, before the
    repairs of repairs.py (of which a text compared on the query's other table, `named_on_its_source`, is made
    first, given the `index` of the data)."""
    if index is not None and isinstance(plan, Query):
        plan = named_on_its_source(plan, schema, index)[0]
    out = []
    moved = named_on_its_table(plan, schema, mentions)
    if moved is not None:
        out.append(("named_on_its_table", unasked_join_dropped(moved, q, table_texts) or moved,
                    "repaired: the name compared on the table whose row it names"))
    linked = joined_by_the_link(plan, schema)
    if linked is not None:
        out.append(("joined_by_the_link", linked, "repaired: two tables joined by the link between them the data "
                    "states"))
    dropped = unasked_join_dropped(plan, q, table_texts)
    if dropped is not None:
        out.append(("unasked_join_dropped", dropped,
                    "repaired: a joined table the question does not name, which left no rows, left out"))
    both = things_with_both(q, schema, mentions, table_texts)
    if both is not None:
        out.append(("both_values", both, "repaired: the asked things linked to each of the two named things"))
    linked = things_of_named(q, schema, mentions, table_texts, getattr(index, "embedder", None)) if (
        both is None and asks_only_the_linked(q, mentions)) else None
    if linked is not None and names_its_things(linked, schema):
        out.append(("linked_to_named", linked, "repaired: the asked things linked to the thing the question names"))
    return out
