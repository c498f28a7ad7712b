"""The opened tool call (llm.opened_calls): the local model is handed the opening of its one call (no model here;
the live test at the end runs the embedded model)."""

from __future__ import annotations

import json

import pytest

from conftest import local_model_or_skip
from ontocore.cassette import RecordingChat
from ontocore.llm import Usage, call_opening, opened_calls


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
