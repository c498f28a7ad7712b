"""How the question's words name the view's tables, and how tables relate: a name as a term, the tables a phrase
or a which / what / how many names, subclasses, links and keys between tables, numeric columns; and the rewrites
that read one table as another (`read_as`) or join two by their one link (`one_link`). Shared by the checks."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from ontocore.text import STOP, fold, irregular_singulars, singular, stem

from ..question import Question, asked_phrase
from ..sqlplan.plan import Agg, Col, Join, Query, SetQuery, Source, columns_in
from ..sqlplan.schema import Schema, Table


def as_term(text: str) -> str:
    """A name as the question's words are compared with it: folded, word by word singular."""
    return " ".join(singular(w) for w in re.findall(r"[^\W_]+", fold(text)))


def table_terms(t: Table) -> set[str]:
    from ontocore.embeddings import split_name

    return {term for text in (split_name(t.name), t.label or "", t.english) if (term := as_term(text))}


def tables_named(schema: Schema, phrase: list[str]) -> list[Table]:
    """The tables the phrase names: the whole phrase, else its last word (its head noun)."""
    if not phrase:
        return []
    for key in (" ".join(phrase), phrase[-1]):
        found = [t for t in schema.tables.values() if key in table_terms(t)]
        if found:
            return found
    return []


def refers_to(a: Table, b: Table, schema: Schema) -> bool:
    """Does each row of `a` refer to one row of `b` (a link to b's things, or a key value of b; one per row, as in
    a table of pairs: counting its rows counts b's things, where a row with several links would not)?"""
    for col in a.columns.values():
        if col.count > col.subjects:
            continue
        if col.kind == "link" and col.target and schema.table(col.target) and related(schema.table(col.target), b):
            return True
        owner = schema.table(col.key_of.split(".", 1)[0]) if col.key_of else None
        if owner is not None and related(owner, b):
            return True
    return False


def related(a: Table, b: Table) -> bool:
    """The same things, or one table's things among the other's (a subclass at any depth)."""
    return a.name == b.name or bool(set(a.classes) & set(b.classes))


def terms_of(t: Table, table_texts: Any = None) -> set[str]:
    return table_terms(t) | ({as_term(x) for x in table_texts(t.name)} if table_texts is not None else set())


def is_subclass(narrow: Table, wide: Table) -> bool:
    """Are `narrow`'s things some of `wide`'s (a subclass at any depth, not the class itself)?"""
    return narrow.cls != wide.cls and narrow.cls in wide.classes


def named_subclass(phrase: list[str], wide: Table, schema: Schema, table_texts: Any = None
                    ) -> tuple[Table | None, set[str]]:
    """The subclass of `wide` that the asked phrase names by the words its name adds to the class's ("coastal"
    of "coastal vehicle" under "vehicle": every word one of its names adds is in the phrase), and those words.
    (None, set()) when no subclass is named so."""
    said, own = set(phrase), {w for term in terms_of(wide, table_texts) for w in term.split()}
    for sub in sorted(schema.tables.values(), key=lambda t: -len(t.classes)):
        if not sub.count or not is_subclass(sub, wide):
            continue
        for term in terms_of(sub, table_texts):
            added = set(term.split()) - own
            if added and added <= said:
                return sub, added
    return None, set()


def asked_tables(q: Question, schema: Schema, table_texts: Any = None) -> list[Table]:
    """The tables the words after which / what / how many name ("which vehicles ...": the vehicles), none when the
    question starts otherwise."""
    phrase = asked_phrase(q)
    return phrase_tables(schema, phrase, table_texts) if phrase else []


def phrase_tables(schema: Schema, phrase: list[str], table_texts: Any = None) -> list[Table]:
    """The tables that words of the phrase (singular) name: the longest run of words that is one of a table's
    names or labels (in any language, by `table_texts`), else a word that is the last word of one ("pump" of
    "heat pump"); when none, the same with a word read as an irregular plural (children: child; criteria:
    criterion)."""
    terms = {t.name: table_terms(t) | ({as_term(x) for x in table_texts(t.name)} if table_texts is not None
                                        else set()) for t in schema.tables.values() if t.count}
    found = _named_by(schema, terms, phrase)
    for i, w in enumerate(phrase if not found else ()):
        for one in irregular_singulars(w):
            found = found or _named_by(schema, terms, [*phrase[:i], one, *phrase[i + 1:]])
    return found


def _named_by(schema: Schema, terms: dict[str, set[str]], phrase: list[str]) -> list[Table]:
    """`phrase_tables` for one reading of the phrase's words."""
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


def is_numeric(schema: Schema, e: Any, dates: bool = False) -> bool:
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


def column_words(schema: Schema, col: Col) -> set[str]:
    from ontocore.embeddings import split_name

    t = schema.table(col.table)
    c = t.columns.get(col.column.lower()) if t is not None else None
    names = [col.column] + ([x for x in (c.label, c.english) if x] if c is not None else [])
    return {singular(w) for n in names for w in re.findall(r"[^\W\d_]+", fold(split_name(n))) if w not in STOP}


def abbreviation_of(name: str, words: list[str]) -> tuple[int, int] | None:
    """(start, end) of the two or three question words in a row whose beginnings spell the column's name, at least
    one of them cut short ("independence year": indepyear, "destination airport": destairport, "government form":
    govform); None when no run of the question's words does. Each piece is three letters or more."""
    key = re.sub(r"[\W\d_]+", "", fold(name))
    if len(key) < 6:
        return None
    for n in (2, 3):
        for i in range(len(words) - n + 1):
            run = [fold(w) for w in words[i:i + n]]
            if "".join(run) != key and _spells(key, run):
                return i, i + n
    return None


def _spells(key: str, run: list[str]) -> bool:
    """Is `key` the beginnings of the words of `run`, in order, each three letters or more (or the whole word)?"""
    if not run:
        return not key
    word = run[0]
    for k in range(min(len(word), len(key)), 0, -1):
        if (k >= 3 or k == len(word)) and key.startswith(word[:k]) and _spells(key[k:], run[1:]):
            return True
    return False


def refers(schema: Schema, many: Col, one: Col) -> bool:
    """Does `many` (a column of one row) point at the row that `one` stands for (its iri, or its key column)?"""
    table, other = schema.table(many.table), schema.table(one.table)
    col = table.column(many.column) if table else None
    if col is None or other is None or col.count > col.subjects:
        return False
    if col.kind == "link" and one.column.lower() == "iri":
        target = schema.table(col.target) if col.target else None
        return target is not None and related(target, other)
    return bool(col.key_of) and col.key_of.lower() == f"{other.name}.{one.column}".lower()


def table_named(schema: Schema, word: str, phrase: list[str] | None = None,
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


def read_as(plan: Query, alias: str, table: Table) -> Query | None:
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


def one_link(wide: Table, alias: str, other: Table, other_alias: str) -> Join | None:
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


def question_link(q: Question | None, wide: Table, alias: str, other: Table, other_alias: str) -> Join | None:
    """The join of `wide`'s rows (as `alias`) with `other`'s (as `other_alias`) by the link between the two tables
    whose name the question says (links_named: "which X are audited by N", a link `auditedBy`, where N's table also
    lists its X the other way), else by the one link between them (`one_link`); for a table linked to itself, by
    its rows' link to the other row (the X that require N), or the other row's link to them where the question
    says it so (`said_backwards`: "the X that are plugins of N"): the one such link, or the one the question
    names. None when no link, or several that the question does not tell apart."""
    same = wide.name.lower() == other.name.lower()
    back = [(wide, c) for c in wide.columns.values() if c.kind == "link" and c.target.lower() == other.name.lower()]
    out = [] if same else [(other, c) for c in other.columns.values()
                           if c.kind == "link" and c.target.lower() == wide.name.lower()]
    found = links_named(q, back + out) if q is not None and len(back + out) > 1 else []
    if len(found) != 1:
        if not same:
            return one_link(wide, alias, other, other_alias)
        found = back if len(back) == 1 else []
    if len(found) != 1:
        return None
    t, c = found[0]
    if t is wide and not (same and said_backwards(q, c.name)):
        return Join(Col(alias, wide.name, c.name), Col(other_alias, other.name, "iri"))
    return Join(Col(other_alias, other.name, c.name), Col(alias, wide.name, "iri"))


_PREPOSITIONS = frozenset("of by in to for from with on at into onto as".split())


def said_backwards(q: Question | None, link: str) -> bool:
    """Does the question say a link of a table to itself backwards: its name, a noun, followed by "of" or "by"
    ("a plugin of B", "the successor of B": B's link holds the thing asked), where its name does not end in a
    preposition itself (a `memberOf`: "a member of B" is the thing's own link)?"""
    from ontocore.embeddings import split_name

    words = split_name(link).lower().split()
    if q is None or not words or words[-1] in _PREPOSITIONS:
        return False
    last = stem(words[-1])
    return any(stem(w) == last and q.words[i + 1:i + 2] in (["of"], ["by"]) for i, w in enumerate(q.words))


def links_named(q: Question, links: list[tuple[Any, Any]], besides: str = "") -> list[tuple[Any, Any]]:
    """The (table, column) of `links` that are links whose name shares a word's root with the question, those whose
    every word it says first (a word that names the table `besides`, "the grade X" of a table of grades, names no
    link of that table's own)."""
    from ontocore.embeddings import split_name

    said = {stem(w) for w in q.words if w not in STOP} - {stem(w) for w in split_name(besides).lower().split()}
    words = {(t.name, c.name): {stem(w) for w in split_name(c.name).lower().split()} for t, c in links}
    named = [(t, c) for t, c in links if c.kind == "link" and not c.hidden and words[(t.name, c.name)] & said]
    whole = [(t, c) for t, c in named if words[(t.name, c.name)] <= said]  # every word of its name said
    return whole or named
