"""Every question of the OWL bench (tests/data/owl_aquarium_questions.json) has a plan over the view that gives
its gold answer, through the same reading, checks and support as a plan the model writes (AnswerLoop.answer_sql,
no model): what the view of a non-database-shaped OWL ontology lets a plan express (hierarchies at any depth,
named individuals as values, inverse properties, owl:sameAs, ratios, comparisons, "both", most common)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.score import is_correct
from ontouse.answerer import AnswerLoop
from ontouse.sqlplan.schema_build import build_schema
from ontouse.storage.store import GraphStore
from ontouse_graphs import NoModel

DATA = Path(__file__).resolve().parents[1] / "data"
QUESTIONS = {q["query"]: q for q in json.loads((DATA / "owl_aquarium_questions.json").read_text("utf-8"))}
STATUS = "JOIN ConservationStatus AS s ON a.conservationStatus = s.iri"
PLANS = {
    "How many fish are there?": "SELECT COUNT(*) FROM Fish",
    "How many animals are there?": "SELECT COUNT(*) FROM Animal",
    "How many invertebrates are there?": "SELECT COUNT(*) FROM Invertebrate",
    "How many keepers are there?": "SELECT COUNT(*) FROM Keeper",
    "Which animals are endangered?": f"SELECT a.label FROM Animal AS a {STATUS} WHERE s.label = 'endangered'",
    "How many animals are vulnerable?": f"SELECT COUNT(*) FROM Animal AS a {STATUS} WHERE s.label = 'vulnerable'",
    "Which animals are herbivores?": "SELECT a.label FROM Animal AS a JOIN Diet AS d ON a.diet = d.iri "
                                     "WHERE d.label = 'herbivore'",
    "Which animals come from the Pacific Ocean?": "SELECT a.label FROM Animal AS a JOIN Ocean AS o ON "
                                                  "a.nativeTo = o.iri WHERE o.label = 'Pacific Ocean'",
    "Which keeper cares for Tula?": "SELECT k.label FROM Animal AS a JOIN Keeper AS k ON a.caredForBy = k.iri "
                                    "WHERE a.label = 'Tula'",
    "Which exhibit houses Otto?": "SELECT e.label FROM Exhibit AS e JOIN Animal AS a ON e.houses = a.iri "
                                  "WHERE a.label = 'Otto'",
    "How many animals live in the Coral Reef?": "SELECT COUNT(*) FROM Animal AS a JOIN Exhibit AS e ON "
                                                "a.livesIn = e.iri WHERE e.label = 'Coral Reef'",
    "What percentage of the animals are endangered?": f"SELECT 100.0 * (SELECT COUNT(*) FROM Animal AS a {STATUS} "
                                                      "WHERE s.label = 'endangered') / COUNT(*) FROM Animal",
    "What percentage of the fish are sharks?": "SELECT 100.0 * (SELECT COUNT(*) FROM Shark) / COUNT(*) FROM Fish",
    "Does Bruno weigh more than Tula?": "SELECT COUNT(*) FROM Animal AS a, Animal AS b WHERE a.label = 'Bruno' "
                                        "AND b.label = 'Tula' AND a.weightKg > b.weightKg",
    "Does the Open Ocean exhibit house more animals than the Kelp Forest?":
        "SELECT COUNT(*) FROM Exhibit AS x WHERE x.label = 'Open Ocean' AND (SELECT COUNT(*) FROM Animal AS a "
        "JOIN Exhibit AS e ON a.livesIn = e.iri WHERE e.label = 'Open Ocean') > (SELECT COUNT(*) FROM Animal AS a "
        "JOIN Exhibit AS e ON a.livesIn = e.iri WHERE e.label = 'Kelp Forest')",
    "Which exhibits have signs in both German and Spanish?":
        "SELECT e.iri FROM Exhibit AS e JOIN Language AS l ON e.signLanguage = l.iri WHERE l.label = 'German' "
        "INTERSECT SELECT e.iri FROM Exhibit AS e JOIN Language AS l ON e.signLanguage = l.iri "
        "WHERE l.label = 'Spanish'",
    "Which keepers speak both English and German?":
        "SELECT k.iri FROM Keeper AS k JOIN Language AS l ON k.speaks = l.iri WHERE l.label = 'English' "
        "INTERSECT SELECT k.iri FROM Keeper AS k JOIN Language AS l ON k.speaks = l.iri WHERE l.label = 'German'",
    "Which ocean are most of the sharks native to?":
        "SELECT o.iri FROM Shark AS s JOIN Ocean AS o ON s.nativeTo = o.iri GROUP BY o.iri "
        "ORDER BY COUNT(*) DESC LIMIT 1",
    "What is the most common diet of the animals in the Coral Reef?":
        "SELECT d.iri FROM Animal AS a JOIN Diet AS d ON a.diet = d.iri JOIN Exhibit AS e ON a.livesIn = e.iri "
        "WHERE e.label = 'Coral Reef' GROUP BY d.iri ORDER BY COUNT(*) DESC LIMIT 1",
    "Which animal is the heaviest?": "SELECT label FROM Animal ORDER BY weightKg DESC LIMIT 1",
    "Which shark has the lowest weight?": "SELECT label FROM Shark ORDER BY weightKg ASC LIMIT 1",
    "What is the average weight of the sea turtles?": "SELECT AVG(weightKg) FROM SeaTurtle",
    "What is the registry code of Bruno?": "SELECT registryCode FROM Animal WHERE label = 'Bruno'",
    "Is there an endangered ray?": "SELECT COUNT(*) FROM Ray AS a JOIN ConservationStatus AS s ON "
                                   "a.conservationStatus = s.iri WHERE s.label = 'endangered'",
}


@pytest.fixture(scope="module")
def answerer() -> AnswerLoop:
    store = GraphStore.from_paths([DATA / "owl_aquarium.ttl"])
    return AnswerLoop(store, NoModel(), schema=build_schema(store))


def test_every_question_has_a_plan() -> None:
    assert set(PLANS) == set(QUESTIONS)


@pytest.mark.parametrize("question", sorted(PLANS))
def test_plan_gives_the_gold_answer_with_support(answerer: AnswerLoop, question: str) -> None:
    ans = answerer.answer_sql(question, PLANS[question])
    assert ans.state == "answered", (ans.answer, ans.error)
    assert is_correct(ans.answer, QUESTIONS[question]["expected"]), ans.answer
    assert ans.support and all(c["passed"] for c in ans.checks), (ans.support, ans.checks)
