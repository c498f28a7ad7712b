"""The builder's messages, stable part first (asking.py), and the opened tool call of the local model (no model)."""

from __future__ import annotations

import json
import re

import pytest

from ontobuild import asking
from ontocore.llm import call_opening, opened_calls, render_qwen
from ontocore.prompts import build as prompts

STEPS = ["extract_facts", "same_concept"]  # the text step's calls (the others keep their prompts as they were)


@pytest.mark.parametrize("step", STEPS)
def test_a_steps_system_message_is_the_same_in_every_call_and_comes_first(step: str) -> None:
    instructions = prompts.load(step)
    assert not re.search(r"\{[a-z_]+\}", instructions)  # nothing that changes from call to call
    system = asking.system(step)
    assert system.startswith(prompts.render("system_builder")) and system.endswith(instructions.strip())
    wanted = set(re.findall(r"\{([a-z_]+)\}", prompts.load(f"{step}_input")))
    one = asking.messages(step, **{k: "first" for k in wanted})
    two = asking.messages(step, **{k: "second" for k in wanted})
    assert one[0] == two[0] and one[0]["role"] == "system" and one[1]["role"] == "user"
    assert one[1]["content"] != two[1]["content"]
    tools = [{"type": "function", "function": {"name": "t", "parameters": {"type": "object"}}}]
    assert render_qwen(one, tools).startswith("<|im_start|>system\n" + system)


def test_only_a_model_that_keeps_prefixes_is_told() -> None:
    told = []

    class Keeper:
        def keep_prefix(self, text: str, tools_follow: bool = False) -> None:
            told.append((text, tools_follow))

    asking.keep(Keeper(), "extract_facts")
    asking.keep(object(), "extract_facts")  # a remote model or a cassette: nothing to do
    assert told == [(asking.system("extract_facts"), True)]


def test_the_call_opening_is_what_the_model_writes_before_the_arguments() -> None:
    opening = call_opening("add_facts")
    assert opening == '{"name": "add_facts", "arguments":'
    call = json.loads(opening + ' {"facts": []}}')
    assert call == {"name": "add_facts", "arguments": {"facts": []}}


def test_opened_calls_is_set_for_the_block_only() -> None:
    class Local:
        open_single_calls = False

    model, other = Local(), object()
    with opened_calls(model), opened_calls(other):
        assert model.open_single_calls is True
    assert model.open_single_calls is False and not hasattr(other, "open_single_calls")
