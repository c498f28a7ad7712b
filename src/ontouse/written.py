"""Plans code writes from the question alone, for the question shapes it can read whole, tried when no plan of the
model passed (AnswerLoop._written), each kept only when it finds rows and passes every answer check:

- "which X ... both A and B": the X linked to A and also to B (checks/asked.py's `things_with_both`);
- "which X ... N" that asks nothing else (`asks_only_the_linked`): the X linked to N (`things_of_named`);
- "how many X are there?", "how many R does N have?", "how many X <relation> N?" (`counted_by_code`), never a
  count of 0 from code;
- "did N <relation> M?": yes when N's row is linked to M (`named_is_linked`); never "no" from code. The same
  plan, when the question's own words name the link (`linked_yes`), also answers a yes/no question that a plan
  of the model answered "no" by finding nothing: the triples that link the two are the better evidence.

A list is written only of things that have names (`names_its_things`): a table export's rows would be bare
identifiers."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

from ontocore.text import fold, singular, tokens

from .checks.asked import ASKED_TABLE, linked_to, things_of_named, things_with_both
from .checks.conditions import BOTH_VALUES
from .checks.plan_parts import top_conditions
from .checks.tables import asked_tables, links_named, phrase_tables
from .question import (AMOUNT, AVERAGED, COMPARATIVE, DOWN, GROUPING, IN_TIME, NEGATION, NUMBER_WORDS, ORDINAL, UP,
                       Question, asked_phrase, parse_question)
from .sqlplan.plan import Agg, And, Cmp, Col, Item, Lit, Plan, Query, SetQuery, Source
from .sqlplan.schema import Schema

NAMED_IS_LINKED = "named_is_linked"
COUNTED_BY_CODE = "counted_by_code"


# the words that ask for more than the things linked to a named one: a ranking, a comparison, an amount, a group,
# a negation, a time bound, a number in words, "only", a choice (a question with a number is left to the model too)
_MORE_ASKED = UP | DOWN | COMPARATIVE | ORDINAL | NEGATION | AMOUNT | GROUPING | IN_TIME | AVERAGED | NUMBER_WORDS | {
    "only", "single", "sole", "alone", "all", "every", "also", "too", "either", "or", "except", "besides"}


def asks_only_the_linked(q: Question, mentions: list) -> bool:
    """A "which X ... N" question that says nothing beyond X, the one thing it names whole and how they are
    related (no number, ranking, comparison, negation, amount, group or time bound, no second named value):
    the things `things_of_named` reads answer it whole, so code may answer with them when no plan of the model
    passed or a plan found nothing."""
    if q.kind != "other" or not asked_phrase(q) or _asks_more(q, mentions):
        return False
    return len({fold(m.value) for m in mentions if getattr(m, "exact", False)}) == 1


def _asks_more(q: Question, mentions: list, counting: bool = False) -> bool:
    """Does the question, outside the names it says whole ("Only Twice 1999" is no "only"), hold a number or a word
    that asks for more than the things linked to a named one (`_MORE_ASKED`; with `counting`, besides the words
    that ask how many)?"""
    allowed = _COUNTING if counting else frozenset()
    return any((w in _MORE_ASKED and w not in allowed) or w[:1].isdigit() for w in _words_besides_names(q, mentions))


_COUNTING = frozenset({"many", "number", "count"})
# what "how many X are there?" may say besides X: nothing that narrows the things counted
_CLASS_COUNT_WORDS = frozenset("how many number count there exist exists total altogether overall different distinct "
                               "kinds kind of in all are is the do we have".split())


def _words_besides_names(q: Question, mentions: list) -> list[str]:
    """The question's words, each word of a name it says whole blanked."""
    words = list(q.words)
    for name in sorted({m.text or m.value for m in mentions if getattr(m, "exact", False)}, key=len, reverse=True):
        span = tokens(name)
        for i in range(len(words) - len(span) + 1):
            if span and words[i:i + len(span)] == span:
                words[i:i + len(span)] = [""] * len(span)
    return words


def counted_by_code(q: Question, schema: Schema, mentions: list, table_texts: Any = None,
                    embedder: Any = None) -> Plan | None:
    """A "how many" question that asks nothing else, counted by code: "how many X are there?" (no named thing;
    nothing but X besides the words that ask how many) as the rows of X's table; "how many R does N have?" (N
    named whole, a row of its table; R one of that table's own links that the asked words name) as N's distinct
    values of R; "how many X <relation> N?" as the X linked to N (`things_of_named`; first, when the asked words
    name a table). None otherwise."""
    if q.kind != "count" or _asks_more(q, mentions, counting=True):
        return None
    phrase = asked_phrase(q)
    # (a value that is only the counted word itself, "kilns" a value of some column, names no thing)
    mentions = [m for m in mentions if not {singular(w) for w in tokens(m.text or m.value)} <= set(phrase)]
    named = {fold(m.value) for m in mentions if getattr(m, "exact", False)}
    if not named:
        tables = phrase_tables(schema, phrase, table_texts) if phrase else []
        rest = [w for w in q.words if w not in _CLASS_COUNT_WORDS and singular(w) not in phrase]
        if len(tables) != 1 or rest:
            return None
        return Query(select=(Item(Agg("count", Col("things", tables[0].name, "iri"), distinct=True)),),
                     sources=(Source(tables[0].name, "things"),))
    if len(named) != 1:
        return None
    if asked_tables(q, schema, table_texts):  # the asked words name a table: its rows linked to N
        return _counted(things_of_named(q, schema, mentions, table_texts))
    asked = parse_question(" ".join(phrase))
    for m in (m for m in mentions if getattr(m, "exact", False)):
        table = schema.table(m.table)
        col = table.column(m.column) if table is not None else None
        own = links_named(asked, [(table, c) for c in table.columns.values()], besides=table.name) if (
            col is not None and col.is_label) else []
        if len(own) == 1:
            link = Col("named", table.name, own[0][1].name)
            return Query(select=(Item(Agg("count", link, distinct=True)),), sources=(Source(table.name, "named"),),
                         where=Cmp("=", Col("named", table.name, col.name), Lit(m.value)))
    return _counted(things_of_named(q, schema, mentions, table_texts, embedder))


def _counted(things: Plan | None) -> Plan | None:
    """The number of the things a plan of `things_of_named` lists."""
    if not isinstance(things, Query):
        return None
    return replace(things, select=(Item(Agg("count", things.select[0].expr, distinct=True)),), distinct=False)


def kept(check: str, rows: list) -> bool:
    """Whether what a plan written by code found is evidence enough to state: a yes/no only when it found the two
    linked, a count only when it is not 0 (a link read by code that pairs nothing says nothing), a list when it
    has rows."""
    if check == COUNTED_BY_CODE:
        return bool(rows) and rows[0][0].value not in ("0", "0.0")
    return bool(rows)


def names_its_things(plan: Plan | None, schema: Schema) -> bool:
    """Does the table whose things a plan written by code lists (its first source) have a column that names its
    rows (a label)? Without one its answer would be bare identifiers: such a plan is left to the model."""
    while isinstance(plan, SetQuery):
        plan = plan.left
    table = schema.table(plan.sources[0].table) if isinstance(plan, Query) and plan.sources else None
    return table is not None and any(c.is_label for c in table.columns.values())


def named_is_linked(q: Question, schema: Schema, mentions: list) -> Plan | None:
    """A yes/no question about two things it names whole and nothing else ("did N <relation> M?", "is N
    <relation> M?"; N said first, a row of its table): the rows of N's table named N that are linked to M
    (`linked_to`: M a value of N's own link, or a row of a table linked to N's by the link the question names, or
    the one link; two rows of one table by its link to itself, read the way the question says it:
    `said_backwards`). Found, the answer is yes; the loop keeps no "no" from it (a link read by code that pairs
    nothing is no evidence that the two are unrelated). None for any other question, or when no link relates
    them."""
    if q.kind != "yesno" or _asks_more(q, mentions):
        return None
    exact = [m for m in mentions if getattr(m, "exact", False)]
    text = fold(q.text)
    values = sorted({m.value for m in exact if fold(m.value) in text}, key=lambda v: (text.find(fold(v)), v))
    if len(values) != 2 or len({m.value for m in exact}) != 2:
        return None
    for m in (m for m in exact if m.value == values[0]):
        wide = schema.table(m.table)
        col = wide.column(m.column) if wide is not None else None
        others = [x for x in exact if x.value == values[1]]
        if col is None or not col.is_label:
            continue
        found = linked_to(wide, others, schema, q)
        if found is not None:
            return replace(found, where=And((found.where, Cmp("=", Col("things", wide.name, col.name), Lit(m.value)))))
    return None


def linked_yes(q: Question, schema: Schema, mentions: list) -> Plan | None:
    """`named_is_linked` when the question's words name the link it reads (a link whose name shares a word's root
    with the question, or the column of N's own that holds M): None otherwise."""
    plan = named_is_linked(q, schema, mentions)
    if not isinstance(plan, Query):
        return None
    cols = [c for j in plan.joins for c in (j.left, j.right) if c.column != "iri"]
    cols += [c.left for c in top_conditions(plan.where) if isinstance(c, Cmp) and isinstance(c.left, Col)
             and c.left.alias == "things" and c.left.column != "label"]
    links = [(t, t.column(c.column)) for c in cols if (t := schema.table(c.table)) is not None]
    return plan if links and all(links_named(q, [link]) for link in links) else None


def written_plans(q: Question, schema: Schema, mentions: list, table_texts: Any = None,
                  embedder: Any = None) -> list[tuple[str, Callable[[], Plan | None], str]]:
    """The plans to try, in order, as (the check they answer for, a function that writes the plan or None, the
    repair note); what each finds is stated only when `kept` says it is evidence enough."""
    def named(plan: Plan | None) -> Plan | None:
        return plan if names_its_things(plan, schema) else None

    return [
        (BOTH_VALUES.name, lambda: named(things_with_both(q, schema, mentions, table_texts, embedder)),
         "repaired: the asked things linked to each of the two named things"),
        (ASKED_TABLE.name, lambda: named(things_of_named(q, schema, mentions, table_texts, embedder) if (
            asks_only_the_linked(q, mentions)) else None),
         "repaired: the asked things linked to the thing the question names"),
        (NAMED_IS_LINKED, lambda: named_is_linked(q, schema, mentions),
         "repaired: whether the first named thing is linked to the second"),
        (COUNTED_BY_CODE, lambda: counted_by_code(q, schema, mentions, table_texts, embedder),
         "repaired: the things the question counts, counted by code")]
