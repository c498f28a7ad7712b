"""The one tool-calling agent loop used by both agents.

messages + tools -> model -> tool calls -> validated arguments -> tool result (or a precise error) back to
the model -> repeat, bounded in turns, ending in a clear state:
  answered         a terminal tool ran (its return value is the output)
  gave_up          the model kept failing (too many errors in a row) or kept repeating itself
  budget_exhausted the turns ran out"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field
from typing import Any

from .errors import ModelBehaviorError, ToolArgumentError, TurnLimitExceeded
from .llm import ChatModel, ChatReply, ToolCall
from .tools import Tool
from .trace import Trace

log = logging.getLogger(__name__)

_BARE_CALL = re.compile(r"^\s*(?:functions\.)?(\w+)\s*:\s*(\{.*\})?\s*$", re.S)
_TAGGED_CALL = re.compile(r"<tool_call>\s*(\{.*\})\s*(?:</tool_call>)?", re.S)


@dataclass
class Step:
    turn: int
    tool: str
    arguments: Any
    result: Any = None
    error: str | None = None


@dataclass
class AgentResult:
    state: str  # answered | gave_up | budget_exhausted
    output: Any = None
    steps: list[Step] = field(default_factory=list)
    turns: int = 0
    reason: str = ""

    def raise_for_state(self) -> Any:
        if self.state == "budget_exhausted":
            raise TurnLimitExceeded(f"The model did not finish within {self.turns} turns. {self.reason}".strip())
        if self.state == "gave_up":
            raise ModelBehaviorError(f"The model gave up: {self.reason}")
        return self.output


def recover_calls(reply: ChatReply, tools: dict[str, Tool]) -> list[ToolCall]:
    """Tool calls a model wrote as text instead of real calls: `functions.NAME: {...}` or `<tool_call>{...}`."""
    text = (reply.content or "").strip()
    m = _TAGGED_CALL.search(text)
    if m:
        try:
            obj = json.loads(m.group(1))
            return [ToolCall("recovered_0", obj["name"], json.dumps(obj.get("arguments", {})))]
        except (json.JSONDecodeError, KeyError, TypeError):
            return []
    m = _BARE_CALL.match(text)
    if m and m.group(1) in tools and m.group(2):
        return [ToolCall("recovered_0", m.group(1), m.group(2))]
    return []


def _render(result: Any, limit: int) -> str:
    text = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False, default=str)
    if len(text) > limit:
        text = text[:limit] + f" … [cut at {limit} characters; ask for a narrower result or the next page]"
    return text


def run_agent(model: ChatModel, messages: list[dict[str, Any]], tools: list[Tool], *, max_turns: int = 8,
              max_errors: int = 3, trace: Trace | None = None, result_chars: int = 3000,
              max_tokens: int = 1024, label: str = "") -> AgentResult:
    """Run the loop until a terminal tool is called; `messages` is extended in place. A model that keeps what it was
    asked (savedcalls.SavingChat) hears how the loop ended (`settle`): the exchanges of a decision taken are saved,
    those of a loop that failed are not."""
    settle = getattr(model, "settle", None)
    answered = False
    try:
        result = _loop(model, messages, tools, max_turns, max_errors, trace, result_chars, max_tokens, label)
        answered = result.state == "answered"
        return result
    finally:
        if settle is not None:
            settle(answered)


def _loop(model: ChatModel, messages: list[dict[str, Any]], tools: list[Tool], max_turns: int, max_errors: int,
          trace: Trace | None, result_chars: int, max_tokens: int, label: str) -> AgentResult:
    by_name = {t.name: t for t in tools}
    specs = [t.spec() for t in tools]
    steps: list[Step] = []
    errors_in_row = 0
    seen_calls: dict[str, int] = {}
    for turn in range(1, max_turns + 1):
        if turn == max_turns and any(t.terminal for t in tools) and len(tools) > 1:
            terminal = [t for t in tools if t.terminal]
            specs_now = [t.spec() for t in terminal]
            messages.append({"role": "user", "content": "Last turn: finish now with what you have."})
        else:
            specs_now = specs
        reply = model.chat(messages, tools=specs_now, tool_choice="required", max_tokens=max_tokens)
        calls = reply.tool_calls or recover_calls(reply, by_name)
        if trace:
            trace.write("llm", label=label, turn=turn, reply=reply.to_dict(), recovered=not reply.tool_calls and bool(calls))
        if not calls:
            errors_in_row += 1
            text = (reply.content or "").strip()
            messages.append({"role": "assistant", "content": text})
            problem = ("Your reply was cut off before the tool call was complete; send a shorter call."
                       if text.startswith("{") else
                       f"You must answer with a tool call to one of: {', '.join(by_name)}.")
            messages.append({"role": "user", "content": problem})
            steps.append(Step(turn, "", text, error=problem))
            if trace:
                trace.write("error", label=label, turn=turn, error=problem)
            if errors_in_row >= max_errors:
                return AgentResult("gave_up", steps=steps, turns=turn, reason=problem)
            continue
        reply.tool_calls = calls
        messages.append(reply.message())
        for call in calls:
            step = Step(turn, call.name, call.arguments)
            steps.append(step)
            key = f"{call.name}:{call.arguments}"
            seen_calls[key] = seen_calls.get(key, 0) + 1
            tool = by_name.get(call.name)
            try:
                if tool is None:
                    raise ToolArgumentError(f"There is no tool named '{call.name}'. Tools: {', '.join(by_name)}.")
                if seen_calls[key] > 2 and not tool.terminal:
                    raise ToolArgumentError(f"You already made this exact {call.name} call {seen_calls[key] - 1} "
                                            "times; its result is above. Do something different or finish.")
                step.arguments = tool.parse_arguments(call.arguments)
                step.result = tool.fn(**step.arguments)
                errors_in_row = 0
            except ToolArgumentError as e:
                step.error = str(e)
                errors_in_row += 1
            content = f"Error: {step.error}" if step.error else _render(step.result, result_chars)
            messages.append({"role": "tool", "tool_call_id": call.id, "name": call.name, "content": content})
            if trace:
                trace.write("tool", label=label, turn=turn, tool=call.name, arguments=step.arguments,
                            result=content if step.error is None else None, error=step.error)
            if tool is not None and tool.terminal and step.error is None:
                return AgentResult("answered", output=step.result, steps=steps, turns=turn)
        if errors_in_row >= max_errors:
            return AgentResult("gave_up", steps=steps, turns=turn, reason=steps[-1].error or "")
    return AgentResult("budget_exhausted", steps=steps, turns=max_turns,
                       reason=f"Last error: {steps[-1].error}" if steps and steps[-1].error else "")


def choose_one(model: ChatModel, prompt: str, tool: str, description: str, param: str, options: list[str], *,
               system: str, trace: Trace | None = None, label: str = "", max_tokens: int = 40) -> str | None:
    """One small constrained call: the model picks one of `options` (a JSON Schema enum) for `param` of a terminal
    tool named `tool`, after the `system` prompt; None when it gave no usable answer."""
    sink: dict[str, Any] = {}

    def pick(**args: Any) -> str:
        sink.update(args)
        return "ok"

    spec = Tool(tool, description, {"type": "object", "additionalProperties": False, "required": [param],
                                    "properties": {param: {"enum": list(options)}}}, pick, terminal=True)
    messages = [{"role": "system", "content": system}, {"role": "user", "content": prompt}]
    result = run_agent(model, messages, [spec], max_turns=2, trace=trace, label=label or tool, max_tokens=max_tokens)
    choice = sink.get(param)
    return choice if result.state == "answered" and choice in options else None
