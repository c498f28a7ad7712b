"""Cutting a large view to the part a question is about (relevance.py), on two made-up domains."""

from __future__ import annotations

import importlib

import pytest

from ontouse.answerer import AnswerLoop
from ontouse.question import parse_question
from ontouse.relevance import Relevance
from ontouse.view_prompt import estimate_tokens, schema_ddl, shown_tables

from ontouse_graphs import CATALOG, PARKS, view

ask_mod = importlib.import_module("ontouse.answerer")  # the answer loop's module


def _select(ttl: str, question: str, budget_tables: int, mentioned: set[str] = frozenset()):
    _, schema = view(ttl)
    rel = Relevance(schema, shown_tables(schema))
    return rel.select(question, set(mentioned), lambda tables, keep: len(tables) <= budget_tables)


@pytest.mark.parametrize("ttl, question, first", [
    (PARKS, "What is the budget of each hut?", "Hut"),
    (PARKS, "Which people earn a salary above 5000?", "Ranger"),
    (CATALOG, "Which supplier names are known?", "Supplier"),
    (CATALOG, "Which categories are there?", "Category"),
])
def test_the_table_closest_to_the_question_comes_first(ttl: str, question: str, first: str) -> None:
    tables, _ = _select(ttl, question, 1)
    assert [t.name for t in tables] == [first]


def test_linked_tables_follow_so_joins_stay_possible() -> None:
    tables, _ = _select(PARKS, "In which hut does Ada Quill work?", 2, {"Ranger"})
    assert {t.name for t in tables} == {"Ranger", "Hut"}
    tables, _ = _select(CATALOG, "Which supplier delivers the Iron rake?", 2, {"Product"})
    assert {t.name for t in tables} == {"Product", "Supplier"}


def test_a_mentioned_table_is_always_shown() -> None:
    tables, _ = _select(CATALOG, "How much does it cost?", 1, {"Category"})
    assert [t.name for t in tables] == ["Category"]


def test_answerer_cuts_a_view_over_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    store, schema = view(PARKS)
    whole = AnswerLoop(store, model=None, schema=schema)
    assert whole.relevance is None and "CREATE TABLE Hut" in whole.system
    monkeypatch.setattr(ask_mod, "FULL_VIEW_TOKENS", 10)
    small = estimate_tokens(schema_ddl(schema, [schema.table("Hut")]))
    monkeypatch.setattr(ask_mod, "PART_VIEW_TOKENS", small + 5)
    cut = AnswerLoop(store, model=None, schema=schema)
    assert cut.relevance is not None
    question = "What is the budget of the Reeds hut?"
    text = cut._system_for(question, cut.index.mentions(parse_question(question)))
    assert "CREATE TABLE Hut" in text and "CREATE TABLE Ranger" not in text
