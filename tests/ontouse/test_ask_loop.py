"""The answer loop (ontouse.answerer.AnswerLoop) with a scripted fake model: errors and empty results go back to the model with
the precise problem, the attempts are bounded, and what the answer says (rows, yes/no, counts, support triples,
SPARQL) is computed by code from the graph; `runs.run_batch` writes the outcome folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rdflib import Literal, URIRef

from ontocore.errors import InputError
from ontocore.llm import ChatReply, Usage
from ontouse.answer import NO_DATA
from ontouse.answerer import MAX_ATTEMPTS, AnswerLoop
from ontouse.attempt import extract_sql
from ontouse.runs import read_questions, run_batch
from ontouse_graphs import GROVE, PARKS, store_of, view

XSD_INTEGER = "http://www.w3.org/2001/XMLSchema#integer"


class ScriptedModel:
    """Replies with the given texts in order; records every conversation it was sent."""

    backend = "scripted"
    model = "fake"

    def __init__(self, *replies: str) -> None:
        self.replies = list(replies)
        self.usage = Usage(backend=self.backend, model=self.model)
        self.conversations: list[list[dict]] = []

    def chat(self, messages, tools=None, tool_choice="required", max_tokens=1024, temperature=0.0) -> ChatReply:
        self.conversations.append([dict(m) for m in messages])
        reply = ChatReply(content=self.replies.pop(0), tool_calls=[], prompt_tokens=100, completion_tokens=20)
        self.usage.add(reply)
        return reply


def sql(text: str) -> str:
    return f"Here it is:\n```sql\n{text}\n```"


def ask(ttl: str, question: str, *replies: str):
    store, schema = view(ttl)
    model = ScriptedModel(*replies)
    return AnswerLoop(store, model, schema=schema, second_plans=0).ask(question), model, store


def in_graph(store, triple: list[str]) -> bool:
    """Is the rendered support triple [s, p, o] (prefixed names, literal forms) a triple of the graph?"""
    def iri(name: str) -> URIRef:
        prefix, _, local = name.partition(":")
        return URIRef(store.prefixes[prefix] + local) if prefix in store.prefixes else URIRef(name.strip("<>"))

    s, p, o = iri(triple[0]), iri(triple[1]), triple[2]
    return any((isinstance(x, Literal) and str(x) == o) or (isinstance(x, URIRef) and x == iri(o))
               for x in store.graph.objects(s, p))


def assert_supported(ans, store) -> None:
    assert ans.state == "answered" and ans.support
    assert all(in_graph(store, t) for t in ans.support), ans.support


# ---- extract_sql -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("reply, expected", [
    ("```sql\nSELECT 1 FROM t\n```", "SELECT 1 FROM t"),
    ("```sqlite\nSELECT 2 FROM t\n```", "SELECT 2 FROM t"),  # bug fixed: gave "ite\nSELECT 2 FROM t"
    ("```SQL\nSELECT 3 FROM t", "SELECT 3 FROM t"),  # an unclosed block
    ("The query is SELECT 4 FROM t;", "SELECT 4 FROM t;"),
    ("no query", "no query"),
])
def test_extract_sql(reply: str, expected: str) -> None:
    assert extract_sql(reply) == expected


# ---- the loop ----------------------------------------------------------------------------------------------
def test_unknown_column_goes_back_with_the_precise_error() -> None:
    ans, model, store = ask(PARKS, "Which rangers work in Reeds?",
                            sql("SELECT e.label FROM Ranger e WHERE e.shoe_size = 'Reeds'"),
                            sql("SELECT e.label FROM Ranger e WHERE e.postedAt = 'Reeds'"))
    assert len(model.conversations) == 2 and ans.llm_calls == 2
    second = model.conversations[1]
    assert second[-2] == {"role": "assistant",
                          "content": sql("SELECT e.label FROM Ranger e WHERE e.shoe_size = 'Reeds'")}
    assert "`e.shoe_size`: e is the table Ranger, which has no column `shoe_size`." in second[-1]["content"]
    assert "Columns of Ranger: iri, label, fullName, hasWarden, hired, postedAt, salary." in second[-1]["content"]
    assert sorted(ans.values()) == ["Cleo Vance", "Dan Ferro", "Olaf Brand"]
    assert len(ans.sparql) == 1 and "parks#postedAt>" in ans.sparql[0]  # only the plan that compiled ran
    assert_supported(ans, store)


def test_a_column_two_joins_away_is_reached_without_asking_again() -> None:
    """reach_column: fruit is a column of Tree, which a grower reaches through its care rows only."""
    ans, model, store = ask(GROVE, "Which growers have a fig?",
                            sql("SELECT given_name FROM Grower WHERE fruit = 'figs'"))
    assert len(model.conversations) == 1 and ans.llm_calls == 1
    assert sorted(ans.values()) == ["Edda", "Mirko"] and ans.repairs == ["reach_column", "value_spelling"]
    assert '"value": "fig"' in json.dumps(ans.plan)  # the repaired plan is the one recorded
    assert_supported(ans, store)


def test_empty_result_is_no_data_after_the_bounded_attempts() -> None:
    empty = sql("SELECT label FROM Ranger WHERE postedAt = 'Birch'")
    ans, model, _ = ask(PARKS, "Who works in Birch?", empty, empty, empty, empty)
    assert len(model.conversations) == MAX_ATTEMPTS and len(model.replies) == 1
    assert "the query ran but found no rows" in model.conversations[1][-1]["content"]
    assert ans.state == "no_data" and ans.answer.startswith(NO_DATA) and ans.rows == [] and ans.support == []
    assert len(ans.sparql) == MAX_ATTEMPTS and "the query ran but found no rows" in ans.error


def test_empty_result_message_names_the_failing_join() -> None:
    bad = sql("SELECT o.given_name FROM Grower o JOIN TreeCare h ON h.tc_tree = o.grower_id")
    ans, model, _ = ask(GROVE, "Which growers have trees?", bad,
                        sql("SELECT DISTINCT o.given_name FROM Grower o JOIN TreeCare h ON h.tc_grower = o.grower_id"))
    assert ("the join h.tc_tree = o.grower_id matches no pair of rows. TreeCare and Grower join on "
            "TreeCare.tc_grower = Grower.grower_id.") in model.conversations[1][-1]["content"]
    assert sorted(ans.values()) == ["Edda", "Mirko"]


def test_attempts_are_bounded_by_max_attempts() -> None:
    store, schema = view(GROVE)
    model = ScriptedModel(*[sql("SELECT nothing FROM Tree")] * 5)
    ans = AnswerLoop(store, model, schema=schema, max_attempts=2, second_plans=0).ask("Which trees are there?")
    # no usable plan, every one naming a column the view lacks: the data has no answer (what was looked for is said)
    assert len(model.conversations) == 2 and ans.state == "no_data" and ans.sparql == []
    assert "nothing" in ans.answer and ans.view_misses == ["nothing"]


def test_yes_no_question() -> None:
    ans, _, store = ask(PARKS, "Is Mira Stone a warden?", sql("SELECT iri FROM Warden WHERE label = 'Mira Stone'"))
    assert ans.boolean is True and ans.answer == "Yes." and ans.values() == ["true"]
    assert ans.table() == [["http://example.org/parks#mira"]]
    assert_supported(ans, store)
    assert [":mira", "rdf:type", ":Warden"] in ans.support


def test_yes_no_question_answered_no_with_what_was_checked() -> None:
    ans, model, store = ask(GROVE, "Does Runa tend a tree?",
                            sql("SELECT h.iri FROM TreeCare h JOIN Grower o ON o.grower_id = h.tc_grower "
                                "WHERE o.given_name = 'Runa'"))
    assert len(model.conversations) == 1  # nothing found is the answer: no retry
    assert ans.boolean is False and ans.answer == "No." and ans.state == "answered"
    assert_supported(ans, store)


def test_count() -> None:
    ans, _, store = ask(GROVE, "How many figs are there?", sql("SELECT COUNT(*) FROM Tree WHERE fruit = 'fig'"))
    assert ans.answer == "2." and ans.table() == [["2"]] and ans.llm_calls == 1
    assert sorted({t[0] for t in ans.support}) == [":t11", ":t12"]
    assert_supported(ans, store)


def test_count_asked_with_a_list_goes_back() -> None:
    ans, model, store = ask(PARKS, "How many rangers work in Reeds?",
                            sql("SELECT label FROM Ranger WHERE postedAt = 'Reeds'"),
                            sql("SELECT COUNT(*) FROM Ranger WHERE postedAt = 'reeds'"))
    assert "the question asks how many, but the query returns a list of rows" in model.conversations[1][-1]["content"]
    assert ans.answer == "3." and ans.repairs == ["name_spelling"]
    assert_supported(ans, store)


def test_count_over_no_matching_rows_is_no_data_when_the_model_stands_by_it() -> None:
    """An aggregate over no matching rows is "No data available" (was: "0." with the triples of the rangers
    that were checked, which are other things than the question's)."""
    zero = sql("SELECT COUNT(*) FROM Ranger WHERE postedAt = 'Birch'")
    ans, model, store = ask(PARKS, "How many rangers work in Birch?", zero, zero, zero)
    assert len(model.conversations) == 3
    assert "the query counts nothing (the result is 0)" in model.conversations[1][-1]["content"]
    assert ans.state == "no_data" and ans.answer.startswith(NO_DATA) and not ans.support
    assert {"check": "rows_matched", "passed": False, "detail": "the aggregate ran over no matching rows"} in ans.checks


def test_every_answered_answer_has_support_in_the_graph() -> None:
    cases = [(PARKS, "Who earns the most?", "SELECT label FROM Ranger ORDER BY salary DESC LIMIT 1",
              ["Mira Stone"]),
             (PARKS, "Which huts have no rangers?", "SELECT d.label FROM Hut d LEFT JOIN Ranger e "
              "ON e.postedAt = d.iri WHERE e.iri IS NULL", ["Birch"]),
             (GROVE, "What is the average age of figs?", "SELECT AVG(tree_age) FROM Tree WHERE fruit = 'fig'", ["4.5"]),
             (GROVE, "Which fruits are there?", "SELECT DISTINCT fruit FROM Tree", ["apple", "fig", "quince"])]
    for ttl, question, text, values in cases:
        ans, _, store = ask(ttl, question, sql(text))
        assert sorted(ans.values()) == values, question
        assert_supported(ans, store)
    ans, _, _ = ask(PARKS, "Who earns the most?", sql("SELECT label FROM Ranger ORDER BY salary DESC LIMIT 1"))
    assert [":mira", ":salary", "9100"] in ans.support


def test_cells_name_things_by_their_label() -> None:
    ans, _, _ = ask(PARKS, "Who supervises Ada Quill?", sql("SELECT hasWarden FROM Ranger WHERE label = 'Ada Quill'"))
    cell = ans.rows[0][0]
    assert cell.is_iri and cell.value == "http://example.org/parks#mira" and cell.label == "Mira Stone"
    assert ans.answer == "Mira Stone."


def test_graph_without_individuals_is_an_input_error() -> None:
    """(A graph of classes without individuals is asked about its classes: tests/ontouse/test_inputs_questions.py.)"""
    store = store_of("@prefix : <http://example.org/x#> . :a :p :b .")
    with pytest.raises(InputError, match="no typed individuals"):
        AnswerLoop(store, ScriptedModel())


# ---- batches -----------------------------------------------------------------------------------------------
def test_run_batch_writes_answers_and_stats(tmp_path: Path) -> None:
    ttl = tmp_path / "grove.ttl"
    ttl.write_text(GROVE, encoding="utf-8")
    questions = tmp_path / "questions.json"
    questions.write_text(json.dumps([{"query": "How many trees are there?"}, "Which growers live at Fernhill?"]))
    # plain plans that pass leave no doubt: one call each (second plans: test_second_plans.py)
    count, fernhill = sql("SELECT COUNT(*) FROM Tree"), sql("SELECT given_name FROM Grower WHERE home_farm = 'Fernhill'")
    model = ScriptedModel(count, fernhill)
    out = tmp_path / "out"
    from io import StringIO

    from rich.console import Console

    from ontocore.progress import TerminalProgress

    screen = StringIO()
    progress = TerminalProgress(Console(file=screen, force_terminal=True, width=120))
    summary = run_batch([ttl], questions, out=out, model=model, progress=progress)
    progress.close()
    assert "question 2 of 2: answered, 1 call(s)" in screen.getvalue()
    assert summary.startswith("2/2 answered, 1.0 calls") and f"outcome: {out}" in summary
    rows = json.loads((out / "answers.json").read_text())
    assert rows[0]["answer"] == "4." and rows[0]["rows"] == [[{"value": "4", "datatype": XSD_INTEGER}]]
    assert sorted(c["value"] for row in rows[1]["rows"] for c in row) == ["Edda", "Runa"]
    assert [r["llm_calls"] for r in rows] == [1, 1] and all(r["state"] == "answered" for r in rows)
    assert all(r["support"] and r["sparql"] and r["plan"] for r in rows)
    stats = json.loads((out / "stats.json").read_text())
    assert stats["questions"] == 2 and stats["answered"] == 2 and stats["tables"] == 3
    assert stats["llm"]["calls"] == 2 and stats["ontology"] == [str(ttl)]
    assert (out / "answers.log").is_file()


def test_read_questions_errors(tmp_path: Path) -> None:
    path = tmp_path / "q.json"
    path.write_text(json.dumps({"questions": [{"question": "Who?", "expected": ["x"]}]}))
    assert read_questions(path) == [{"question": "Who?", "expected": ["x"], "query": "Who?"}]
    for bad, needle in [([], "non-empty list of questions"), ([{"query": " "}], "has no question text"),
                        ([3], "is not a question")]:
        path.write_text(json.dumps(bad))
        with pytest.raises(InputError, match=needle):
            read_questions(path)


def test_which_question_answered_about_other_things_goes_back() -> None:
    """The question asks which huts; the first query lists rangers; the second answers."""
    ans, model, store = ask(PARKS, "Which huts have rangers earning over 9000?",
                            sql("SELECT e.label FROM Ranger e JOIN Hut d ON e.postedAt = d.iri "
                                "WHERE e.salary > 9000"),
                            sql("SELECT d.label FROM Ranger e JOIN Hut d ON e.postedAt = d.iri "
                                "WHERE e.salary > 9000"))
    assert "the question asks which Hut" in model.conversations[1][-1]["content"]
    assert ans.values() == ["Pinewood"] and ans.llm_calls == 2
    ans, model, _ = ask(GROVE, "Which growers have a quince?",
                        sql("SELECT p.tree_id FROM Tree p WHERE p.fruit = 'quince'"),
                        sql("SELECT o.given_name FROM Grower o WHERE o.home_farm = 'Fernhill'"),
                        sql("SELECT o.given_name FROM Grower o WHERE o.home_farm = 'Fernhill'"))
    assert "the question asks which Grower" in model.conversations[1][-1]["content"]
    # the second query lists growers, but not those with a quince: it leaves out the value the question names
    assert "the question names 'quince', but the query does not use it" in model.conversations[2][-1]["content"]
    assert ans.state == "unsure"


WORKS = """@prefix : <http://example.org/works#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
""" + "".join(f":c{i} a :Crane ; rdfs:label \"Crane {i}\" ; :liftT {10 + i} ; :onSite :s{i % 3} .\n" for i in range(40)) + \
    "".join(f":s{i} a :Site ; rdfs:label \"Site {i}\" .\n" for i in range(3)) + """
:silo a :Bin ; rdfs:label "cement silo" ; :capacityT 90 .
"""


def test_a_table_the_view_leaves_out_is_shown_when_the_question_names_its_thing() -> None:
    """A thing only a text spoke of sits in a small part of the graph the prompt leaves out; naming it brings its
    table (and a hint) into the prompt."""
    ans, model, _ = ask(WORKS, "How many tonnes does the cement silo hold?",
                        sql("SELECT capacityT FROM Bin WHERE label = 'cement silo'"))
    system, user = model.conversations[0][0]["content"], model.conversations[0][1]["content"]
    assert "CREATE TABLE Bin" in system and "'cement silo' is a value of Bin.label" in user
    assert ans.values() == ["90"]
    _, model, _ = ask(WORKS, "Which crane lifts the most?", sql("SELECT iri FROM Crane ORDER BY liftT DESC LIMIT 1"))
    assert "CREATE TABLE Bin" not in model.conversations[0][0]["content"]


def test_a_table_of_text_passages_is_left_out_of_the_view() -> None:
    """Passages kept verbatim (with links to what they mention) tempt a small model to search text instead of
    facts; they stay queryable but the prompt leaves them out."""
    long = "The crane inspection covers hoist ropes, brakes and limit switches; " * 3
    ttl = WORKS + "".join(f":t{i} a :Passage ; rdfs:label \"note {i}\" ; :text \"{long}{i}\" ; :mentions :c{i} .\n"
                          for i in range(4))
    _, model, _ = ask(ttl, "Which crane lifts the most?", sql("SELECT iri FROM Crane ORDER BY liftT DESC LIMIT 1"))
    system = model.conversations[0][0]["content"]
    assert "CREATE TABLE Crane" in system and "CREATE TABLE Passage" not in system


def test_a_named_value_with_apostrophes_written_unquoted_is_quoted() -> None:
    """A name the question gives ("Rock 'N' Sons") written by the model between quotes as it is."""
    from ontouse_graphs import HEAD, NoModel

    store, schema = view(HEAD + """@prefix : <http://example.org/shops#> .
        :Shop a owl:Class . :s1 a :Shop ; rdfs:label "Rock 'N' Sons" ; :opened 1999 .
        :s2 a :Shop ; rdfs:label "Mill Lane" ; :opened 2004 .
        :s3 a :Shop ; rdfs:label "O'Hara Mills" ; :opened 1987 .""")
    a = AnswerLoop(store, NoModel(), schema=schema)
    ans = a.answer_sql("When did Rock 'N' Sons open?", "SELECT opened FROM Shop WHERE label = 'Rock 'N' Sons'")
    assert ans.state == "answered" and ans.answer.startswith("1999")
    # the closing quote left out after such a name (the model read the name's apostrophe as its end)
    ans = a.answer_sql("Which opened first, O'Hara Mills or Mill Lane?",
                       "SELECT label FROM Shop WHERE label = 'O'Hara Mills OR label = 'Mill Lane' "
                       "ORDER BY opened LIMIT 1")
    assert ans.state == "answered" and ans.answer.startswith("O'Hara Mills"), ans.answer
