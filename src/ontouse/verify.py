"""Checks that a plan and its result answer the question asked, before the answer is stated.

The existing shape checks (checks.py: a number for "how many", not the question's own names, the table a
"which X" question asks for) are joined here by checks of what a count counts, a superlative's direction, a
comparison's two sides and a result's values, and by checks of the plan against the question's grammar: a
condition on a value the question never names (conditions_asked), "A and B" answered with either (both_values),
names asked and one number returned (names_returned), a value per group asked and one returned
(value_per_group), "the most recent" ranked by no date (time_ranked), a second thing asked and one column returned
(second_ask_answered), a superlative answered by alphabetical order (ranked_by_amount), a yes/no column the
question names by its word left unused (flag_used), a count of the one thing the question names by its own
name (not_the_named_thing_counted), an answer that is only a value the plan filters by (not_the_question_restated),
a value's own table answering for the things that have the value (not_the_value_itself, checks.py), a number or
a code the question says and the plan never uses (numbers_used), one top value asked and the top of each group
returned (one_top_value), a value column the question names in words and the plan never reads
(named_columns_read), a subclass read where the question asks about its class, or a whole class where the asked
words name a subclass (asked_class_read), rounded numbers asked and none rounded (rounded_as_asked), a table the
question does not mention joined only to lead back to rows the plan reads already (joins_asked), a superlative
ranked by an average nobody asked for (ranked_as_asked). Each check
is named and gives a `Check` (passed or not, with the reason); the answer record keeps the list, so a reader
sees which checks an answer passed. A failed check goes back to the model like any other problem; when no
attempt passes, the answer says "Unsure: <reason>; best candidate: ..." instead of stating the candidate
(ask.py). What the data leaves ambiguous is read by ask.py on the result that passed, and never
sent back (no plan can fix it): a ranking whose k-th value more things share (tie_probes, tied_rows), a part of a
name that matches several values (name_probes).

The checks read the question's grammar (English closed-class words: "most", "least", "than", "how many") and
the plan's structure; they hold no word of any domain."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from ontocore.text import STOP, fold, singular

from .answer import Cell
from .checks import (echo_problem, exists_problem, fixed_names, is_number, shape_problem, type_problem,
                     value_echo_problem)
from .sqlplan.plan import (Agg, And, Arith, Cmp, Col, Exists, Func, InList, InQuery, IsNull, Item, Join, Like, Lit, Not,
                           Or, Order, Plan, Query, Scalar, SetQuery, Source, columns_in, is_aggregate, nodes_in)
from .question import (AMOUNT, AVERAGED, DOWN, NUMBER_WORDS, ORDER_WORDS, ORDINAL, QUANTITY, ROUND,
                       SECOND_ASK, TIME_SUPERLATIVE, TIME_WORDS, UP, WHICH, Question, asked_phrase, asks_per_group,
                       both_named, counted_phrase, excludes, named_sides, noun_phrase, ranks_itself,
                       superlative_direction, verb_negated)
from .sqlplan.schema import Schema, Table


@dataclass(frozen=True)
class Check:
    name: str
    passed: bool
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"check": self.name, "passed": self.passed}
        if self.detail:
            out["detail"] = self.detail
        return out


def _check(name: str, problem: str) -> Check:
    return Check(name, not problem, problem)


def _term(text: str) -> str:
    """A name as the question's words are compared with it: folded, word by word singular."""
    return " ".join(singular(w) for w in re.findall(r"[^\W_]+", fold(text)))


def _table_terms(t: Table) -> set[str]:
    from ontocore.embeddings import split_name

    return {term for text in (split_name(t.name), t.label or "", t.english) if (term := _term(text))}


def tables_named(schema: Schema, phrase: list[str]) -> list[Table]:
    """The tables the phrase names: the whole phrase, else its last word (its head noun)."""
    if not phrase:
        return []
    for key in (" ".join(phrase), phrase[-1]):
        found = [t for t in schema.tables.values() if key in _table_terms(t)]
        if found:
            return found
    return []


def _refers_to(a: Table, b: Table, schema: Schema) -> bool:
    """Does each row of `a` refer to one row of `b` (a link to b's things, or a key value of b; one per row, as in
    a table of pairs: counting its rows counts b's things, where a row with several links would not)?"""
    for col in a.columns.values():
        if col.count > col.subjects:
            continue
        if col.kind == "link" and col.target and schema.table(col.target) and _related(schema.table(col.target), b):
            return True
        owner = schema.table(col.key_of.split(".", 1)[0]) if col.key_of else None
        if owner is not None and _related(owner, b):
            return True
    return False


def _related(a: Table, b: Table) -> bool:
    """The same things, or one table's things among the other's (a subclass at any depth)."""
    return a.name == b.name or bool(set(a.classes) & set(b.classes))


# ---- checks ------------------------------------------------------------------------------------------------
def counted_class_problem(q: Question, plan: Plan, schema: Schema) -> str:
    """A "how many X" question answered by counting rows of a table unrelated to X."""
    if q.kind != "count" or not isinstance(plan, Query):
        return ""
    counts = [e for it in plan.select for e in _aggs(it.expr) if e.func == "count"]
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
    if any(_related(c, w) or _refers_to(c, w, schema) for c in counted for w in wanted):
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
    if any(_related(t, table) for t in tables_named(schema, phrase)) and not (
            {singular(w) for w in re.findall(r"[^\W_]+", fold(fixed[0]))} & set(phrase)):
        return ""  # "how many animals are called X": the question counts the things by that name
    return (f"the query counts the {table.name} named {fixed[0]!r} itself (one thing, so 1), not a number about "
            f"it: select the column of {table.name} that holds the number asked, or count the rows of a table that "
            "refer to it; if the data holds no such number, the answer is that it has none.")


def restated_problem(q: Question, plan: Plan, rows: list[list[Cell]]) -> str:
    """An answer that is only one of the texts the plan filters by (one row, one column, equal to a constant of
    its WHERE clause) restates the question ("which shelf holds the lamp Aurora?" answered "Aurora").
    ('' when the answer is anything else.)"""
    if q.kind in ("yesno", "count") or not isinstance(plan, Query) or plan.where is None:
        return ""
    if len(rows) != 1 or len(rows[0]) != 1 or is_number(rows[0][0]):
        return ""
    cell = rows[0][0]
    said = {fold(t).strip() for t in (cell.value, cell.label) if t and not (t == cell.value and cell.is_iri)}
    filtered = {x.strip() for x in _literals(plan.where, [])}
    if "or" in q.words and sum(1 for x in filtered if x and x in fold(q.text)) >= 2:
        return ""  # a choice between things the question names ("which came first, A or B?"): one of them
    if said & filtered:
        return (f"the answer {cell.label or cell.value!r} is the value the query filters by, so it restates the "
                "question: select the column that holds what the question asks about that thing.")
    return ""


def superlative_thing_problem(q: Question, plan: Plan, schema: Schema, table_texts: Any = None,
                              mentions: list | None = None) -> str:
    """"What is the highest tower?", "the lightest bike", "the first ship launched": when the words after the
    superlative (or first / last / oldest ...) name a table (and no column of it), the question asks for that
    thing; a plan that returns only numbers or dates (the top value, MAX or MIN) answers "how high" or "when", not
    "which". ('' when the superlative qualifies a column, as in "the highest price", the superlative follows "of"
    as in "the height of the tallest X", the question asks "how ..." or "when", its which/what noun is a column
    ("in which year did the oldest X open"), or the plan returns anything but numbers.) `table_texts(table)`: a
    table's labels in every language (the question may be the English reading of another language's, over an
    ontology labelled in that one). The words after the superlative may also name a value the plan selects the
    things by ("the cheapest tulip", a value of the products' kind: the product is asked); the group keys of a
    per-group answer ("per depot, the heaviest parcel") are not the answer's own columns."""
    if q.kind in ("count", "yesno") or not isinstance(plan, Query) or not plan.select or {"how", "when"} & set(
            q.words):
        return ""  # ("how much does the most recent X cost", "when did the first X open" ask for the value)
    if q.head and any(singular(q.head) in _column_words(schema, Col("", t.name, c.name))
                      for t in schema.tables.values() for c in t.columns.values() if c.kind != "id"):
        return ""  # "in which year did the oldest X open": the head names a column, the value is asked for
    words = q.words
    head = _phrase_tables(schema, [q.head], table_texts) if q.head and words[0] in WHICH else []
    answer = list(plan.select)
    if head and any(w in (UP | DOWN | ORDINAL) - QUANTITY for w in words) and not asks_per_group(q) and all(
            _numeric(schema, it.expr, dates=True) for it in answer):  # "which X has the lowest Y": an X is asked
        return (f"the question asks which {head[0].name} has the "
                f"{' '.join(w for w in words if w in UP | DOWN | ORDINAL)} value, but the query returns only the "
                f"number: select the {head[0].name} (ORDER BY the value ... LIMIT 1), and the value beside it if "
                "you like.")
    # "the height of the tallest X" asks for a value of the top thing: only a superlative not after "of" asks for it
    # ("maximum" / "minimum" name a quantity: "the maximum death toll" asks for the number)
    phrases = [noun_phrase(words[i + 1:]) for i, w in enumerate(words[:-1]) if w in (UP | DOWN | ORDINAL) - QUANTITY
               and "of" not in words[max(0, i - 2):i]]
    if (asks_per_group(q) or "per" in words) and not q.head:  # "per depot, the heaviest parcel": not the depots
        keys = {g.alias.lower() for g in plan.group_by if isinstance(g, Col)}
        answer = [it for it in plan.select if it.expr not in plan.group_by and not (
            isinstance(it.expr, Col) and it.expr.alias.lower() in keys)] or answer
    for phrase in phrases:
        tables = _phrase_tables(schema, phrase, table_texts) if phrase else []
        if not tables and phrase and any(
                m.exact and [singular(w) for w in fold(m.text).split()[:1]] == [singular(phrase[0])]
                for m in mentions or []):
            tables = [t for t in (schema.table(plan.sources[0].table),) if t is not None]  # the things selected
        elif not tables or any(phrase[0] in _column_words(schema, Col("", t.name, c.name))
                               for t in tables for c in t.columns.values() if c.kind != "id"):
            continue
        if tables and all(_numeric(schema, it.expr, dates=True) for it in answer):
            return (f"the question asks which {tables[0].name} is the "
                    f"{' '.join(w for w in words if w in UP | DOWN | ORDINAL)}"
                    f", but the query returns only the number: select the {tables[0].name} (ORDER BY the value "
                    "... LIMIT 1), and the value beside it if you like.")
    return ""


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
    tables = _phrase_tables(schema, noun_phrase(words[at + 1:]), table_texts)
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


def asked_tables(q: Question, schema: Schema, table_texts: Any = None) -> list[Table]:
    """The tables the words after which / what / how many name ("which vehicles ...": the vehicles), none when the
    question starts otherwise."""
    phrase = asked_phrase(q)
    return _phrase_tables(schema, phrase, table_texts) if phrase else []


def _terms_of(t: Table, table_texts: Any = None) -> set[str]:
    return _table_terms(t) | ({_term(x) for x in table_texts(t.name)} if table_texts is not None else set())


def _subclass(narrow: Table, wide: Table) -> bool:
    """Are `narrow`'s things some of `wide`'s (a subclass at any depth, not the class itself)?"""
    return narrow.cls != wide.cls and narrow.cls in wide.classes


def _named_subclass(phrase: list[str], wide: Table, schema: Schema, table_texts: Any = None
                    ) -> tuple[Table | None, set[str]]:
    """The subclass of `wide` that the asked phrase names by the words its name adds to the class's ("coastal"
    of "coastal vehicle" under "vehicle": every word one of its names adds is in the phrase), and those words.
    (None, set()) when no subclass is named so."""
    said, own = set(phrase), {w for term in _terms_of(wide, table_texts) for w in term.split()}
    for sub in sorted(schema.tables.values(), key=lambda t: -len(t.classes)):
        if not sub.count or not _subclass(sub, wide):
            continue
        for term in _terms_of(sub, table_texts):
            added = set(term.split()) - own
            if added and added <= said:
                return sub, added
    return None, set()


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
    asked = _phrase_tables(schema, phrase, table_texts)
    if asked and not any(a.name.lower() in names for a in asked):
        wide = asked[0]
        named, _ = _named_subclass(phrase, wide, schema, table_texts)
        narrow = [t for t in read if _subclass(t, wide) and not (named is not None and (
            t.name == named.name or _subclass(t, named) or _subclass(named, t)))]
        if narrow:
            return (f"the question asks about {wide.name} things, but the query reads only {narrow[0].name}, a "
                    f"subclass of it (some of them): read from {wide.name}.")
    said = {w for lit in _literals(plan, []) for w in _term(lit).split()}
    for t in read:
        sub, added = _named_subclass(phrase, t, schema, table_texts)
        if sub is None or added & said or any(r.name == sub.name or _subclass(r, sub) for r in read):
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
        sub = _named_subclass(phrase, t, schema, table_texts)[0] if t is not None and phrase else None
        if sub is not None:
            return _read_as(plan, s.alias, sub)
    return None


def _read_as(plan: Query, alias: str, table: Table) -> Query | None:
    """The plan with the source `alias` read from `table` (every column read from it must be `table`'s too)."""
    used = [c for c in columns_in(plan, deep=True) if c.alias == alias]
    if any(table.column(c.column) is None and c.column != "iri" for c in used):
        return None

    def swap(e: Any) -> Any:
        from dataclasses import fields, is_dataclass

        if isinstance(e, Col) and e.alias == alias:
            return replace(e, table=table.name)
        if isinstance(e, Source) and e.alias == alias:
            return replace(e, table=table.name)
        if isinstance(e, (Query, SetQuery)):
            return e  # a subquery has aliases of its own
        if is_dataclass(e) and not isinstance(e, type):
            return replace(e, **{f.name: swap(getattr(e, f.name)) for f in fields(e)})
        if isinstance(e, tuple):
            return tuple(swap(x) for x in e)
        return e

    return replace(plan, **{f: swap(getattr(plan, f)) for f in ("select", "sources", "joins", "where", "group_by",
                                                                   "having", "order_by")})


def things_with_value(q: Question, plan: Plan, schema: Schema, table_texts: Any = None) -> Plan | None:
    """The things that have a named value, in place of the value itself (the bounded repair of
    `not_the_value_itself`): "which stores does X manage" planned as the manager X's own row or its count reads
    the rows of the table the question names (asked_tables) joined by the one link between it and the value's
    table (`_one_link`), under the same conditions - their count for a count question, else each once. None when
    the question names no such table, or no single link relates the two."""
    if not isinstance(plan, Query) or len(plan.sources) != 1 or plan.group_by:
        return None
    value = plan.sources[0]
    asked = [t for t in asked_tables(q, schema, table_texts) if t.name.lower() != value.table.lower()]
    table = schema.table(value.table)
    alias = next(a for a in ("things", "things_1", "things_2") if a != value.alias)
    join = _one_link(asked[0], alias, table, value.alias) if asked and table is not None else None
    if join is None:
        return None
    thing = Col(alias, asked[0].name, "iri")
    select = Item(Agg("count", thing, distinct=True)) if q.kind == "count" else Item(thing)
    return Query(select=(select,), sources=(Source(asked[0].name, alias), value), joins=(join,), where=plan.where,
                 distinct=q.kind != "count")


def _one_link(wide: Table, alias: str, other: Table, other_alias: str) -> Join | None:
    """The join of `wide`'s rows (as `alias`) with `other`'s (as `other_alias`) by the one link between the two
    tables: `other`'s one link to `wide`, else (when it has none) `wide`'s one link to `other`; None when there is
    no such link or more than one."""
    out = [c for c in other.columns.values() if c.kind == "link" and c.target.lower() == wide.name.lower()]
    back = [c for c in wide.columns.values() if c.kind == "link" and c.target.lower() == other.name.lower()]
    if len(out) == 1:
        return Join(Col(other_alias, other.name, out[0].name), Col(alias, wide.name, "iri"))
    if not out and len(back) == 1:
        return Join(Col(alias, wide.name, back[0].name), Col(other_alias, other.name, "iri"))
    return None


def things_of_named(q: Question, plan: Plan, schema: Schema, mentions: list, table_texts: Any = None) -> Plan | None:
    """The things a "which X does N ..." question asks for, read by code when the plan returned no column of X
    (the bounded repair of `asked_table`): the rows of the table the question names (asked_tables) linked to the
    one thing the question names whole (its exact mentions) by the one link between that thing's table and X
    (`_one_link`); of several tables that hold the named thing, the smallest with such a link. None when the
    question names no table, no single thing, or no single link relates them."""
    asked = asked_tables(q, schema, table_texts)
    if not asked or not isinstance(plan, (Query, SetQuery)):
        return None
    wide = asked[0]
    named = [m for m in mentions if getattr(m, "exact", False) and m.table.lower() != wide.name.lower()]
    if len({m.value for m in named}) != 1:
        return None
    options = []
    for m in named:
        t = schema.table(m.table)
        join = _one_link(wide, "things", t, "named") if t is not None and t.column(m.column) is not None else None
        if join is not None:
            options.append((t.count, t.name, m, join))
    if not options:
        return None
    _, table, m, join = min(options, key=lambda o: (o[0], o[1]))
    return Query(select=(Item(Col("things", wide.name, "iri")),),
                 sources=(Source(wide.name, "things"), Source(table, "named")), joins=(join,),
                 where=Cmp("=", Col("named", table, m.column), Lit(m.value)), distinct=True)


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
    narrow = [s for s in plan.sources if (t := schema.table(s.table)) is not None and _subclass(t, wide)]
    if len(narrow) != 1:
        return None
    return _read_as(plan, narrow[0].alias, wide)


def _phrase_tables(schema: Schema, phrase: list[str], table_texts: Any = None) -> list[Table]:
    """The tables that words of the phrase (singular) name: the longest run of words that is one of a table's
    names or labels (in any language, by `table_texts`), else a word that is the last word of one ("pump" of
    "heat pump")."""
    terms = {t.name: _table_terms(t) | ({_term(x) for x in table_texts(t.name)} if table_texts is not None
                                        else set()) for t in schema.tables.values() if t.count}
    for size in range(len(phrase), 0, -1):
        for i in range(len(phrase) - size + 1):
            key = " ".join(phrase[i:i + size])
            found = [schema.tables[n.lower()] for n, ts in terms.items() if key in ts]
            if found:
                return found
    for w in phrase:
        found = [schema.tables[n.lower()] for n, ts in terms.items() if any(x.split()[-1] == w for x in ts if x)]
        if found:
            return sorted(found, key=lambda t: -t.count)
    return []


def _numeric(schema: Schema, e: Any, dates: bool = False) -> bool:
    """Is the selected expression a number (an aggregate: COUNT, SUM, AVG, MIN, MAX; or a numeric column; with
    `dates`, a date or time column too)?"""
    if isinstance(e, Agg):
        return True
    if isinstance(e, Col):
        table = schema.table(e.table)
        col = table.column(e.column) if table else None
        return col is not None and (col.numeric or (dates and col.sql_type in ("DATE", "DATETIME", "TIME"))
                                    or value_object(schema, col))
    return False


def value_object(schema: Schema, col: Any) -> bool:
    """Is `col` a link to things that only hold a value (a money object: its one number, a unit, a label), one
    per thing that links to them? Such a link stands for its number (sqlplan's link_number reads it so)."""
    target = schema.table(col.target) if col.kind == "link" and col.target else None
    if target is None:
        return False
    numbers = [c for c in target.columns.values() if c.numeric and not c.hidden]
    return len(numbers) == 1 and not any(c.kind == "link" for c in target.columns.values()) and \
        target.count >= col.subjects


def _aggs(e: Any) -> list[Agg]:
    from dataclasses import fields, is_dataclass

    if isinstance(e, Agg):
        return [e]
    if isinstance(e, Scalar):
        return []
    if is_dataclass(e) and not isinstance(e, type):
        return [a for f in fields(e) if f.name != "query" for a in _aggs(getattr(e, f.name))]
    if isinstance(e, tuple):
        return [a for x in e for a in _aggs(x)]
    return []


def plan_direction(plan: Plan) -> str:
    """"up" / "down" when the plan picks the top / bottom (ORDER BY ... LIMIT, MAX / MIN), else ""."""
    if not isinstance(plan, Query):
        return ""
    dirs = set()
    if plan.order_by and plan.limit is not None:
        dirs.add("up" if plan.order_by[0].desc else "down")
    else:
        for it in plan.select:
            for a in _aggs(it.expr):
                if a.func in ("max", "min"):
                    dirs.add("up" if a.func == "max" else "down")
        for e in _scalars(plan.where):
            d = plan_direction(e.query)
            if d:
                dirs.add(d)
    return dirs.pop() if len(dirs) == 1 else ""


def _scalars(e: Any) -> list[Scalar]:
    from dataclasses import fields, is_dataclass

    if isinstance(e, Scalar):
        return [e]
    if is_dataclass(e) and not isinstance(e, type):
        return [s for f in fields(e) if f.name != "query" for s in _scalars(getattr(e, f.name))]
    if isinstance(e, tuple):
        return [s for x in e for s in _scalars(x)]
    return []


def _ranks(plan: Plan) -> bool:
    """Does any part of the plan pick a top or bottom (ORDER BY ... LIMIT, MAX, MIN), at any depth?"""
    return any((isinstance(n, Query) and bool(n.order_by) and n.limit is not None)
               or (isinstance(n, Agg) and n.func in ("max", "min")) for n in nodes_in(plan))


def _excludes(n: Any) -> bool:
    if isinstance(n, Not) or (isinstance(n, Cmp) and n.op == "!="):
        return True
    if isinstance(n, (Like, InList, InQuery, Exists)):
        return n.negated
    if isinstance(n, IsNull):
        return not n.negated
    return (isinstance(n, SetQuery) and n.op == "except") or (isinstance(n, Source) and n.optional)


def _negates(plan: Plan) -> bool:
    """Does any part of the plan exclude something (NOT, !=, NOT IN, NOT LIKE, NOT EXISTS, IS NULL, EXCEPT, a LEFT
    JOIN), at any depth?"""
    return any(_excludes(n) for n in nodes_in(plan))


def _refers(schema: Schema, many: Col, one: Col) -> bool:
    """Does `many` (a column of one row) point at the row that `one` stands for (its iri, or its key column)?"""
    table, other = schema.table(many.table), schema.table(one.table)
    col = table.column(many.column) if table else None
    if col is None or other is None or col.count > col.subjects:
        return False
    if col.kind == "link" and one.column.lower() == "iri":
        target = schema.table(col.target) if col.target else None
        return target is not None and _related(target, other)
    return bool(col.key_of) and col.key_of.lower() == f"{other.name}.{one.column}".lower()


def _many_side(plan: Query, alias: str, schema: Schema) -> bool:
    """Is the source `alias` joined to another source as rows that refer to it (the orders of a customer)?"""
    for j in plan.joins:
        sides = {j.left.alias.lower(): j.left, j.right.alias.lower(): j.right}
        if alias in sides and len(sides) == 2:
            other = next(c for a, c in sides.items() if a != alias)
            table = schema.table(sides[alias].table)
            col = table.column(sides[alias].column) if table else None
            # several rows refer to one thing (not a one-to-one record of it)
            if col is not None and col.distinct < col.subjects and _refers(schema, sides[alias], other):
                return True
    return False


def _many_path(plan: Query, alias: str, schema: Schema, seen: tuple[str, ...] = ()) -> bool:
    """Is the source `alias` one of several per asked thing: rows that refer to a joined thing (`_many_side`), or
    the thing such a row refers to (the tool of one of a workshop's loan rows: a workshop has several)?"""
    if _many_side(plan, alias, schema):
        return True
    first = plan.sources[0].alias.lower()
    for j in plan.joins:
        sides = {j.left.alias.lower(): j.left, j.right.alias.lower(): j.right}
        if alias not in sides or len(sides) != 2:
            continue
        other_alias, other = next((a, c) for a, c in sides.items() if a != alias)
        if other_alias in seen or other_alias == first or sides[alias].column.lower() != "iri":
            continue
        if _refers(schema, other, sides[alias]) and _many_path(plan, other_alias, schema, seen + (alias,)):
            return True
    return False


def negation_problem(q: Question, plan: Plan, schema: Schema | None = None) -> str:
    """A question that excludes something ("not", "no", "without", "never") whose plan excludes nothing answers
    the question without its exclusion; one that excludes only with != on the rows joined to each thing (its
    orders, its visits) keeps every thing that has any other such row."""
    found = [n for n in nodes_in(plan) if _excludes(n)]
    if not found:
        return ("the question excludes something (not / no / without / never), but the query excludes nothing: "
                "use NOT IN (SELECT ...), NOT EXISTS, != or EXCEPT for the excluded part.")
    if schema is not None and verb_negated(q):
        pairs = _excluded_over_rows(plan, schema)
        if pairs:
            return pairs
    if schema is None or not isinstance(plan, Query) or len(plan.sources) < 2 or not verb_negated(q):
        return ""
    top = [c for c in _top_conditions(plan.where)]
    joined = {s.alias.lower() for s in plan.sources[1:] if not s.optional}
    if not all(isinstance(n, Cmp) and n.op == "!=" and any(n is c for c in top) for n in found):
        return ""
    for n in found:
        col = n.left if isinstance(n.left, Col) else n.right if isinstance(n.right, Col) else None
        if col is None or col.alias.lower() not in joined or not _many_path(plan, col.alias.lower(), schema):
            return ""
    n = found[0]
    col = n.left if isinstance(n.left, Col) else n.right
    return (f"{col.alias}.{col.column} != ... over the joined {col.table} rows keeps every thing that has any other "
            f"{col.table} row: to exclude the things that have it, use NOT IN (SELECT ... WHERE {col.column} = ...) "
            "or NOT EXISTS.")


def _excluded_over_rows(plan: Plan, schema: Schema) -> str:
    """A query over one table whose rows refer to the things it returns (several rows per thing: a table of
    pairs), selecting that reference and excluding with != on another column, returns every thing that has any
    other row ("the workshops that do not lend X" from rows (workshop, tool) with tool != X)."""
    for n in nodes_in(plan):
        if not isinstance(n, Query) or len(n.sources) != 1 or len(n.select) != 1 or not isinstance(
                n.select[0].expr, Col):
            continue
        sel = n.select[0].expr
        table = schema.table(sel.table)
        col = table.column(sel.column) if table else None
        if col is None or not ((col.kind == "link" and col.target) or col.key_of) or col.distinct >= col.subjects:
            continue  # not a reference, or one row per thing
        for c in _top_conditions(n.where):
            if isinstance(c, Cmp) and c.op == "!=" and isinstance(c.left, Col) and c.left.column != sel.column:
                return (f"{c.left.column} != ... over the rows of {table.name} keeps every {sel.column} that has any "
                        f"other {table.name} row: to exclude the ones that have it, use NOT IN (SELECT "
                        f"{sel.column} ... WHERE {c.left.column} = ...).")
    return ""


def _top_conditions(e: Any) -> list[Any]:
    """The conditions of a WHERE joined by AND (not inside OR / NOT / subqueries)."""
    if e is None:
        return []
    if isinstance(e, And):
        return [c for item in e.items for c in _top_conditions(item)]
    return [e]


def _joins(plan: Plan) -> list[Join]:
    return [n for n in nodes_in(plan) if isinstance(n, Join)]


def _joined_values_related(schema: Schema, j: Join) -> bool:
    """Do the two joined columns hold related values: a link and the thing it points at, a key column and the
    column it refers to, two columns referring to the same key or linking to the same table, or two columns of the
    same name (a value both tables hold: a state, a code)?"""
    lt, rt = schema.table(j.left.table), schema.table(j.right.table)
    a = lt.column(j.left.column) if lt else None
    b = rt.column(j.right.column) if rt else None
    if a is None or b is None or a.name.lower() == b.name.lower():
        return True
    if a.kind == "id" or b.kind == "id":
        thing, other = (rt, a) if b.kind == "id" else (lt, b)
        if other.kind == "id" or (other.kind == "link" and other.target):
            return True
        return bool(other.key_of) and other.key_of.split(".", 1)[0].lower() == thing.name.lower()

    def key(c) -> str:
        return c.key_of.lower() if c.key_of else ""
    if key(a) == f"{rt.name}.{b.name}".lower() or key(b) == f"{lt.name}.{a.name}".lower():
        return True

    def refers(c) -> str:  # the table a column points at, by a link or by a key
        return (c.target if c.kind == "link" else c.key_of.split(".", 1)[0] if c.key_of else "").lower()
    return bool(refers(a)) and refers(a) == refers(b)


def join_problem(plan: Plan, schema: Schema) -> str:
    """A join of two columns whose values nothing relates (no link, no key between them, not the same value
    named alike) pairs rows by coincidence: the rows it returns are not related things."""
    for j in _joins(plan):
        if not _joined_values_related(schema, j):
            return (f"the join {j.left.alias}.{j.left.column} = {j.right.alias}.{j.right.column} pairs values that no "
                    f"link or key relates ({j.left.table}.{j.left.column} does not refer to {j.right.table}): join "
                    f"on the column that refers to the other table (REFERENCES), or on its link.")
    return ""


def _detours(q: Question, plan: Plan, schema: Schema, table_texts: Any = None) -> list[tuple[Source, list[str]]]:
    """The sources of the plan that only lead back to what it already reads (each with the aliases it joins): a
    table none of whose columns the plan reads but in joins, all of them on one link column of its own to the
    rows of another source (`X.link = Y.iri`, every Y of one table), and that the question does not name by any
    word of its names (`_stem`). Joined so, it only repeats the rows of Y - once per row of X that links to it -
    and keeps the Y that some X links to: "which suppliers deliver X" read through the rows of an order list that
    the question never mentions. Only for a plain query (not a union) without COUNT(*), and never its first
    source."""
    if not isinstance(plan, Query) or len(plan.sources) < 2 or any(
            a.func == "count" and a.arg is None for a in _aggs((plan.select, plan.order_by, plan.having))):
        return []  # COUNT(*) counts the rows of every source
    said = {w for w in (singular(x) for x in q.words) if len(w) > 2}
    out = []
    for src in plan.sources[1:]:  # (the first is what the plan reads about)
        table = schema.table(src.table)
        if table is None or src.optional:
            continue
        a = src.alias.lower()
        joins = [j for j in plan.joins if a in (j.left.alias.lower(), j.right.alias.lower())]
        rest = replace(plan, joins=tuple(j for j in plan.joins if j not in joins), sources=())
        if not joins or any(c.alias.lower() == a for c in columns_in(rest, deep=True)):
            continue
        own = [j.left if j.left.alias.lower() == a else j.right for j in joins]
        other = [j.right if j.left.alias.lower() == a else j.left for j in joins]
        col = table.column(own[0].column)
        if (col is None or col.kind != "link" or any(c.column != own[0].column for c in own)
                or any(o.column != "iri" or o.alias.lower() == a or o.table != other[0].table for o in other)
                or any(j.optional for j in joins)):
            continue
        if any(_stem(w) == _stem(n) for w in said for term in _terms_of(table, table_texts) for n in term.split()):
            continue
        out.append((src, list(dict.fromkeys(o.alias for o in other))))
    return out


def _stem(word: str) -> str:
    """A word as it is compared with a table's names in `_detours`: its first four letters ("posted" and
    "posting", "enrolled" and "enrolment" are one word there, which is the safe side: a named table is no
    detour)."""
    return word[:4]


def detour_problem(q: Question, plan: Plan, schema: Schema, table_texts: Any = None) -> str:
    """A table joined that the question does not name and whose only part is to lead back to rows the plan reads
    already (`_detours`): it repeats or drops those rows by a relation the question does not ask about."""
    found = _detours(q, plan, schema, table_texts)
    if not found:
        return ""
    src, aliases = found[0]
    return (f"the query joins {src.table} ({src.alias}), which the question does not mention, only to come back to "
            f"{', '.join(aliases)}: it repeats or drops rows by a relation not asked about. Leave {src.table} out.")


def without_detour(q: Question, plan: Plan, schema: Schema, table_texts: Any = None) -> Plan | None:
    """The plan without the first table `_detours` finds (the bounded repair of detour_problem): its source and
    joins dropped, and the sources it joined, all of one table and so one row, read as the first of them. None
    when the plan has no such table, or the rest is no longer joined together."""
    found = _detours(q, plan, schema, table_texts)
    if not found:
        return None
    src, aliases = found[0]
    keep, merged = aliases[0], {a.lower() for a in aliases[1:]}

    def swap(e: Any) -> Any:
        from dataclasses import fields, is_dataclass

        if isinstance(e, Col) and e.alias.lower() in merged:
            return replace(e, alias=keep)
        if is_dataclass(e) and not isinstance(e, type):
            return replace(e, **{f.name: swap(getattr(e, f.name)) for f in fields(e)})
        if isinstance(e, tuple):
            return tuple(swap(x) for x in e)
        return e

    gone = {src.alias.lower()} | merged
    joins = []
    for j in plan.joins:
        if src.alias.lower() in (j.left.alias.lower(), j.right.alias.lower()):
            continue
        j = swap(j)
        if j.left != j.right and j not in joins:
            joins.append(j)
    sources = tuple(s for s in plan.sources if s.alias.lower() not in gone)
    linked, todo = {sources[0].alias.lower()}, True
    while todo:
        todo = False
        for j in joins:
            ends = {j.left.alias.lower(), j.right.alias.lower()}
            if ends & linked and not ends <= linked:
                linked |= ends
                todo = True
    if linked != {s.alias.lower() for s in sources}:
        return None
    return replace(plan, sources=sources, joins=tuple(joins),
                   **{f: swap(getattr(plan, f)) for f in ("select", "where", "group_by", "having", "order_by")})


def _ranked_average(q: Question, plan: Plan) -> Agg | None:
    """The AVG(...) a plan ranks its groups by when the question asks for no average (none of AVERAGED) and the
    plan returns none (AVG only in ORDER BY): "which X has the most reliable Y" asks for the X of the top Y,
    not for the X whose Ys are best on average."""
    if not isinstance(plan, Query) or not plan.group_by or plan.limit is None or len(plan.order_by) != 1:
        return None
    agg = plan.order_by[0].expr
    if (not isinstance(agg, Agg) or agg.func != "avg" or agg.arg is None or AVERAGED & set(q.words)
            or _aggs((plan.select, plan.having))):
        return None
    return agg


def average_rank_problem(q: Question, plan: Plan) -> str:
    """A superlative answered by ranking groups by an average the question does not ask for (`_ranked_average`)."""
    agg = _ranked_average(q, plan)
    if agg is None:
        return ""
    return ("the query ranks groups by an average (AVG in ORDER BY), but the question asks for no average: rank "
            "the rows by the value itself (ORDER BY the column, without GROUP BY), or say MAX / MIN.")


def ranked_by_values(q: Question, plan: Plan) -> Plan | None:
    """The plan ranked by the values themselves (the bounded repair of average_rank_problem): with LIMIT 1, the
    rows ordered by the averaged column, without GROUP BY (the X of the top Y); with a larger limit, each group
    ranked by its top value (MAX, or MIN ranking upward), so that a group comes once."""
    agg = _ranked_average(q, plan)
    if agg is None:
        return None
    desc = plan.order_by[0].desc
    if plan.limit == 1:
        return replace(plan, group_by=(), order_by=(Order(agg.arg, desc),), distinct=False)
    return replace(plan, order_by=(Order(Agg("max" if desc else "min", agg.arg), desc),))

def ranking_problem(q: Question, plan: Plan) -> str:
    """A superlative question ("the most X") whose plan picks no top or bottom anywhere answers another question."""
    if _ranks(plan):
        return ""
    return ("the question asks for a top or bottom (a superlative), but the query ranks nothing: order by the asked "
            "value and LIMIT, or compare with MAX / MIN.")


def direction_problem(q: Question, plan: Plan) -> str:
    want, got = superlative_direction(q), plan_direction(plan)
    if not want or not got or want == got or q.kind == "yesno":
        return ""
    words = "most / highest / largest" if want == "up" else "least / lowest / smallest"
    order = "ORDER BY ... DESC or MAX" if want == "up" else "ORDER BY ... ASC or MIN"
    return f"the question asks for the {words}, but the query picks the other end: use {order}."


def flip_direction(plan: Plan) -> Plan | None:
    """The plan with its superlative turned around (ORDER BY direction, MAX <-> MIN), None when it has none."""
    if not isinstance(plan, Query):
        return None
    if plan.order_by and plan.limit is not None:
        first = replace(plan.order_by[0], desc=not plan.order_by[0].desc)
        return replace(plan, order_by=(first,) + plan.order_by[1:])

    def swap(e: Any) -> Any:
        from dataclasses import fields, is_dataclass

        if isinstance(e, Agg) and e.func in ("max", "min"):
            return replace(e, func="min" if e.func == "max" else "max")
        if isinstance(e, Scalar):
            flipped = flip_direction(e.query)
            return replace(e, query=flipped) if flipped is not None else e
        if is_dataclass(e) and not isinstance(e, type) and not isinstance(e, (Query, SetQuery)):
            return replace(e, **{f.name: swap(getattr(e, f.name)) for f in fields(e)})
        if isinstance(e, tuple):
            return tuple(swap(x) for x in e)
        return e

    flipped = replace(plan, select=swap(plan.select), where=swap(plan.where))
    return flipped if flipped != plan else None


def _literals(e: Any, out: list[str]) -> list[str]:
    from dataclasses import fields, is_dataclass

    if isinstance(e, Lit) and isinstance(e.value, str):
        out.append(fold(e.value))
    elif isinstance(e, Like):
        out.append(fold(e.pattern.replace("%", " ").replace("_", " ")))
    if is_dataclass(e) and not isinstance(e, type):
        for f in fields(e):
            _literals(getattr(e, f.name), out)
    elif isinstance(e, tuple):
        for x in e:
            _literals(x, out)
    return out


def sides_problem(q: Question, plan: Plan, mentions: list) -> str:
    """A comparison of two named things must look at both."""
    sides = named_sides(q, mentions)
    if not sides:
        return ""
    lits = _literals(plan, [])
    missing = [s for s in sides if not any(fold(s) == x or fold(s) in x.split("  ") or fold(s) in x for x in lits)]
    if not missing:
        return ""
    return (f"the question compares {' and '.join(repr(s) for s in sides)}, but the query does not look at "
            f"{' and '.join(repr(s) for s in missing)}: the query must find both sides.")


def _used(value: str, lits: list[str]) -> bool:
    v = fold(value)
    return any(v == x or v in x or (len(x) >= 3 and x in v) for x in lits if x)


def unused_names(q: Question, plan: Plan, mentions: list, schema: Schema, aliases: Any = None) -> list[str]:
    """Values the question names whole (its exact mentions) that no condition of the plan uses; a value that names
    a table ("frames" of a table of frames) is the table, not a condition. `aliases(mention)`: the other texts of
    the named things (a label in another language names the same thing)."""
    lits = _literals(plan, [])
    numbers = {_number_text(n.value) for n in nodes_in(plan)
               if isinstance(n, Lit) and isinstance(n.value, (int, float))
               and not isinstance(n.value, bool)}
    tables = {term for t in schema.tables.values() for term in _table_terms(t)}
    groups: dict[str, list[Any]] = {}
    for m in mentions:
        if not getattr(m, "exact", False):
            continue
        text = fold(m.text)
        if " ".join(singular(w) for w in text.split()) in tables:
            continue
        table = schema.table(m.table)
        col = table.column(m.column) if table else None
        if col is not None and col.distinct <= 1:
            continue  # a value every row holds (a unit, a currency) selects nothing
        groups.setdefault(text, []).append(m)
    missing = []
    read = {w for c in columns_in(plan, deep=True) for w in _column_words(schema, c)}
    for text, group in groups.items():
        if any(_used(m.value, lits) for m in group):
            continue
        if _column_named(text, q.words, read):
            continue
        if aliases is not None and any(_alias_used(a, m, lits, numbers) for m in group for a in aliases(m)):
            continue
        missing.append(group[0].value)
    return missing


def _column_named(text: str, words: list[str], read: set[str]) -> bool:
    """The question's words that name a value are the name of a column the plan reads: each word of the value
    (function words aside) is a word of that column's name or label, and the question says it only once ("how
    long has the pump been in operation", read as a column of years in operation, names no status "in operation";
    "items in stock with a stock level of 5" says "stock" twice, so it names the value too)."""
    said = [singular(w) for w in words]
    keys = [singular(w) for w in re.findall(r"[^\W\d_]+", text) if w not in STOP and len(w) > 2]
    return bool(keys) and all(k in read and said.count(k) == 1 for k in keys)


def _number_text(v: Any) -> str:
    return str(int(v)) if float(v).is_integer() else str(v)


def _alias_used(alias: str, m: Any, texts: list[str], numbers: set[str]) -> bool:
    """Does the plan compare another text of the named thing: a label in another language, or a number the
    question writes in the name ("loan 7" found by its number 7)?"""
    a = fold(alias)
    if not re.search(r"[^\W\d_]", a):  # a number: only the one the question writes in the name
        return (a in numbers or a in texts) and a in fold(m.text).split()
    return a in texts


def named_values_problem(q: Question, plan: Plan, mentions: list, schema: Schema, aliases: Any = None) -> str:
    """A value the question names must select something in the query: an answer that leaves it out answers
    another question (in "does A come in B", a query about A alone says yes whatever B is)."""
    missing = unused_names(q, plan, mentions, schema, aliases=aliases)
    if not missing:
        return ""
    return (f"the question names {' and '.join(repr(s) for s in missing)}, but the query does not use "
            f"{'it' if len(missing) == 1 else 'them'}: add the condition on the column that holds "
            f"{'it' if len(missing) == 1 else 'them'}.")


def _compared_literals(plan: Plan) -> list[tuple[Col, Lit]]:
    """Each column compared with a constant anywhere in the plan (=, !=, <, >, IN (...), BETWEEN, LIKE; in
    subqueries too), with that constant; a comparison of an aggregate (HAVING COUNT(*) > 1) is no condition on a
    value and is left out."""
    from .sqlplan.plan import Between

    out: list[tuple[Col, Lit]] = []
    for n in nodes_in(plan):
        if isinstance(n, Cmp):
            for a, b in ((n.left, n.right), (n.right, n.left)):
                if isinstance(a, Col) and isinstance(b, Lit):
                    out.append((a, b))
        elif isinstance(n, InList) and isinstance(n.expr, Col):
            out += [(n.expr, v) for v in n.values]
        elif isinstance(n, Between) and isinstance(n.expr, Col):
            out += [(n.expr, v) for v in (n.low, n.high) if isinstance(v, Lit)]
        elif isinstance(n, Like) and isinstance(n.expr, Col):
            out.append((n.expr, Lit(" ".join(p for p in re.split(r"[%_]+", n.pattern) if p.strip()))))
    return out


def _word_asked(word: str, asked: set[str]) -> bool:
    """Is the word (singular) one of the question's, or a spelling of one (4 letters or more, nearly the same)?"""
    from difflib import SequenceMatcher

    return word in asked or (len(word) >= 4 and any(
        len(a) >= 4 and SequenceMatcher(None, word, a).ratio() >= 0.8 for a in asked)) or any(
        len(a) >= 5 and len(a) >= 0.6 * len(word) and a in word for a in asked)  # made from it: "loaded", 'overloaded'


def _squeezed(text: str) -> str:
    return re.sub(r"[\W_]+", "", text)


_DATE = re.compile(r"\d{4}-\d{2}(?:-\d{2})?")
NAMED_SIMILARITY = 0.6  # from this similarity (all-MiniLM-L6-v2), a question's word means a value (a place's adjective: 'Norwegian')


def unasked_values(q: Question, plan: Plan, schema: Schema, mentions: list, embedder: Any = None) -> list[str]:
    """The constants a plan compares a column with that the question never writes: neither the value (or one of
    its words, or a spelling of one) nor a value the question names (its mentions). A constant the question does
    not write selects rows by a condition nobody asked for. Not judged: 0, codes of one or two characters (the
    question spells them out), columns that hold at most two values (a yes/no flag the question names by a word),
    numbers inside a text or a date the question writes, numbers when the question writes one in words, a
    percentage's share, dates when the question names a period, and texts a word of the question means (by the
    sentence-embedding model: without it, a text is not judged)."""
    text = fold(q.text)
    asked = {singular(w) for w in q.words}
    named = {fold(m.value) for m in mentions}
    numbers = {_number_text(n) for n in q.numbers}
    content = list(dict.fromkeys(w for w in q.words if w not in STOP and not w.isdigit()))
    spelled = bool(set(q.words) & NUMBER_WORDS)  # a number written in words: numbers are not judged
    timed = bool(set(q.words) & TIME_WORDS)
    out: list[str] = []
    for col, lit in _compared_literals(plan):
        v = lit.value
        if v is None or isinstance(v, bool):
            continue
        table = schema.table(col.table)
        c = table.column(col.column) if table else None
        if c is None or (c.kind == "value" and 0 < c.distinct <= 2):
            continue
        if isinstance(v, (int, float)):
            if v == 0 or spelled or {_number_text(v), _number_text(v * 100), _number_text(v / 100)} & numbers:
                continue  # (a share the question writes as a percentage: 0.5 for 50%)
            out.append(_number_text(v))
            continue
        f = fold(str(v)).strip()
        if timed and _DATE.match(f):
            continue  # a date counted from the question's period ("in the last 30 days")
        if len(f) <= 2 or f in text or f in named or _squeezed(f) in _squeezed(text):
            continue  # (written without its spaces: "North Field" for a value "NorthField")
        words = [singular(w) for w in re.findall(r"[^\W_]+", f) if w not in STOP]
        if not words or any(_word_asked(w, asked) or w in numbers for w in words):
            continue
        if embedder is None or any(embedder.similarity(str(v), w) >= NAMED_SIMILARITY for w in content):
            continue  # a word of the question that means the value ("a Danish supplier": 'Denmark')
        out.append(str(v))
    return list(dict.fromkeys(out))


def unasked_problem(q: Question, plan: Plan, schema: Schema, mentions: list, embedder: Any = None,
                    aliases: Any = None) -> str:
    """A condition on a value the question does not name answers a narrower question than the one asked. In an
    ontology labelled in another language than English the plan's constants are labels in that language while the
    question is read in English: a constant is named when it is another label of a thing the question names
    (`aliases`: linking.ValueIndex.aliases; without it such an ontology is not judged)."""
    from ontocore.language import DEFAULT

    if schema.languages.main != DEFAULT:
        if aliases is None:
            return ""
        mentions = mentions + [replace(m, value=a) for m in mentions if getattr(m, "exact", False)
                               for a in sorted(aliases(m))]
    extra = unasked_values(q, plan, schema, mentions, embedder)
    if not extra:
        return ""
    return (f"the query keeps only rows with {' and '.join(repr(v) for v in extra)}, which the question does not "
            "ask for: drop that condition, or compare with the value the question names.")


def _either(e: Any) -> list[tuple[Col, set[str]]]:
    """The columns a condition lets hold any of several texts (IN (...), or = ... OR = ... on one column)."""
    if isinstance(e, InList) and not e.negated and isinstance(e.expr, Col):
        return [(e.expr, {fold(str(v.value)) for v in e.values})]
    if isinstance(e, Or):
        cols: dict[Col, set[str]] = {}
        for item in e.items:
            if isinstance(item, Cmp) and item.op == "=" and isinstance(item.left, Col) and isinstance(item.right, Lit):
                cols.setdefault(item.left, set()).add(fold(str(item.right.value)))
        return list(cols.items())
    return []


def _several_per_thing(query: Query, col: Col, schema: Schema) -> bool:
    """Can one of the things the query answers about hold several values of `col`: the column holds several values
    per row, or the query answers about other rows than the column's (another source, or the thing a column of
    that row refers to: the workshops of rows of a table of (workshop, tool) pairs)? A thing with one value
    ("the tanks in hall A and hall B") has either, never both."""
    table = schema.table(col.table)
    c = table.column(col.column) if table else None
    if c is None:
        return False
    if c.count > c.subjects:
        return True
    for it in query.select:
        for used in columns_in(it.expr):
            if used.alias.lower() != col.alias.lower():
                return True
            u = table.column(used.column)
            if u is not None and ((u.kind == "link" and u.target) or u.key_of):
                return True
    return False


def both_problem(q: Question, plan: Plan, mentions: list, schema: Schema) -> str:
    """A question about things with both of two values ("that use A and B") answered by rows with either (IN, OR)
    counts or lists the things that have one of them. A plan that intersects (INTERSECT, two joined rows) or counts
    the matches per thing (HAVING) is not judged."""
    pairs = both_named(q, mentions)
    if not pairs or any(isinstance(n, SetQuery) and n.op == "intersect" for n in nodes_in(plan)):
        return ""
    if any(isinstance(n, Query) and n.having is not None for n in nodes_in(plan)):
        return ""
    for query in (n for n in nodes_in(plan) if isinstance(n, Query)):
        for col, values in (x for c in _top_conditions(query.where) for x in _either(c)):
            for a, b in pairs:
                if fold(a) in values and fold(b) in values and _several_per_thing(query, col, schema):
                    return (f"the question asks for things with both {a!r} and {b!r}, but the query keeps the rows "
                            f"with either ({col.alias}.{col.column} IN / OR): keep the things that have {a!r} and "
                            f"also have {b!r} (INTERSECT, or IN (SELECT ...) for each).")
    return ""


def names_problem(q: Question, plan: Plan, aggregate_only: bool) -> str:
    """A question that asks for names ("what are the names of ...", also "... and how many ...") answered by one
    aggregate value and nothing else (a count, a sum, a maximum) answers another question."""
    if not q.asks_names or not aggregate_only or not isinstance(plan, Query) or q.kind == "yesno":
        return ""
    if q.kind == "count":  # "what are the names of ..., and how many ...": names asked before the count
        words = q.words
        first = next((i for i, w in enumerate(words) if singular(w) == "name"), len(words))
        if not any(w == "how" or w == "number" for w in words[first:]) or first > 5:
            return ""
    return ("the question asks for names, but the query returns only an aggregate (one number): select the names "
            "(with GROUP BY for a value per thing, or ORDER BY ... LIMIT for the top one).")


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


def one_top_problem(q: Question, plan: Plan, rows: list[list[Cell]]) -> str:
    """"What is the largest X, and which Y has it?" (a superlative, and no word of groups: each, every, per, by)
    answered by MAX or MIN per group with no LIMIT gives the top of every group, several rows where one is asked."""
    if (not isinstance(plan, Query) or not plan.group_by or plan.limit is not None or len(rows) < 2
            or {"each", "every", "per", "by", "different", "all"} & set(q.words) or asks_per_group(q)):
        return ""
    if not any(a.func in ("max", "min") for it in plan.select for a in _aggs(it.expr)):
        return ""
    return ("the question asks for one top value, but the query gives the top of each group (GROUP BY with MAX / "
            "MIN): rank all rows (ORDER BY the value ... LIMIT 1), or compare with the overall MAX / MIN.")


def _numbers_in(plan: Plan) -> set[float]:
    """Every number the plan holds: literals (numbers, and texts that read as numbers), LIMIT and OFFSET."""
    out: set[float] = set()
    for n in nodes_in(plan):
        if isinstance(n, Lit) and not isinstance(n.value, bool) and n.value is not None:
            try:
                out.add(float(n.value))
            except (TypeError, ValueError):
                out.update(float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", str(n.value)))
        elif isinstance(n, Like):
            out.update(float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", n.pattern))
        if isinstance(n, (Query, SetQuery)):
            out.update(float(x) for x in (n.limit, n.offset) if x is not None)
    return out


# a code said in the question: a word that starts with a letter and holds a digit ("X200", "B-42", "M5-220"; not
# "6th", "1990s")
_CODE = re.compile(r"(?<![\w-])[^\W\d_][\w-]*\d[\w-]*(?<![-_])(?![\w-])")
# a number said on its own: not a part of a code or a name ("M5-220", "stage2"), nor a word's suffix
_LONE_NUMBER = re.compile(r"(?<![\w.,/-])(\d+(?:\.\d+)?)(?![\w/-]|[.,]\d)")


def number_problem(q: Question, plan: Plan, schema: Schema) -> str:
    """A number the question says on its own ("more than 6 orders", "booked 2 rooms", "the 4 heaviest"),
    or a code of letters and digits ("the X200 pump", "order B-42"), that the plan never uses answers a question
    without that condition (a code: no text the plan compares holds it). Not: 1 (a/one), a number that names a
    column with the word before it ("stage 2": stage_2); a percentage may be used as a share ("40%": 0.4)."""
    held = _numbers_in(plan)
    columns = {_squeezed(c).lower() for t in schema.tables.values() for c in t.columns}
    missing = []
    for m in _LONE_NUMBER.finditer(q.text):
        n = float(m.group(1))
        before = re.findall(r"[A-Za-z]+", q.text[:m.start()])
        percent = re.match(r"\s*(?:%|per ?cent)", q.text[m.end():], re.I) is not None
        if n in held or n == 1 or (percent and n / 100 in held) or (
                before and _squeezed(before[-1] + m.group(1)).lower() in columns):
            continue
        missing.append(m.group(1))
    texts = " ".join(_literals(plan, []))
    missing += [c for c in _CODE.findall(q.text) if fold(c) not in texts]
    if not missing:
        return ""
    return (f"the question says {', '.join(missing)}, but the query never uses it: put it in the condition, HAVING "
            "or LIMIT it belongs to.")


def unread_columns(q: Question, plan: Plan, schema: Schema) -> list[str]:
    """Value columns the question names by two or three of its words in a row ("unit price", "floor area":
    unitprice, floor_area) of the tables the plan reads, which the plan never reads: the question asks for or
    about that value, and the plan answers with another. (Not links: a relation is read from either side.)"""
    if not isinstance(plan, (Query, SetQuery)):
        return []
    cols = columns_in(plan, deep=True)
    tables = {c.table.lower() for c in cols} | {s.table.lower() for n in nodes_in(plan) if isinstance(n, Query)
                                                 for s in n.sources}
    read = {(c.table.lower(), c.column.lower()) for c in cols}
    words = re.findall(r"[^\W_]+", q.text.lower())
    said = {"".join(words[i:i + n]) for n in (2, 3) for i in range(len(words) - n + 1)}
    out = []
    for t in schema.tables.values():
        if t.name.lower() not in tables:
            continue
        for c in t.columns.values():
            key = _squeezed(c.name).lower()
            if c.kind in ("id", "link") or key not in said or (t.name.lower(), c.name.lower()) in read:
                continue
            if any(key == _squeezed(x.column).lower() for x in cols):
                continue  # the same column read from another table
            out.append(f"{t.name}.{c.name}")
    return out


def unread_problem(q: Question, plan: Plan, schema: Schema) -> str:
    missing = unread_columns(q, plan, schema)
    return (f"the question names {', '.join(missing)}, but the query never reads it: select it, or use it in the "
            "condition it belongs to.") if missing else ""


def _ranked(plan: Query) -> list[Any]:
    """What the plan picks the top or bottom of: ORDER BY ... LIMIT's first key, and MAX / MIN's arguments."""
    out = [plan.order_by[0].expr] if plan.order_by and plan.limit is not None else []
    return out + [a.arg for it in plan.select for a in _aggs(it.expr) if a.func in ("max", "min")]


def time_rank_problem(q: Question, plan: Plan, schema: Schema) -> str:
    """"The most recent / latest / earliest / newest X" ranks X by a date or a time: a plan that ranks by a number
    or a text of a table that has a date or time column answers another superlative ("the costliest")."""
    if not isinstance(plan, Query) or not set(q.words) & TIME_SUPERLATIVE:
        return ""
    for e in _ranked(plan):
        if not isinstance(e, Col):
            continue
        table = schema.table(e.table)
        col = table.column(e.column) if table else None
        if col is None or col.kind != "value" or col.sql_type in ("DATE", "TIMESTAMP", "TIME") or ranks_itself(
                q, col.name, table.name):
            continue
        times = [c.name for c in table.columns.values() if c.kind == "value"
                 and c.sql_type in ("DATE", "TIMESTAMP", "TIME")]
        if times:
            return (f"the question asks for the most recent / earliest, but the query ranks by {e.column}, which is "
                    f"no date: rank by {' or '.join(times[:2])} (ORDER BY ... LIMIT 1) and select {e.column}.")
    return ""


def second_ask_problem(q: Question, plan: Plan, schema: Schema) -> str:
    """A question that asks a second thing ("the highest X, and what Y is it?", "... as well as ...", "... along
    with ...") answered by one column answers only the first; one that asks how many and then a second amount
    ("how many rooms does each floor have, and what is their total area?") answered with one number answers one
    of them."""
    if q.kind == "yesno" or not isinstance(plan, Query):
        return ""
    text = fold(q.text)
    m = SECOND_ASK.search(text)
    if not m:
        return ""
    if len(plan.select) == 1:
        return (f"the question asks a second thing ('{m.group(0)} ...'), but the query returns one column: select "
                "a column for each thing asked.")
    after = set(re.findall(r"[^\W_]+", text[m.end():]))
    if "how many" not in text[:m.start()] or not (
            m.group(0).endswith("how many") or after & (AMOUNT | {"average", "mean"}) - {"many", "much"}):
        return ""
    numbers = [it for it in plan.select if it.expr not in plan.group_by and _numeric(schema, it.expr)]
    if len(numbers) >= 2:
        return ""
    return (f"the question asks how many and a second amount ('{m.group(0)} ...'), but the query returns one "
            "number: select both (a COUNT and the other amount).")


def _rounds(e: Any) -> bool:
    return any(isinstance(n, Func) and n.name == "round" for n in nodes_in(e))


def rounding_problem(q: Question, plan: Plan, schema: Schema) -> str:
    """A question that asks for rounded numbers ("the average price, rounded to cents") answered with numbers that
    no ROUND touched."""
    if not isinstance(plan, Query) or not ROUND.search(fold(q.text)):
        return ""
    numbers = [it.expr for it in plan.select if _numeric(schema, it.expr) or isinstance(it.expr, Arith)]
    if not numbers or any(_rounds(e) for e in numbers):
        return ""
    return ("the question asks for rounded numbers, but the query returns them unrounded: wrap the number in "
            "ROUND(x, n) with the decimal places the question asks for (2 when it does not say).")


def _numeric_text(col: Any) -> bool:
    """Are a text column's values numbers, dates or times written as text (their order is an amount's)?"""
    def number(v: str) -> bool:
        try:
            float(v)
            return True
        except ValueError:
            return False
    samples = [str(v).strip() for v in getattr(col, "samples", []) or []]
    return bool(samples) and all(number(v) or v[:1].isdigit() for v in samples)  # numbers, dates, times


def text_rank_problem(q: Question, plan: Plan, schema: Schema) -> str:
    """A superlative ("the rarest", "the most", "the cheapest") answered by the top row of an alphabetical order
    (ORDER BY a text column ... LIMIT) ranks by spelling, not by an amount, unless the question asks for an order
    of names."""
    if not isinstance(plan, Query) or not plan.order_by or plan.limit is None or ORDER_WORDS.search(fold(q.text)):
        return ""
    if not any(w in UP or w in DOWN or (len(w) > 5 and w.endswith("est")) for w in q.words):
        return ""  # no superlative ("the first three names"): an order of names may be meant
    e = plan.order_by[0].expr
    table = schema.table(e.table) if isinstance(e, Col) else None
    col = table.column(e.column) if table else None
    if col is None or col.kind != "value" or col.sql_type != "TEXT" or _numeric_text(col):
        return ""
    return (f"the query picks the top row by {e.column}, a text (in alphabetical order), but the question ranks "
            "by an amount: order by the number or the count the question ranks by.")


_FLAG_VERBS = ("is", "has", "have", "was", "are", "can")  # "is_automated", "hasGarden": a yes/no column's verb


_YES_NO = frozenset("t f y n yes no true false 0 1".split())  # how yes/no columns write their two values


def _yes_no(col: Any) -> bool:
    """Is the column a yes/no flag: a boolean, or two values written as yes / no, T / F, 1 / 0?"""
    if col.is_label or col.key_of or col.distinct != 2:
        return False
    samples = {fold(str(v)).strip() for v in col.samples or []}
    return col.sql_type == "BOOLEAN" or (len(samples) == 2 and samples <= _YES_NO)


def _flag_named(col: Any, asked: set[str]) -> str:
    """The question's word that names a yes/no column ("automated" for is_automated, "heated" for heated),
    or ''."""
    from ontocore.embeddings import split_name

    for name in (col.name, getattr(col, "label", "") or ""):
        letters = re.sub(r"[\W\d_]+", "", fold(name))
        words = [w for w in split_name(name).split() if w not in _FLAG_VERBS]
        for w in asked:
            if len(w) < 4:
                continue
            if "".join(words) == w or letters == w or any(letters == v + w for v in _FLAG_VERBS):
                return w
    return ""


def unused_flags(q: Question, plan: Plan, schema: Schema) -> list[tuple[str, str]]:
    """(word, table.column) for each yes/no column (two values) of a table the plan reads that the question names
    by a word ("automated stations": is_automated) and that no part of the plan uses."""
    asked = {singular(w) for w in q.words if w not in STOP} | {w for w in q.words if w not in STOP}
    used = {(c.table.lower(), c.column.lower()) for c in columns_in(plan, deep=True)}
    out = []
    for table_name in dict.fromkeys(n.table.lower() for n in nodes_in(plan) if isinstance(n, Source)):
        table = schema.table(table_name)
        for col in table.columns.values() if table else ():
            if col.kind != "value" or not _yes_no(col) or (table.name.lower(), col.name.lower()) in used:
                continue
            word = _flag_named(col, asked)
            if word:
                out.append((word, f"{table.name}.{col.name}"))
    return out


def flag_problem(q: Question, plan: Plan, schema: Schema) -> str:
    """A question that names a yes/no column by its word ("the heated rooms", "the automated stations")
    restricts to the rows where it holds: a plan that never reads the column answers without the restriction."""
    found = unused_flags(q, plan, schema)
    if not found:
        return ""
    word, where = found[0]
    return (f"the question says '{word}', which is the yes/no column {where}, but the query does not use it: add "
            f"the condition on {where.split('.', 1)[1]}.")


def _column_words(schema: Schema, col: Col) -> set[str]:
    from ontocore.embeddings import split_name

    t = schema.table(col.table)
    c = t.columns.get(col.column.lower()) if t is not None else None
    names = [col.column] + ([x for x in (c.label, c.english) if x] if c is not None else [])
    return {singular(w) for n in names for w in re.findall(r"[^\W\d_]+", fold(split_name(n))) if w not in STOP}


def _named_in(words: set[str], question: set[str]) -> bool:
    """Does the question name one of the words (the same word, or one starting the other, 4 letters or more)?"""
    return any(w == q or (min(len(w), len(q)) >= 4 and (w.startswith(q) or q.startswith(w)))
               for w in words for q in question)


SUMMED_SIMILARITY = 0.2  # below this sentence similarity, a question is not about the column (all-MiniLM-L6-v2)


def summed_problem(q: Question, plan: Plan, schema: Schema, embedder: Any = None, names: Any = None) -> str:
    """A SUM or AVG adds up a column's values: the question must be about that column (a question about "the most
    visitors" counts them; it does not add up another column that happens to hold numbers). Judged by the
    question's words, then by meaning (the sentence-embedding model): without the model the check passes.
    `names(table, column)`: the column's labels (in every language)."""
    if embedder is None:
        return ""
    asked = {singular(w) for w in q.words if w not in STOP}
    for n in nodes_in(plan):
        if isinstance(n, Agg) and n.func in ("sum", "avg") and isinstance(n.arg, Col):
            words = _column_words(schema, n.arg)
            texts = sorted(names(n.arg.table, n.arg.column)) if names is not None else []
            words |= {singular(w) for t in texts for w in re.findall(r"[^\W\d_]+", fold(t)) if w not in STOP}
            if not words or _named_in(words, asked):
                continue
            if max(embedder.similarity(q.text, t) for t in [" ".join(sorted(words))] + texts) < SUMMED_SIMILARITY:
                return (f"the query adds up {n.arg.column} ({n.func.upper()}), which the question does not ask "
                        f"about: count the rows (COUNT) or use the column the question names.")
    return ""


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


def condition_owner_problem(q: Question, plan: Plan, schema: Schema) -> str:
    """In "which X ..." a condition on a column that X has, read from another joined table the question does not
    name ("which rangers live in Y" filtered on their huts' town, though rangers have a town), is about the other
    table's things: the question's condition is on X's own column."""
    from ontocore.embeddings import split_name

    if not q.head or not isinstance(plan, Query) or plan.where is None:
        return ""
    asked = tables_named(schema, [q.head])
    if len(asked) != 1:
        return ""
    target = asked[0]
    if not any(s.table.lower() == target.name.lower() for s in plan.sources):
        return ""
    words = {singular(w) for w in q.words}
    for col, texts in _compared_texts(plan.where):
        table = schema.table(col.table)
        if table is None or _related(table, target) or col.column.lower() == "iri":
            continue
        own, other = target.column(col.column), table.column(col.column)
        if own is None or other is None or other.is_label or own.is_label:
            continue  # the asked things have no such column, or it names things (a thing named is the other's)
        if {singular(w) for w in split_name(table.name).split()} & words:
            continue  # the question names the other table: its column is meant
        held = [fold(v) for v in schema.values.get(own.prop, {})]
        if not any(t and any(t in v for v in held) for t in texts):
            continue  # the compared text is no value of the asked things' column
        return (f"the question asks which {target.name}, and {target.name} has a column {col.column}, but the "
                f"condition reads {col.column} of {table.name}: use {target.name}.{col.column}.")
    return ""


def _has_agg(e: Any, func: str) -> bool:
    from dataclasses import fields, is_dataclass

    if isinstance(e, Agg) and e.func == func:
        return True
    if is_dataclass(e) and not isinstance(e, type):
        return any(_has_agg(getattr(e, f.name), func) for f in fields(e))
    if isinstance(e, tuple):
        return any(_has_agg(x, func) for x in e)
    return False


def average_problem(q: Question, plan: Plan, rows: list[list[Cell]]) -> str:
    """A question that asks for an average ("the average weight") answered with several rows and no AVG."""
    if "average" not in q.words or q.grouped or len(rows) <= 1 or _has_agg(plan, "avg"):
        return ""
    return "the question asks for an average, but the query returns several rows without AVG(...): use AVG(...)."


def blank_problem(rows: list[list[Cell]]) -> str:
    """Values that are empty or blank are never stated."""
    if rows and all(not c.value.strip() for r in rows for c in r):
        return "the query returns only empty values: select the column that holds what the question asks for."
    return ""


def verify(q: Question, plan: Plan, rows: list[list[Cell]], schema: Schema, mentions: list,
           aggregate_only: bool, index: Any = None) -> list[Check]:
    """Every check that applies to this question, plan and result, in order (the first failure is the reason).
    `index`: the linking.ValueIndex of the data, for the other names of a named thing and of a column and for the
    sentence-embedding model (without it, the checks that need them pass)."""
    embedder = getattr(index, "embedder", None)
    aliases = index.aliases if index is not None else None
    names = index.column_texts if index is not None else None
    out = [_check("shape", shape_problem(q, rows, aggregate_only)),
           _check("values_present", blank_problem(rows) if not aggregate_only else "")]
    if q.kind != "yesno":
        out.append(_check("not_an_echo", echo_problem(plan, schema)))
        out.append(_check("not_the_value_itself", value_echo_problem(plan, schema)))
        out.append(_check("not_the_question_restated", restated_problem(q, plan, rows)))
    out.append(_check("asked_table", type_problem(plan, schema, q) or exists_problem(plan, schema, q)))
    if any(len(t.classes) > 1 for t in schema.tables.values()):  # (an ontology with subclasses)
        out.append(_check("asked_class_read", class_read_problem(
            q, plan, schema, index.table_texts if index is not None else None)))
    if "average" in q.words:
        out.append(_check("average_asked", average_problem(q, plan, rows)))
    if q.kind == "count":
        out.append(_check("counted_class", counted_class_problem(q, plan, schema)))
        out.append(_check("not_the_named_thing_counted", named_count_problem(q, plan, schema, rows)))
    if q.kind == "other" and WHICH & set(q.words[:3]):
        out.append(_check("things_not_counted", listed_count_problem(
            q, plan, schema, index.table_texts if index is not None else None)))
    if (UP | DOWN | ORDINAL) & set(q.words):  # (both ways too: "the lightest and the heaviest X")
        out.append(_check("superlative_thing_returned", superlative_thing_problem(
            q, plan, schema, index.table_texts if index is not None else None, mentions)))
    if superlative_direction(q) and plan_direction(plan):
        out.append(_check("superlative_direction", direction_problem(q, plan)))
        out.append(_check("ranked_as_asked", average_rank_problem(q, plan)))
    elif superlative_direction(q) and q.kind != "yesno":
        out.append(_check("superlative_ranked", ranking_problem(q, plan)))
    out.append(_check("joins_related", join_problem(plan, schema)))
    out.append(_check("joins_asked", detour_problem(q, plan, schema, index.table_texts if index is not None else None)))
    if q.head and q.kind == "other":
        out.append(_check("condition_on_asked", condition_owner_problem(q, plan, schema)))
    out.append(_check("summed_column_named", summed_problem(q, plan, schema, embedder, names)))
    if excludes(q, [m.text for m in mentions if getattr(m, "exact", False)]) and q.kind != "yesno":
        out.append(_check("exclusion_kept", negation_problem(q, plan, schema)))
    if named_sides(q, mentions):
        out.append(_check("comparison_sides", sides_problem(q, plan, mentions)))
    elif mentions:
        out.append(_check("named_values_used", named_values_problem(q, plan, mentions, schema, aliases)))
    if both_named(q, mentions):
        out.append(_check("both_values", both_problem(q, plan, mentions, schema)))
    if q.asks_names and q.kind != "yesno":
        out.append(_check("names_returned", names_problem(q, plan, aggregate_only)))
    if asks_per_group(q) and (aggregate_only or (isinstance(plan, Query) and plan.limit == 1)):
        out.append(_check("value_per_group", per_group_problem(q, plan, aggregate_only)))
    out.append(_check("named_columns_read", unread_problem(q, plan, schema)))
    if q.numbers or _CODE.search(q.text):
        out.append(_check("numbers_used", number_problem(q, plan, schema)))
    if superlative_direction(q) and q.kind not in ("yesno", "count"):
        out.append(_check("one_top_value", one_top_problem(q, plan, rows)))
    if set(q.words) & TIME_SUPERLATIVE:
        out.append(_check("time_ranked", time_rank_problem(q, plan, schema)))
    if ROUND.search(fold(q.text)):
        out.append(_check("rounded_as_asked", rounding_problem(q, plan, schema)))
    if SECOND_ASK.search(fold(q.text)):
        out.append(_check("second_ask_answered", second_ask_problem(q, plan, schema)))
    if isinstance(plan, Query) and plan.order_by and plan.limit is not None:
        out.append(_check("ranked_by_amount", text_rank_problem(q, plan, schema)))
    out.append(_check("flag_used", flag_problem(q, plan, schema)))
    out.append(_check("conditions_asked", unasked_problem(q, plan, schema, mentions, embedder, aliases)))
    return out


MAX_TIED = 50  # the most rows a probe reads: past a ranked query's limit, or of a name's matching values


def tie_probes(plan: Plan) -> list[tuple[Query, int, int, bool]]:
    """The queries of a plan that keep their first k rows by a ranking (ORDER BY ... LIMIT k: the plan itself, or
    a subquery that picks a thing by rank), each as a probe: the same query that also returns its ranking keys and
    reads up to MAX_TIED rows past k. Each is (probe, the query's own column count, k, whether it is the plan
    itself)."""
    out = []
    for n in nodes_in(plan):
        if isinstance(n, Query) and n.order_by and n.limit and not any(isinstance(o.expr, Lit) for o in n.order_by):
            keys = tuple(Item(o.expr, f"ranking_key_{i + 1}") for i, o in enumerate(n.order_by))
            out.append((replace(n, select=n.select + keys, limit=n.limit + MAX_TIED), len(n.select), n.limit,
                        n is plan))
    return out


def name_probes(q: Question, plan: Plan) -> list[tuple[Query, str]]:
    """The plan's LIKE '%N%' conditions whose N is a name the question says (capitalised or quoted: "Mr. Lind"),
    each as a probe of the distinct values of that column it matches (up to MAX_TIED): when a part of a name
    matches two people, the answer mixes theirs. (probe, N)."""
    said = {w for n in q.names + q.quoted for w in [fold(n)] + fold(n).split()}
    out = []
    for n in nodes_in(plan):
        if not isinstance(n, Query):
            continue
        for c in _top_conditions(n.where):
            if not isinstance(c, Like) or c.negated or not isinstance(c.expr, Col):
                continue
            text = c.pattern.strip("%")
            source = next((s for s in n.sources if s.alias.lower() == c.expr.alias.lower()), None)
            if source is None or not text or "%" in text or "_" in text or fold(text) not in said:
                continue
            out.append((Query(select=(Item(c.expr),), sources=(source,), where=c, distinct=True,
                              limit=MAX_TIED), text))
    return out


def tied_rows(rows: list[list[Cell]], width: int, k: int) -> int:
    """How many rows of a tie probe's result past the k-th share the k-th row's ranking keys (the columns past
    `width`) but not its values (the first `width`): 0 when the first k rows are the only top k."""
    if len(rows) <= k or k < 1:
        return 0
    def values(row: list[Cell]) -> tuple[str, ...]:
        return tuple(c.key("entity") for c in row[:width])
    def keys(row: list[Cell]) -> tuple[str, ...]:
        return tuple(c.value for c in row[width:])
    last, kept, tied = rows[k - 1], {values(r) for r in rows[:k]}, set()
    for row in rows[k:]:
        if keys(row) != keys(last):
            break
        tied.add(values(row))
    return len(tied - kept)


def first_problem(checks: list[Check]) -> str:
    return next((c.detail for c in checks if not c.passed), "")


__all__ = ["Check", "verify", "first_problem", "flip_direction", "listed_things", "widened_to_asked",
           "narrowed_to_named", "class_read_problem", "detour_problem", "without_detour", "average_rank_problem",
           "ranked_by_values",
           "things_with_value", "things_of_named", "asked_tables", "direction_problem", "counted_class_problem",
           "sides_problem", "superlative_direction", "counted_phrase", "columns_in", "is_aggregate", "unasked_values",
           "both_named", "asks_per_group", "ranks_itself", "TIME_SUPERLATIVE", "tie_probes", "tied_rows",
           "MAX_TIED", "name_probes"]
