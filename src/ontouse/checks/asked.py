"""Checks that the plan reads the things the question asks for: the table a "which X" asks for (or an existence of
its things), the class it names rather than a subclass of it or the whole of a class whose subclass it names, and a
condition on the asked things' own column; with the bounded repairs that read the asked things instead."""

from __future__ import annotations

import re
from dataclasses import fields, is_dataclass, replace
from typing import Any

from ontocore.text import fold, singular

from ..question import Question, asked_phrase, both_named
from ..sqlplan.plan import (And, Cmp, Col, InList, Item, Like, Lit, Not, Or, Plan, Query, SetQuery, Source, columns_in,
                            is_aggregate)
from ..sqlplan.schema import Schema, Table
from .check import Check
from .plan_parts import literals_in
from .tables import (as_term, asked_tables, is_subclass, named_subclass, phrase_tables, question_link, read_as,
                     related, table_named, tables_named)


def _of_table(e: Any, schema: Schema, target: Table) -> bool:
    """Is `e` a column of `target` (or of a table of the same things), a link to it or a key of its rows? A link of
    target's rows to other things selects those things ("which binder holds X" answered by the binder's
    `holds`: sheets), not target's rows."""
    if not isinstance(e, Col):
        return False
    table = schema.table(e.table)
    col = table.column(e.column) if table else None
    if table is None or col is None:
        return False
    if col.kind == "link" and col.target == target.name:
        return True
    linked = schema.table(col.target) if col.kind == "link" and col.target else None
    if linked is not None and not related(linked, target):
        return False
    if set(table.classes) & set(target.classes) or target.cls in table.classes:
        return True
    return bool(col.key_of) and col.key_of.split(".", 1)[0] == target.name


def type_problem(plan: Plan, schema: Schema, q: Question) -> str:
    """A "which X ..." question where X names a table, answered without any column of that table (or of a table
    of the same things, or a column referring to them): the query answers about other things."""
    if not q.head or q.kind != "other" or not isinstance(plan, Query):
        return ""
    from ontocore.text import STOP, singular

    at = next((i for i, w in enumerate(q.words[:4]) if w in ("which", "what")), None)
    phrase = []
    for w in q.words[at + 1:at + 4] if at is not None else []:
        if w in STOP:
            break
        phrase.append(singular(w))
    target = table_named(schema, q.head, phrase, {s.table.lower() for s in plan.sources})
    if target is None or all(is_aggregate(it.expr) for it in plan.select):
        return ""
    if any(_of_table(it.expr, schema, target) for it in plan.select):
        return ""
    return (f"the question asks which {target.name}, but the query selects no column of {target.name}: select "
            f"{target.name} rows (their iri, or the column that names them).")


# words that end the noun phrase of "is there a ... X" (what follows says more about X)
_CLAUSE = frozenset("that which who whose where with without in on at from of for by than to near under over "
                    "among between".split())


def exists_problem(plan: Plan, schema: Schema, q: Question) -> str:
    """"Is there a red lamp?", "Are there any cranes in the north yard?": a yes/no question whether some X exists,
    where X (the last word before what says more about it) names one table; a plan that reads no column of that
    table (nor of a table of the same things, nor a link or key to them) answers whether other things exist."""
    from ontocore.text import singular

    if q.kind != "yesno" or len(q.words) < 3 or q.words[1] != "there" or not isinstance(plan, Query):
        return ""
    phrase: list[str] = []
    for w in q.words[2:]:
        if w in _CLAUSE:
            break
        phrase.append(w)
    target = table_named(schema, singular(phrase[-1])) if phrase else None
    if target is None or any(_of_table(c, schema, target) for c in columns_in(plan, deep=True)):
        return ""
    if any(s.table.lower() == target.name.lower() for s in plan.sources):
        return ""
    return (f"the question asks whether there is a {target.name}, but the query reads no {target.name} rows: read "
            f"from {target.name} (or join it) and keep the question's conditions on it.")


def things_of_named(q: Question, schema: Schema, mentions: list, table_texts: Any = None,
                    embedder: Any = None) -> Plan | None:
    """The things a "which X does N ..." question asks for, read by code when the plan returned no column of X
    (the bounded repair of `asked_table`), found nothing, or failed every check: the rows of the table the question
    names (asked_tables; else the tables closest in meaning to X, `meant_tables`) linked to the one thing the
    question names whole (its exact mentions), by the link between that thing's table and X (`linked_to`); of
    several tables that hold the named thing, the smallest with such a link. "Which X have both A and B": the X
    linked to A and also to B (`things_with_both`). None when the question names no table, no single thing (or
    pair joined by both), or no link relates them."""
    named = [m for m in mentions if getattr(m, "exact", False)]
    if len({m.value for m in named}) == 2:
        return things_with_both(q, schema, mentions, table_texts, embedder)
    if len({m.value for m in named}) != 1:
        return None
    for wide in asked_tables(q, schema, table_texts)[:1] or meant_tables(q, schema, embedder):
        found = linked_to(wide, named, schema, q)
        if found is not None:
            return found
    return None


def things_with_both(q: Question, schema: Schema, mentions: list, table_texts: Any = None,
                     embedder: Any = None) -> Plan | None:
    """The things of the table a "which X ... both A and B" question asks for that are linked to the thing named A
    and also to the thing named B (A and B values of one column joined by "and", or any two named things after
    "both": both_named), each by the link between the named thing's table and X: an INTERSECT of the two. None
    when the question names no such pair or table, or no link relates them. When no table is named by X's words,
    the tables closest in meaning to them (`embedder`, a sentence model: "cooks" for a table of chefs) are tried,
    each until one is linked to both named things."""
    pairs = both_named(q, mentions)
    if len(pairs) != 1:
        return None
    for wide in asked_tables(q, schema, table_texts)[:1] or meant_tables(q, schema, embedder):
        parts = [linked_to(wide, [m for m in mentions if getattr(m, "exact", False) and m.value == value], schema, q)
                 for value in pairs[0]]
        if parts[0] is not None and parts[1] is not None:
            return SetQuery("intersect", parts[0], parts[1])
    return None


def meant_tables(q: Question, schema: Schema, embedder: Any) -> list[Table]:
    """The tables whose names (in words, without a number that tells classes of one name apart) are closest in
    meaning to the words after which / what, when clearly closest; several tables of one name all come. The words
    up to a verb the phrase ran on into are tried first whole, then fewer ("cooks trained": cooks). None when
    the words name a column of a table."""
    from ontocore.embeddings import split_name

    from ..sqlplan.sqlfixes import MEANING_MARGIN, MEANING_MIN  # (the thresholds of a column meant by another name)

    phrase = asked_phrase(q)
    if embedder is None or not phrase:
        return []
    columns = {split_name(c.name).lower() for t in schema.tables.values() for c in t.columns.values()}
    if any(" ".join(phrase[:size]) in columns for size in range(len(phrase), 0, -1)):
        return []  # the words name a column ("how many shifts ...": a value of the rows, not a class)
    names: dict[str, list[Table]] = {}
    for t in schema.tables.values():
        if t.count:
            names.setdefault(split_name(re.sub(r"_\d+$", "", t.name)).lower(), []).append(t)
    for size in range(len(phrase), 0, -1):
        ranked = embedder.rank(" ".join(phrase[:size]), list(names), top=2) + [(-1, 0.0)]
        if ranked[0][1] >= MEANING_MIN and ranked[0][1] - ranked[1][1] >= MEANING_MARGIN:
            return sorted(names[list(names)[ranked[0][0]]], key=lambda t: t.name)
    return []


def linked_to(wide: Table, named: list, schema: Schema, q: Question | None = None) -> Query | None:
    """The rows of `wide` linked to the thing the mentions `named` name (one value): where a mention is a value of
    wide's own column (a link to a thing the view shows by its name), the rows with that value; else by the link
    between the named thing's table and `wide` (`question_link`: a table's link to itself too); of several tables
    that hold it, the smallest with such a link."""
    options = []
    things = Source(wide.name, "things")
    for m in named:
        t = schema.table(m.table)
        col = t.column(m.column) if t is not None else None
        if col is None:
            continue
        if t.name.lower() == wide.name.lower() and not col.is_label:
            return Query(select=(Item(Col("things", wide.name, "iri")),), sources=(things,),
                         where=Cmp("=", Col("things", wide.name, col.name), Lit(m.value)), distinct=True)
        join = question_link(q, wide, "things", t, "named")
        if join is not None:
            options.append((t.count, t.name, m, join))
    if not options:
        return None
    _, table, m, join = min(options, key=lambda o: (o[0], o[1]))
    return Query(select=(Item(Col("things", wide.name, "iri")),),
                 sources=(things, Source(table, "named")), joins=(join,),
                 where=Cmp("=", Col("named", table, m.column), Lit(m.value)), distinct=True)


def class_read_problem(q: Question, plan: Plan, schema: Schema, table_texts: Any = None) -> str:
    """The class the question asks about, read whole: "which animals ..." answered from the table of a subclass
    the question does not name (the fish: only some of the animals), or "how many coastal vehicles" answered from
    the whole class (the vehicles) where the asked words name a subclass and the plan reads neither it nor a
    value that says those words. Only for ontologies with subclasses ('' otherwise). `table_texts(table)`: a
    table's labels in every language."""
    if not isinstance(plan, Query):
        return ""
    phrase = asked_phrase(q)
    if not phrase:
        return ""
    read = [t for s in plan.sources if (t := schema.table(s.table)) is not None]
    names = {t.name.lower() for t in read}
    asked = phrase_tables(schema, phrase, table_texts)
    if asked and not any(a.name.lower() in names for a in asked):
        wide = asked[0]
        named, _ = named_subclass(phrase, wide, schema, table_texts)
        narrow = [t for t in read if is_subclass(t, wide) and not (named is not None and (
            t.name == named.name or is_subclass(t, named) or is_subclass(named, t)))]
        if narrow:
            return (f"the question asks about {wide.name} things, but the query reads only {narrow[0].name}, a "
                    f"subclass of it (some of them): read from {wide.name}.")
    said = {w for lit in literals_in(plan) for w in as_term(lit).split()}
    for t in read:
        sub, added = named_subclass(phrase, t, schema, table_texts)
        if sub is None or added & said or any(r.name == sub.name or is_subclass(r, sub) for r in read):
            continue
        return (f"the question asks about {sub.name} things (the words '{' '.join(sorted(added))}'), but the query "
                f"reads all of {t.name}: read from {sub.name}, the subclass those words name.")
    return ""


def narrowed_to_named(q: Question, plan: Plan, schema: Schema, table_texts: Any = None) -> Plan | None:
    """The plan with the class it reads whole read as the subclass the asked words name ("how many coastal
    vehicles" read from the vehicle table: read from the coastal vehicle table), when every column read from it
    is the subclass's too (the bounded repair of class_read_problem's second case). None when there is none."""
    if not isinstance(plan, Query):
        return None
    phrase = asked_phrase(q)
    for s in plan.sources:
        t = schema.table(s.table)
        sub = named_subclass(phrase, t, schema, table_texts)[0] if t is not None and phrase else None
        if sub is not None:
            return read_as(plan, s.alias, sub)
    return None


def widened_to_asked(q: Question, plan: Plan, schema: Schema, table_texts: Any = None) -> Plan | None:
    """The plan with a table of a subclass the question does not name read as the class it names ("which vehicles
    ..." read from the truck table: read from the vehicle table), when every column read from it is the class's
    too (the bounded repair of a query that found no rows, and of class_read_problem's first case). None when
    there is no such table."""
    if not isinstance(plan, Query):
        return None
    asked = asked_tables(q, schema, table_texts)
    read = {s.table.lower() for s in plan.sources}
    if not asked or any(t.name.lower() in read for t in asked):
        return None
    wide = asked[0]
    narrow = [s for s in plan.sources if (t := schema.table(s.table)) is not None and is_subclass(t, wide)]
    if len(narrow) != 1:
        return None
    return read_as(plan, narrow[0].alias, wide)


def _compared_texts(e: Any) -> list[tuple[Col, list[str]]]:
    """The columns compared with texts in a condition (=, LIKE, IN; outside subqueries) and those texts, folded."""
    out: list[tuple[Col, list[str]]] = []
    if isinstance(e, Cmp) and isinstance(e.left, Col) and isinstance(e.right, Lit) and isinstance(e.right.value, str):
        out.append((e.left, [fold(e.right.value)]))
    elif isinstance(e, Like) and isinstance(e.expr, Col):
        out.append((e.expr, [fold(p) for p in e.pattern.split("%") if p.strip()]))
    elif isinstance(e, InList) and isinstance(e.expr, Col):
        out.append((e.expr, [fold(str(v.value)) for v in e.values if isinstance(v.value, str)]))
    elif isinstance(e, (And, Or)):
        for item in e.items:
            out += _compared_texts(item)
    elif isinstance(e, Not):
        out += _compared_texts(e.item)
    return out


def _misowned(q: Question, plan: Plan, schema: Schema) -> tuple[Col, Table] | None:
    """The compared column of a condition that the asked table has too, read from another table (the problem of
    `condition_owner_problem`), with the asked table; None when there is none."""
    from ontocore.embeddings import split_name

    if not q.head or not isinstance(plan, Query) or plan.where is None:
        return None
    asked = tables_named(schema, [q.head])
    if len(asked) != 1:
        return None
    target = asked[0]
    if not any(s.table.lower() == target.name.lower() for s in plan.sources):
        return None
    words = {singular(w) for w in q.words}
    for col, texts in _compared_texts(plan.where):
        table = schema.table(col.table)
        if table is None or related(table, target) or col.column.lower() == "iri":
            continue
        own, other = target.column(col.column), table.column(col.column)
        if own is None or other is None or other.is_label or own.is_label:
            continue  # the asked things have no such column, or it names things (a thing named is the other's)
        if {singular(w) for w in split_name(table.name).split()} & words:
            continue  # the question names the other table: its column is meant
        held = [fold(v) for v in schema.values.get(own.prop, {})]
        if not any(t and any(t in v for v in held) for t in texts):
            continue  # the compared text is no value of the asked things' column
        return col, target
    return None


def condition_owner_problem(q: Question, plan: Plan, schema: Schema) -> str:
    """In "which X ..." a condition on a column that X has, read from another joined table the question does not
    name ("which rangers live in Y" filtered on their huts' town, though rangers have a town), is about the other
    table's things: the question's condition is on X's own column."""
    found = _misowned(q, plan, schema)
    if found is None:
        return ""
    col, target = found
    return (f"the question asks which {target.name}, and {target.name} has a column {col.column}, but the "
            f"condition reads {col.column} of {schema.table(col.table).name}: use {target.name}.{col.column}.")


def condition_moved(q: Question, plan: Plan, schema: Schema) -> Plan | None:
    """The repair of `condition_on_asked`: the condition reads the asked table's own column, and the joins that
    only led to the other table (each a table used by nothing else than the join to the next) are dropped."""
    found = _misowned(q, plan, schema)
    if found is None:
        return None
    col, target = found
    own = [s for s in plan.sources if s.table.lower() == target.name.lower()]
    if len(own) != 1:
        return None
    mine = Col(own[0].alias, own[0].table, target.column(col.column).name)

    def moved(e: Any) -> Any:
        if e == col:
            return mine
        if isinstance(e, (Query, SetQuery)) or not is_dataclass(e) or isinstance(e, type):
            return tuple(moved(x) for x in e) if isinstance(e, tuple) else e
        return replace(e, **{f.name: moved(getattr(e, f.name)) for f in fields(e)})

    return _dangling_dropped(replace(plan, where=moved(plan.where)), col.alias.lower(), own[0].alias.lower())


def _dangling_dropped(plan: Query, start: str, keep: str) -> Query:
    """`plan` without the chain of sources from `start` that serve only the join to the next one (stopping at
    `keep`, at the first source, and at a source used otherwise or joined more than once)."""
    alias = start
    while alias != keep and alias != plan.sources[0].alias.lower():
        mine = [j for j in plan.joins if alias in (j.left.alias.lower(), j.right.alias.lower())]
        rest = replace(plan, sources=(), joins=tuple(j for j in plan.joins if j not in mine))
        if len(mine) != 1 or any(c.alias.lower() == alias for c in columns_in(rest, deep=True)):
            break
        nxt = mine[0].right if mine[0].left.alias.lower() == alias else mine[0].left
        plan = replace(plan, sources=tuple(s for s in plan.sources if s.alias.lower() != alias), joins=rest.joins)
        alias = nxt.alias.lower()
    return plan


ASKED_TABLE = Check(
    "asked_table", 60, lambda a: type_problem(a.plan, a.schema, a.q) or exists_problem(a.plan, a.schema, a.q),
    repair=lambda a: things_of_named(a.q, a.schema, a.mentions, a.table_texts),
    repair_note="the asked things linked to the thing the question names", repair_rank=4)
ASKED_CLASS_READ = Check(
    "asked_class_read", 70, lambda a: class_read_problem(a.q, a.plan, a.schema, a.table_texts),
    lambda a: any(len(t.classes) > 1 for t in a.schema.tables.values()),  # (an ontology with subclasses)
    repair=lambda a: (widened_to_asked(a.q, a.plan, a.schema, a.table_texts)
                      or narrowed_to_named(a.q, a.plan, a.schema, a.table_texts)),
    repair_note="read from the class the question's words name", repair_rank=5)
CONDITION_ON_ASKED = Check("condition_on_asked", 180, lambda a: condition_owner_problem(a.q, a.plan, a.schema),
                           lambda a: bool(a.q.head) and a.q.kind == "other",
                           repair=lambda a: condition_moved(a.q, a.plan, a.schema),
                           repair_note="the condition read on the asked things' own column", repair_rank=3)
