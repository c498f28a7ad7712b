"""Checks that a result answers the question asked: the shape a question wants (a number for "how many"), and
plans that only return what the question itself names."""

from __future__ import annotations

import re
from typing import Any

from rdflib.namespace import DCTERMS, RDFS, SKOS

from .answer import Cell
from .sqlplan.plan import Agg, And, Cmp, Col, InList, Like, Lit, Plan, Query, columns_in, is_aggregate
from .question import Question
from .sqlplan.schema import Schema, Table


def is_number(cell: Cell) -> bool:
    try:
        float(cell.value)
        return not cell.is_iri
    except ValueError:
        return False


def shape_problem(q: Question, rows: list[list[Cell]], aggregate_only: bool) -> str:
    """Why the result does not have the shape the question asks for ('' when it does)."""
    if q.kind == "count" and not q.grouped and rows:
        if len(rows) > 1 and not aggregate_only:
            return ("the question asks how many, but the query returns a list of rows instead of a number: "
                    "count them with COUNT(...).")
        if len(rows) == 1 and not any(is_number(c) for c in rows[0]):
            return "the question asks how many, but the query returns no number: use COUNT(...)."
    return ""



def echo_problem(plan: Plan, schema: Schema) -> str:
    """A query over joined tables that selects only the names it filters on returns the question's own words
    ("the department of the employee named X" answered with X). ('' when the plan is not such a query.)"""
    if not isinstance(plan, Query) or len(plan.sources) < 2 or not plan.select:
        return ""
    conds = plan.where.items if isinstance(plan.where, And) else (plan.where,) if plan.where is not None else ()
    named: dict[str, set[str]] = {}  # alias -> the columns compared with a constant
    for c in conds:
        if isinstance(c, Cmp) and c.op == "=" and isinstance(c.left, Col) and isinstance(c.right, Lit):
            named.setdefault(c.left.alias.lower(), set()).add(c.left.column.lower())
        elif isinstance(c, (Like, InList)) and isinstance(c.expr, Col):
            named.setdefault(c.expr.alias.lower(), set()).add(c.expr.column.lower())
    if not named:
        return ""
    echoed = []
    for it in plan.select:
        e = it.expr
        if not isinstance(e, Col) or e.alias.lower() not in named:
            return ""
        table = schema.table(e.table)
        col = table.column(e.column) if table else None
        names = {x.name.lower() for x in table.columns.values() if x.is_label} if table else set()
        cols = named[e.alias.lower()]
        if col is None or not (col.name.lower() in cols or (col.is_label and cols & names)):
            return ""
        echoed.append(f"{e.alias}.{col.name}")
    return (f"the query returns {', '.join(echoed)}, which the question itself names (the WHERE clause fixes it): "
            "select the column of the joined table that the question asks for instead.")


# properties that document a thing rather than state a fact of it
NOTES = frozenset({RDFS.comment, RDFS.seeAlso, RDFS.isDefinedBy, SKOS.definition, SKOS.note, SKOS.scopeNote,
                   DCTERMS.description})


def value_echo_problem(plan: Plan, schema: Schema) -> str:
    """A query over one table of things that serve as values (a colour, a status: named individuals that other
    things link to, with nothing but names of their own) which fixes that table's own name to a constant and
    returns only those rows or their count: it restates the value the question names, or counts it (1), instead
    of the things that have it ("which X have the status V" answered "V"). ('' when the plan is not such a query.)"""
    if not isinstance(plan, Query) or len(plan.sources) != 1 or not plan.select or plan.group_by:
        return ""
    source = plan.sources[0]
    table = schema.table(source.table)
    if table is None:
        return ""
    if any(c.kind == "value" and not c.is_label and c.prop not in NOTES for c in table.columns.values()):
        return ""
    referring = [f"{t.name}.{c.name}" for t in sorted(schema.tables.values(), key=lambda t: -t.count)
                 if t.name != table.name for c in t.columns.values()
                 if c.kind == "link" and not c.hidden and c.target.lower() == table.name.lower()]
    if not referring:
        return ""
    names = {c.name.lower() for c in table.columns.values() if c.is_label} | {"iri"}
    fixed = fixed_names(plan, names)
    if not fixed:
        return ""
    for it in plan.select:
        e = it.expr
        own = isinstance(e, Col) and e.column.lower() in names
        # a count of the rows themselves (not of what they link to: "how many members does the team X have")
        counted = isinstance(e, Agg) and e.func == "count" and (
            e.arg is None or (isinstance(e.arg, Col) and e.arg.column.lower() in names))
        if not (own or counted):
            return ""
    value = ", ".join(repr(v) for v in fixed[:3])
    return (f"{value} is a {table.name}, a value that other things have ({', '.join(referring[:4])}); the query "
            f"returns that value itself or counts it. Select (or count) the rows of the table the question asks "
            f"about, WHERE its column that links to {table.name} = {fixed[0]!r}.")


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


def _table_named(schema: Schema, word: str, phrase: list[str] | None = None,
                 read: set[str] | None = None) -> Table | None:
    """The one table whose name (in words, singular) is `word`, or whose last word is; None for none or several.
    `phrase`: the question's whole noun phrase ("computer model"): a table named by all of it comes first;
    `read`: the tables a plan reads, which decide between tables of one name (`Country`, `Country_2`: the view
    numbers the classes of one name from several vocabularies)."""
    from ontocore.embeddings import split_name
    from ontocore.text import singular

    def words_of(t) -> list[str]:
        return [singular(w) for w in split_name(re.sub(r"_\d+$", "", t.name)).split()]

    def names(t) -> set[str]:
        words = words_of(t)
        return {" ".join(words), words[-1]} if words else set()

    if phrase and len(phrase) > 1:
        whole = [t for t in schema.tables.values() if len(words_of(t)) > 1 and words_of(t) == phrase[:len(words_of(t))]]
        if whole:
            wanted = whole
        else:
            wanted = [t for t in schema.tables.values() if word in names(t)]
    else:
        wanted = [t for t in schema.tables.values() if word in names(t)]
    if len(wanted) > 1 and read:
        wanted = [t for t in wanted if t.name.lower() in read] or wanted
    return wanted[0] if len(wanted) == 1 else None


def _of_table(e: Any, schema: Schema, target: Table) -> bool:
    """Is `e` a column of `target` (or of a table of the same things), a link to it or a key of its rows?"""
    if not isinstance(e, Col):
        return False
    table = schema.table(e.table)
    col = table.column(e.column) if table else None
    if table is None or col is None:
        return False
    if set(table.classes) & set(target.classes) or target.cls in table.classes:
        return True
    if col.kind == "link" and col.target == target.name:
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
    target = _table_named(schema, q.head, phrase, {s.table.lower() for s in plan.sources})
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
    target = _table_named(schema, singular(phrase[-1])) if phrase else None
    if target is None or any(_of_table(c, schema, target) for c in columns_in(plan, deep=True)):
        return ""
    if any(s.table.lower() == target.name.lower() for s in plan.sources):
        return ""
    return (f"the question asks whether there is a {target.name}, but the query reads no {target.name} rows: read "
            f"from {target.name} (or join it) and keep the question's conditions on it.")
