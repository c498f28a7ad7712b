"""The model calls of a run, saved as they are made, so that a run that fails or is killed after them repeats none.

A build pays for its model's decisions (record mappings, confirmed references, text facts per chunk, alignments,
repairs) one call at a time. `SavingChat` wraps the model: the exchanges of each decision are appended to a JSON
Lines file (`SAVED_CALLS_FILE`, in the unfinished outcome folder) as soon as the decision is taken (the agent loop
`settle`s: a terminal tool ran), each keyed by a hash of the request (the model, the messages, the tools with their
schemas, tool_choice, max_tokens, temperature, whether the call's opening was given); a request the file already
holds is answered from it without asking the model (a rerun with `ontobuild --resume`). A build's requests follow
from its inputs and the replies before them, so a rerun over the same inputs makes the same requests, up to where
the first run stopped. The calls of a conversation that ended without a decision are not kept: a rerun asks them
again (a model server that misbehaved once is not believed twice).

Each decision is written in one append and flushed to disk before the build goes on: a run killed at any moment
loses at most the decision it was taking, and a torn last line is ignored when the file is read. The model itself is opened
only when a request is not saved (`opener`): a rerun whose calls are all saved never loads it.

`SavedCalls` is also the benchmark's recording of real exchanges, replayed by key (bench/multitable_bench.py)."""

from __future__ import annotations

import hashlib
import json
import logging
import os
from pathlib import Path
from typing import Any, Callable

from .errors import OntoError
from .llm import ChatModel, ChatReply, Usage

log = logging.getLogger(__name__)

SAVED_CALLS_FILE = "model_calls.jsonl"


class NotSaved(OntoError):
    """A request that no saved call answers, when no model may be asked (a replay of recorded calls)."""


def call_key(model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, tool_choice: str,
             max_tokens: int, temperature: float, opened: bool = False) -> str:
    """The hash of a request: what the model was asked and how (`model`: backend/name)."""
    blob = json.dumps([model, messages, tools, tool_choice, max_tokens, temperature, opened], sort_keys=True,
                      ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class SavedCalls:
    """A file of saved model exchanges, one JSON object a line: {"key", "model", "label", "reply"}."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.replies: dict[str, dict[str, Any]] = {}
        self.models: set[str] = set()
        self.torn = 0  # lines that could not be read (a write cut short by a kill): ignored
        try:
            with open(self.path, encoding="utf-8", errors="replace") as fh:
                for line in fh:
                    self._take(line)
        except FileNotFoundError:
            pass
        except OSError as e:
            log.warning("the saved model calls in %s cannot be read (%s); they will be asked again", self.path, e)
        if self.torn:
            log.info("%s: %d unreadable line(s) ignored", self.path, self.torn)

    def _take(self, line: str) -> None:
        try:
            entry = json.loads(line)
            key, reply = entry["key"], entry["reply"]
            ChatReply.from_dict(reply)
        except (ValueError, KeyError, TypeError):
            self.torn += bool(line.strip())
            return
        self.replies[key] = reply
        self.models.add(str(entry.get("model", "")))

    def __len__(self) -> int:
        return len(self.replies)

    def get(self, key: str) -> ChatReply | None:
        reply = self.replies.get(key)
        return ChatReply.from_dict(reply) if reply is not None else None

    def add(self, exchanges: list[tuple[str, ChatReply, str, str]]) -> None:
        """Append exchanges (key, reply, model, label): one write of whole lines, flushed to disk before the caller
        goes on."""
        lines = [json.dumps({"key": key, "model": model, "label": label[:200], "reply": reply.to_dict()},
                            ensure_ascii=False) for key, reply, model, label in exchanges]
        raw = "".join(line + "\n" for line in lines).encode("utf-8")
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            view = memoryview(raw)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        for key, reply, _, _ in exchanges:
            self.replies[key] = reply.to_dict()


def refuse_to_ask(what: str) -> Callable[[], ChatModel]:
    """An opener for a replay that must not ask any model: NotSaved, naming `what` would have to be recorded."""
    def opener() -> ChatModel:
        raise NotSaved(f"a model call that {what} does not hold was needed (the prompts changed?); record it again.")
    return opener


class SavingChat:
    """A model whose exchanges are saved (`SavedCalls`) as they are made and answered from there when the same
    request was made before; the `usage` counts the calls asked and the replies `replayed`.

    `model`: the open model to ask, or `opener`: a function that opens it when a first request is not saved.
    `backend`, `name`: the model's identity before it is open (part of each request's key). `saved`: called after
    each decision's exchanges are saved (the build marks its unfinished folder resumable then). `keep_undecided`:
    save the calls of a conversation that ended without a decision too (a recording that must replay every call)."""

    def __init__(self, calls: SavedCalls, model: ChatModel | None = None,
                 opener: Callable[[], ChatModel] | None = None, backend: str = "", name: str = "",
                 saved: Callable[[], None] = lambda: None, keep_undecided: bool = False) -> None:
        if model is None and opener is None:
            raise ValueError("SavingChat needs a model or an opener")
        self.calls = calls
        self._model = model
        self._opener = opener
        self.backend = model.backend if model is not None else backend
        self.model = model.model if model is not None else name
        self.usage = Usage(self.backend, self.model)
        self._saved = saved
        self._keep_undecided = keep_undecided  # also save the calls of a conversation that took no decision
        self._open_single_calls = bool(getattr(model, "open_single_calls", False))
        self._pending: list[tuple[str, ChatReply, str, str]] = []  # the exchanges of the conversation going on

    @property
    def inner(self) -> ChatModel | None:
        """The model, when it is open."""
        return self._model

    @property
    def open_single_calls(self) -> bool:  # llm.opened_calls sets it; the inner model follows, once open
        return self._open_single_calls

    @open_single_calls.setter
    def open_single_calls(self, value: bool) -> None:
        self._open_single_calls = value
        if self._model is not None and hasattr(self._model, "open_single_calls"):
            self._model.open_single_calls = value

    def _open(self) -> ChatModel:
        if self._model is None:
            assert self._opener is not None
            self._model = self._opener()
            if hasattr(self._model, "open_single_calls"):
                self._model.open_single_calls = self._open_single_calls
        return self._model

    def chat(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None,
             tool_choice: str = "required", max_tokens: int = 1024, temperature: float = 0.0) -> ChatReply:
        identity = f"{self.backend}/{self.model}"
        key = call_key(identity, messages, tools, tool_choice, max_tokens, temperature, self._open_single_calls)
        reply = self.calls.get(key)
        if reply is not None:
            self.usage.replayed += 1
            return reply
        reply = self._open().chat(messages, tools=tools, tool_choice=tool_choice, max_tokens=max_tokens,
                                  temperature=temperature)
        self.usage.add(reply)
        last = messages[-1].get("content") if messages else ""
        self._pending.append((key, ChatReply.from_dict(reply.to_dict()), identity, str(last or "")))
        return reply

    def settle(self, decided: bool) -> None:
        """The conversation of the calls since the last settle ended (agent.run_agent): in a decision (its exchanges
        are saved now, in one append), or without one (they are not: a rerun asks again)."""
        pending, self._pending = self._pending, []
        if (decided or self._keep_undecided) and pending:
            self.calls.add(pending)
            if decided:
                self._saved()
        inner = getattr(self._model, "settle", None)  # a model that keeps its own calls (a recording) hears it too
        if inner is not None:
            inner(decided)

    def release(self) -> None:
        """Give the open model's memory back (LocalChat.release); a later call that is not saved opens it again."""
        release = getattr(self._model, "release", None)
        if release is not None:
            release()


__all__ = ["SAVED_CALLS_FILE", "NotSaved", "SavedCalls", "SavingChat", "call_key", "refuse_to_ask"]
