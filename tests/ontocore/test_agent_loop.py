"""The tool loop's mechanics with a scripted fake model (the loop, not the product: no answer is faked here),
tool schemas derived from signatures, prompt files, the Qwen template and cassette checks."""

from __future__ import annotations

import json
from typing import Any, Literal

import pytest

from ontobuild.prompts import prompts
from ontocore.agent import run_agent
from ontocore.cassette import CassetteMismatch, RecordingChat, ReplayChat
from ontocore.errors import OntoError, ToolArgumentError, TurnLimitExceeded
from ontocore.llm import ChatReply, ToolCall, Usage
from ontocore.llm.templates import call_schema, parse_call, render_qwen
from ontocore.tools import Tool, tool


class ScriptedModel:
    """Plays back a fixed list of replies; records what it was sent."""

    backend, model = "scripted", "script"

    def __init__(self, replies: list[ChatReply]) -> None:
        self.replies, self.sent = list(replies), []
        self.usage = Usage(self.backend, self.model)

    def chat(self, messages, tools=None, tool_choice="required", max_tokens=1024, temperature=0.0) -> ChatReply:
        self.sent.append(json.loads(json.dumps(messages)))
        reply = self.replies.pop(0)
        self.usage.add(reply)
        return reply


def call(name: str, args: Any) -> ChatReply:
    return ChatReply(None, [ToolCall("c", name, args if isinstance(args, str) else json.dumps(args))])


@tool
def add(a: int, b: int = 0) -> int:
    """Add two numbers.

    Args:
        a: first number
        b: second number
    """
    return a + b


@tool(terminal=True)
def finish(text: str, kind: Literal["x", "y"] = "x") -> str:
    """Finish with a text."""
    return text


def test_schema_from_signature() -> None:
    assert add.description == "Add two numbers."
    assert add.parameters == {"type": "object", "additionalProperties": False, "required": ["a"], "properties": {
        "a": {"type": "integer", "description": "first number"},
        "b": {"type": "integer", "description": "second number"}}}
    assert finish.parameters["properties"]["kind"] == {"enum": ["x", "y"]}
    with pytest.raises(ToolArgumentError, match="a: 'two' is not of type 'integer'"):
        add.parse_arguments('{"a": "two"}')
    with pytest.raises(ToolArgumentError, match="not valid JSON"):
        add.parse_arguments("{a: 1")


def test_errors_go_back_to_the_model_and_the_loop_finishes() -> None:
    model = ScriptedModel([call("nope", {}), call("add", {"a": "x"}), call("add", {"a": 2, "b": 3}),
                           call("finish", {"text": "5"})])
    result = run_agent(model, [{"role": "user", "content": "2+3?"}], [add, finish])
    assert result.state == "answered" and result.output == "5"
    tool_msgs = [m["content"] for m in model.sent[-1] if m["role"] == "tool"]
    assert tool_msgs[0].startswith("Error: There is no tool named 'nope'")
    assert "Invalid arguments for add: a" in tool_msgs[1]
    assert tool_msgs[2] == "5"


def test_bare_text_call_is_recovered() -> None:
    model = ScriptedModel([ChatReply('functions.finish: {"text": "hi"}', [])])
    result = run_agent(model, [{"role": "user", "content": "x"}], [add, finish])
    assert result.state == "answered" and result.output == "hi"


def test_turn_limit_and_give_up_are_clear_states() -> None:
    model = ScriptedModel([call("add", {"a": i}) for i in range(4)])
    result = run_agent(model, [{"role": "user", "content": "x"}], [add, finish], max_turns=3)
    assert result.state == "budget_exhausted"
    with pytest.raises(TurnLimitExceeded):
        result.raise_for_state()
    model = ScriptedModel([ChatReply("I don't know", [])] * 3)
    result = run_agent(model, [{"role": "user", "content": "x"}], [add, finish], max_turns=5)
    assert result.state == "gave_up" and result.turns == 3


def test_repeated_identical_calls_are_refused() -> None:
    model = ScriptedModel([call("add", {"a": 1})] * 3 + [call("finish", {"text": "ok"})])
    result = run_agent(model, [{"role": "user", "content": "x"}], [add, finish], max_turns=6)
    assert result.state == "answered"
    assert "already made this exact add call" in (result.steps[2].error or "")


def test_prompts_fail_loudly() -> None:
    text = prompts.render("repair", report="r", entities="e")
    assert "r" in text and "{" not in text
    with pytest.raises(OntoError, match="missing variables \\['entities'\\]"):
        prompts.render("repair", report="r")
    with pytest.raises(OntoError, match="unused \\['extra'\\]"):
        prompts.render("repair", report="r", entities="e", extra=1)


def test_qwen_template_and_call_schema() -> None:
    msgs = [{"role": "system", "content": "S"}, {"role": "user", "content": "U"},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "1", "type": "function", "function": {"name": "add", "arguments": '{"a": 1}'}}]},
            {"role": "tool", "tool_call_id": "1", "content": "1"}]
    text = render_qwen(msgs, [add.spec()])
    assert text.startswith("<|im_start|>system\nS\n\n# Tools") and '"name":"add"' in text
    assert '<tool_call>\n{"name": "add", "arguments": {"a": 1}}\n</tool_call>' in text
    assert text.endswith("<tool_response>\n1\n</tool_response><|im_end|>\n<|im_start|>assistant\n")
    schema = call_schema([add.spec(), finish.spec()])
    assert [o["properties"]["name"]["const"] for o in schema["anyOf"]] == ["add", "finish"]


def test_a_shown_form_is_what_the_model_reads_and_the_checked_form_what_its_call_must_fit() -> None:
    checked = {"type": "object", "additionalProperties": False, "required": ["color"],
               "properties": {"color": {"enum": ["teal", "amber"]}}}
    shown = {"type": "object", "properties": {"color": {"type": "string"}}}
    paint = Tool("paint", "Paint the wall.", checked, lambda color: color, terminal=True, shown=shown)
    text = render_qwen([{"role": "user", "content": "U"}], [paint.spec()])
    assert '"color":{"type":"string"}' in text and "teal" not in text
    assert call_schema([paint.spec()])["properties"]["arguments"] == checked
    # a key the model adds beside what was asked is dropped; a choice outside the enum is still refused
    calls = parse_call('{"name": "paint", "arguments": {"color": "amber", "coats": 2}}', [paint.spec()], "c1")
    assert [json.loads(c.arguments) for c in calls] == [{"color": "amber"}]
    assert parse_call('{"name": "paint", "arguments": {"color": "olive"}}', [paint.spec()], "c2") == []


def test_cassette_replays_and_catches_changed_requests(tmp_path) -> None:
    real = ScriptedModel([call("finish", {"text": "hi"})])
    path = tmp_path / "c.json"
    rec = RecordingChat(real, path)
    rec.chat([{"role": "user", "content": "x"}], tools=[finish.spec()])
    replay = ReplayChat(path)
    assert replay.chat([{"role": "user", "content": "x"}], tools=[finish.spec()]).tool_calls[0].name == "finish"
    replay = ReplayChat(path)
    with pytest.raises(CassetteMismatch, match="re-record"):
        replay.chat([{"role": "user", "content": "changed"}], tools=[finish.spec()])
