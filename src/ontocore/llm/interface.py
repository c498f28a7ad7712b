"""The chat interface both agents talk to, whatever the backend: a model's `chat` (OpenAI's message and tool format),
its reply (text or tool calls, with token counts), and the totals of a run (`Usage`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: str  # raw JSON text, as the model wrote it


@dataclass
class ChatReply:
    content: str | None
    tool_calls: list[ToolCall]
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0  # the model's own time (waiting for another process's inference is not counted)
    wait_seconds: float = 0.0
    # prompt tokens the model evaluated for this call, and prompt tokens it took from a kept state instead (the
    # previous call's context, or a saved prefix state: `prompt_loaded` of them); None when the backend does not
    # say (then all prompt tokens count as evaluated)
    prompt_evaluated: int | None = None
    prompt_reused: int = 0
    prompt_loaded: int = 0
    # how a grammar shaped the call (local model): "" none, "retried" (the free call did not fit its schema and was
    # made again under the grammar), "first" (asked under the grammar at once: GRAMMAR_FIRST)
    grammar: str = ""

    def evaluated(self) -> int:
        return self.prompt_tokens if self.prompt_evaluated is None else self.prompt_evaluated

    def message(self) -> dict[str, Any]:
        """The assistant message to append to the conversation."""
        msg: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            msg["tool_calls"] = [{"id": c.id, "type": "function",
                                  "function": {"name": c.name, "arguments": c.arguments}} for c in self.tool_calls]
        return msg

    def to_dict(self) -> dict[str, Any]:
        return {"content": self.content, "tool_calls": [vars(c) for c in self.tool_calls],
                "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "seconds": round(self.seconds, 3), "wait_seconds": round(self.wait_seconds, 3),
                "prompt_evaluated": self.evaluated(), "prompt_reused": self.prompt_reused,
                "prompt_loaded": self.prompt_loaded} | ({"grammar": self.grammar} if self.grammar else {})

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "ChatReply":
        return cls(content=d.get("content"), tool_calls=[ToolCall(**c) for c in d.get("tool_calls", [])],
                   prompt_tokens=d.get("prompt_tokens", 0), completion_tokens=d.get("completion_tokens", 0),
                   seconds=d.get("seconds", 0.0), prompt_evaluated=d.get("prompt_evaluated"),
                   prompt_reused=d.get("prompt_reused", 0), prompt_loaded=d.get("prompt_loaded", 0),
                   grammar=d.get("grammar", ""))


@dataclass
class Usage:
    """Totals for a run; goes into stats.json under the key `llm`."""

    backend: str
    model: str
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    wait_seconds: float = 0.0  # waiting for another process's local inference (not in as_dict)
    prompt_evaluated: int = 0  # prompt tokens the model evaluated
    prompt_reused: int = 0  # prompt tokens taken from a kept state instead (see ChatReply)
    prompt_loaded: int = 0  # of those, tokens whose state came from the prefix cache (memory or disk)
    grammar_retries: int = 0  # calls whose free reply did not fit the tool's schema and were made again under the grammar
    grammar_first: int = 0  # calls asked under the grammar at once (their tool's free calls mostly did not fit)
    replayed: int = 0  # replies taken from the calls an earlier run of the same build saved (savedcalls.py), not asked

    def add(self, reply: ChatReply) -> None:
        self.calls += 1
        self.grammar_retries += reply.grammar == "retried"
        self.grammar_first += reply.grammar == "first"
        self.prompt_tokens += reply.prompt_tokens
        self.completion_tokens += reply.completion_tokens
        self.seconds += reply.seconds
        self.wait_seconds += reply.wait_seconds
        self.prompt_evaluated += reply.evaluated()
        self.prompt_reused += reply.prompt_reused
        self.prompt_loaded += reply.prompt_loaded

    def snapshot(self) -> tuple[int, int, int, float]:
        return (self.calls, self.prompt_tokens, self.completion_tokens, self.seconds)

    def reuse_snapshot(self) -> tuple[int, int, int]:
        """(prompt tokens evaluated, reused, loaded from the prefix cache) so far."""
        return (self.prompt_evaluated, self.prompt_reused, self.prompt_loaded)

    def as_dict(self) -> dict[str, Any]:
        return {"backend": self.backend, "model": self.model, "calls": self.calls,
                "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "prompt_evaluated": self.prompt_evaluated, "prompt_reused": self.prompt_reused,
                "prompt_loaded": self.prompt_loaded, "grammar_retries": self.grammar_retries,
                "grammar_first": self.grammar_first, "replayed": self.replayed, "seconds": round(self.seconds, 2)}


class ChatModel(Protocol):
    backend: str
    model: str
    usage: Usage

    def chat(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None,
             tool_choice: str = "required", max_tokens: int = 1024, temperature: float = 0.0) -> ChatReply: ...
