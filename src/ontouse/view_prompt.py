"""The relational view as the model sees it: SQL DDL, with sample values and the ontology's own comments.

    CREATE TABLE Beekeeper ( -- A beekeeper of the cooperative. 12 rows; also the rows of Inspector
      iri TEXT PRIMARY KEY, -- the beekeeper itself; shown by its label
      label TEXT, -- 'Ilse Marrow', 'Tomas Quill', 'Wren Oakby'
      tends TEXT REFERENCES Apiary(iri),
      ...

The whole view goes into the prompt when it fits the budget, always in the same order, so the model's prompt
cache reuses it from one question to the next. A view that does not fit is shown with less detail first (`DETAILS`:
shorter notes and fewer sample values, then names and types only), so that it still fits whole and stays one
prompt start for every question; a view of several unconnected parts (`parts`) is shown part by part, each part
the same prompt start for every question about it; a larger one is cut to the tables that matter for the question
(relevance.py ranks them)."""

from __future__ import annotations

import logging
from typing import Iterable

from .sqlplan.joins import join_edges
from .sqlplan.schema import Column, Schema, Table

log = logging.getLogger(__name__)

CHARS_PER_TOKEN = 3.2  # a conservative estimate for DDL text with the model's tokenizer
MAX_SAMPLE_CHARS = 40
# the levels of detail of the view, most first: (characters of a note, of a table's comment, sample values of a
# name column, of another column); the last level shows names and types only
DETAILS = ((60, 90, 3, 3), (40, 50, 2, 1), (30, 0, 1, 0), (0, 0, 0, 0))
VALUE_NAMES = (12, 6, 0, 0)  # names of a small table of values listed at each level


def _sample(v: str) -> str:
    v = " ".join(v.split())
    if len(v) > MAX_SAMPLE_CHARS:
        v = v[:MAX_SAMPLE_CHARS - 1] + "…"
    return "'" + v.replace("'", "''") + "'"


def _note(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _adds_words(note: str, name: str, least: int = 2) -> bool:
    """Does a comment say more than the column's name (`least` or more other content words)?"""
    from ontocore.embeddings import split_name
    from ontocore.text import STOP, singular, tokens

    own = {singular(w) for w in split_name(name).split()}
    extra = {singular(w) for w in tokens(split_name(note))} - own - {singular(w) for w in STOP}
    return len(extra) >= least


def _column_note(c: Column, limit: int) -> str:
    """What a column's label or comment says that its name does not: its label when the name is cryptic (a label
    word the name lacks: `spd` labelled "speed"), else its comment (or label) when it adds two words or more."""
    if not limit:
        return ""
    if c.label and _adds_words(c.label, c.name, 1):  # a cryptic name: its label first
        more = c.comment if c.comment and _adds_words(c.comment, f"{c.label} {c.name}") else ""
        return _note(f"{c.label}: {more}" if more else c.label, limit)
    note = c.comment or c.label
    if note and _adds_words(note, c.name, 1 if note == c.label else 2):
        return _note(note, limit)
    return ""


def _english(text: str, name: str) -> str:
    """A note with a thing's English label, when that is other words than the view's name for it ("" if not)."""
    from ontocore.embeddings import split_name
    from ontocore.text import singular, tokens

    if not text or {singular(w) for w in tokens(text)} <= {singular(w) for w in tokens(split_name(name))}:
        return ""
    return "English: " + _note(text, 50)


def column_line(table: Table, c: Column, schema: Schema, compact: bool = False, detail: int = 0) -> str:
    note_chars, _, name_samples, samples = DETAILS[detail]
    if compact or detail == len(DETAILS) - 1:
        if c.kind == "id":
            return "  iri TEXT PRIMARY KEY,"
        if c.kind == "link":
            target = schema.table(c.target) if c.target else None
            return f"  {c.name} TEXT{f' REFERENCES {target.name}(iri)' if target else ''},"
        return f"  {c.name} {c.sql_type},"
    if c.kind == "id":
        label = table.label_column()
        if label is None:
            return "  iri TEXT PRIMARY KEY,"
        return f"  iri TEXT PRIMARY KEY, -- the {table.name} itself, shown by its {label.name}"
    if c.kind == "link":
        target = schema.table(c.target) if c.target else None
        ref = f" REFERENCES {target.name}(iri)" if target else ""
        note = _column_note(c, note_chars)
        many = "several per row" if c.count > c.subjects * 1.05 else ""
        text = f"  {c.name} TEXT{ref},"
        bits = [b for b in (_english(c.english, c.name), many, note) if b]
        return text + (" -- " + "; ".join(bits) if bits else "")
    ref = f" REFERENCES {c.key_of.replace('.', '(')})" if c.key_of else ""
    line = f"  {c.name} {c.sql_type}{ref},"
    bits = [b for b in (_english(c.english, c.name),) if b]
    note = _column_note(c, note_chars)
    if note:
        bits.append(note)
    shown = name_samples if c.is_label else samples
    if c.samples and shown:
        unique = c.distinct >= c.subjects > 1
        bits.append(", ".join(_sample(v) for v in c.samples[:min(shown, 2 if unique else 3)]))
    return line + (" -- " + "; ".join(bits) if bits else "")


def table_ddl(table: Table, schema: Schema, keep: set[str] | None = None, detail: int = 0) -> str:
    head = [f"{table.count} rows"]
    comment_chars = DETAILS[detail][1]
    if comment_chars and table.comment and _adds_words(table.comment, table.name):
        head.insert(0, _note(table.comment, comment_chars))
    english = _english(table.english, table.name)
    if english:
        head.insert(0, english)
    subs = [t.name for t in schema.tables.values() if t is not table and t.cls in table.classes]
    compact = bool(subs) and table.direct == 0  # an abstract superclass: its subclass tables show the details
    if subs:
        head.append("includes the rows of " + ", ".join(subs[:6]))
    if table.parents:
        head.append("a kind of " + ", ".join(table.parents))
    if table.values and VALUE_NAMES[detail]:  # a few things that serve as values: their names
        shown = table.values[:VALUE_NAMES[detail]]
        more = f" and {len(table.values) - len(shown)} more" if len(table.values) > len(shown) else ""
        head.append("the rows: " + ", ".join(_sample(v) for v in shown) + more)
    lines = [f"CREATE TABLE {table.name} ( -- {'; '.join(head)}"]
    cols = [column_line(table, c, schema, compact, detail) for c in table.columns.values()
            if not c.hidden and (keep is None or c.kind == "id" or c.name in keep)]
    decl, sep, note = cols[-1].partition(", --") if ", --" in cols[-1] else (cols[-1].rstrip(","), "", "")
    cols[-1] = decl + (" --" + note if sep else "")
    lines += cols
    lines.append(");")
    return "\n".join(lines)


PASSAGE_CHARS = 150  # a value this long is a passage of text, not a fact


def _passages(t: Table) -> bool:
    """A table of text passages (a document's chunks kept verbatim, with links to what they mention): its rows
    hold a long text and little else. A small model joins them to search the text instead of the facts."""
    values = [c for c in t.columns.values() if c.kind == "value" and not c.is_label]
    long = [c for c in values if c.samples and min(len(s) for s in c.samples) >= PASSAGE_CHARS]
    return bool(long) and len(values) <= 2


def shown_tables(schema: Schema, small_parts: bool = False) -> list[Table]:
    """The tables the prompt shows: all except (1) a superclass table holding exactly the rows of one of its
    subclass tables (that table shows them), (2) the tables of a small part of the graph that no link or key
    connects to the rest (facts about the dataset itself, such as its authors), and (3) tables of text passages.
    Hidden tables can still be queried; they only cost the prompt nothing. `small_parts`: keep (2) (a view shown
    part by part shows each part on its own)."""
    tables = list(schema.tables.values())
    keep = []
    for t in tables:
        subs = [x for x in tables if x is not t and x.cls in t.classes]
        if any(x.count == t.count for x in subs) or _passages(t):
            continue
        keep.append(t)
    size = {t.name: sum(x.count for x in part) for part in parts(schema, tables) for t in part}
    main = max(size.values()) if size else 0
    small = max(10, main // 100)
    return [t for t in keep if small_parts or size[t.name] == main or size[t.name] > small]


def examples_prompt(schema: Schema) -> str:
    """Worked examples on made-up tables of the same shape as this view: things with labels joined by links, or
    database rows joined by key values."""
    from .prompts import prompts
    rows = sum(t.count for t in schema.tables.values()) or 1
    labelled = sum(t.count for t in schema.tables.values() if t.label_column() is not None)
    return prompts.load("ask_sql_examples_things" if labelled * 2 >= rows else "ask_sql_examples_keys").strip()


def schema_ddl(schema: Schema, tables: Iterable[Table] | None = None,
               keep: dict[str, set[str]] | None = None, detail: int = 0) -> str:
    """The DDL of the tables (all shown ones by default), in the view's order; `keep`: the columns to show of
    each table (all when absent); `detail`: the level of DETAILS."""
    chosen = list(tables) if tables is not None else shown_tables(schema)
    order = {id(t): i for i, t in enumerate(schema.tables.values())}
    chosen.sort(key=lambda t: order.get(id(t), 0))
    return "\n\n".join(table_ddl(t, schema, (keep or {}).get(t.name), detail) for t in chosen)


def fitting_detail(render, budget: int) -> int | None:
    """The most detailed level of DETAILS at which `render(level)` (a prompt) fits `budget` tokens; None when
    none does."""
    for level in range(len(DETAILS)):
        if estimate_tokens(render(level)) <= budget:
            return level
    return None


def parts(schema: Schema, tables: list[Table]) -> list[list[Table]]:
    """The unconnected parts of a view: `tables` grouped by the links, keys and subclass relations between them
    (a graph that holds several vocabularies side by side), largest first; one part for a connected view."""
    parent: dict[str, str] = {t.name: t.name for t in schema.tables.values()}

    def find(x: str) -> str:
        while parent[x] != x:
            x = parent[x]
        return x

    for t in schema.tables.values():
        for _, other, _ in join_edges(schema, t):
            if other in parent:
                parent[find(other)] = find(t.name)
        for p in t.parents:
            if p in parent:
                parent[find(p)] = find(t.name)
    groups: dict[str, list[Table]] = {}
    for t in tables:
        groups.setdefault(find(t.name), []).append(t)
    return sorted(groups.values(), key=lambda g: (-len(g), g[0].name))


def estimate_tokens(text: str) -> int:
    return int(len(text) / CHARS_PER_TOKEN) + 1
