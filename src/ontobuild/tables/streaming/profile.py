"""Pass 1 of streamed tables: each table read once into the sample shape the model sees and a 64-bit hash of every
cell's key value per column; keys and references then come from the sorted distinct hashes of whole columns."""

from __future__ import annotations

import hashlib
from array import array
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ...inputs.tabular import iter_table
from ..mapping import Decision, Shape, find_records, group_shapes, split_key
from ..references.proposing import FEW_VALUES, ID_NAME, Evidence, key_value

SAMPLE_ROWS = 10_000  # the first rows of a table that the model's decisions and the schema are made from
FIRST = 200  # the first values of a column kept as evidence (proposing.measurement reads 200)
EMPTY_HASH = -1  # the hash of an empty cell (Python's hash() never returns -1)


@dataclass
class Table:
    """A streamed table: its file, rows, the sample shape the model sees, its columns' hashes (until named) and
    the sorted distinct hashes of each column."""

    path: Path
    rows: int
    shape: Shape
    hashes: dict[str, np.ndarray]
    distinct: dict[str, np.ndarray]
    decision: Decision | None = None
    shared: Any = None  # the labels several of its rows share (shared_labels), once decided
    encoding: str | None = None  # the codec the user named (--encoding), else told from the file

    @property
    def file(self) -> str:
        return self.path.name


def profile_table(path: Path, warnings: list[str] | None = None, encodings: dict[str, str] | None = None,
                  encoding: str | None = None) -> Table:
    """Read a table once: its sample shape (the first SAMPLE_ROWS records), the hash of every cell's key value per
    column, and per column the evidence proposing.weigh reads (`Evidence`). `encoding`: the codec the user named."""
    sample: list[dict[str, Any]] = []
    cols: dict[str, array] = {}
    first: dict[str, list[str]] = {}
    few: dict[str, set[str] | None] = {}
    n = 0
    for rec in iter_table(path, warnings, encodings, encoding):
        if n < SAMPLE_ROWS:
            sample.append(rec)
        for k, v in rec.items():
            col = cols.get(k)
            if col is None:  # a column first seen here: empty in the rows before
                col = cols[k] = array("q", [EMPTY_HASH]) * n
                first[k], few[k] = [], set()
            val = key_value(v)
            if val is None:
                col.append(EMPTY_HASH)
                continue
            col.append(hash(val))
            if len(first[k]) < FIRST:
                first[k].append(val)
            seen = few[k]
            if seen is not None:
                seen.add(val)
                if len(seen) >= FEW_VALUES:
                    few[k] = None
        n += 1
        for k, col in cols.items():
            if len(col) < n:
                col.append(EMPTY_HASH)
    hashes = {k: np.frombuffer(col, dtype=np.int64) for k, col in cols.items()}
    distinct = {k: np.unique(h[h != EMPTY_HASH]) for k, h in hashes.items()}
    shapes = group_shapes(find_records(path.name, sample))
    shape = shapes[0]
    shape.profiles = {k: Evidence(first[k], len(distinct[k]), few[k],
                                  hashlib.blake2b(distinct[k].tobytes(), digest_size=16).hexdigest())
                      for k in cols}
    return Table(path, n, shape, hashes, distinct, encoding=encoding)


class StreamColumns:
    """proposing.Columns for streamed tables: keys and references from the hashes of whole columns."""

    def __init__(self, tables: list[Table]) -> None:
        self.tables = tables
        self._keys: dict[int, list[str]] = {}
        for t in tables:
            found = []
            if t.rows >= 2:
                for position, column in enumerate(t.shape.keys):
                    h = t.hashes.get(column)
                    if h is not None and not (h == EMPTY_HASH).any() and len(t.distinct[column]) == t.rows:
                        found.append((not ID_NAME.search(split_key(column)[0]), position, column))
            self._keys[id(t.shape)] = [c for *_, c in sorted(found)]

    def keys(self, shape: Shape) -> list[str]:
        return self._keys[id(shape)]

    def rows(self, s_index: int) -> int:
        return self.tables[s_index].rows

    def distinct(self, s_index: int, column: str) -> int:
        return len(self.tables[s_index].distinct.get(column, ()))

    def key_size(self, t_index: int, key: str) -> int:
        return len(self.tables[t_index].distinct[key])

    def holding(self, s_index: int, column: str) -> set[tuple[int, str]]:
        values = self.tables[s_index].distinct.get(column)
        if values is None or not len(values):
            return set()
        out = set()
        for t_index, t in enumerate(self.tables):
            for key in self._keys[id(t.shape)]:
                k = t.distinct[key]
                if len(values) <= len(k) and np.isin(values, k, assume_unique=True).all():
                    out.add((t_index, key))
        return out


