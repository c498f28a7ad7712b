"""Checks that the plan uses what the question names, and only that: the two sides of a comparison, the values
the question names whole, the numbers and codes it says, the value columns it names in words; and no condition on
a value it never names."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from ontocore.text import STOP, fold, singular

from ..question import IN_TIME, NUMBER_WORDS, TIME_WORDS, Question, named_sides
from ..sqlplan.plan import (And, Between, Cmp, Col, InList, Item, Like, Lit, Plan, Query, SetQuery, Source,
                             columns_in, walk)
from ..sqlplan.schema import Schema
from .check import Check
from .plan_parts import literals_in
from .tables import abbreviation_of, column_words, table_terms


def sides_problem(q: Question, plan: Plan, mentions: list) -> str:
    """A comparison of two named things must look at both."""
    sides = named_sides(q, mentions)
    if not sides:
        return ""
    lits = literals_in(plan)
    missing = [s for s in sides if not any(fold(s) == x or fold(s) in x.split("  ") or fold(s) in x for x in lits)]
    if not missing:
        together = _sides_in_one_row(plan, sides)
        if together:
            a, b = together
            return (f"the query asks for one row joined to both {a!r} and {b!r}, but the question compares them: "
                    f"find each side on its own (a subquery for each, or GROUP BY over both) and compare the two.")
        if q.kind == "yesno" and ({"than"} | IN_TIME) & set(q.words) and not any(
                isinstance(n, Cmp) and n.op in ("<", ">", "<=", ">=") for n in walk(plan)):
            return (f"the question asks whether one of {sides[0]!r} and {sides[1]!r} has more or less than the "
                    f"other, but the query never compares the two: find each side's value and compare them with > "
                    f"or <.")
        return ""
    return (f"the question compares {' and '.join(repr(s) for s in sides)}, but the query does not look at "
            f"{' and '.join(repr(s) for s in missing)}: the query must find both sides.")


# the way a comparison of two named things goes: the first named has the larger value (">") or the smaller ("<")
LARGER = frozenset("more greater larger bigger higher heavier longer taller wider deeper faster costlier pricier "
                   "after later newer".split())
SMALLER = frozenset("less fewer smaller lower lighter shorter narrower shallower slower cheaper before earlier "
                    "sooner".split())
AGE = {"older": "<", "younger": ">"}  # of a date or a year: the older thing has the smaller value


def compared_column(plan: Plan, schema: Schema) -> Col | None:
    """The value the plan compares two named things by: the first number or date column it reads (selected,
    compared or ranked by), never a name or a link."""
    for c in columns_in(plan, deep=True):
        table = schema.table(c.table)
        if table is not None and _comparable(table.column(c.column)):
            return c
    return None


def _comparable(col: Any) -> bool:
    """A value column whose values have an order (a number, a date, a time), not a name or a link."""
    return col is not None and col.kind == "value" and not col.is_label and (
        col.numeric or col.sql_type in ("DATE", "DATETIME", "TIME"))


def compared_way(q: Question, schema: Schema, c: Col) -> str:
    """">" when the question asks whether the first named thing has the larger value of column `c`, "<" when the
    smaller; "" when its words do not say (or say both)."""
    col = schema.table(c.table).column(c.column)
    timely = col.sql_type in ("DATE", "DATETIME", "TIME") or "year" in col.name.lower()
    ways = set()
    for w in q.words:
        if w in AGE:
            ways.add(AGE[w] if timely else {"<": ">", ">": "<"}[AGE[w]])
        elif w in LARGER:
            ways.add(">")
        elif w in SMALLER:
            ways.add("<")
    return ways.pop() if len(ways) == 1 else ""


def in_question_order(q: Question, sides: list[str], mentions: list) -> list[str]:
    """The named things as the question names them, first to last (the mentions come longest first)."""
    text = fold(q.text)

    def at(side: str) -> int:
        places = [text.find(fold(m.text)) for m in mentions if m.value == side] + [text.find(fold(side))]
        return min((p for p in places if p >= 0), default=len(text))
    return sorted(sides, key=at)


def sides_source(schema: Schema, mentions: list, side: str, column: str) -> tuple[str, str] | None:
    """The table whose rows the question's named `side` is among and that holds `column`, with the column that
    names it: (table, name column); None when no such table."""
    for m in mentions:
        table = schema.table(m.table)
        if getattr(m, "exact", False) and m.value == side and table is not None and table.column(column):
            return table.name, m.column
    return None


def sides_apart(q: Question, plan: Plan, schema: Schema, mentions: list) -> Query | None:
    """"Does A weigh more than B?", "Was A founded before B?" read by code, once the plan says which value is
    compared (`compared_column`): see `sides_compared`."""
    c = compared_column(plan, schema)
    return sides_compared(q, schema, mentions, c.column) if c is not None else None


def sides_compared_in(q: Question, sql: str, schema: Schema, mentions: list) -> Query | None:
    """`sides_compared` by the first number or date column of the named things' tables that a query the view
    cannot read (a join on a column it lacks) names: what the model meant to compare, when it said so."""
    sides = named_sides(q, mentions)
    if q.kind != "yesno" or len(sides) != 2:
        return None
    tables = [schema.table(m.table) for m in mentions if getattr(m, "exact", False) and m.value in sides]
    for word in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", sql):
        for table in tables:
            col = table.column(word) if table is not None else None
            if _comparable(col):
                return sides_compared(q, schema, mentions, col.name)
    return None


def sides_compared(q: Question, schema: Schema, mentions: list, column: str) -> Query | None:
    """Each of the two named things found on its own (no join between the two), the first's value of `column`
    compared with the second's: SELECT A.v > B.v FROM T AS A, T AS B WHERE A.name = 'A' AND B.name = 'B'. None
    when the question is no yes/no comparison of two named things, a thing's table lacks the column, or the words
    give no direction."""
    sides = in_question_order(q, named_sides(q, mentions), mentions)
    if q.kind != "yesno" or len(sides) != 2:
        return None
    found = [sides_source(schema, mentions, s, column) for s in sides]
    if None in found:
        return None
    (ta, na), (tb, nb) = found
    a, b = Col("A", ta, column), Col("B", tb, column)
    way = compared_way(q, schema, a)
    if not way:
        return None
    return Query(select=(Item(Cmp(way, a, b)),), sources=(Source(ta, "A"), Source(tb, "B")),
                 where=And((Cmp("=", Col("A", ta, na), Lit(sides[0])), Cmp("=", Col("B", tb, nb), Lit(sides[1])))))


def _sides_in_one_row(plan: Plan, sides: list[str]) -> tuple[str, str] | None:
    """Two sides of a comparison that one query's conditions require of things joined to each other (`A.label =
    'X' AND B.label = 'Y'` with A and B linked by the query's joins, or one alias equal to both): the rows found are
    a path from one side to the other, never the two sides side by side. Two sides read from unjoined sources
    (a comparison of two rows) or in subqueries of their own are apart."""
    folded = {fold(s): s for s in sides}
    for node in walk(plan):
        if not isinstance(node, Query) or node.where is None:
            continue
        conds = node.where.items if isinstance(node.where, And) else (node.where,)
        named: dict[str, str] = {}  # side -> alias
        for c in conds:
            if isinstance(c, Cmp) and c.op == "=" and isinstance(c.left, Col) and isinstance(c.right, Lit) and \
                    isinstance(c.right.value, str) and fold(c.right.value) in folded:
                named.setdefault(fold(c.right.value), c.left.alias)
        if len(named) < 2:
            continue
        links: dict[str, set[str]] = {}
        pairs = [(j.left.alias, j.right.alias) for j in node.joins] + \
            [(c.left.alias, c.right.alias) for c in conds if isinstance(c, Cmp) and c.op == "=" and
             isinstance(c.left, Col) and isinstance(c.right, Col)]
        for x, y in pairs:
            links.setdefault(x, set()).add(y)
            links.setdefault(y, set()).add(x)
        (a, first), (b, second) = list(named.items())[:2]
        reached, todo = {first}, [first]
        while todo:
            for y in links.get(todo.pop(), ()):
                if y not in reached:
                    reached.add(y)
                    todo.append(y)
        if second in reached:
            return folded[a], folded[b]
    return None


def _used(value: str, lits: list[str]) -> bool:
    v = fold(value)
    return any(v == x or v in x or (len(x) >= 3 and x in v) for x in lits if x)


def unused_names(q: Question, plan: Plan, mentions: list, schema: Schema, aliases: Any = None) -> list[str]:
    """Values the question names whole (its exact mentions) that no condition of the plan uses; a value that names
    a table ("frames" of a table of frames) is the table, not a condition. `aliases(mention)`: the other texts of
    the named things (a label in another language names the same thing)."""
    lits = literals_in(plan)
    numbers = {number_text(n.value) for n in walk(plan)
               if isinstance(n, Lit) and isinstance(n.value, (int, float))
               and not isinstance(n.value, bool)}
    tables = {term for t in schema.tables.values() for term in table_terms(t)}
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
    read = {w for c in columns_in(plan, deep=True) for w in column_words(schema, c)}
    spelled = _abbreviated_words(q, plan)
    for text, group in groups.items():
        if any(_used(m.value, lits) for m in group):
            continue
        if _column_named(text, q.words, read) or set(text.split()) <= spelled:
            continue
        if aliases is not None and any(_alias_used(a, m, lits, numbers) for m in group for a in aliases(m)):
            continue
        missing.append(group[0].value)
    return missing


def _abbreviated_words(q: Question, plan: Plan) -> set[str]:
    """The question's words that spell, cut short, the name of a column the plan reads ("independence year" for
    indepyear): they name that column, not a value."""
    out: set[str] = set()
    for name in {c.column for c in columns_in(plan, deep=True)}:
        run = abbreviation_of(name, q.words)
        if run is not None:
            out |= {fold(w) for w in q.words[run[0]:run[1]]}
    return out


def _column_named(text: str, words: list[str], read: set[str]) -> bool:
    """The question's words that name a value are the name of a column the plan reads: each word of the value
    (function words aside) is a word of that column's name or label, and the question says it only once ("how
    long has the pump been in operation", read as a column of years in operation, names no status "in operation";
    "items in stock with a stock level of 5" says "stock" twice, so it names the value too)."""
    said = [singular(w) for w in words]
    keys = [singular(w) for w in re.findall(r"[^\W\d_]+", text) if w not in STOP and len(w) > 2]
    return bool(keys) and all(k in read and said.count(k) == 1 for k in keys)


def number_text(v: Any) -> str:
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


def named_value_added(q: Question, plan: Plan, mentions: list, schema: Schema, aliases: Any = None) -> Plan | None:
    """The bounded repair of named_values_problem: the one value the question names and the plan leaves out,
    compared on the one table of the plan whose rows the question's linking says hold it, when no condition of the
    plan fixes that column already; None otherwise."""
    if not isinstance(plan, Query) or plan.group_by or plan.having is not None:
        return None
    missing = unused_names(q, plan, mentions, schema, aliases=aliases)
    if len(missing) != 1:
        return None
    places = {(m.table.lower(), m.column) for m in mentions if getattr(m, "exact", False) and m.value == missing[0]}
    found = [(s, c) for s in plan.sources for t, c in places if s.table.lower() == t]
    if len(found) != 1:
        return None
    source, column = found[0]
    col = Col(source.alias, source.table, column)
    conds = list(plan.where.items) if isinstance(plan.where, And) else [plan.where] if plan.where is not None else []
    if any(isinstance(c, Cmp) and isinstance(c.left, Col) and c.left.alias.lower() == source.alias.lower()
           and c.left.column.lower() == column.lower() for c in conds):
        return None
    conds.append(Cmp("=", col, Lit(missing[0])))
    return replace(plan, where=conds[0] if len(conds) == 1 else And(tuple(conds)))


def _compared_literals(plan: Plan) -> list[tuple[Col, Lit]]:
    """Each column compared with a constant anywhere in the plan (=, !=, <, >, IN (...), BETWEEN, LIKE; in
    subqueries too), with that constant; a comparison of an aggregate (HAVING COUNT(*) > 1) is no condition on a
    value and is left out."""
    out: list[tuple[Col, Lit]] = []
    for n in walk(plan):
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


def word_asked(word: str, asked: set[str]) -> bool:
    """Is the word (singular) one of the question's, or a spelling of one (4 letters or more, nearly the same)?"""
    from difflib import SequenceMatcher

    return word in asked or (len(word) >= 4 and any(
        len(a) >= 4 and SequenceMatcher(None, word, a).ratio() >= 0.8 for a in asked)) or any(
        len(a) >= 5 and len(a) >= 0.6 * len(word) and a in word for a in asked)  # made from it: "loaded", 'overloaded'


def squeezed(text: str) -> str:
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
    numbers = {number_text(n) for n in q.numbers}
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
            if v == 0 or spelled or {number_text(v), number_text(v * 100), number_text(v / 100)} & numbers:
                continue  # (a share the question writes as a percentage: 0.5 for 50%)
            out.append(number_text(v))
            continue
        f = fold(str(v)).strip()
        if timed and _DATE.match(f):
            continue  # a date counted from the question's period ("in the last 30 days")
        if len(f) <= 2 or f in text or f in named or squeezed(f) in squeezed(text):
            continue  # (written without its spaces: "North Field" for a value "NorthField")
        words = [singular(w) for w in re.findall(r"[^\W_]+", f) if w not in STOP]
        if not words or any(word_asked(w, asked) or w in numbers for w in words):
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
    from ..language.detection import DEFAULT

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


def _numbers_in(plan: Plan) -> set[float]:
    """Every number the plan holds: literals (numbers, and texts that read as numbers), LIMIT and OFFSET."""
    out: set[float] = set()
    for n in walk(plan):
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
CODE = re.compile(r"(?<![\w-])[^\W\d_][\w-]*\d[\w-]*(?<![-_])(?![\w-])")


# a number said on its own: not a part of a code or a name ("M5-220", "stage2"), nor a word's suffix
_LONE_NUMBER = re.compile(r"(?<![\w.,/-])(\d+(?:\.\d+)?)(?![\w/-]|[.,]\d)")


def number_problem(q: Question, plan: Plan, schema: Schema) -> str:
    """A number the question says on its own ("more than 6 orders", "booked 2 rooms", "the 4 heaviest"),
    or a code of letters and digits ("the X200 pump", "order B-42"), that the plan never uses answers a question
    without that condition (a code: no text the plan compares holds it). Not: 1 (a/one), a number that names a
    column with the word before it ("stage 2": stage_2); a percentage may be used as a share ("40%": 0.4)."""
    held = _numbers_in(plan)
    columns = {squeezed(c).lower() for t in schema.tables.values() for c in t.columns}
    missing = []
    for m in _LONE_NUMBER.finditer(q.text):
        n = float(m.group(1))
        before = re.findall(r"[A-Za-z]+", q.text[:m.start()])
        percent = re.match(r"\s*(?:%|per ?cent)", q.text[m.end():], re.I) is not None
        if n in held or n == 1 or (percent and n / 100 in held) or (
                before and squeezed(before[-1] + m.group(1)).lower() in columns):
            continue
        missing.append(m.group(1))
    texts = " ".join(literals_in(plan))
    missing += [c for c in CODE.findall(q.text) if fold(c) not in texts]
    if not missing:
        return ""
    return (f"the question says {', '.join(missing)}, but the query never uses it: put it in the condition, HAVING "
            "or LIMIT it belongs to.")


def unread_columns(q: Question, plan: Plan, schema: Schema) -> list[str]:
    """Value columns the question names by two or three of its words in a row ("unit price", "floor area":
    unitprice, floor_area), which the plan never reads: the question asks for or about that value, and the plan
    answers with another. A column of a table the plan reads; or of another table, when no table the plan reads
    has a column of that name ("the highest hire fee" answered from the berths' fees). A link named so
    ("replacement parts", "mentored by") that the plan never reads, from either side: the question asks about
    that relation and the plan reads another."""
    if not isinstance(plan, (Query, SetQuery)):
        return []
    cols = columns_in(plan, deep=True)
    tables = {c.table.lower() for c in cols} | {s.table.lower() for n in walk(plan) if isinstance(n, Query)
                                                 for s in n.sources}
    read = {(c.table.lower(), c.column.lower()) for c in cols}
    words = re.findall(r"[^\W_]+", q.text.lower())
    said = {"".join(words[i:i + n]) for n in (2, 3) for i in range(len(words) - n + 1)}
    said |= {squeezed(c.name).lower() for t in schema.tables.values() for c in t.columns.values()
             if c.kind == "value" and abbreviation_of(c.name, words) is not None}
    ones = [singular(w) for w in words]
    said_one = said | {"".join(ones[i:i + n]) for n in (2, 3) for i in range(len(ones) - n + 1)}
    out = []
    links_read = {squeezed(c.column).lower() for c in cols}
    props_read = _properties_read(schema, cols)  # (a relation read from either side: a declared inverse too)
    classes = {squeezed(x).lower() for t in schema.tables.values() for x in (t.name, t.label or "")}  # words that
    # name a class name its things ("how many guild halls"), not the link of the same name
    near = {squeezed(c.name).lower() for t in schema.tables.values() if t.name.lower() in tables
            for c in t.columns.values()}
    for t in schema.tables.values():
        for c in t.columns.values():
            key = squeezed(c.name).lower()
            if c.kind == "link" and key in said_one and key not in links_read | classes \
                    and not {str(p) for p in (c.prop, c.via_prop) if p} & props_read:
                out.append(f"{t.name}.{c.name}")
                links_read.add(key)  # (a link of a superclass and of its subclasses: one name, said once)
                continue
            if c.kind in ("id", "link") or key not in said or (t.name.lower(), c.name.lower()) in read:
                continue
            if t.name.lower() not in tables and key in near:
                continue  # a table the plan reads has a value of that name
            if any(key == squeezed(x.column).lower() for x in cols):
                continue  # the same column read from another table
            out.append(f"{t.name}.{c.name}")
    return out


def _properties_read(schema: Schema, cols: list[Col]) -> set[str]:
    """The properties the plan's columns read: each column's own, the one an inverse column reads backwards, and
    the property of the link that states its pairs the other way round."""
    out: set[str] = set()
    for x in cols:
        table = schema.table(x.table)
        col = table.column(x.column) if table else None
        if col is None:
            continue
        out |= {str(p) for p in (col.prop, col.via_prop) if p}
        if col.inverse and "." in col.inverse:
            other_table, other_col = col.inverse.split(".", 1)
            other = schema.table(other_table).column(other_col) if schema.table(other_table) else None
            out |= {str(p) for p in ((other.prop, other.via_prop) if other is not None else ()) if p}
    return out


def unread_problem(q: Question, plan: Plan, schema: Schema) -> str:
    missing = unread_columns(q, plan, schema)
    return (f"the question names {', '.join(missing)}, but the query never reads it: select it, or use it in the "
            "condition it belongs to.") if missing else ""


COMPARISON_SIDES = Check("comparison_sides", 210, lambda a: sides_problem(a.q, a.plan, a.mentions),
                         lambda a: bool(named_sides(a.q, a.mentions)),
                         repair=lambda a: sides_apart(a.q, a.plan, a.schema, a.mentions),
                         repair_note="each named thing found on its own and their values compared", repair_rank=2)
NAMED_VALUES_USED = Check("named_values_used", 220,
                          lambda a: named_values_problem(a.q, a.plan, a.mentions, a.schema, a.aliases),
                          lambda a: not named_sides(a.q, a.mentions) and bool(a.mentions),
                          repair=lambda a: named_value_added(a.q, a.plan, a.mentions, a.schema, a.aliases),
                          repair_note="the value the question names compared where it is", repair_rank=3)
NAMED_COLUMNS_READ = Check("named_columns_read", 260, lambda a: unread_problem(a.q, a.plan, a.schema))
NUMBERS_USED = Check("numbers_used", 270, lambda a: number_problem(a.q, a.plan, a.schema),
                     lambda a: bool(a.q.numbers or CODE.search(a.q.text)))
CONDITIONS_ASKED = Check(
    "conditions_asked", 340,
    lambda a: unasked_problem(a.q, a.plan, a.schema, a.mentions, a.embedder, a.aliases))
