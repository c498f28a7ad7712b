"""Self-consistency: a result that passed every check is compared with second plans asked another way (the first
request sampled, then the request worded differently), within the same budget of model calls; two plans that
disagree make the answer "Unsure" with both. The comparison is code's (ontouse.agreement); the loop's mechanics
are tested with a scripted fake model, the graphs are the made-up ones of ontouse_graphs."""

from __future__ import annotations

from ontouse.agreement import same_answer
from ontouse.answer import Cell
from ontouse.answerer import MAX_ATTEMPTS, AnswerLoop
from ontouse.second_plans import SECOND_TEMPERATURE
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
    assert same_answer([[num("0")]], [[Cell("No")]], yesno=True)  # CASE ... ELSE 'No' END says no in a word
    assert not same_answer([[num("2")]], [[Cell("No")]], yesno=True)


# ---- the loop ----------------------------------------------------------------------------------------------
POSTED_AT_REEDS = sql("SELECT label FROM Ranger WHERE postedAt = 'Reeds'")
# the same rangers, the hut found by a query inside the plan: a nested reading leaves a doubt (a second plan); a join,
# a grouping or a ranking is read by the checks and leaves none
NESTED = sql("SELECT label FROM Ranger WHERE postedAt IN (SELECT iri FROM Hut WHERE label = 'Reeds')")
JOINED = sql("SELECT r.label FROM Hut AS h JOIN Ranger AS r ON r.postedAt = h.iri WHERE h.label = 'Reeds'")
NAMED_BY_JOIN = sql("SELECT r.label FROM Ranger AS r JOIN Hut AS h ON r.postedAt = h.iri WHERE h.label = 'Reeds'")
# two other readings that pass every check: the rangers whose warden works there, the two best paid there
WITH_WARDEN = sql("SELECT r.label FROM Ranger AS r JOIN Ranger AS w ON r.hasWarden = w.iri JOIN Hut AS h "
                  "ON w.postedAt = h.iri WHERE h.label = 'Reeds'")
HIRED = sql("SELECT r.label FROM Ranger AS r JOIN Hut AS h ON r.postedAt = h.iri WHERE h.label = 'Reeds' "
            "ORDER BY r.salary DESC LIMIT 2")
WARDEN_AT_REEDS = sql("SELECT r.label FROM Ranger AS r JOIN Ranger AS w ON r.hasWarden = w.iri "
                      "WHERE w.postedAt IN (SELECT iri FROM Hut WHERE label = 'Reeds')")
ASKED = "Which rangers work in Reeds?"
ONLY_ASKED = "Which rangers work only in Reeds?"
REEDS = ["Cleo Vance", "Dan Ferro", "Olaf Brand"]


def answer(*replies: str, second_plans: int = 2, max_attempts: int = MAX_ATTEMPTS, asked: str = ASKED):
    store, schema = view(PARKS)
    model = ScriptedModel(*replies)
    ans = AnswerLoop(store, model, schema=schema, max_attempts=max_attempts,
                   second_plans=second_plans).ask(asked)
    return ans, model, store


def check(ans, name: str) -> dict | None:
    return next((c for c in ans.checks if c["check"] == name), None)


def test_a_plain_plan_that_passes_is_stated_after_one_call() -> None:
    """One table read with plain conditions leaves no doubt: no second plan (one model call)."""
    ans, model, store = answer(POSTED_AT_REEDS)
    assert ans.state == "answered" and sorted(ans.values()) == REEDS and len(model.conversations) == 1
    assert_supported(ans, store)


def test_a_join_a_grouping_or_a_ranking_leaves_no_doubt() -> None:
    """What the checks read (which tables a join relates, what a ranking ranks by, its ties) is not asked again."""
    for plan in (NAMED_BY_JOIN, JOINED):
        ans, model, _ = answer(plan)
        assert ans.state == "answered" and sorted(ans.values()) == REEDS and len(model.conversations) == 1
    ans, model, _ = answer(sql("SELECT label FROM Ranger ORDER BY salary DESC LIMIT 1"),
                           asked="Which ranger has the highest salary?")
    assert ans.state == "answered" and ans.values() == ["Mira Stone"] and len(model.conversations) == 1


def test_a_second_plan_that_agrees_lets_the_answer_stand() -> None:
    ans, model, store = answer(NESTED, POSTED_AT_REEDS)
    assert ans.state == "answered" and sorted(ans.values()) == REEDS
    assert_supported(ans, store)
    assert len(model.conversations) == 2 and ans.llm_calls == 2
    first, sampled = model.conversations
    assert sampled == first  # the same request, sampled
    assert check(ans, "second_plan_agrees") == {"check": "second_plan_agrees", "passed": True,
                                                "detail": "1 second plan(s) give the same answer"}


def test_plans_that_disagree_are_decided_by_the_shape_the_question_asks_for() -> None:
    """"Which rangers ...": things, not one bare number; "how many": one number, not a list (arbitration.py)."""
    from ontouse.arbitration import Reading, arbitrate, shape_fits

    store, schema = view(PARKS)
    a = AnswerLoop(store, ScriptedModel(), schema=schema)
    which, many = parse_question(ASKED), parse_question("How many rangers work in Reeds?")
    names = a._run(which, "SELECT r.label FROM Ranger AS r JOIN Hut AS h ON r.postedAt = h.iri WHERE h.label = 'Reeds'")
    number = a._run(many, "SELECT COUNT(*) FROM Ranger AS r JOIN Hut AS h ON r.postedAt = h.iri "
                          "WHERE h.label = 'Reeds'")
    assert shape_fits(which, names.rows) and not shape_fits(which, number.rows)
    assert shape_fits(many, number.rows) and not shape_fits(many, names.rows)
    verdict = arbitrate(which, [Reading("first", number.plan, number.rows), Reading("sampled", names.plan,
                                                                                     names.rows)],
                        schema, a._identifiers)
    assert verdict.rule == "shape" and verdict.chosen == 1
    verdict = arbitrate(many, [Reading("first", number.plan, number.rows), Reading("sampled", names.plan,
                                                                                    names.rows)],
                        schema, a._identifiers)
    assert verdict.rule == "shape" and verdict.chosen == 0


def test_plans_that_disagree_are_decided_by_what_the_question_names() -> None:
    """The plan whose tables, columns and values cover more of the question's own words answers it."""
    from ontouse.arbitration import Reading, arbitrate

    store, schema = view(PARKS)
    a = AnswerLoop(store, ScriptedModel(), schema=schema)
    q = parse_question("Which rangers were hired at the hut Reeds?")
    hut = a._run(q, "SELECT r.label, r.hired FROM Ranger AS r JOIN Hut AS h ON r.postedAt = h.iri "
                    "WHERE h.label = 'Reeds'")
    budget = a._run(q, "SELECT r.label, h.budget FROM Ranger AS r JOIN Hut AS h ON r.postedAt = h.iri "
                       "WHERE h.label = 'Reeds'")
    verdict = arbitrate(q, [Reading("first", budget.plan, budget.rows), Reading("reworded", hut.plan, hut.rows)],
                        schema, a._identifiers)
    assert verdict.rule == "named" and verdict.chosen == 1 and "hired" in verdict.detail


def test_a_third_plan_decides_by_majority_when_no_rule_does() -> None:
    ans, model, store = answer(NESTED, WITH_WARDEN, POSTED_AT_REEDS)
    assert ans.state == "answered" and sorted(ans.values()) == REEDS and len(model.conversations) == 3
    assert ans.arbitration["rule"] == "majority" and ans.arbitration["chosen"] == "first"
    reworded = model.conversations[2]
    assert reworded[0] == model.conversations[0][0] and "First say in one line" in reworded[1]["content"]
    # the first plan outvoted: the second and third agree, and theirs is stated
    ans, model, store = answer(WARDEN_AT_REEDS, NESTED, POSTED_AT_REEDS)
    assert ans.state == "answered" and sorted(ans.values()) == REEDS
    assert ans.arbitration["rule"] == "majority" and ans.arbitration["chosen"] == "sampled"
    assert_supported(ans, store)


def test_three_plans_that_all_differ_make_the_answer_unsure_with_two_readings() -> None:
    ans, model, _ = answer(NESTED, WITH_WARDEN, HIRED)
    assert ans.state == "unsure" and ans.rows == [] and ans.support == [] and len(model.conversations) == 3
    assert "two readings: first: " in ans.answer and "; sampled: Cleo Vance;" in ans.answer
    assert ans.arbitration["rule"] == "undecided" and not check(ans, "plans_arbitrated")["passed"]


def test_the_sampled_plan_is_asked_with_a_temperature() -> None:
    store, schema = view(PARKS)
    temperatures: list[float] = []

    class Recording(ScriptedModel):
        def chat(self, messages, tools=None, tool_choice="required", max_tokens=1024, temperature=0.0):
            temperatures.append(temperature)
            return super().chat(messages, tools, tool_choice, max_tokens, temperature)

    AnswerLoop(store, Recording(NESTED, WITH_WARDEN, JOINED), schema=schema).ask(ASKED)
    assert temperatures == [0.0, SECOND_TEMPERATURE, 0.0]


def test_a_second_plan_without_a_result_is_no_evidence() -> None:
    """A second plan that does not run, or finds nothing, says nothing about the first: the next one is asked."""
    ans, model, _ = answer(NESTED, sql("SELECT label FROM Ranger WHERE shoe_size = 3"), POSTED_AT_REEDS)
    assert ans.state == "answered" and len(model.conversations) == 3
    assert check(ans, "second_plan_agrees")["detail"] == "1 second plan(s) give the same answer"
    # ("only": a question code would not answer by itself, so a plan that finds nothing stays empty: written.py)
    ans, model, _ = answer(NESTED, sql("SELECT label FROM Ranger WHERE shoe_size = 3"),
                           sql("SELECT label FROM Ranger WHERE postedAt = 'Birch'"), asked=ONLY_ASKED)
    assert ans.state == "answered" and len(model.conversations) == 3
    assert check(ans, "second_plan_agrees") is None  # nothing was compared


def test_second_plans_count_toward_the_same_budget_of_calls() -> None:
    """A first plan that needed a second attempt leaves one call for one second plan; none when it needed all."""
    wrong = sql("SELECT label FROM Ranger WHERE shoe_size = 'Reeds'")
    ans, model, _ = answer(wrong, NESTED, POSTED_AT_REEDS)
    assert ans.state == "answered" and len(model.conversations) == MAX_ATTEMPTS
    ans, model, _ = answer(wrong, wrong, NESTED)
    assert ans.state == "answered" and len(model.conversations) == MAX_ATTEMPTS
    assert check(ans, "second_plan_agrees") is None
    ans, model, _ = answer(NESTED, second_plans=0)
    assert ans.state == "answered" and len(model.conversations) == 1


def test_no_second_plan_for_a_result_that_is_not_stated() -> None:
    empty = sql("SELECT label FROM Ranger WHERE postedAt = 'Birch'")
    ans, model, _ = answer(empty, empty, empty, asked=ONLY_ASKED)
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

    model = FailingSecond(NESTED)
    ans = AnswerLoop(store, model, schema=schema).ask(ASKED)
    assert ans.state == "answered" and sorted(ans.values()) == REEDS
    assert len(model.conversations) == 2  # one second plan tried, none after the failure
    assert check(ans, "second_plan_agrees") is None


# ---- the checks that turned second plans away, on a second domain (the windmills are in test_verify_conditions)
def test_which_ranger_has_the_top_salary_and_is_there_a_warden_at_a_hut() -> None:
    from ontouse_graphs import NoModel

    store, schema = view(PARKS)
    answerer = AnswerLoop(store, NoModel(), schema=schema)
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
    ans = AnswerLoop(store, ScriptedModel(ranked, sql("SELECT MAX(salary) FROM Ranger")), schema=schema,
                   second_plans=1).ask(asked)
    assert ans.state == "answered" and ans.values() == ["Mira Stone"]
    a = AnswerLoop(store, ScriptedModel(), schema=schema)
    q = parse_question(asked)
    first = a._run(q, "SELECT label FROM Ranger ORDER BY salary DESC LIMIT 1")
    assert a._agree(q, first, a._run(q, "SELECT MAX(salary) FROM Ranger"))
    assert a._agree(q, a._run(q, "SELECT MAX(salary) FROM Ranger"), first)  # either way round
    assert not a._agree(q, first, a._run(q, "SELECT MAX(salary) FROM Ranger WHERE postedAt = 'Reeds'"))
    assert not a._agree(q, first, a._run(q, "SELECT AVG(salary) FROM Ranger"))
