"""Self-consistency: a result that passed every check is compared with second plans asked another way (the first
request sampled, then the request worded differently), within the same budget of model calls; two plans that
disagree make the answer "Unsure" with both. The comparison is code's (ontouse.agreement); the loop's mechanics
are tested with a scripted fake model, the graphs are the made-up ones of ontouse_graphs."""

from __future__ import annotations

from ontouse.agreement import same_answer
from ontouse.answer import Cell
from ontouse.ask import MAX_ATTEMPTS, SECOND_TEMPERATURE, Answerer
from ontouse.question import parse_question
from ontouse_graphs import PARKS, view
from test_ask_loop import ScriptedModel, assert_supported, sql

XSD_INT = "http://www.w3.org/2001/XMLSchema#integer"
XSD_DEC = "http://www.w3.org/2001/XMLSchema#decimal"


def name(text: str, thing: str) -> Cell:
    return Cell(text, entity=f"http://example.org/x#{thing}")


def thing(thing_name: str, label: str) -> Cell:
    return Cell(f"http://example.org/x#{thing_name}", is_iri=True, entity=f"http://example.org/x#{thing_name}",
                label=label)


def num(value: str, datatype: str = XSD_INT) -> Cell:
    return Cell(value, datatype=datatype)


# ---- the comparison ----------------------------------------------------------------------------------------
def test_the_same_rows_in_another_order_and_column_order_agree() -> None:
    first = [[name("Ada", "ada"), num("3")], [name("Ben", "ben"), num("5")]]
    second = [[num("5.0", XSD_DEC), name("Ben", "ben")], [num("3", XSD_INT), name("Ada", "ada")]]
    assert same_answer(first, second)


def test_a_name_and_the_thing_it_names_are_the_same_value() -> None:
    assert same_answer([[name("Ada Quill", "ada")]], [[thing("ada", "Ada Quill")]])
    # two things of the same name are two values
    assert not same_answer([[name("Kim", "kim1")]], [[name("Kim", "kim2")]])


def test_an_extra_column_beside_the_same_things_agrees() -> None:
    """One plan also shows the count it ranked by: the things are the same."""
    assert same_answer([[name("Ada", "ada")]], [[name("Ada", "ada"), num("7")]])
    assert not same_answer([[name("Ada", "ada")]], [[name("Ben", "ben"), num("7")]])


def test_other_rows_or_other_numbers_disagree() -> None:
    assert not same_answer([[name("Ada", "ada")], [name("Ben", "ben")]], [[name("Ada", "ada")]])
    assert not same_answer([[num("12")]], [[num("13")]])
    assert not same_answer([[num("2.5", XSD_DEC)]], [[num("2.4", XSD_DEC)]])


def test_yes_no_answers_agree_by_their_reading() -> None:
    assert same_answer([[num("4")]], [[num("1")]], yesno=True)  # two counts above 0: both "yes"
    assert not same_answer([[num("4")]], [[num("0")]], yesno=True)
    assert same_answer([], [[num("0")]], yesno=True)


# ---- the loop ----------------------------------------------------------------------------------------------
POSTED_AT_REEDS = sql("SELECT label FROM Ranger WHERE postedAt = 'Reeds'")
ASKED = "Which rangers work in Reeds?"


def answer(*replies: str, second_plans: int = 2, max_attempts: int = MAX_ATTEMPTS):
    store, schema = view(PARKS)
    model = ScriptedModel(*replies)
    ans = Answerer(store, model, schema=schema, max_attempts=max_attempts,
                   second_plans=second_plans).ask(ASKED)
    return ans, model, store


def test_two_second_plans_that_agree_let_the_answer_stand() -> None:
    ans, model, store = answer(POSTED_AT_REEDS, sql("SELECT iri FROM Ranger WHERE postedAt = 'Reeds'"),
                               sql("SELECT r.fullName, r.salary FROM Ranger AS r WHERE r.postedAt = 'Reeds'"))
    assert sorted(ans.values()) == ["Cleo Vance", "Dan Ferro", "Olaf Brand"]
    assert_supported(ans, store)
    assert len(model.conversations) == 3 and ans.llm_calls == 3
    first, sampled, reworded = model.conversations
    assert sampled == first  # the same request, sampled ...
    assert reworded[0] == first[0] and reworded[1]["content"].startswith(first[1]["content"])  # ... then reworded
    assert "First say in one line" in reworded[1]["content"]
    check = next(c for c in ans.checks if c["check"] == "second_plan_agrees")
    assert check["passed"] and check["detail"] == "2 second plan(s) give the same answer"


def test_a_second_plan_that_disagrees_makes_the_answer_unsure_with_both() -> None:
    ans, model, _ = answer(POSTED_AT_REEDS, sql("SELECT label FROM Ranger WHERE postedAt = 'Reeds' AND hired IS "
                                                "NOT NULL"))
    assert ans.state == "unsure" and ans.rows == [] and ans.support == []
    assert ans.answer.startswith("Unsure: a second plan (sampled: SELECT label FROM Ranger WHERE postedAt = "
                                 "'Reeds' AND hired IS NOT NULL) gives another answer: ")
    best = ans.answer.split("best candidate: ")[-1]  # ... and the first one's (rows in the engine's order)
    assert sorted(best.rstrip(".").split("; ")) == ["Cleo Vance", "Dan Ferro", "Olaf Brand"]
    assert len(model.conversations) == 2  # it stops at the first that disagrees
    assert {"check": "second_plan_agrees", "passed": False, "detail": ans.error} in ans.checks


def test_the_sampled_plan_is_asked_with_a_temperature() -> None:
    store, schema = view(PARKS)
    temperatures: list[float] = []

    class Recording(ScriptedModel):
        def chat(self, messages, tools=None, tool_choice="required", max_tokens=1024, temperature=0.0):
            temperatures.append(temperature)
            return super().chat(messages, tools, tool_choice, max_tokens, temperature)

    Answerer(store, Recording(POSTED_AT_REEDS, POSTED_AT_REEDS, POSTED_AT_REEDS), schema=schema).ask(ASKED)
    assert temperatures == [0.0, SECOND_TEMPERATURE, 0.0]


def test_a_second_plan_without_a_result_is_no_evidence() -> None:
    """A second plan that does not run, or finds nothing, says nothing about the first: the next one is asked."""
    ans, model, _ = answer(POSTED_AT_REEDS, sql("SELECT label FROM Ranger WHERE shoe_size = 3"), POSTED_AT_REEDS)
    assert ans.state == "answered" and len(model.conversations) == 3
    assert {"check": "second_plan_agrees", "passed": True, "detail": "1 second plan(s) give the same answer"} in \
        ans.checks
    ans, model, _ = answer(POSTED_AT_REEDS, sql("SELECT label FROM Ranger WHERE shoe_size = 3"),
                           sql("SELECT label FROM Ranger WHERE postedAt = 'Birch'"))
    assert ans.state == "answered" and len(model.conversations) == 3
    assert not any(c["check"] == "second_plan_agrees" for c in ans.checks)  # nothing was compared


def test_second_plans_count_toward_the_same_budget_of_calls() -> None:
    """A first plan that needed a second attempt leaves one call for one second plan; none when it needed all."""
    wrong = sql("SELECT label FROM Ranger WHERE shoe_size = 'Reeds'")
    ans, model, _ = answer(wrong, POSTED_AT_REEDS, POSTED_AT_REEDS)
    assert ans.state == "answered" and len(model.conversations) == MAX_ATTEMPTS
    ans, model, _ = answer(wrong, wrong, POSTED_AT_REEDS)
    assert ans.state == "answered" and len(model.conversations) == MAX_ATTEMPTS
    assert not any(c["check"] == "second_plan_agrees" for c in ans.checks)
    ans, model, _ = answer(POSTED_AT_REEDS, second_plans=0)
    assert ans.state == "answered" and len(model.conversations) == 1


def test_no_second_plan_for_a_result_that_is_not_stated() -> None:
    empty = sql("SELECT label FROM Ranger WHERE postedAt = 'Birch'")
    ans, model, _ = answer(empty, empty, empty)
    assert ans.state == "no_data" and len(model.conversations) == MAX_ATTEMPTS


def test_a_model_failure_in_a_second_plan_keeps_the_first_answer() -> None:
    from ontocore.errors import ModelServerError

    store, schema = view(PARKS)

    class FailingSecond(ScriptedModel):
        def chat(self, messages, tools=None, tool_choice="required", max_tokens=1024, temperature=0.0):
            if self.conversations:
                self.conversations.append(messages)
                raise ModelServerError("the model server answered 503")
            return super().chat(messages, tools, tool_choice, max_tokens, temperature)

    model = FailingSecond(POSTED_AT_REEDS)
    ans = Answerer(store, model, schema=schema).ask(ASKED)
    assert ans.state == "answered" and sorted(ans.values()) == ["Cleo Vance", "Dan Ferro", "Olaf Brand"]
    assert len(model.conversations) == 2  # one second plan tried, none after the failure
    assert not any(c["check"] == "second_plan_agrees" for c in ans.checks)


# ---- the checks that turned second plans away, on a second domain (the windmills are in test_verify_conditions)
def test_which_ranger_has_the_top_salary_and_is_there_a_warden_at_a_hut() -> None:
    from ontouse_graphs import NoModel

    store, schema = view(PARKS)
    answerer = Answerer(store, NoModel(), schema=schema)
    ans = answerer.answer_sql("Which ranger has the highest salary?", "SELECT MAX(salary) FROM Ranger")
    assert ans.state == "unsure" and "asks which Ranger" in ans.error
    ans = answerer.answer_sql("Which ranger has the highest salary?",
                              "SELECT label FROM Ranger ORDER BY salary DESC LIMIT 1")
    assert ans.state == "answered" and ans.values() == ["Mira Stone"]
    ans = answerer.answer_sql("Is there a warden at the Birch hut?", "SELECT COUNT(*) FROM Hut WHERE label = 'Birch'")
    assert ans.state == "unsure" and "whether there is a Warden" in ans.error
    ans = answerer.answer_sql("Is there a warden at the Birch hut?",
                              "SELECT COUNT(*) FROM Warden AS w JOIN Hut AS h ON w.postedAt = h.iri "
                              "WHERE h.label = 'Birch'")
    assert ans.state == "answered" and ans.boolean is False


def test_the_command_and_a_batch_take_the_number_of_second_plans(tmp_path) -> None:
    import json

    from click.testing import CliRunner

    from ontouse.cli import ask_command
    from ontouse.runs import run_batch
    from ontouse_graphs import GROVE

    ttl = tmp_path / "grove.ttl"
    ttl.write_text(GROVE, encoding="utf-8")
    questions = tmp_path / "questions.json"
    questions.write_text(json.dumps(["How many trees are there?"]))
    model = ScriptedModel(sql("SELECT COUNT(*) FROM Tree"))
    run_batch([ttl], questions, out=tmp_path / "out", model=model, second_plans=0)
    rows = json.loads((tmp_path / "out" / "answers.json").read_text())
    assert [r["llm_calls"] for r in rows] == [1] and rows[0]["state"] == "answered"
    result = CliRunner().invoke(ask_command, ["--ontology", str(ttl), "--second-plans", "3", "How many trees?"])
    assert result.exit_code == 2 and "--second-plans" in result.output


def test_a_ranked_plan_agrees_with_its_top_value() -> None:
    """"Who earns the highest salary?": the ranger by one plan, the top salary by the other. The ranked plan is
    read with the salary it ranked by beside its row, so the two agree; another value does not."""
    store, schema = view(PARKS)
    asked = "Who earns the highest salary?"
    ranked = sql("SELECT label FROM Ranger ORDER BY salary DESC LIMIT 1")
    ans = Answerer(store, ScriptedModel(ranked, sql("SELECT MAX(salary) FROM Ranger")), schema=schema,
                   second_plans=1).ask(asked)
    assert ans.state == "answered" and ans.values() == ["Mira Stone"]
    a = Answerer(store, ScriptedModel(), schema=schema)
    q = parse_question(asked)
    first = a._run(q, "SELECT label FROM Ranger ORDER BY salary DESC LIMIT 1")
    assert a._agree(q, first, a._run(q, "SELECT MAX(salary) FROM Ranger"))
    assert a._agree(q, a._run(q, "SELECT MAX(salary) FROM Ranger"), first)  # either way round
    assert not a._agree(q, first, a._run(q, "SELECT MAX(salary) FROM Ranger WHERE postedAt = 'Reeds'"))
    assert not a._agree(q, first, a._run(q, "SELECT AVG(salary) FROM Ranger"))
