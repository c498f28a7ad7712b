"""Named, general repairs of a plan, applied by code before it runs. Each keeps the question's meaning: it only
replaces what has exactly one reading in the data, and otherwise explains the problem for the model to fix.

- `value_spelling`: a text compared with a column that holds no such value is replaced by the one value of that
  column it means (same words ignoring case, accents and regular plurals; or the only value containing its words);
- `value_elsewhere`: a text that is not a value of the compared column but is one of another column of the same
  table, or of a table the question's query could join, is reported to the model with where it is;
- `name_spelling`: the same as value_spelling for a link (or a row's iri) compared with text, which compares the
  linked thing's name;
- `id_of_thing`: a question that asks for ids (not names) and selects things (a link column, or a row's iri) gets
  each thing's id column instead, when the thing's table has exactly one (a column named `id` or `<table>Id`
  holding a different value on every row): the thing is shown by its name otherwise, and its name is not its id;
- `semi_join`: a joined table none of whose columns the query uses, whose rows each refer to a row of the table it
  is joined to (the orders of a customer), only says "that has one": it becomes EXISTS (...), so each thing is
  listed once however many rows refer to it (a join would repeat it once per referring row);
- `same_thing`: a join of two tables of the same things (one's class a subclass of the other's, or the same
  table) on a row's iri and a column that can never hold it (a text, or a link to another table's things) has one
  reading: the two rows are the same thing (`Lamp L JOIN Item I ON L.iri = I.colour`: I is L);
- `time_rank`: "the most recent / latest / newest / earliest X's Y" answered with MAX or MIN of Y over one table
  that has exactly one date or time column ranks by Y, where the question ranks by time: it becomes Y of the row
  with the latest (earliest) date (ORDER BY the date DESC / ASC LIMIT 1);
- `count_referred`: "how many X" answered by COUNT(*) over a table whose rows each refer to one X (visits of
  patients, for "how many patients ...") counts the distinct X referred to: two rows about one X are one X;
- `linked_elsewhere`: a joined table's name compared with a name none of its rows has, where the link joined to it
  points at a thing of another class (or of none) with that name (links of one property that point at things of
  several kinds: `JOIN Place P ON F.subject = P.iri WHERE P.label = 'X'` where X is no place): the link is
  compared with the name instead (`F.subject = 'X'`: the linked thing's name), and the table is left out;
- `named_on_its_source`: a text compared with a column of one table of the query that holds no such value, while
  exactly one other table of the query holds it in its own column of that name (`JOIN Tool T ... WHERE
  T.label = 'X'` where X is the name of the query's other table's row), is compared there;
- `value_of_referred` (referred.py): a text compared with a key column that refers to another table, which holds
  the text in exactly one column of its own, is compared there (the referred table joined on the key);
- `joined_as_link_target`: a table t joined by `x.link = t.iri` where the link points at rows of another table (of
  no class of t's) is that other table, when the query reads columns of t, the other table has every one of them
  and holds every text the query compares on them (the repair the compiler's message would ask for); a text only t
  holds leaves it to the model, and a table read for nothing says what the row is (`same_thing`'s);
- `both_joined`: one joined row's column required to equal two different values at once (`JOIN Tool T ON
  W.uses = T.iri WHERE T.label = 'saw' AND T.label = 'drill'`), which no row can, has one reading: the things
  linked to a row of each value ("both"); the joined table is joined once more for the second value.

Repairs never drop or loosen a condition: an answer to a looser question is never returned as this one's."""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

from rdflib import URIRef

from ontocore.text import fold

from .linking import ValueIndex
from .storage.sparql import QueryError
from .question import Question
from .exclusions import excluded_by_rows
from .referred import value_of_referred
from .sqlplan.plan import (Agg, Cmp, Col, InList, Join, Like, Lit, PlanError, Query, SetQuery, Source, columns_in,
                           transform, walk)
from .sqlplan.schema import Schema, Table

log = logging.getLogger(__name__)


class Repairer:
    def __init__(self, schema: Schema, index: ValueIndex) -> None:
        self.schema = schema
        self.index = index
        self.applied: list[str] = []

    def repair(self, plan: Any) -> Any:
        return transform(plan, self._node)

    def _node(self, node: Any) -> Any:
        if isinstance(node, Cmp) and node.op in ("=", "!="):
            if isinstance(node.left, Col) and _text(node.right):
                return replace(node, right=self._literal(node.left, node.right))
            if isinstance(node.right, Col) and _text(node.left):
                return replace(node, left=self._literal(node.right, node.left))
        if isinstance(node, InList) and isinstance(node.expr, Col):
            vals = tuple(self._literal(node.expr, v) if _text(v) else v for v in node.values)
            return replace(node, values=vals)
        return node

    def _literal(self, col: Col, lit: Lit) -> Lit:
        table = self.schema.table(col.table)
        c = table.column(col.column) if table else None
        if c is None:
            return lit
        text = str(lit.value)
        if c.kind in ("link", "id"):
            target = self.schema.table(c.target) if c.kind == "link" else table
            labels = [x for x in target.columns.values() if x.is_label] if target else []
            if labels and target is not None and any(text in self.index.values_of(k.prop, target)
                                                     for k in target.key_columns()):
                return lit  # the row's key (sqlplan/compile.py compares names and keys)
            if c.kind == "link" and c.prop is not None and not any(
                    text in self.index.values_of(x.prop, target) for x in labels) and links_to_named(
                    self.index, self.schema, c.prop, text):
                return lit  # the name of a linked thing of another table (or of none)
            return self._in_props([x.prop for x in labels], lit, text, "name_spelling",
                                  f"the names of {target.name if target else '?'}",
                                  samples=[v for x in labels for v in x.samples], table=target)
        if c.kind != "value" or c.sql_type != "TEXT":
            return lit
        return self._in_props([c.prop], lit, text, "value_spelling", f"{table.name}.{c.name}", col, c.samples,
                              table=table)

    def _in_props(self, props: list[URIRef], lit: Lit, text: str, rule: str, where: str,
                  col: Col | None = None, samples: list[str] | None = None, table: Table | None = None) -> Lit:
        if not props:
            return lit
        for p in props:
            if text in self.index.values_of(p, table):
                return lit
        found: list[str] = []
        for p in props:
            found += self.index.closest(p, text, table)
        found = list(dict.fromkeys(found))
        if len(found) == 1:
            self._note(rule)
            log.info("%s: %r -> %r", rule, text, found[0])
            return Lit(found[0])
        if len(found) > 1:
            raise PlanError(f"'{text}' is not a value of {where}; several values fit: "
                            + ", ".join(f"'{v}'" for v in found[:6]) + ". Use the one the question means, or LIKE.")
        elsewhere = self._elsewhere(text, col)
        if elsewhere:
            raise PlanError(f"'{text}' is not a value of {where}. It is a value of {elsewhere}: compare that "
                            "column instead (join its table if needed).")
        # the values of this column in this table (a property shared by several tables, like rdfs:label, holds
        # the values of all of them)
        samples = list(dict.fromkeys(samples or []))
        for p in props if not samples else ():
            samples += list(self.schema.values.get(p, {}))[:5]
        raise PlanError(f"'{text}' is not a value of {where} (values look like "
                        + ", ".join(f"'{v}'" for v in samples[:5]) + "). Use a value the data holds, or LIKE "
                        "'%word%' for a part of a value.")

    def _elsewhere(self, text: str, col: Col | None) -> str:
        """Where else the text is a value (table.column list), preferring the same table."""
        places = []
        for prop, values in self.schema.values.items():
            matches = [text] if text in values else [v for v in self.index.closest(prop, text) if fold(v) == fold(text)]
            for value in matches[:1]:
                for t in self.index.tables_with(prop, value):
                    c = t.column_for(prop)
                    places.append((0 if col is not None and t.name == col.table else 1, t.count, f"{t.name}.{c.name}"))
        places.sort()
        return ", ".join(p[2] for p in places[:3])

    def _note(self, rule: str) -> None:
        if rule not in self.applied:
            self.applied.append(rule)


def _text(e: Any) -> bool:
    return isinstance(e, Lit) and isinstance(e.value, str)


def joined_as_link_target(q: Query, schema: Schema, index: ValueIndex) -> tuple[Query, bool]:
    """`joined_as_link_target` (module docstring)."""
    for j in q.joins:
        for link, row in ((j.left, j.right), (j.right, j.left)):
            c, table, target = _column(schema, link), schema.table(row.table), None
            if c is not None and c.kind == "link" and c.target and row.column.lower() == "iri" and table is not None:
                target = schema.table(c.target)
            if target is None or target.name == table.name or set(target.classes) & set(table.classes):
                continue
            key = (row.alias.lower(), row.table)

            def mine(x: Any) -> bool:
                return (x.alias.lower(), x.table) == key
            used = [x for x in columns_in(q, deep=True) if mine(x) and x.column.lower() != "iri"]
            if not used or any(target.column(x.column) is None for x in used):
                continue  # (a table read for nothing says what the row is: "is it a Shark")
            texts = [(target.column(x.left.column), str(x.right.value)) for x in walk(q)
                     if isinstance(x, Cmp) and isinstance(x.left, Col) and mine(x.left) and _text(x.right)]
            if any(col.prop is None or not index.holds(col.prop, text, target) for col, text in texts):
                continue  # a name only the joined table holds: the model's join may be what it meant

            def moved(n: Any) -> Any:
                if isinstance(n, (Col, Source)) and mine(n):
                    return replace(n, table=target.name)
                return n
            return transform(q, moved), True
    return q, False


def repair_plan(plan: Any, schema: Schema, index: ValueIndex,
                question: Question | None = None) -> tuple[Any, list[str]]:
    r = Repairer(schema, index)
    if isinstance(plan, Query):
        plan, changed = joined_as_link_target(plan, schema, index)
        if changed:
            r._note("joined_as_link_target")
        plan, changed = named_on_its_source(plan, schema, index)
        if changed:
            r._note("named_on_its_source")
        plan, changed = value_of_referred(plan, schema, index)
        if changed:
            r._note("value_of_referred")
        for _ in range(4):  # one name at a time ("both A and B": two)
            plan, changed = linked_elsewhere(plan, schema, index)
            if not changed:
                break
            r._note("linked_elsewhere")
    plan = r.repair(plan)
    if question is not None and isinstance(plan, Query) and (asks_ids(question) or (
            asks_ids(question, with_names=True) and _names_apart(plan, schema))):
        plan, changed = ids_of_things(plan, schema)
        if changed:
            r._note("id_of_thing")
    if question is not None and isinstance(plan, Query):
        plan, changed = excluded_by_rows(plan, schema, question)
        if changed:
            r._note("excluded_by_rows")
    if isinstance(plan, Query):
        plan, changed = same_thing(plan, schema)
        if changed:
            r._note("same_thing")
        plan, changed = semi_join(plan, schema)
        if changed:
            r._note("semi_join")
    if question is not None and isinstance(plan, Query):
        plan, changed = time_rank(plan, schema, question)
        if changed:
            r._note("time_rank")
    if question is not None and question.kind == "count" and isinstance(plan, Query):
        plan, changed = count_referred(plan, schema, question)
        if changed:
            r._note("count_referred")
    if isinstance(plan, Query):
        plan, changed = both_joined(plan)
        if changed:
            r._note("both_joined")
    return plan, r.applied


_Q_LINKED_NAMED = ("SELECT ?o WHERE { ?s <%s> ?o . ?o ?p ?l . VALUES ?p { %s } FILTER(isIRI(?o) && STR(?l) = %s) }"
                   " LIMIT 1")


def links_to_named(index: ValueIndex, schema: Schema, prop: URIRef, text: str) -> bool:
    """Does the link property `prop` point at some thing named `text` (by any label property of the view)?"""
    from rdflib import Literal

    props = " ".join(URIRef(p).n3() for p in schema.label_props)
    if not props:
        return False
    try:
        return bool(index.store.select(_Q_LINKED_NAMED % (prop, props, Literal(text).n3()), max_rows=1).rows)
    except QueryError:  # a store that cannot tell
        return False


def named_on_its_source(q: Query, schema: Schema, index: ValueIndex) -> tuple[Query, bool]:
    """`named_on_its_source` (module docstring): each top condition `a.c = 'text'` whose table holds no such value
    of `c`, where exactly one other source of the query holds it in its own column `c`, moves to that source."""
    from .sqlplan.plan import And

    items = list(q.where.items) if isinstance(q.where, And) else [q.where] if q.where is not None else []
    changed = False
    for i, c in enumerate(items):
        if not (isinstance(c, Cmp) and c.op == "=" and isinstance(c.left, Col) and _text(c.right)):
            continue
        col = _column(schema, c.left)
        if col is None or col.prop is None or col.kind != "value" or index.holds(
                col.prop, str(c.right.value), schema.table(c.left.table)):
            continue
        holders = [s for s in q.sources if s.alias.lower() != c.left.alias.lower() and (t := schema.table(s.table))
                   and (other := t.column(c.left.column)) is not None and other.prop == col.prop
                   and index.holds(col.prop, str(c.right.value), t)]
        if len(holders) == 1:
            items[i] = Cmp("=", Col(holders[0].alias, holders[0].table, c.left.column), c.right)
            changed = True
    if not changed:
        return q, False
    return replace(q, where=items[0] if len(items) == 1 else And(tuple(items))), True


def _column(schema: Schema, col: Col) -> Any:
    table = schema.table(col.table)
    return table.column(col.column) if table is not None else None


def linked_elsewhere(q: Query, schema: Schema, index: ValueIndex) -> tuple[Query, bool]:
    """`linked_elsewhere` (module docstring)."""
    from .sqlplan.plan import And

    conds = list(q.where.items) if isinstance(q.where, And) else [q.where] if q.where is not None else []
    for i, c in enumerate(conds):
        if not (isinstance(c, Cmp) and c.op == "=" and isinstance(c.left, Col) and _text(c.right)):
            continue
        alias, text = c.left.alias.lower(), str(c.right.value)
        table = schema.table(c.left.table)
        col = table.column(c.left.column) if table is not None else None
        if table is None or col is None or not col.is_label or text in index.values_of(col.prop, table):
            continue
        joins = [j for j in q.joins if alias in (j.left.alias.lower(), j.right.alias.lower())]
        used = [x for x in columns_in(q, deep=True) if x.alias.lower() == alias]
        if len(joins) != 1 or joins[0].optional or len(used) != 2:  # its side of the join, and the name compared
            continue
        link = joins[0].left if joins[0].right.alias.lower() == alias else joins[0].right
        other = joins[0].right if link is joins[0].left else joins[0].left
        owner = schema.table(link.table)
        lc = owner.column(link.column) if owner is not None else None
        if lc is None or lc.kind != "link" or other.column.lower() != "iri" or lc.prop is None:
            continue
        if not links_to_named(index, schema, lc.prop, text):
            continue
        conds[i] = Cmp("=", link, Lit(text))
        where = And(tuple(conds)) if len(conds) > 1 else conds[0]
        return replace(q, sources=tuple(s for s in q.sources if s.alias.lower() != alias),
                       joins=tuple(j for j in q.joins if j is not joins[0]), where=where), True
    return q, False


def both_joined(q: Query) -> tuple[Query, bool]:
    """`both_joined` (module docstring): the second of two equalities of one joined alias's column with different
    constants moves to a copy of that alias, joined the same way."""
    from .sqlplan.plan import And

    if not isinstance(q.where, And):
        return q, False
    seen: dict[tuple[str, str], Lit] = {}
    for i, c in enumerate(q.where.items):
        if not (isinstance(c, Cmp) and c.op == "=" and isinstance(c.left, Col) and isinstance(c.right, Lit)):
            continue
        key = (c.left.alias.lower(), c.left.column.lower())
        if key not in seen:
            seen[key] = c.right
            continue
        if seen[key].value == c.right.value:
            continue
        alias = c.left.alias
        joins = [j for j in q.joins if not j.optional and alias.lower() in (j.left.alias.lower(), j.right.alias.lower())
                 and j.left.alias.lower() != j.right.alias.lower()]
        source = next((s for s in q.sources if s.alias.lower() == alias.lower()), None)
        if source is None or source.optional:
            return q, False
        if not joins:  # a column that holds several values per row: the same row read again for the second one
            joins = [Join(Col(alias, source.table, "iri"), Col(alias, source.table, "iri"))]
        taken = {s.alias.lower() for s in q.sources}
        n = 2
        while f"{alias}_{n}".lower() in taken:
            n += 1
        copy = f"{alias}_{n}"

        def moved(col: Col) -> Col:
            return Col(copy, col.table, col.column) if col.alias.lower() == alias.lower() else col

        items = list(q.where.items)
        items[i] = Cmp("=", moved(c.left), c.right)
        added = tuple(Join(moved(j.left), moved(j.right)) if j.left.alias.lower() != j.right.alias.lower()
                      else Join(j.left, moved(j.right)) for j in joins)
        return replace(q, sources=q.sources + (Source(source.table, copy),), joins=q.joins + added,
                       where=And(tuple(items))), True
    return q, False


def _link_to(schema: Schema, many: Col, one: Col) -> Col | None:
    """The link column of `many`'s table that points at `one`'s rows (`many` itself when it is that link)."""
    table, other = schema.table(many.table), schema.table(one.table)
    col = table.column(many.column) if table else None
    if col is None or other is None:
        return None
    if col.kind == "link" and one.column.lower() == "iri":
        return many
    links = [c for c in table.columns.values() if c.kind == "link" and c.target and c.count <= c.subjects
             and schema.table(c.target) is not None and schema.table(c.target).name == other.name]
    return Col(many.alias, many.table, links[0].name) if len(links) == 1 else None


def same_thing(q: Query, schema: Schema) -> tuple[Query, bool]:
    """Joins of a row's iri with a column of a table of the same things that can never hold it, as iri = iri."""
    from .checks.tables import related

    joins, changed = list(q.joins), False
    for i, j in enumerate(joins):
        ta, tb = schema.table(j.left.table), schema.table(j.right.table)
        if ta is None or tb is None or j.optional or not related(ta, tb):
            continue
        if j.left.alias.lower() == j.right.alias.lower():
            continue
        for thing, other, other_table, thing_table in ((j.left, j.right, tb, ta), (j.right, j.left, ta, tb)):
            col = other_table.column(other.column)
            if thing.column.lower() != "iri" or col is None or col.kind == "id":
                continue
            if col.kind == "link":
                target = schema.table(col.target) if col.target else None
                if target is None or related(target, thing_table):
                    continue  # a link to these things: a real join (a part of a part)
            elif col.key_of:
                continue  # a key value: joined through the key
            joins[i] = Join(thing, Col(other.alias, other.table, "iri"))
            changed = True
            break
    return (replace(q, joins=tuple(joins)), True) if changed else (q, False)


def semi_join(q: Query, schema: Schema) -> tuple[Query, bool]:
    """Each inner-joined source whose columns serve only its one join, and whose rows refer to the joined row, as
    EXISTS (SELECT ... WHERE the join) in the WHERE of the query. Queries without aggregates, and those whose
    aggregates a repeated row would change only by summing it again: SUM or AVG of the joined things' values (the
    total staff of the depots that have a van counts each depot once, not once per van), beside
    MAX, MIN and COUNT(DISTINCT), with the conditions on the joined rows alone moved into the EXISTS. A COUNT(*)
    over the join counts the referring rows, as asked: left as it is."""
    from .sqlplan.plan import And, Exists, Item, columns_in
    from .sqlplan.plan import walk
    from .checks.plan_parts import aggregates_in, excluding, top_conditions
    from .checks.tables import refers

    def _only_of(c: Any, alias: str) -> bool:
        """A condition on the columns of one source alone (its subqueries read their own sources or that one)."""
        inner = {s.alias.lower() for n in walk(c) if isinstance(n, Query) for s in n.sources}
        outer = columns_in(c)
        return bool(outer) and all(x.alias.lower() == alias for x in outer) and all(
            x.alias.lower() in inner | {alias} for x in columns_in(c, deep=True))

    aggs = [a for it in q.select for a in aggregates_in(it.expr)] + [a for o in q.order_by for a in aggregates_in(o.expr)]
    summed = any(a.func in ("sum", "avg") and not a.distinct for a in aggs)
    if q.having is not None or len(q.sources) < 2 or (aggs and not summed) or (q.group_by and not aggs) or any(
            a.func == "count" and not a.distinct for a in aggs):
        return q, False
    for source in q.sources[1:]:
        if source.optional:
            continue
        alias = source.alias.lower()
        joins = [j for j in q.joins if alias in (j.left.alias.lower(), j.right.alias.lower())]
        if len(joins) != 1:
            continue
        rest = replace(q, joins=tuple(j for j in q.joins if j is not joins[0]),
                       sources=tuple(s for s in q.sources if s is not source))
        # a total's conditions on the joined rows alone go with them into EXISTS: the depots that have a van
        # bought after 2020, each once (a list keeps its join: one row per joined row, as before)
        own = [c for c in top_conditions(q.where) if summed and _only_of(c, alias)]
        if any(excluding(n) for c in own for n in walk(c)):
            continue  # "!= X" over the joined rows keeps the things that have any other row: the check says so
        if own:
            kept = [c for c in top_conditions(q.where) if not any(c is o for o in own)]
            rest = replace(rest, where=None if not kept else kept[0] if len(kept) == 1 else And(tuple(kept)))
        used = columns_in((rest.select, rest.where, rest.order_by, rest.joins, rest.group_by), deep=True)
        if any(c.alias.lower() == alias for c in used):
            continue
        j = joins[0]
        many, one = (j.left, j.right) if j.left.alias.lower() == alias else (j.right, j.left)
        if not refers(schema, many, one):
            continue
        link = _link_to(schema, many, one)
        if link is None:
            continue  # by key values only: EXISTS would compare texts row by row, slower than the join
        exists = Exists(Query(select=(Item(Lit(1)),), sources=(source,),
                              joins=(Join(link, Col(one.alias, one.table, "iri")),),
                              where=None if not own else own[0] if len(own) == 1 else And(tuple(own))))
        where = exists if rest.where is None else And((rest.where, exists))
        return replace(rest, where=where), True
    return q, False


def time_rank(q: Query, schema: Schema, question: Question) -> tuple[Query, bool]:
    """SELECT MAX(y) / MIN(y) FROM one table, for a question ranked by time, as SELECT y ... ORDER BY the table's
    one date or time column (DESC for recent / latest / newest, ASC for earliest) LIMIT 1."""
    from .sqlplan.plan import Order
    from .question import TIME_SUPERLATIVE, ranks_itself

    words = set(question.words) & TIME_SUPERLATIVE
    if not words or ("earliest" in words and len(words) > 1):
        return q, False
    if len(q.sources) != 1 or q.group_by or q.having is not None or len(q.select) != 1 or q.distinct:
        return q, False
    agg = q.select[0].expr
    if not (isinstance(agg, Agg) and agg.func in ("max", "min") and isinstance(agg.arg, Col)):
        return q, False
    table = schema.table(agg.arg.table)
    col = table.column(agg.arg.column) if table else None
    if table is None or col is None or col.kind != "value" or col.sql_type in _TIMES:
        return q, False
    if ranks_itself(question, col.name, table.name):
        return q, False  # "the latest year": the column itself is ranked
    times = [c for c in table.columns.values() if c.kind == "value" and c.sql_type in _TIMES]
    if len(times) != 1:
        return q, False  # none, or several: which one the question means is the model's choice
    order = Order(Col(agg.arg.alias, agg.arg.table, times[0].name), desc="earliest" not in words)
    item = replace(q.select[0], expr=agg.arg)
    return replace(q, select=(item,), order_by=(order,), limit=1, offset=None), True


_TIMES = ("DATE", "TIMESTAMP", "TIME")


def count_referred(q: Query, schema: Schema, question: Question) -> tuple[Query, bool]:
    """COUNT(*) over one table whose rows each refer to one thing of the counted table, as COUNT(DISTINCT link)."""
    from .question import counted_phrase
    from .checks.tables import related, tables_named

    if len(q.sources) != 1 or q.group_by or len(q.select) != 1:
        return q, False
    agg = q.select[0].expr
    if not (isinstance(agg, Agg) and agg.func == "count" and agg.arg is None):
        return q, False
    source = q.sources[0]
    table = schema.table(source.table)
    wanted = tables_named(schema, counted_phrase(question))
    if table is None or not wanted or any(related(table, w) for w in wanted):
        return q, False
    links = []
    for col in table.columns.values():
        if col.count > col.subjects:
            continue  # several values per row: not one thing per row
        target = schema.table(col.target) if col.kind == "link" and col.target else None
        if target is None and col.key_of:
            target = schema.table(col.key_of.split(".", 1)[0])
        if target is not None and any(related(target, w) for w in wanted):
            links.append((col.kind != "link", target.name, col))
    if len({name for _, name, _ in links}) != 1:
        return q, False  # no link to the counted things, or to several (which one is meant is the model's choice)
    link = min(links, key=lambda x: x[0])[2]  # the link itself before a column holding the thing's key
    new = Agg("count", Col(source.alias, table.name, link.name), distinct=True)
    return replace(q, select=(replace(q.select[0], expr=new),)), True


_ID_WORDS = frozenset(("id", "ids", "identifier", "identifiers"))


def asks_ids(q: Question, with_names: bool = False) -> bool:
    """Does the question ask for ids ("the member ids", "show the id of ...") and not for names (`with_names`:
    whether or not it also asks for names)?"""
    return any(w in _ID_WORDS for w in q.words) and (with_names or not q.asks_names)


def _names_apart(q: Query, schema: Schema) -> bool:
    """The plan selects values besides things ("the id, first name and last name": a thing and two name
    columns): the names asked are those columns, so a selected thing stands for its id."""
    def value(e: Any) -> bool:
        table = schema.table(e.table) if isinstance(e, Col) else None
        col = table.column(e.column) if table else None
        return col is not None and col.kind == "value"
    return any(value(it.expr) for it in q.select)


def ids_of_things(q: Query, schema: Schema) -> tuple[Query, bool]:
    """The query with each selected thing (a link column, or a row's iri) replaced by its id column (see
    `Table.id_column`): a link is followed to the linked row (a LEFT JOIN unless every row has the link), a row's own
    iri becomes its id. A grouping by the thing also groups by its id (one id per thing: the same groups)."""
    select, sources, joins, group_by = list(q.select), list(q.sources), list(q.joins), list(q.group_by)
    taken = {s.alias.lower() for s in sources}
    changed = False
    for i, item in enumerate(select):
        e = item.expr
        if not isinstance(e, Col):
            continue
        table = schema.table(e.table)
        col = table.column(e.column) if table else None
        if table is None or col is None:
            continue
        if col.kind == "id":
            key = table.id_column()
            if key is None:
                continue
            new = Col(e.alias, e.table, key.name)
        elif col.kind == "link" and col.target:
            target = schema.table(col.target)
            key = target.id_column() if target else None
            if target is None or key is None:
                continue
            n = 1
            while f"id{n}" in taken:
                n += 1
            alias = f"id{n}"
            taken.add(alias)
            optional = col.subjects < table.count
            sources.append(Source(target.name, alias, optional=optional))
            joins.append(Join(e, Col(alias, target.name, "iri"), optional=optional))
            new = Col(alias, target.name, key.name)
        else:
            continue
        select[i] = replace(item, expr=new, name=item.name)
        if e in group_by:
            group_by.append(new)
        changed = True
    if not changed:
        return q, False
    return replace(q, select=tuple(select), sources=tuple(sources), joins=tuple(joins), group_by=tuple(group_by)), True


__all__ = ["repair_plan", "transform", "asks_ids", "ids_of_things", "Repairer", "Like", "Query",
           "SetQuery"]
