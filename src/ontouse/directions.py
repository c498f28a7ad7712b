"""Which way round a plan reads two parallel links. A table with two columns that refer to the same table (a
transfer's sender and receiver account, a message's author and addressee, who mentors whom) is read backwards as
easily as the right way: "transfers sent from account 7" written on the receiver, "the people Ann mentors" read as
those who mentor Ann. No check can tell, as the data holds both; what the question means is the model's to say.

So when a plan uses one column of such a pair, code finds what the question names that the column holds (a value
compared with it, the value a joined or nested query fixes, else the things the answer lists) and asks the model one
closed question: which of the columns holds it (`DirectionQuestion`, answered under a schema that admits only the
columns' names). When it names another column than the plan's, it is asked once more with the columns in the other
order (a small model leans to a place in a list); only when both replies name that column is the plan turned round:
the columns of that table swapped in that query (`turned`), kept by the answer loop only when it runs, finds rows
and passes every check; else the plan stands.
Part of the answer loop (answerer.py: `AnswerLoop` is a `LinkDirections`)."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, fields, is_dataclass, replace
from typing import Any

from ontocore.errors import ModelBehaviorError, ModelServerError

from .attempt import Attempt
from .checks.plan_parts import top_conditions
from .prompts import prompts
from .question import Question
from .sqlplan.plan import Cmp, Col, InList, InQuery, Like, Lit, Plan, Query, Scalar, walk
from .sqlplan.schema import Schema, Table

log = logging.getLogger(__name__)

FIX = "direction"  # the name of the repair in an answer's `repairs`
CHOICE_TOKENS = 30  # the reply: {"column": "<one of the names>"}
LISTED = ""  # the anchor of a use whose column holds the things the answer lists (no value names them)


def referred_table(table: Table, name: str) -> str:
    """The table a shown column of `table` refers to: a link's target, a foreign key's table; "" for others."""
    c = table.column(name)
    if c is None or c.hidden or c.kind == "id":
        return ""
    if c.kind == "link":
        return c.target
    return c.key_of.split(".", 1)[0] if c.key_of else ""


def parallel_columns(table: Table) -> dict[str, tuple[str, ...]]:
    """Each shown column of `table` that refers to the same table as another shown column, with all of them (in the
    view's order): {column: (column, other, ...)}."""
    groups: dict[str, list[str]] = {}
    for name in table.columns:
        target = referred_table(table, name)
        if target:
            groups.setdefault(target, []).append(name)
    return {n: tuple(g) for g in groups.values() if len(g) >= 2 for n in g}


@dataclass(frozen=True)
class DirectionQuestion:
    """One use of a column of parallel links in a plan: the query and the source alias that read it, the column the
    plan reads, the table's columns that refer to `target`, and what the question names that the column holds (a
    value; LISTED: the things the answer lists)."""
    query: Query
    alias: str
    table: str
    used: str
    options: tuple[str, ...]
    target: str
    anchor: str
    row: str = ""  # the name a condition gives the row itself (`T1.label = 'Ana'`), "" when none does

    def prompt(self, question: str, schema: Schema) -> str:
        table = schema.table(self.table)
        described = "\n".join(f"- {name}{_about(table.column(name))}" for name in self.options)
        held = (f"the {self.target} named {self.anchor!r}" if self.anchor != LISTED
                else f"the {self.target} rows the answer lists")
        if self.row:
            held += f", in the row of the {self.table} named {self.row!r}"
        return prompts.render("ask_direction", question=question, table=self.table, target=self.target,
                              columns=described, held=held)


def _about(column: Any) -> str:
    said = [x for x in (column.label, column.comment) if x and x.lower() != column.name.lower()]
    return f": {'; '.join(said)}" if said else ""


def _literal(e: Any) -> str:
    if isinstance(e, Lit) and e.value is not None and not isinstance(e.value, bool):
        return str(e.value)
    return ""


def _fixed_value(query: Plan) -> str:
    """The value a nested query's own conditions fix (`SELECT id FROM people WHERE name = 'Ann'`: "Ann")."""
    if not isinstance(query, Query):
        return ""
    for c in top_conditions(query.where):
        value = _value_of(c)
        if value:
            return value
    return ""


def _value_of(c: Any, col: Col | None = None) -> str:
    """The value condition `c` compares a column with (`col`'s, when given): a literal, a list's first, a LIKE's
    text, or the value a nested query fixes."""
    def compared(e: Any) -> bool:
        return isinstance(e, Col) and (col is None or e == col)

    if isinstance(c, Cmp) and c.op == "=":
        for side, other in ((c.left, c.right), (c.right, c.left)):
            if compared(side):
                return _fixed_value(other.query) if isinstance(other, Scalar) else _literal(other)
    if not isinstance(c, (InList, InQuery, Like)) or c.negated or not compared(c.expr):
        return ""
    if isinstance(c, InList):
        return next((v for v in map(_literal, c.values) if v), "")
    return _fixed_value(c.query) if isinstance(c, InQuery) else c.pattern.strip("%")


def _anchor(query: Query, col: Col) -> str | None:
    """What the question names that `col` holds: a value compared with it, or the value that fixes the row of the
    table it joins; LISTED when that joined row is what the query selects; None when nothing in the query says."""
    conditions = top_conditions(query.where)
    for c in conditions:
        value = _value_of(c, col)
        if value:
            return value
    for j in query.joins:
        other = j.right if j.left == col else j.left if j.right == col else None
        if other is None:
            continue
        for c in conditions:
            value = _value_of(c)
            if value and any(isinstance(n, Col) and n.alias == other.alias for n in walk(c, subqueries=False)):
                return value
        if any(isinstance(n, Col) and n.alias == other.alias for n in walk(query.select, subqueries=False)):
            return LISTED
    return None


def _row_name(query: Query, alias: str, table: Table) -> str:
    """The name a condition of `query` gives the rows of `alias` themselves: a value its label column is compared
    with ("" when none is)."""
    label = table.label_column()
    if label is None:
        return ""
    return next((v for c in top_conditions(query.where) if (v := _value_of(c, Col(alias, table.name, label.name)))),
                "")


def direction_questions(plan: Plan, schema: Schema) -> list[DirectionQuestion]:
    """The uses of parallel links in `plan` that the question can settle, those with a named value first: per query
    and source, the one column of a pair that the query reads with an anchor (when it reads two, the one compared
    with a value)."""
    out: list[DirectionQuestion] = []
    for query in (n for n in walk(plan) if isinstance(n, Query)):
        for source in query.sources:
            table = schema.table(source.table)
            pairs = parallel_columns(table) if table is not None else {}
            read = {n.column for n in walk(_own_parts(query), subqueries=False)
                    if isinstance(n, Col) and n.alias == source.alias and n.column in pairs}
            found = []
            for name in sorted(read):
                anchor = _anchor(query, Col(source.alias, source.table, name))
                if anchor is not None:
                    found.append(DirectionQuestion(query, source.alias, source.table, name, pairs[name],
                                                   referred_table(table, name), anchor,
                                                   _row_name(query, source.alias, table)))
            found.sort(key=lambda d: d.anchor == LISTED)
            out += found[:1]
    out.sort(key=lambda d: d.anchor == LISTED)
    return out


def _own_parts(query: Query) -> tuple:
    return (query.select, query.joins, query.where, query.group_by, query.having, query.order_by)


def turned(plan: Plan, use: DirectionQuestion, chosen: str) -> Plan:
    """`plan` with the query of `use` reading `chosen` where it read `use.used`, and `use.used` where it read
    `chosen` (the two columns of that source swapped; its other sources and queries unchanged)."""
    swap = {use.used: chosen, chosen: use.used}

    def rebuild(node: Any, inside: bool) -> Any:
        if isinstance(node, tuple):
            return tuple(rebuild(x, inside) for x in node)
        if isinstance(node, Col):
            return replace(node, column=swap[node.column]) if (
                inside and node.alias == use.alias and node.column in swap) else node
        if is_dataclass(node) and not isinstance(node, type):
            here = inside or node is use.query
            if isinstance(node, Query) and node is not use.query:
                here = False  # (a nested query has its own sources)
            return replace(node, **{f.name: rebuild(getattr(node, f.name), here) for f in fields(node)})
        return node

    return rebuild(plan, False)


def choice_tool(options: tuple[str, ...]) -> dict[str, Any]:
    return {"type": "function", "function": {
        "name": "choose_column", "description": "The column that holds it.",
        "parameters": {"type": "object", "properties": {"column": {"type": "string", "enum": list(options)}},
                       "required": ["column"]}}}


def chosen_column(reply: Any, options: tuple[str, ...]) -> str:
    """The column the model chose ("" when its reply names none of `options`)."""
    for call in reply.tool_calls or []:
        try:
            value = json.loads(call.arguments or "{}").get("column", "")
        except (ValueError, AttributeError):
            continue
        if value in options:
            return value
    text = (reply.content or "").strip().strip("`\"'. ")
    return text if text in options else ""


class LinkDirections:
    """The closed question on parallel links, for the answer loop (uses its model, schema, trace and
    `_code_repair`)."""

    def _direction(self, q: Question, question: str, best: Attempt, mentions: list) -> None:
        """Ask which column of a pair holds what the question names, for the first use in `best`'s plan; when the
        model names another column than the plan's, ask again with the columns in the other order (a small model
        leans to a place in a list), and turn the plan round only when both replies name that column and the
        turned plan passes (`_code_repair`)."""
        uses = direction_questions(best.plan, self.schema) if best.plan is not None else []
        if not uses:
            return
        use = uses[0]
        chosen = [self._chosen(question, use, use.options)]
        if chosen[0] and chosen[0] != use.used:
            chosen.append(self._chosen(question, use, tuple(reversed(use.options))))
        self.trace.write("direction", table=use.table, used=use.used, options=list(use.options), anchor=use.anchor,
                         chosen=chosen)
        if chosen[0] == use.used or len(set(chosen)) != 1:
            return
        self._code_repair(q, best, mentions, FIX, turned(best.plan, use, chosen[0]),
                          f"repaired: {use.table}.{chosen[0]} holds {use.anchor or 'what the answer lists'}, "
                          f"as the question means it (the plan read {use.table}.{use.used})")

    def _chosen(self, question: str, use: DirectionQuestion, options: tuple[str, ...]) -> str:
        """The model's choice among `options` (in that order) for `use` ("" when it chose none)."""
        asked = replace(use, options=options)
        messages = [{"role": "user", "content": asked.prompt(question, self.schema)}]
        try:
            reply = self.model.chat(messages, tools=[choice_tool(options)], tool_choice="required",
                                    max_tokens=CHOICE_TOKENS, temperature=0.0)
        except (ModelBehaviorError, ModelServerError) as e:
            log.info("the question on the direction of %s.%s was not answered: %s", use.table, use.used, e)
            return ""
        return chosen_column(reply, options)
