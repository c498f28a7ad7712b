"""The rows of a streamed table as the mapping sees them: records of one pattern, an index that shares the schema,
and the labels several rows share (known from the hashes of pass 1)."""

from __future__ import annotations

from typing import Any, Iterator

import numpy as np

from ...inputs.tabular import iter_table
from ...ontology.index import EntitiesIndex
from ..mapping import Decision, Record
from .profile import EMPTY_HASH, Table

TABLE_PATTERN = "$[*]"  # the pattern of the records of a table (mapping.find_records of a list of objects)


def batch_index(idx: EntitiesIndex) -> EntitiesIndex:
    """An index that shares the schema of `idx` (classes, properties, prefixes) with individuals of its own."""
    out = EntitiesIndex(base_iri=idx.base_iri)
    out.classes, out.properties, out.prefixes = idx.classes, idx.properties, idx.prefixes
    return out


class HashSet:
    """Membership of texts by their hash, for the names several records share (mapping.individual_name)."""

    def __init__(self, hashes: np.ndarray) -> None:
        self.hashes = set(hashes.tolist())

    def __contains__(self, text: object) -> bool:
        return hash(text) in self.hashes


def shared_labels(table: Table, decision: Decision) -> HashSet:
    """The labels that several records of the table share (as apply_mapping counts them)."""
    h = table.hashes.get(decision.name_key)
    if h is None:
        return HashSet(np.empty(0, dtype=np.int64))
    values, counts = np.unique(h, return_counts=True)
    return HashSet(values[(counts > 1) & (values != EMPTY_HASH)])


def row_record(file: str, row: int, fields: dict[str, Any]) -> Record:
    return Record(file, [row], TABLE_PATTERN, [], None, fields)


def table_rows(table: Table, start: int = 0) -> Iterator[tuple[int, dict[str, Any]]]:
    for row, fields in enumerate(iter_table(table.path, encoding=table.encoding)):
        if row >= start:
            yield row, fields
