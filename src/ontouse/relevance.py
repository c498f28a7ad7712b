"""Which part of a large view a question is about, for a prompt that only holds that part.

A view whose DDL fits the prompt budget is shown whole (and cached by the model from one question to the next).
A larger one is cut per question: tables are ranked by how close their name, comment and columns are to the
question in the embedding space of a small sentence model (ontocore/embeddings.py) — "seller" is near `vendor`, "keepers"
near `Beekeeper` — with the tables that hold a value the question names first; then the tables they link to are
added, so the joins the question needs stay possible. Wide tables keep their names and the columns closest to the
question."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from ontocore.embeddings import Embedder, split_name

from .sqlplan.joins import join_edges
from .sqlplan.schema import Column, Schema, Table

log = logging.getLogger(__name__)

MAX_COLUMNS = 14  # columns kept of a wide table (besides iri and its names)
MENTION_BOOST = 0.5


def _describe_table(t: Table) -> str:
    return f"{split_name(t.name)}. {t.comment or t.label}".strip(". ")


def _describe_column(t: Table, c: Column) -> str:
    return f"{split_name(c.name)} of {split_name(t.name)}. {c.comment or c.label}".strip(". ")


@dataclass
class Relevance:
    schema: Schema
    tables: list[Table]  # the tables that may be shown
    embedder: Embedder = field(default_factory=Embedder)
    _keys: list[tuple[str, str]] = field(default_factory=list)  # (table, column or "") per vector
    _vectors: object = None

    def _index(self) -> None:
        texts = []
        for t in self.tables:
            self._keys.append((t.name, ""))
            texts.append(_describe_table(t))
            for c in t.columns.values():
                if c.kind != "id" and not c.hidden:
                    self._keys.append((t.name, c.name))
                    texts.append(_describe_column(t, c))
        self._vectors = self.embedder.embed(texts)

    def scores(self, question: str) -> tuple[dict[str, float], dict[tuple[str, str], float]]:
        """(score per table, score per column) for a question."""
        if self._vectors is None:
            self._index()
        qv = self.embedder.embed([question])[0]
        sims = self._vectors @ qv  # type: ignore[operator]
        tables: dict[str, float] = {}
        columns: dict[tuple[str, str], float] = {}
        for (t, c), s in zip(self._keys, sims):
            s = float(s)
            if c:
                columns[(t, c)] = s
            tables[t] = max(tables.get(t, -1.0), s)
        return tables, columns

    def select(self, question: str, mentioned: set[str], fits) -> tuple[list[Table], dict[str, set[str]]]:
        """The tables to show (and, per wide table, the columns to keep) so that `fits(tables, columns)` holds."""
        table_score, column_score = self.scores(question)
        for name in mentioned:
            table_score[name] = table_score.get(name, 0.0) + MENTION_BOOST
        ranked = sorted(self.tables, key=lambda t: (-table_score.get(t.name, 0.0), t.name))
        keep_cols = {t.name: self._columns(t, column_score) for t in self.tables}
        chosen: list[Table] = []
        for t in ranked:
            if t in chosen:
                continue
            trial = chosen + [t]
            if not fits(trial, keep_cols):
                continue
            chosen = trial
            linked = {other.lower(): self.schema.table(other) for _, other, _ in join_edges(self.schema, t)}
            for o in sorted((o for o in linked.values() if o is not None and o in self.tables),
                            key=lambda o: (-table_score.get(o.name, 0.0), o.name)):
                if o not in chosen and fits(chosen + [o], keep_cols):  # the tables it joins, most relevant first
                    chosen.append(o)
        return chosen or ranked[:1], keep_cols

    def _columns(self, t: Table, column_score: dict[tuple[str, str], float]) -> set[str]:
        cols = [c for c in t.columns.values() if c.kind != "id" and not c.hidden]
        if len(cols) <= MAX_COLUMNS:
            return {c.name for c in cols}
        must = {c.name for c in cols if c.is_label}
        rest = sorted((c for c in cols if c.name not in must), key=lambda c: -column_score.get((t.name, c.name), 0.0))
        return must | {c.name for c in rest[:MAX_COLUMNS - len(must)]}
