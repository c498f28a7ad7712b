"""Checks of counts, sums and averages: what a "how many" counts, the one named thing counted, a count returned
where things are asked, an average asked, a column summed that the question is not about, one value where a value
per group is asked, and rounded numbers asked."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from ontocore.text import STOP, fold, singular

from ..answer import Cell
from ..question import AMOUNT, ROUND, WHICH, Question, asks_per_group, counted_phrase, noun_phrase
from ..sqlplan.plan import Agg, And, Arith, Cmp, Col, Func, Item, Lit, Plan, Query, walk
from ..sqlplan.schema import Schema, Table
from .check import Check
from .measures import amounts_asked
from .plan_parts import aggregates_in, fixed_names, has_aggregate, top_conditions
from .shape import is_number, things_with_value
from .tables import (asked_tables, column_words, is_numeric, links_named, phrase_tables, refers_to, related,
                     tables_named)


def average_problem(q: Question, plan: Plan, rows: list[list[Cell]]) -> str:
    """A question that asks for an average ("the average weight") answered with several rows and no AVG."""
    if "average" not in q.words or q.grouped or len(rows) <= 1 or has_aggregate(plan, "avg"):
        return ""
    return "the question asks for an average, but the query returns several rows without AVG(...): use AVG(...)."


# "an average weight above 40", "average score of more than 7.5": a condition on an average, not on each value
_AVERAGE_COMPARED = re.compile(r"\baverage\b((?:\s+[^\W\d]+){0,5}?)\s+(?:(?:greater|more|less|fewer|higher|lower|"
                               r"larger|smaller|bigger)\s+than|above|below|over|under|at\s+least|at\s+most)\s+"
                               r"(?:of\s+)?(-?\d+(?:\.\d+)?)", re.I)
_COPULA = frozenset("is are was were be".split())


def _average_number(q: Question) -> float | None:
    """The number a question compares an average with, when the comparison follows the average's own words
    ("an average grit above 40", "whose average weight is over 40": 40); None when it does not, or when a phrase
    comes between ("the average salary of rangers earning over 9000": the rangers' salaries are compared)."""
    m = _AVERAGE_COMPARED.search(q.text)
    if m is None or any(w in STOP and w not in _COPULA for w in m.group(1).lower().split()):
        return None
    return float(m.group(2))


def _is_number(e: Any, n: float) -> bool:
    return isinstance(e, Lit) and isinstance(e.value, (int, float)) and not isinstance(e.value, bool) \
        and float(e.value) == n


def _averages_compared(plan: Plan, n: float) -> bool:
    """Does the plan compare an average with the number (HAVING AVG(x) > n, or a subquery's AVG)?"""
    return any(isinstance(c, Cmp) and any(_is_number(a, n) and has_aggregate(b, "avg")
                                          for a, b in ((c.left, c.right), (c.right, c.left)))
               for c in walk(plan))


def _values_compared(plan: Plan, n: float) -> list[Cmp]:
    """The plan's own WHERE conditions that compare a single value with the number (grit > 40)."""
    if not isinstance(plan, Query):
        return []
    return [c for c in top_conditions(plan.where) if isinstance(c, Cmp) and
            ((isinstance(c.left, Col) and _is_number(c.right, n)) or (isinstance(c.right, Col) and _is_number(c.left, n)))]


def average_compared_problem(q: Question, plan: Plan) -> str:
    """A question that sets a condition on an average ("the kinds whose average weight is above 40") answered by
    a plan that never compares an average with that number compares each value, not the average; a plan that
    compares the average and also each value (WHERE weight > 40 ... HAVING AVG(weight) > 40) averages only the
    values past it."""
    if not _AVERAGE_COMPARED.search(q.text) or (has_aggregate(plan, "avg") and _average_number(q) is None):
        return ""
    n = _average_number(q)
    if n is None or not _averages_compared(plan, n):
        return ("the question compares an average with a number, but the query compares single values: group the "
                "rows the average is of (GROUP BY) and put the condition on AVG(...) in HAVING.")
    if _values_compared(plan, n):
        return ("the question compares an average with a number, and the query compares each single value with it "
                "too (WHERE): keep only the condition on AVG(...) in HAVING.")
    return ""


def average_moved(q: Question, plan: Plan) -> Plan | None:
    """The bounded repair of average_compared_problem for a grouped plan: the WHERE condition that compares one
    column's single values with the number goes, and the same comparison of that column's AVG is in HAVING
    (added when the plan has none). None when the plan is not grouped or compares other columns so."""
    n = _average_number(q)
    conds = _values_compared(plan, n) if n is not None else []
    if not isinstance(plan, Query) or not plan.group_by or len(conds) != 1:
        return None
    c = conds[0]
    col, op, number = ((c.left, c.op, c.right) if isinstance(c.left, Col)
                       else (c.right, _FLIPPED.get(c.op, c.op), c.left))
    rest = [x for x in top_conditions(plan.where) if x is not c]
    having = plan.having
    if not _averages_compared(plan, n):
        on_avg = Cmp(op, Agg("avg", col), number)
        having = on_avg if having is None else And((having, on_avg))
    where = None if not rest else rest[0] if len(rest) == 1 else And(tuple(rest))
    return replace(plan, where=where, having=having)


_FLIPPED = {"<": ">", ">": "<", "<=": ">=", ">=": "<="}


def counted_class_problem(q: Question, plan: Plan, schema: Schema) -> str:
    """A "how many X" question answered by counting rows of a table unrelated to X."""
    if q.kind != "count" or not isinstance(plan, Query):
        return ""
    counts = [e for it in plan.select for e in aggregates_in(it.expr) if e.func == "count"]
    if not counts:
        return ""
    wanted = tables_named(schema, counted_phrase(q))
    if not wanted:
        return ""  # the question counts something that is no table (a value, a unit): nothing to compare
    counted: list[Table] = []
    for agg in counts:
        arg = agg.arg
        if isinstance(arg, Col):
            table = schema.table(arg.table)
            col = table.column(arg.column) if table else None
            if col is not None and col.kind == "link" and col.target and schema.table(col.target):
                counted.append(schema.table(col.target))
            elif col is not None and col.key_of and schema.table(col.key_of.split(".", 1)[0]):
                counted.append(schema.table(col.key_of.split(".", 1)[0]))
            if table is not None:
                counted.append(table)
        else:  # COUNT(*): the rows of the sources (of a join: any of them)
            counted += [schema.table(s.table) for s in plan.sources if schema.table(s.table)]
    if any(related(c, w) or refers_to(c, w, schema) for c in counted for w in wanted):
        return ""  # the things themselves, or rows that each refer to one of them (a table of pairs)
    names = " or ".join(w.name for w in wanted[:2])
    return (f"the question counts {names} rows, but the query counts rows of "
            f"{', '.join(dict.fromkeys(c.name for c in counted))}: count {names} rows (join {names} if the "
            "condition is on another table).")


def named_count_problem(q: Question, plan: Plan, schema: Schema, rows: list[list[Cell]]) -> str:
    """A "how many" answered by counting the rows of one table whose own name the WHERE clause fixes counts the
    thing the question names (1), not a number about it ("how many units does X hold" answered "1"). Where names
    repeat (the count is above 1) counting them is an answer, and so is a question that counts that table's things
    by the name ("how many animals are called X"). ('' when the plan is not such a count.)"""
    if q.kind != "count" or q.grouped or not isinstance(plan, Query) or len(plan.sources) != 1 or plan.group_by:
        return ""
    if len(plan.select) != 1 or not (isinstance(plan.select[0].expr, Agg) and plan.select[0].expr.func == "count"):
        return ""
    table = schema.table(plan.sources[0].table)
    if table is None:
        return ""
    names = {c.name.lower() for c in table.columns.values() if c.is_label} | {"iri"}
    arg = plan.select[0].expr.arg
    if isinstance(arg, Col) and arg.column.lower() not in names:
        return ""  # the values of one of its columns counted ("how many members does X have": COUNT(member))
    fixed = fixed_names(plan, names)
    if len(fixed) != 1 or any(is_number(c) and float(c.value) > 1 for r in rows for c in r):
        return ""
    phrase = counted_phrase(q)
    if any(related(t, table) for t in tables_named(schema, phrase)) and not (
            {singular(w) for w in re.findall(r"[^\W_]+", fold(fixed[0]))} & set(phrase)):
        return ""  # "how many animals are called X": the question counts the things by that name
    return (f"the query counts the {table.name} named {fixed[0]!r} itself (one thing, so 1), not a number about "
            f"it: select the column of {table.name} that holds the number asked, or count the rows of a table that "
            "refer to it; if the data holds no such number, the answer is that it has none.")


def own_link_counted(q: Question, plan: Plan, schema: Schema, table_texts: Any = None) -> Plan | None:
    """The bounded repair of named_count_problem: the named thing's own link that the question names by a word's
    root, counted ("how many characters does X have": COUNT(DISTINCT characters) of the row named X); else the
    things of the table the question counts that link to it ("how many pupils are in the grade X", shape's
    things_with_value); None when neither has one reading."""
    if not isinstance(plan, Query) or len(plan.sources) != 1:
        return None
    table = schema.table(plan.sources[0].table)
    own = links_named(q, [(table, c) for c in table.columns.values()], besides=table.name) if table else []
    if len(own) != 1:
        return things_with_value(q, plan, schema, table_texts)
    col = Col(plan.sources[0].alias, table.name, own[0][1].name)
    return replace(plan, select=(Item(Agg("count", col, distinct=True)),))


def listed_count_problem(q: Question, plan: Plan, schema: Schema, table_texts: Any = None) -> str:
    """"Which rooms have a projector?", "What open kiosks are there?", "What are omnivores?": a
    question that starts with which / what asks for things (those of the table its next words name, when they
    name one); a plan that returns only their count (one COUNT, no groups) answers "how many" instead. Seen when
    a translation or the plan turned the one question into the other. ('' when the question asks for a number -
    "how many", "what is the number / total ..." - or yes/no, or the plan returns anything but one count.)
    `table_texts(table)`: a table's labels in every language."""
    if q.kind != "other" or not isinstance(plan, Query) or len(plan.select) != 1 or plan.group_by:
        return ""
    e = plan.select[0].expr
    if not (isinstance(e, Agg) and e.func == "count"):
        return ""
    words = q.words
    at = next((i for i, w in enumerate(words[:3]) if w in WHICH), None)
    if at is None or set(words) & AMOUNT:
        return ""
    tables = phrase_tables(schema, noun_phrase(words[at + 1:]), table_texts)
    if tables:
        return (f"the question asks which {tables[0].name} rows, but the query returns only how many: select "
                f"the {tables[0].name} rows themselves (their iri or label), not COUNT(...).")
    return ("the question asks which or what things, not how many, but the query returns only a count: select the "
            "rows themselves (their iri or label), not COUNT(...).")


def listed_things(q: Question, plan: Plan, schema: Schema, table_texts: Any = None) -> Plan | None:
    """The things a bare count counted, listed instead (the bounded repair of `things_not_counted`): the rows of
    the table the words after which / what name when the query reads it, else the counted column of COUNT(x), else
    the rows of the table the query reads first; each once, in no order. None when the plan is not one bare
    count."""
    if not isinstance(plan, Query) or len(plan.select) != 1 or plan.group_by or plan.having is not None:
        return None
    e = plan.select[0].expr
    if not (isinstance(e, Agg) and e.func == "count") or not plan.sources:
        return None
    named = {t.name.lower() for t in asked_tables(q, schema, table_texts)}
    source = next((s for s in plan.sources if s.table.lower() in named and not s.optional), None)
    if source is not None:
        listed = Col(source.alias, source.table, "iri")
    elif isinstance(e.arg, Col):
        listed = e.arg
    elif e.arg is None:
        listed = Col(plan.sources[0].alias, plan.sources[0].table, "iri")
    else:
        return None
    return replace(plan, select=(Item(listed),), order_by=(), limit=None, offset=None, distinct=True)


def _named_in(words: set[str], question: set[str]) -> bool:
    """Does the question name one of the words (the same word, or one starting the other, 4 letters or more)?"""
    return any(w == q or (min(len(w), len(q)) >= 4 and (w.startswith(q) or q.startswith(w)))
               for w in words for q in question)


SUMMED_SIMILARITY = 0.2  # below this sentence similarity, a question is not about the column (all-MiniLM-L6-v2)


def summed_problem(q: Question, plan: Plan, schema: Schema, embedder: Any = None, names: Any = None) -> str:
    """A SUM or AVG adds up a column's values: the question must be about that column (a question about "the most
    visitors" counts them; it does not add up another column that happens to hold numbers). Judged by the
    question's words, then by meaning (the sentence-embedding model): without the model the check passes. The one
    amount of the rows, when the question asks for an amount in total, is asked (measures.amounts_asked).
    `names(table, column)`: the column's labels (in every language)."""
    if embedder is None:
        return ""
    asked = {singular(w) for w in q.words if w not in STOP}
    in_total = amounts_asked(q, plan, schema)
    for n in walk(plan):
        if isinstance(n, Agg) and n.func in ("sum", "avg") and isinstance(n.arg, Col):
            if in_total == [n.arg]:
                continue  # the one amount of the rows, the question asking for an amount in total
            words = column_words(schema, n.arg)
            texts = sorted(names(n.arg.table, n.arg.column)) if names is not None else []
            words |= {singular(w) for t in texts for w in re.findall(r"[^\W\d_]+", fold(t)) if w not in STOP}
            if not words or _named_in(words, asked):
                continue
            if max(embedder.similarity(q.text, t) for t in [" ".join(sorted(words))] + texts) < SUMMED_SIMILARITY:
                return (f"the query adds up {n.arg.column} ({n.func.upper()}), which the question does not ask "
                        f"about: count the rows (COUNT) or use the column the question names.")
    return ""


def per_group_problem(q: Question, plan: Plan, aggregate_only: bool) -> str:
    """A question that asks for a value per group ("the highest X for each Y") answered by one aggregate over all
    rows (no GROUP BY) gives one value where several are asked."""
    if not asks_per_group(q) or q.kind == "yesno" or not isinstance(plan, Query):
        return ""
    if plan.limit == 1 and not aggregate_only:
        return ("the question asks for an answer per group (each / for the different ...), but the query keeps only "
                "the top row of all (LIMIT 1): rank within each group instead (GROUP BY the group's column, with MAX "
                "or MIN, or a condition that the value is the group's top).")
    if not aggregate_only:
        return ""
    return ("the question asks for a value per group (each / per / for the different ...), but the query returns "
            "one value over all rows: add the group's column to SELECT and GROUP BY it.")


def _rounds(e: Any) -> bool:
    return any(isinstance(n, Func) and n.name == "round" for n in walk(e))


def rounding_problem(q: Question, plan: Plan, schema: Schema) -> str:
    """A question that asks for rounded numbers ("the average price, rounded to cents") answered with numbers that
    no ROUND touched."""
    if not isinstance(plan, Query) or not ROUND.search(fold(q.text)):
        return ""
    numbers = [it.expr for it in plan.select if is_numeric(schema, it.expr) or isinstance(it.expr, Arith)]
    if not numbers or any(_rounds(e) for e in numbers):
        return ""
    return ("the question asks for rounded numbers, but the query returns them unrounded: wrap the number in "
            "ROUND(x, n) with the decimal places the question asks for (2 when it does not say).")


AVERAGE_ASKED = Check("average_asked", 80, lambda a: average_problem(a.q, a.plan, a.rows),
                      lambda a: "average" in a.q.words)
AVERAGE_COMPARED = Check("average_compared", 85, lambda a: average_compared_problem(a.q, a.plan),
                         lambda a: "average" in a.q.words, repair=lambda a: average_moved(a.q, a.plan),
                         repair_note="the condition put on the average, not on each value")
COUNTED_CLASS = Check("counted_class", 90, lambda a: counted_class_problem(a.q, a.plan, a.schema),
                      lambda a: a.q.kind == "count")
NOT_THE_NAMED_THING_COUNTED = Check(
    "not_the_named_thing_counted", 100, lambda a: named_count_problem(a.q, a.plan, a.schema, a.rows),
    lambda a: a.q.kind == "count", repair=lambda a: own_link_counted(a.q, a.plan, a.schema, a.table_texts),
    repair_note="the number about the named thing the question asks (its link, or the things that link to it)",
    repair_rank=2)
THINGS_NOT_COUNTED = Check(
    "things_not_counted", 110, lambda a: listed_count_problem(a.q, a.plan, a.schema, a.table_texts),
    lambda a: a.q.kind == "other" and bool(WHICH & set(a.q.words[:3])),
    repair=lambda a: listed_things(a.q, a.plan, a.schema, a.table_texts),
    repair_note="the counted things listed instead of their count", repair_rank=3)
SUMMED_COLUMN_NAMED = Check("summed_column_named", 190,
                            lambda a: summed_problem(a.q, a.plan, a.schema, a.embedder, a.column_texts))
VALUE_PER_GROUP = Check("value_per_group", 250, lambda a: per_group_problem(a.q, a.plan, a.aggregate_only),
                        lambda a: asks_per_group(a.q) and (a.aggregate_only or (
                            isinstance(a.plan, Query) and a.plan.limit == 1)))
ROUNDED_AS_ASKED = Check("rounded_as_asked", 300, lambda a: rounding_problem(a.q, a.plan, a.schema),
                         lambda a: bool(ROUND.search(fold(a.q.text))))
