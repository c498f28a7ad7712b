"""One attempt at a question: the model's reply read as SQL (`extract_sql`; the question's names with an apostrophe
quoted as SQL writes them: `names_quoted`), and what running that plan gave (`Attempt`: the plan read, its compiled
SPARQL, the rows, the problem sent back, the repairs and the checks' outcomes); with the bounds of one attempt."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .sqlplan.compile import Compiled

MAX_TOKENS = 300  # of the model's reply with a plan
MAX_ROWS = 10000  # of a plan's result
QUERY_TIMEOUT = 20.0  # seconds of one query in the store

_SQL_BLOCK = re.compile(r"```(?:sqlite|sql)?\s*(.*?)(?:```|$)", re.DOTALL | re.IGNORECASE)


def extract_sql(text: str) -> str:
    """The SQL in a model reply: the first fenced block, else the text from the first SELECT / WITH."""
    text = text or ""
    m = _SQL_BLOCK.search(text)
    if m and m.group(1).strip():
        return m.group(1).strip()
    m = re.search(r"\b(SELECT|WITH)\b.*", text, re.DOTALL | re.IGNORECASE)
    return m.group(0).strip() if m else text.strip()


def names_quoted(sql: str, mentions: list) -> str:
    """The SQL with each value the question names that holds an apostrophe ('Rock 'N' Sons', written by the model
    between quotes as it is, or with its closing quote left out: 'O'Hara Mills OR ...) quoted as SQL writes it
    ('Rock ''N'' Sons'), when the SQL has it so."""
    for value in sorted({m.value for m in mentions if getattr(m, "exact", False) and "'" in m.value}, key=len,
                        reverse=True):
        quoted = "'" + value.replace("'", "''") + "'"
        sql = re.sub("'" + re.escape(value) + "(?:'(?!')|(?=\\s|\\)|,|$))", lambda _: quoted, sql)
    return sql


@dataclass
class Attempt:
    sql: str
    plan: Any = None
    compiled: Compiled | None = None
    rows: list = None  # type: ignore[assignment]
    total: int = 0
    truncated: bool = False
    problem: str = ""
    fixes: tuple[str, ...] = ()
    zero: bool = False  # an aggregate of nothing (a count of 0)
    raw: list = None  # type: ignore[assignment]  # the result rows as RDF terms
    checks: list = None  # type: ignore[assignment]  # the checks.Outcome list of this result
    missing: tuple[str, ...] = ()  # the tables / columns the plan names that the view does not have
