"""The relational view as the model sees it: SQL DDL, with sample values and the ontology's own comments.

    CREATE TABLE Employee ( -- An employee in my company. 53 rows; also the rows of Manager
      iri TEXT PRIMARY KEY, -- the employee itself; shown by its label
      label TEXT, -- 'Adolfina Hoch', 'Anamchara Foerstner', 'Arendt Beitel'
      memberOf TEXT REFERENCES Department(iri),
      ...

The whole view goes into the prompt when it fits the budget, always in the same order, so the model's prompt
cache reuses it from one question to the next; a larger view is cut to the tables that matter for the question
(linking.py ranks them)."""

from __future__ import annotations

import logging
from typing import Iterable

from .schema import Column, Schema, Table

log = logging.getLogger(__name__)

CHARS_PER_TOKEN = 3.2  # a conservative estimate for DDL text with the model's tokenizer
MAX_SAMPLE_CHARS = 40


def _sample(v: str) -> str:
    v = " ".join(v.split())
    if len(v) > MAX_SAMPLE_CHARS:
        v = v[:MAX_SAMPLE_CHARS - 1] + "…"
    return "'" + v.replace("'", "''") + "'"


def _note(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def column_line(table: Table, c: Column, schema: Schema) -> str:
    if c.kind == "id":
        label = table.label_column()
        extra = f"; shown by its {label.name}" if label is not None else ""
        return f"  iri TEXT PRIMARY KEY, -- the {table.name} itself{extra}"
    if c.kind == "link":
        target = schema.table(c.target) if c.target else None
        ref = f" REFERENCES {target.name}(iri)" if target else ""
        note = _note(c.comment or c.label, 60) if (c.comment or c.label) else ""
        many = " (several per row)" if c.count > c.subjects * 1.05 else ""
        text = f"  {c.name} TEXT{ref},"
        return text + (f" --{many} {note}" if note or many else "")
    ref = f" REFERENCES {c.key_of.replace('.', '(')})" if c.key_of else ""
    line = f"  {c.name} {c.sql_type}{ref},"
    bits = []
    if c.comment or (c.label and c.label.lower().replace(" ", "") != c.name.lower()):
        bits.append(_note(c.comment or c.label, 60))
    if c.samples:
        bits.append(", ".join(_sample(v) for v in c.samples))
    return line + (" -- " + "; ".join(bits) if bits else "")


def table_ddl(table: Table, schema: Schema) -> str:
    head = [f"{table.count} rows"]
    if table.comment:
        head.insert(0, _note(table.comment, 90))
    subs = [t.name for t in schema.tables.values() if t is not table and t.cls in table.classes]
    if subs:
        head.append("includes the rows of " + ", ".join(subs[:6]))
    if table.parents:
        head.append("a kind of " + ", ".join(table.parents))
    lines = [f"CREATE TABLE {table.name} ( -- {'; '.join(head)}"]
    cols = [column_line(table, c, schema) for c in table.columns.values() if not c.hidden]
    decl, sep, note = cols[-1].partition(", --") if ", --" in cols[-1] else (cols[-1].rstrip(","), "", "")
    cols[-1] = decl + (" --" + note if sep else "")
    lines += cols
    lines.append(");")
    return "\n".join(lines)


def schema_ddl(schema: Schema, tables: Iterable[Table] | None = None) -> str:
    chosen = list(tables) if tables is not None else list(schema.tables.values())
    order = {id(t): i for i, t in enumerate(schema.tables.values())}
    chosen.sort(key=lambda t: order.get(id(t), 0))
    return "\n\n".join(table_ddl(t, schema) for t in chosen)


def estimate_tokens(text: str) -> int:
    return int(len(text) / CHARS_PER_TOKEN) + 1
