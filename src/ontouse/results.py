"""From query results to an answer: cells that know which values are things, the checks that a result has the
shape the question asks for, and the answer text (written by code, so it states exactly what the results say)."""

from __future__ import annotations

from typing import Sequence

from rdflib import Literal, URIRef
from rdflib.term import Node


from .answer import Cell
from .language.detection import pick_label, rank_of
from .phrases import ENGLISH, Phrases
from .sqlplan.compile import OutColumn
from .question import Question
from .sqlplan.schema import Schema, local_name
from .storage.store import Store

MAX_ROWS_SHOWN = 25
MISSING = "—"  # how an empty cell reads in the answer text (a thing without the value asked for)


def labels_of(store: Store, schema: Schema, iris: Sequence[URIRef],
              prefer: Sequence[str] | None = None) -> dict[URIRef, str]:
    """Display names of things: their label in the first language of `prefer` (by default the view's: the
    ontology's main label language, then untagged) that has one, else any label, else their IRI's local name."""
    found: dict[URIRef, list[tuple[str, str | None]]] = {}
    iris = list(dict.fromkeys(i for i in iris if isinstance(i, URIRef)))
    props = " ".join(p.n3() for p in schema.label_props)
    for i in range(0, len(iris), 200) if props else ():
        chunk = " ".join(x.n3() for x in iris[i:i + 200])
        query = f"SELECT ?x ?l WHERE {{ VALUES ?x {{ {chunk} }} VALUES ?p {{ {props} }} ?x ?p ?l }}"
        for x, label in store.select(query, max_rows=2000).rows:
            found.setdefault(x, []).append((str(label), label.language if isinstance(label, Literal) else None))
    order = schema.label_order if prefer is None else prefer
    out = {x: pick_label(labels, order) or "" for x, labels in found.items()}
    for x in iris:
        out.setdefault(x, local_name(str(x)))
    return out


def make_cells(rows: list[list[Node | None]], columns: list[OutColumn], store: Store,
               schema: Schema, names_asked: bool = False, prefer: Sequence[str] | None = None) -> list[list[Cell]]:
    """The visible cells of each result row; a selected name knows the thing it names (a hidden output), unless
    the question asks for names (then the name is the answer, not the thing). `prefer`: the label languages in
    order of preference (labels_of)."""
    width = len(columns)
    iris = [t for row in rows for t in row[:width] if isinstance(t, URIRef)]
    names = labels_of(store, schema, iris, prefer) if iris else {}
    out = []
    for row in rows:
        cells = []
        for i, t in enumerate(row[:width]):
            if t is None:
                cells.append(Cell(value=""))
            elif isinstance(t, URIRef):
                cells.append(Cell(value=str(t), is_iri=True, entity=str(t), label=names.get(t, "")))
            elif isinstance(t, Literal):
                idx = None if names_asked else columns[i].entity
                thing = row[idx] if idx is not None and idx < len(row) else None
                cells.append(Cell(value=str(t), datatype=str(t.datatype or ""),
                                  entity=str(thing) if isinstance(thing, URIRef) else "",
                                  label=str(t) if isinstance(thing, URIRef) else ""))
            else:  # a blank node
                cells.append(Cell(value=str(t), is_iri=False))
        out.append(cells)
    return out


def boolean_of(rows: list[list[Cell]]) -> bool:
    """A yes/no reading of a result: some row whose values are not all zero / false / no / empty (a plan that
    answers with CASE ... THEN 'Yes' ELSE 'No' END says no with the word)."""
    for row in rows:
        vals = [c.value.strip().lower() for c in row]
        if any(v not in ("", "0", "0.0", "false", "no") for v in vals):
            return True
    return False


def answer_text(q: Question, columns: list[str], rows: list[list[Cell]], boolean: bool | None,
                total: int, words: Phrases = ENGLISH) -> str:
    """The answer as a sentence: the values of the result as code reads them, in `words`' language (its fixed
    phrases: yes, no, "and N more"; the values themselves are never translated)."""
    if boolean is not None:
        return f"{words.get('yes') if boolean else words.get('no')}."
    if not rows:
        return words.get("no_data")
    shown = rows[:MAX_ROWS_SHOWN]
    text = lambda c: c.text() or MISSING  # noqa: E731  (a value the thing lacks: shown, not dropped)
    more = f" ({words.get('more', n=total - len(shown))})" if total > len(shown) else ""
    if len(columns) <= 1 or all(len(r) == 1 for r in shown):
        # a list of things names each thing once: rows that are the same thing (one IRI) again say nothing more;
        # equal values of different things stay ("30; 30; 41": the ages of three people)
        things = [r[0].entity or (r[0].value if r[0].is_iri else "") if r else "" for r in shown]
        shown = [r for i, r in enumerate(shown) if not things[i] or things[i] not in things[:i]]
        values = [text(r[0]) if r else "" for r in shown]
        if len(values) == 1:
            return f"{values[0]}."
        return "; ".join(values) + more + "."
    named = [c or words.get("column", n=i + 1) for i, c in enumerate(columns)]
    lines = ["; ".join(f"{n}: {text(c)}" for n, c in zip(named, r)) for r in shown]
    return "\n".join(lines) + (f"\n{more.strip()}" if more else "")


def no_data_text(reason: str, words: Phrases = ENGLISH) -> str:
    return f"{words.get('no_data')} ({reason})" if reason else words.get("no_data")


def unsure_text(reason: str, candidate: str, words: Phrases = ENGLISH) -> str:
    return f"{words.get('unsure')}: {reason.rstrip('.')}; {words.get('best_candidate')}: {candidate}"


def one_label_per_thing(raw: list[list[Node | None]], cells: list[list[Cell]],
                        prefer: Sequence[str] = ("en", "")) -> tuple[list, list[list[Cell]]]:
    """Rows that differ only by the language of a thing's name (a label in English and in German) are one row:
    the one whose names are in the first preferred language is kept (else the first). Rows without language
    tags are untouched."""
    if not any(isinstance(t, Literal) and t.language for row in raw for t in row):
        return raw, cells

    def rank(row: list[Node | None]) -> int:
        return sum(rank_of(t.language, prefer) for t in row if isinstance(t, Literal) and t.language is not None)

    kept: dict[tuple, int] = {}
    order: list[tuple] = []
    for i, (r, c) in enumerate(zip(raw, cells)):
        key = []
        for j, cell in enumerate(c):
            term = r[j] if j < len(r) else None
            tagged = isinstance(term, Literal) and bool(term.language)
            key.append(("thing", cell.entity) if tagged and cell.entity else (cell.value, term.language if tagged
                                                                              else None))
        k = tuple(key)
        if k not in kept:
            kept[k] = i
            order.append(k)
        elif rank(r) < rank(raw[kept[k]]):
            kept[k] = i
    idx = [kept[k] for k in order]
    return [raw[i] for i in idx], [cells[i] for i in idx]
