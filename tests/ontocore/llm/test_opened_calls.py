"""The opened tool call (llm.opened_calls): the local model is handed the opening of its one call (no model here;
the live test at the end runs the embedded model)."""

from __future__ import annotations

import json

import pytest

from conftest import local_model_or_skip
from ontocore.cassette import RecordingChat
from ontocore.llm import Usage, opened_calls
from ontocore.llm.templates import call_opening


def test_the_call_opening_is_what_the_model_writes_before_the_arguments() -> None:
    opening = call_opening("add_facts")
    assert opening == '{"name": "add_facts", "arguments":'
    assert json.loads(opening + ' {"facts": []}}') == {"name": "add_facts", "arguments": {"facts": []}}


def test_opened_calls_is_set_for_the_block_only() -> None:
    class Local:
        open_single_calls = False

    model, remote = Local(), object()
    with opened_calls(model), opened_calls(remote):
        assert model.open_single_calls is True
    assert model.open_single_calls is False and not hasattr(remote, "open_single_calls")


def test_a_recording_passes_the_setting_on_to_the_model_it_records(tmp_path) -> None:
    class Local:
        backend, model, usage, open_single_calls = "local", "m", Usage("local", "m"), False

    inner = Local()
    recording = RecordingChat(inner, tmp_path / "c.json")
    with opened_calls(recording):
        assert inner.open_single_calls is True
    assert inner.open_single_calls is False


@pytest.mark.live
def test_an_opened_call_gives_the_arguments_of_a_call_written_whole() -> None:
    from ontobuild.check import record_weight

    model = local_model_or_skip()
    messages = [{"role": "system", "content": "You record facts by calling tools."},
                {"role": "user", "content": "The Orion lamp weighs 2.4 kg. Record it."}]
    whole = model.chat(messages, tools=[record_weight.spec()], max_tokens=60)
    with opened_calls(model):
        opened = model.chat(messages, tools=[record_weight.spec()], max_tokens=60)
    assert whole.tool_calls and opened.tool_calls
    assert json.loads(opened.tool_calls[0].arguments) == json.loads(whole.tool_calls[0].arguments)
    assert opened.completion_tokens < whole.completion_tokens  # the opening was given, not generated


def test_a_step_whose_free_calls_mostly_fail_is_asked_under_the_grammar_first() -> None:
    from ontocore.llm import ChatReply, LocalChat
    from ontocore.llm.localchat import GRAMMAR_FIRST_AFTER

    model = LocalChat.__new__(LocalChat)  # the decision alone: no model file loaded
    model._free_fits = {"map_rows": [False], "pick": [True, False, False, True]}
    assert not model._fits_rarely("map_rows") and not model._fits_rarely("pick") and GRAMMAR_FIRST_AFTER == 2
    model._free_fits["map_rows"].append(False)
    model._free_fits["pick"].append(False)
    assert model._fits_rarely("map_rows") and model._fits_rarely("pick") and not model._fits_rarely("other")
    usage = Usage("local", "m")
    for grammar in ("retried", "retried", "first", ""):
        usage.add(ChatReply(content=None, tool_calls=[], grammar=grammar))
    assert (usage.calls, usage.grammar_retries, usage.grammar_first) == (4, 2, 1)
    assert {"grammar_retries": 2, "grammar_first": 1}.items() <= usage.as_dict().items()


@pytest.mark.live
def test_the_grammar_goes_first_once_free_calls_of_a_step_mostly_failed() -> None:
    from ontocore.tools import Tool

    model = local_model_or_skip()
    tool = Tool("record_batch", "Record the batch code of a delivery.",
                {"type": "object", "additionalProperties": False, "required": ["batch"],
                 "properties": {"batch": {"type": "string", "pattern": "^BX[0-9]{4}$"}}}, lambda **a: "ok",
                terminal=True)
    messages = [{"role": "system", "content": "You record facts by calling tools."},
                {"role": "user", "content": "The delivery of cedar planks came in batch 12. Record its batch code."}]
    replies = [model.chat(messages, tools=[tool.spec()], max_tokens=40) for _ in range(3)]
    assert [r.grammar for r in replies] == ["retried", "retried", "first"]
    assert all(r.tool_calls for r in replies)
    assert (model.usage.grammar_retries, model.usage.grammar_first) == (2, 1)
