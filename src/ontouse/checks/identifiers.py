"""A sum or an average of identifiers: SUM / AVG over a column that names rows rather than measures anything (the
table's own identifier, a key that refers to another table's rows, a link to other things) adds up labels. The
result is a number, so the shape checks pass it, and it is never an amount the question asks for. (A link to things
that only hold a value, such as a money object, stands for that value and is an amount: tables.value_object; and a
key column the question names by its own words, "the average year", is read as the value it holds.)"""

from __future__ import annotations

from ontocore.text import singular

from ..question import Question
from ..sqlplan.plan import Agg, Col, Plan, walk
from ..sqlplan.schema import Schema
from .check import Check
from .tables import column_words, value_object


def summed_identifier(q: Question, plan: Plan, schema: Schema) -> str:
    """The first SUM / AVG of the plan (at any depth) over an identifier, key or link column, as "table.column (what
    it is)"; '' when there is none."""
    said = {singular(w) for w in q.words}
    for n in walk(plan):
        if not (isinstance(n, Agg) and n.func in ("sum", "avg") and isinstance(n.arg, Col)):
            continue
        table = schema.table(n.arg.table)
        col = table.column(n.arg.column) if table is not None else None
        if col is None:
            continue
        if col.kind == "id":
            return f"{table.name}.{col.name} (the identifier of its rows)"
        if col.key_of and not column_words(schema, n.arg) & said:
            return f"{table.name}.{col.name} (a key of {col.key_of})"
        if col.kind == "link" and not value_object(schema, col):
            return f"{table.name}.{col.name} (a link to {col.target or 'other things'})"
    return ""


def identifier_amount_problem(q: Question, plan: Plan, schema: Schema) -> str:
    found = summed_identifier(q, plan, schema)
    if not found:
        return ""
    return (f"the query adds up {found}, which names rows rather than measures an amount: count the rows (COUNT) "
            "or add up the column that holds the amount the question asks about.")


AMOUNT_NOT_AN_IDENTIFIER = Check("amount_not_an_identifier", 195,
                                 lambda a: identifier_amount_problem(a.q, a.plan, a.schema))
