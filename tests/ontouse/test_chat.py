"""The conversation loop (ontouse.chat, runs.run_chat) with a scripted model, on graphs of two domains: a
follow-up is rewritten from the earlier turns, the rewrite is what gets answered and is shown and kept; a first
question or an unusable rewrite is asked as typed. (The model's real rewrites are exercised by the live test.)"""

from __future__ import annotations

import json
from pathlib import Path

from ontouse.answerer import AnswerLoop
from ontouse.chat import Conversation
from ontouse.runs import run_chat
from ontouse_graphs import GROVE, PARKS, view
from test_ask_loop import ScriptedModel, sql


def test_follow_up_is_rewritten_from_the_history_and_answered() -> None:
    store, schema = view(PARKS)
    model = ScriptedModel(sql("SELECT label FROM Ranger ORDER BY salary ASC LIMIT 1"),
                          "What is the salary of Dan Ferro?",
                          sql("SELECT salary FROM Ranger WHERE label = 'Dan Ferro'"))
    chat = Conversation(AnswerLoop(store, model, schema=schema, second_plans=0))
    first = chat.ask("Who earns the least?")
    assert first.asked == "Who earns the least?" and first.answer.values() == ["Dan Ferro"]
    assert len(model.conversations) == 1  # no rewrite without history
    second = chat.ask("and his salary?")
    rewrite_prompt = model.conversations[1][-1]["content"]
    assert "Q: Who earns the least?" in rewrite_prompt and "A: Dan Ferro." in rewrite_prompt
    assert "Next question: and his salary?" in rewrite_prompt
    assert second.answer.asked == "What is the salary of Dan Ferro?" and second.answer.values() == ["3900"]
    assert second.answer.question == "and his salary?" and second.answer.llm_calls == 2
    assert second.answer.render().startswith("(asked as: What is the salary of Dan Ferro?)\n3900.")
    assert second.answer.support


def test_unusable_rewrite_falls_back_to_the_question(tmp_path: Path) -> None:
    ttl = tmp_path / "grove.ttl"
    ttl.write_text(GROVE, encoding="utf-8")
    count, figs = sql("SELECT COUNT(*) FROM Tree"), sql("SELECT COUNT(*) FROM Tree WHERE fruit = 'fig'")
    model = ScriptedModel(count, count, count,  # the plan and its two second plans (test_second_plans.py)
                          "Sure! Here are some options:\n1. How many figs?\n2. How many apples?",  # not one question
                          figs, figs, figs)
    shown: list[str] = []
    out = run_chat([ttl], ["How many trees are there?\n", "\n", "How many of them are figs?\n", "quit\n", "ignored"],
                   out=tmp_path / "chat", model=model, show=shown.append)
    assert shown[0].startswith("4.") and shown[1].startswith("2.") and "(asked as" not in shown[1]
    rows = json.loads((out / "answers.json").read_text())
    assert [r["question"] for r in rows] == ["How many trees are there?", "How many of them are figs?"]
    assert all(r["support"] for r in rows) and "asked" not in rows[1]
    assert json.loads((out / "stats.json").read_text())["questions"] == 2


def test_a_follow_up_is_rewritten_in_the_users_language() -> None:
    """The rewrite prompt names the language of the conversation (a short follow-up is hard to identify: the last
    question's language stands in); a rewrite surely in another language is asked again once, told the language."""
    from ontouse.answer import Answer
    from ontouse.chat import Turn

    store, schema = view(PARKS)
    model = ScriptedModel("What is the salary of Dan Ferro?", "Wie hoch ist das Gehalt von Dan Ferro?")
    chat = Conversation(AnswerLoop(store, model, schema=schema, second_plans=0))
    first = Answer(question="Wer verdient am wenigsten?", answer="Dan Ferro.", state="answered", language="de")
    chat.turns.append(Turn(question=first.question, asked=first.question, answer=first))
    assert chat.language("und sein Gehalt?") == "de"
    assert chat.standalone("und sein Gehalt?") == "Wie hoch ist das Gehalt von Dan Ferro?"
    prompt = model.conversations[0][-1]["content"]
    assert "Write it in German, the language of the next question." in prompt and "A: Dan Ferro." in prompt
    assert model.conversations[1][-1]["content"] == "Write it in German, on one line."  # the English one, re-asked
    assert Conversation(AnswerLoop(store, model, schema=schema, second_plans=0)).language("How many rangers are there?") == "en"
