"""Record and replay real model exchanges (cassettes), for tests and reproducible runs.

A cassette is a JSON file: the backend and model that produced it, and each exchange's request hash, a
short view of the request and the model's real reply. Replay serves the replies in order and checks that
each request is the one that was recorded, so a changed prompt is caught instead of silently answered."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from .errors import OntoError
from .llm import ChatModel, ChatReply, Usage


class CassetteMismatch(OntoError):
    """The code sent a request the cassette did not record (prompts or tools changed): re-record it."""


def request_key(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, tool_choice: str,
                max_tokens: int, temperature: float = 0.0) -> str:
    parts: list[Any] = [messages, tools, tool_choice, max_tokens] + ([temperature] if temperature else [])
    blob = json.dumps(parts, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


class RecordingChat:
    """Wraps a real model and writes every exchange to `path` (rewritten after each call)."""

    def __init__(self, inner: ChatModel, path: str | Path) -> None:
        self.inner, self.path = inner, Path(path)
        self.backend, self.model, self.usage = inner.backend, inner.model, inner.usage
        self.entries: list[dict[str, Any]] = []
        if hasattr(inner, "open_single_calls"):  # recorded as the build runs it (llm.opened_calls)
            self.open_single_calls = inner.open_single_calls

    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__(name, value)
        if name == "open_single_calls":
            self.inner.open_single_calls = value

    def chat(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None,
             tool_choice: str = "required", max_tokens: int = 1024, temperature: float = 0.0) -> ChatReply:
        reply = self.inner.chat(messages, tools=tools, tool_choice=tool_choice, max_tokens=max_tokens,
                                temperature=temperature)
        last = messages[-1]
        self.entries.append({"key": request_key(messages, tools, tool_choice, max_tokens, temperature),
                             "last_message": {"role": last["role"], "content": (last.get("content") or "")[:300]},
                             "tools": [t["function"]["name"] for t in tools or []],
                             "reply": reply.to_dict()})
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps({"backend": self.backend, "model": self.model, "exchanges": self.entries},
                                        indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        return reply


class ReplayChat:
    """Serves recorded real replies in order; raises CassetteMismatch when the request differs."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        data = json.loads(self.path.read_text(encoding="utf-8"))
        self.backend, self.model = data["backend"], data["model"]
        self.entries: list[dict[str, Any]] = data["exchanges"]
        self.position = 0
        self.usage = Usage(self.backend, self.model)

    def chat(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None,
             tool_choice: str = "required", max_tokens: int = 1024, temperature: float = 0.0) -> ChatReply:
        if self.position >= len(self.entries):
            raise CassetteMismatch(f"{self.path.name}: the code asked for exchange {self.position + 1} but only "
                                   f"{len(self.entries)} were recorded; re-record the cassette.")
        entry = self.entries[self.position]
        key = request_key(messages, tools, tool_choice, max_tokens, temperature)
        if key != entry["key"]:
            raise CassetteMismatch(
                f"{self.path.name}: exchange {self.position + 1} differs from the recording (recorded last "
                f"message: {entry['last_message']['content'][:120]!r}; sent: "
                f"{(messages[-1].get('content') or '')[:120]!r}); re-record the cassette.")
        self.position += 1
        reply = ChatReply.from_dict(entry["reply"])
        self.usage.add(reply)
        return reply
