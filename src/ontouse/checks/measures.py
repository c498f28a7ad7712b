"""What a superlative over groups ranks by: the number of rows, or the sum of an amount. "The customer with the most
purchases" ranks customers by how many purchases they placed (COUNT); "the customer who paid the largest amount in
total" by the sum of what they paid (SUM). A plan that swaps the two answers another question with a number that
looks right, so the shape checks pass it.

Read from the words right after the superlative (`superlative_phrase`): when they name the table whose column the
plan adds up, and not that column, the rows are counted (`counted_not_summed`); when they say an amount ("amount",
"total", "sum") and name no table, or the question says "in total" and the phrase names none, while the plan counts
rows, the one amount of the counted rows is added up (`summed_not_counted`): the one the question names, else the
only one there is; with several and none named, the problem names them and the model chooses.

"Which crop is mainly grown on X?" (`PREDOMINANT` words) asks for the one of X's rows with the largest share: a plan
that lists every row is ranked by code by the one amount of the listed rows' table (`predominant_one`)."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from ontocore.text import STOP, singular

from ..question import DOWN, UP, Question, asks_several, is_superlative
from ..sqlplan.plan import Agg, Col, Order, Plan, Query
from ..sqlplan.schema import Schema
from .check import Check
from .tables import column_words, phrase_tables, related, table_terms, value_object

SUMMED = frozenset({"amount", "total", "sum"})  # words that ask for the sum of an amount
COUNTED = frozenset({"number", "count", "many"})  # words that ask for a number of rows
# the last word of a column name that tells rows apart rather than measures them ("walk_id", "item_no")
_IDENTIFIER_ENDS = frozenset({"id", "code", "key", "no", "nr", "num", "number"})


def superlative_phrase(q: Question) -> list[str]:
    """The words (as written, lower case) right after the question's superlative, up to the first function word,
    "of" kept after an amount word: "raised the largest amount of funding this year" -> [amount, of, funding];
    "went on the most walks" -> [walks]; "walked the most in total" -> []."""
    words = q.words
    for i in range(len(words)):
        if not is_superlative(words, i):
            continue
        out: list[str] = []
        for x in words[i + 1:i + 5]:
            if x in STOP and not (x == "of" and out and out[-1] in SUMMED | COUNTED):
                break
            out.append(x)
        return out
    return []


PREDOMINANT = frozenset({"predominantly", "predominant", "mainly", "chiefly", "primarily"})


def _ranked(plan: Plan) -> Agg | None:
    """The aggregate a plan ranks its groups by (GROUP BY ... ORDER BY one aggregate ... LIMIT), else None."""
    if (not isinstance(plan, Query) or not plan.group_by or plan.limit is None or len(plan.order_by) != 1
            or not isinstance(plan.order_by[0].expr, Agg)):
        return None
    return plan.order_by[0].expr


def _grouped_aliases(plan: Query) -> set[str]:
    return {e.alias.lower() for e in plan.group_by if isinstance(e, Col)}


def _counts_rows_named(q: Question, plan: Plan, schema: Schema, table_texts: Any = None) -> Col | None:
    """The summed column, when the plan ranks by SUM(t.x) and the words after the superlative name t's table and
    not x's own words ("the most walks" ranked by the walks' distance): the rows are to be counted."""
    agg = _ranked(plan)
    if agg is None or agg.func != "sum" or not isinstance(agg.arg, Col):
        return None
    phrase = [singular(w) for w in superlative_phrase(q)]
    table = schema.table(agg.arg.table)
    if not phrase or table is None or SUMMED & set(phrase):
        return None
    own = column_words(schema, agg.arg) - {w for term in table_terms(table) for w in term.split()}
    if own & set(phrase) or not any(related(t, table) for t in phrase_tables(schema, phrase, table_texts)):
        return None
    return agg.arg


def _identifier(name: str) -> bool:
    """Is the column named as an identifier (its last word "id", "code", "no", ...)?"""
    words = re.findall(r"[a-z]+", name.lower())
    return not words or words[-1] in _IDENTIFIER_ENDS


def _amount(schema: Schema, col: Any) -> bool:
    """A numeric value column that is no key and no identifier, or a link to money-like objects whose one number
    is no identifier either."""
    if col.kind == "value":
        return col.numeric and not col.key_of and not col.is_label and not _identifier(col.name)
    target = schema.table(col.target) if col.kind == "link" and col.target else None
    return target is not None and value_object(schema, col) and not any(
        c.numeric and _identifier(c.name) for c in target.columns.values())


def _measures(plan: Query, schema: Schema) -> list[Col]:
    """The amounts of the rows a grouped plan counts: those of the sources it does not group by that end its
    chain of joins (joined once: "the customers' purchases", not the table the chain passes through), else of
    every source it does not group by."""
    grouped = _grouped_aliases(plan)
    loose = [s for s in plan.sources if s.alias.lower() not in grouped]
    ends = [s for s in loose if sum(s.alias.lower() in (j.left.alias.lower(), j.right.alias.lower())
                                    for j in plan.joins) == 1]
    out = []
    for src in ends or loose:
        table = schema.table(src.table)
        for col in (table.columns.values() if table is not None else ()):
            if _amount(schema, col):
                out.append(Col(src.alias, table.name, col.name))
    return out


def amounts_asked(q: Question, plan: Plan, schema: Schema, table_texts: Any = None) -> list[Col]:
    """When the question asks for an amount in total (`SUMMED` words after the superlative, or anywhere when the
    phrase after it names no table and no things in the plural) and no number of rows (`COUNTED`), the amounts of
    the rows a grouped plan reads that it could add up (`_measures`: those the question names, else all of them);
    [] otherwise."""
    if not isinstance(plan, Query) or not plan.group_by:
        return []
    raw = superlative_phrase(q)
    if COUNTED & set(q.words) or not SUMMED & (set(raw) | set(q.words)):
        return []
    rest = [w for w in raw if w != "of" and w not in SUMMED]
    if any(singular(w) != w for w in rest) or (rest and phrase_tables(schema, rest, table_texts)):
        return []  # "the most walks in total", "the greatest amount of pastries": a number of things
    found = _measures(plan, schema)
    said = {singular(w) for w in q.words}
    return [c for c in found if column_words(schema, c) & said] or found


def _sum_asked(q: Question, plan: Plan, schema: Schema, table_texts: Any = None) -> list[Col]:
    """`amounts_asked` when the plan ranks its groups by COUNT."""
    agg = _ranked(plan)
    return amounts_asked(q, plan, schema, table_texts) if agg is not None and agg.func == "count" else []


def measure_problem(q: Question, plan: Plan, schema: Schema, table_texts: Any = None) -> str:
    """A superlative over groups that counts where the question sums, or sums where it counts (module docstring)."""
    col = _counts_rows_named(q, plan, schema, table_texts)
    if col is not None:
        return (f"the question asks for the most {' '.join(superlative_phrase(q))} (a number of rows), but the query "
                f"ranks by SUM({col.alias}.{col.column}): rank by COUNT of those rows.")
    found = _sum_asked(q, plan, schema, table_texts)
    if found:
        names = ", ".join(f"{c.alias}.{c.column}" for c in found)
        return (f"the question ranks by an amount in total, but the query ranks by COUNT (a number of rows): rank by "
                f"SUM of the amount it asks about ({'one of ' if len(found) > 1 else ''}{names}).")
    return ""


def _reranked(plan: Query, old: Agg, new: Agg) -> Query:
    """The plan ranked by `new` where it ranked by `old` (the ORDER BY, and a selected copy of it)."""
    select = tuple(replace(it, expr=new) if it.expr == old else it for it in plan.select)
    return replace(plan, select=select, order_by=(Order(new, plan.order_by[0].desc),))


def counted_not_summed(q: Question, plan: Plan, schema: Schema, table_texts: Any = None) -> Query | None:
    """The plan ranked by the number of the rows it added up (COUNT(DISTINCT row)), when `_counts_rows_named`."""
    col = _counts_rows_named(q, plan, schema, table_texts)
    if col is None or not isinstance(plan, Query):
        return None
    return _reranked(plan, plan.order_by[0].expr, Agg("count", Col(col.alias, col.table, "iri"), distinct=True))


def summed_not_counted(q: Question, plan: Plan, schema: Schema, table_texts: Any = None) -> Query | None:
    """The plan ranked by the sum of the one amount `_sum_asked` finds (None with none, or several)."""
    found = _sum_asked(q, plan, schema, table_texts)
    if not found or len(found) != 1 or not isinstance(plan, Query):
        return None
    return _reranked(plan, plan.order_by[0].expr, Agg("sum", found[0]))


def _listed_amounts(q: Question, plan: Plan, schema: Schema) -> list[Col] | None:
    """For a question asking for the predominant one (not per group, not several: "the countries where X is
    predominantly spoken" asks for each country's predominant one) answered by a plain list (no ranking, no
    aggregate, no grouping): the one amount of the table the listed column belongs to, as a list; None when it does
    not apply or the table has no amount or several."""
    if (not PREDOMINANT & set(q.words) or q.grouped or asks_several(q) or not isinstance(plan, Query) or plan.group_by
            or plan.order_by or plan.limit is not None or not plan.select
            or not all(isinstance(it.expr, Col) for it in plan.select)):
        return None
    first = plan.select[0].expr
    table = schema.table(first.table)
    if table is None:
        return None
    amounts = [Col(first.alias, table.name, c.name) for c in table.columns.values() if _amount(schema, c)]
    return amounts if len(amounts) == 1 else None  # (with several, which one says how much is not code's to say)


def predominant_problem(q: Question, plan: Plan, rows: list, schema: Schema) -> str:
    amounts = _listed_amounts(q, plan, schema)
    if amounts is None or len(rows) < 2:
        return ""
    return ("the question asks for the predominant one, but the query lists every one: rank them by the amount that "
            f"says how much ({amounts[0].alias}.{amounts[0].column}): ORDER BY it DESC LIMIT 1.")


def predominant_one(q: Question, plan: Plan, schema: Schema) -> Query | None:
    """The listed rows ranked by their table's one amount, the top one kept (None when `_listed_amounts` is)."""
    amounts = _listed_amounts(q, plan, schema)
    if amounts is None or not isinstance(plan, Query):
        return None
    return replace(plan, order_by=(Order(amounts[0], True),), limit=1, distinct=False)


def _repair(a: Any) -> Plan | None:
    return (counted_not_summed(a.q, a.plan, a.schema, a.table_texts)
            or summed_not_counted(a.q, a.plan, a.schema, a.table_texts))


RANKED_MEASURE = Check("ranked_measure", 145, lambda a: measure_problem(a.q, a.plan, a.schema, a.table_texts),
                       lambda a: _ranked(a.plan) is not None and bool((UP | DOWN) & set(a.q.words)),
                       repair=_repair, repair_note="ranked by the number of rows or the sum the question asks for",
                       repair_rank=6)
PREDOMINANT_ONE = Check("predominant_one", 146, lambda a: predominant_problem(a.q, a.plan, a.rows, a.schema),
                        lambda a: bool(PREDOMINANT & set(a.q.words)),
                        repair=lambda a: predominant_one(a.q, a.plan, a.schema),
                        repair_note="the listed rows ranked by their amount, the top one kept", repair_rank=6)
