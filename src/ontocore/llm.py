"""One small chat interface for both agents, with two backends.

- `openai`: any OpenAI-compatible endpoint (OpenAI, Ollama, vLLM, llama.cpp server, LM Studio) with native tools.
- `local`: llama.cpp in process (llama-cpp-python, `LocalChat`, or xllamacpp's prebuilt wheel, `XLlamaChat`:
  `local_chat` picks the one installed), prompts in Qwen's native chat and tool format. A tool call is
  generated freely, then validated against a JSON Schema of "one call to one of these tools"; when it does
  not fit, it is generated again under a grammar built from that schema, so the model can only emit a
  well-formed call to an existing tool (no bare `functions.NAME:` text, no broken JSON). Free generation
  first because grammar sampling over Qwen's 150k-token vocabulary is several times slower.

Messages and tools use the OpenAI chat format on both sides."""

from __future__ import annotations

import json
import logging
import os
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Protocol

from . import cores
from .errors import InputError, ModelBudgetError, ModelServerError, ModelUnavailable, OntoError
from .redaction import redact, register_secret

if TYPE_CHECKING:
    from .prefixcache import PrefixCache

log = logging.getLogger(__name__)

DEFAULT_OPENAI_MODEL = "gpt-4o-mini"


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
                "prompt_loaded": self.prompt_loaded}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "ChatReply":
        return cls(content=d.get("content"), tool_calls=[ToolCall(**c) for c in d.get("tool_calls", [])],
                   prompt_tokens=d.get("prompt_tokens", 0), completion_tokens=d.get("completion_tokens", 0),
                   seconds=d.get("seconds", 0.0), prompt_evaluated=d.get("prompt_evaluated"),
                   prompt_reused=d.get("prompt_reused", 0), prompt_loaded=d.get("prompt_loaded", 0))


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

    def add(self, reply: ChatReply) -> None:
        self.calls += 1
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
                "prompt_loaded": self.prompt_loaded, "seconds": round(self.seconds, 2)}


class ChatModel(Protocol):
    backend: str
    model: str
    usage: Usage

    def chat(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None,
             tool_choice: str = "required", max_tokens: int = 1024, temperature: float = 0.0) -> ChatReply: ...


def _env_number(name: str, default: Any, kind: type) -> Any:
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        value = kind(raw)
    except ValueError:
        raise InputError(f"{name}={raw!r} is not a number.") from None
    if value < 0 or (kind is float and value == 0):
        raise InputError(f"{name}={raw!r} must be positive.")
    return value


# ---- openai ------------------------------------------------------------------------------------------
class OpenAIChat:
    """Chat completions on any OpenAI-compatible endpoint."""

    backend = "openai"

    def __init__(self, model: str | None = None, base_url: str | None = None, api_key: str | None = None,
                 timeout: float | None = None, retries: int | None = None) -> None:
        import openai

        self.model = model or os.environ.get("ONTOBUILD_MODEL") or DEFAULT_OPENAI_MODEL
        base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
        # a server of one's own (Ollama, vLLM, LM Studio, llama.cpp) needs no key: its address alone is enough
        key = api_key or os.environ.get("OPENAI_API_KEY") or ("not-needed" if base_url else None)
        if not key:
            raise ModelUnavailable("No API key: set OPENAI_API_KEY or pass --api-key (or --base-url / "
                                   "OPENAI_BASE_URL for your own server).")
        self.timeout = timeout if timeout is not None else _env_number("ONTOBUILD_MODEL_TIMEOUT", 120.0, float)
        self.retries = retries if retries is not None else _env_number("ONTOBUILD_MODEL_RETRIES", 2, int)
        self._secrets = [key]
        register_secret(key)
        # redirects are never followed: the key must not travel to an address the user did not give
        self._client = openai.OpenAI(api_key=key, base_url=base_url,
                                     timeout=openai.Timeout(self.timeout, connect=min(10.0, self.timeout)),
                                     max_retries=self.retries,
                                     http_client=openai.DefaultHttpxClient(follow_redirects=False))
        self.server = redact(str(self._client.base_url), self._secrets)
        self._errors = (openai.APIError,)
        self._required_ok = True
        self._tokens_param = "max_tokens"  # "max_completion_tokens" once the server says so (reasoning models)
        self._temperature_ok = True
        self._step = (1024, 0)  # the step's max_tokens and the reasoning allowance of the request being made
        # a reasoning model (it reported reasoning tokens, or asked for max_completion_tokens) gets its reasoning
        # budget on top of each step's, and a reasoning effort while the server takes that parameter
        self.reasoning = False
        self.reasoning_tokens = _env_number("ONTOBUILD_REASONING_TOKENS", REASONING_TOKENS, int)
        self.reasoning_effort = os.environ.get("ONTOBUILD_REASONING_EFFORT", REASONING_EFFORT).strip()
        self.usage = Usage(self.backend, self.model)

    def _adapt(self, error: Exception, kwargs: dict[str, Any]) -> bool:
        """Adapt the request to a parameter the server refused, as OpenAI's reasoning models refuse
        `max_tokens` and a temperature other than the default; decided from the server's error, never from the
        model's name. True when the request changed (retry it)."""
        body = getattr(error, "body", None)
        info = body.get("error", body) if isinstance(body, dict) else {}
        param = str((info or {}).get("param") or "")
        text = f"{error} {param}".lower()
        if "max_tokens" in kwargs and ("max_tokens" == param or "'max_tokens'" in text) and \
                ("max_completion_tokens" in text or "unsupported" in text):
            self._tokens_param = "max_completion_tokens"  # OpenAI's reasoning models: a reasoning budget too
            self.reasoning = True
            self._budget(kwargs, *self._step)
            return True
        if "temperature" in kwargs and ("temperature" == param or "'temperature'" in text) and "unsupported" in text:
            self._temperature_ok = False
            kwargs.pop("temperature")
            return True
        if "reasoning_effort" in kwargs and ("reasoning_effort" == param or "reasoning_effort" in text):
            self.reasoning_effort = ""  # the server does not take it: the budget alone
            kwargs.pop("reasoning_effort")
            return True
        return False

    def ping(self, timeout_s: float = 5.0) -> str:
        """"" when the model server answers (its model list; any HTTP answer, even an error, shows it is up),
        else why it cannot be reached: a readiness check that costs no generation."""
        import openai

        try:
            self._client.with_options(timeout=timeout_s, max_retries=0).models.list()
        except openai.AuthenticationError:
            return f"the model server at {self.server} refused the API key"
        except openai.APIStatusError:
            return ""  # it answered: a server without a model list is still up
        except (openai.APIConnectionError, openai.APITimeoutError) as e:
            return f"cannot reach the model server at {self.server}: {redact(str(e), self._secrets).rstrip('.')}"
        except Exception as e:  # noqa: BLE001 - a reply that is not a model list: it answered
            log.debug("model list of %s: %s", self.server, e)
        return ""

    def _budget(self, kwargs: dict[str, Any], max_tokens: int, allowance: int) -> None:
        """The completion budget of a request: the step's `max_tokens`, plus `allowance` for a reasoning model
        (whose reasoning counts against it), with its reasoning effort."""
        kwargs.pop("max_tokens", None)
        kwargs.pop("max_completion_tokens", None)
        kwargs[self._tokens_param] = max_tokens + (allowance if self.reasoning else 0)
        if self.reasoning and self.reasoning_effort:
            kwargs["reasoning_effort"] = self.reasoning_effort

    def chat(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None,
             tool_choice: str = "required", max_tokens: int = 1024, temperature: float = 0.0) -> ChatReply:
        kwargs: dict[str, Any] = {"model": self.model, "messages": messages}
        allowance = self.reasoning_tokens
        self._step = (max_tokens, allowance)
        self._budget(kwargs, max_tokens, allowance)
        if self._temperature_ok:
            kwargs["temperature"] = temperature
        if tools:
            kwargs["tools"] = tools
            choice = tool_choice
            if choice == "required" and len(tools) == 1:
                choice = {"type": "function", "function": {"name": tools[0]["function"]["name"]}}
            elif choice == "required" and not self._required_ok:
                choice = "auto"
            kwargs["tool_choice"] = choice
        start = time.perf_counter()
        for budget_try in range(2):  # a reply cut at the budget is asked once more with a larger reasoning budget
            resp = self._create(kwargs)
            choice = resp.choices[0] if getattr(resp, "choices", None) else None
            if getattr(choice, "finish_reason", None) != "length":
                break
            thought = _reasoning_tokens(resp)
            if thought or self._tokens_param == "max_completion_tokens":
                self.reasoning = True
            if budget_try == 0 and self.reasoning:
                allowance = max(allowance * 2, self.reasoning_tokens)
                log.info("the model stopped at its token budget after %d reasoning tokens; asking again with %d",
                         thought, max_tokens + allowance)
                self._step = (max_tokens, allowance)
                self._budget(kwargs, max_tokens, allowance)
                continue
            used = getattr(resp.usage, "completion_tokens", 0) if getattr(resp, "usage", None) else 0
            budget = kwargs.get(self._tokens_param, max_tokens)
            why = (f"{thought} of its {used or budget} completion tokens were reasoning" if thought else
                   f"it used all {used or budget} completion tokens the step allows")
            raise ModelBudgetError(
                f"The model {self.model} at {self.server} stopped at its token budget (finish_reason \"length\") "
                f"before it finished its reply: {why}. "
                + ("A reasoning model: raise ONTOBUILD_REASONING_TOKENS (now "
                   f"{self.reasoning_tokens}) or lower ONTOBUILD_REASONING_EFFORT (now "
                   f"{self.reasoning_effort or 'not sent'}; low or minimal think less), or use a model that does "
                   "not reason." if self.reasoning else
                   "Is it a reasoning model that does not report its reasoning tokens? Use a model that answers "
                   "without a long preamble."))
        if _reasoning_tokens(resp) and not self.reasoning:  # seen thinking: later calls get the reasoning budget
            self.reasoning = True
        return self._reply(resp, start)

    def _create(self, kwargs: dict[str, Any]) -> Any:
        """One chat completion, the request adapted to the parameters the server refuses; errors as OntoErrors."""
        import openai

        try:
            for attempt in range(5):  # at most: tokens parameter, temperature, reasoning effort, tool_choice
                try:
                    return self._client.chat.completions.create(**kwargs)
                except openai.BadRequestError as e:
                    if attempt < 4 and self._adapt(e, kwargs):
                        log.info("server refused a parameter (%s); request adapted", redact(str(e), self._secrets))
                        continue
                    if kwargs.get("tool_choice") != "required" or attempt == 4:
                        raise
                    log.info("server refused tool_choice=required (%s); using auto", e)
                    self._required_ok = False
                    kwargs["tool_choice"] = "auto"
            raise ModelServerError(f"The model server at {self.server} refused every form of the request.")
        except openai.APITimeoutError:
            raise ModelServerError(
                f"The model server at {self.server} did not answer within {self.timeout:g} s "
                f"({self.retries + 1} attempt(s)); raise --model-timeout / ONTOBUILD_MODEL_TIMEOUT if it is only "
                "slow, or check the server.") from None
        except openai.APIConnectionError as e:
            raise ModelServerError(f"Cannot reach the model server at {self.server} ({self.retries + 1} "
                                   f"attempt(s)): {redact(str(e), self._secrets).rstrip('.')}.") from None
        except openai.AuthenticationError:
            raise ModelUnavailable(f"The model server at {self.server} refused the API key (authentication "
                                   "failed); check OPENAI_API_KEY or --api-key.") from None
        except openai.APIError as e:
            status = getattr(e, "status_code", None)
            if status and 300 <= status < 400:
                where = redact(str(getattr(e, "response", None) and e.response.headers.get("location") or "another "
                                   "address"), self._secrets)
                raise ModelServerError(f"The model server at {self.server} redirected the request (HTTP {status}) to "
                                       f"{where}; redirects are not followed, so that the API key never goes to an "
                                       "address you did not give: use the final address as --base-url.") from None
            raise ModelServerError(f"The model server at {self.server} answered with an error"
                                   f"{f' (HTTP {status})' if status else ''}: "
                                   f"{redact(str(e), self._secrets)[:400].rstrip('.')}.") from None
        except ValueError as e:  # a body that is not JSON (or not text): not an OpenAI-compatible reply
            raise ModelServerError(f"The model server at {self.server} sent a reply that is not a chat completion "
                                   f"({type(e).__name__}: {redact(str(e), self._secrets)[:200]}); is it an "
                                   "OpenAI-compatible server?") from None

    def _reply(self, resp: Any, start: float) -> ChatReply:
        seconds = time.perf_counter() - start
        if not getattr(resp, "choices", None) or getattr(resp.choices[0], "message", None) is None:
            raise ModelServerError(f"The model server at {self.server} sent a reply without a message (no "
                                   "choices); is it an OpenAI-compatible chat completions server?")
        msg = resp.choices[0].message
        calls = [ToolCall(c.id or f"call_{i}", c.function.name, c.function.arguments or "{}")
                 for i, c in enumerate(msg.tool_calls or [])]
        usage = resp.usage
        prompt_tokens = getattr(usage, "prompt_tokens", 0) or 0
        details = getattr(usage, "prompt_tokens_details", None)
        cached = getattr(details, "cached_tokens", 0) if details is not None else 0
        cached = cached if isinstance(cached, int) and 0 <= cached <= prompt_tokens else 0
        reply = ChatReply(content=msg.content, tool_calls=calls, prompt_tokens=prompt_tokens,
                          completion_tokens=getattr(usage, "completion_tokens", 0) or 0, seconds=seconds,
                          prompt_evaluated=prompt_tokens - cached, prompt_reused=cached)
        self.usage.add(reply)
        return reply


REASONING_TOKENS = 4096  # completion tokens a reasoning model gets on top of a step's own (ONTOBUILD_REASONING_TOKENS)
REASONING_EFFORT = "low"  # sent to a reasoning model while its server takes it (ONTOBUILD_REASONING_EFFORT; "": never)


def _reasoning_tokens(resp: Any) -> int:
    """The reasoning tokens a chat completion reports (OpenAI's usage.completion_tokens_details), else 0."""
    details = getattr(getattr(resp, "usage", None), "completion_tokens_details", None)
    value = getattr(details, "reasoning_tokens", 0) if details is not None else 0
    return value if isinstance(value, int) and value > 0 else 0


# ---- local -------------------------------------------------------------------------------------------
_TOOLS_PREAMBLE = (
    "\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n{tools}\n</tools>\n\n"
    "For each function call, return a json object with function name and arguments within "
    "<tool_call></tool_call> XML tags:\n<tool_call>\n{{\"name\": <function-name>, \"arguments\": <args-json-object>}}\n"
    "</tool_call>"
)


def call_opening(name: str) -> str:
    """How the model opens its one call to the tool `name`, up to the arguments (which it writes next, starting with
    a space): given to it rather than generated when only one tool may be called. Without Qwen's <tool_call> tag:
    a call the embedded model writes on one line starts with `{"name"` (these tokens); otherwise it writes a fenced,
    indented block (twice the tokens, and some fail their schema) or the bare arguments (which fail)."""
    return "{\"name\": " + json.dumps(name, ensure_ascii=False) + ", \"arguments\":"


@contextmanager
def opened_calls(model: Any) -> Iterator[None]:
    """Within this block, the local model is handed the opening of a call to the only tool it may call
    (`call_opening`) instead of writing those tokens itself: fewer tokens generated per call, and no reply that
    starts as a fenced block or as the bare arguments (both fail the call's schema and cost a second, grammar-bound
    generation). A model without the setting is left as it is."""
    if not hasattr(model, "open_single_calls"):
        yield
        return
    before = model.open_single_calls
    model.open_single_calls = True
    try:
        yield
    finally:
        model.open_single_calls = before


def render_qwen_system(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> str:
    """The system turn of the Qwen2.5 chat template (instructions and tool schemas): the stable start of a prompt."""
    system = ""
    if messages and messages[0]["role"] == "system":
        system = messages[0]["content"] or ""
    if tools:
        system += _TOOLS_PREAMBLE.format(tools="\n".join(json.dumps(t, separators=(",", ":")) for t in tools))
    return f"<|im_start|>system\n{system}<|im_end|>\n"


def render_qwen(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> str:
    """The Qwen2.5 chat template (with its native tool format) as text, ending at the assistant's turn."""
    out = [render_qwen_system(messages, tools)]
    msgs = list(messages)
    if msgs and msgs[0]["role"] == "system":
        msgs.pop(0)
    i = 0
    while i < len(msgs):
        m = msgs[i]
        if m["role"] == "tool":
            parts = []
            while i < len(msgs) and msgs[i]["role"] == "tool":
                parts.append(f"<tool_response>\n{msgs[i]['content']}\n</tool_response>")
                i += 1
            out.append("<|im_start|>user\n" + "\n".join(parts) + "<|im_end|>\n")
            continue
        if m["role"] == "assistant":
            text = m.get("content") or ""
            for c in m.get("tool_calls") or []:
                fn = c["function"]
                try:
                    args = json.loads(fn["arguments"])
                except (json.JSONDecodeError, TypeError):
                    args = fn["arguments"]
                call = json.dumps({"name": fn["name"], "arguments": args}, ensure_ascii=False)
                text += ("\n" if text else "") + f"<tool_call>\n{call}\n</tool_call>"
            out.append(f"<|im_start|>assistant\n{text}<|im_end|>\n")
        else:
            out.append(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n")
        i += 1
    out.append("<|im_start|>assistant\n")
    return "".join(out)


def call_schema(tools: list[dict[str, Any]]) -> dict[str, Any]:
    """JSON Schema of one call to any of `tools`: {"name": <const>, "arguments": <its parameters>}."""
    options = [{"type": "object",
                "properties": {"name": {"const": t["function"]["name"]},
                               "arguments": t["function"].get("parameters") or {"type": "object"}},
                "required": ["name", "arguments"]} for t in tools]
    return options[0] if len(options) == 1 else {"anyOf": options}


@contextmanager
def inference_lock() -> Iterator[None]:
    """One local inference at a time on this machine: two llama.cpp processes on 2 cores thrash each other
    (each slows down far more than 2x), so concurrent processes take turns instead, in the order they asked: each
    call leaves a ticket in a queue folder and waits until no older ticket of a live process is left (a process that
    calls again at once queues behind the others instead of taking the lock back before they can), then takes the
    file lock."""
    from .localmodel import cache_dir

    from filelock import FileLock  # portable (fcntl on POSIX, msvcrt on Windows)

    path = cache_dir() / "inference.lock"
    path.parent.mkdir(parents=True, exist_ok=True)
    queue = path.parent / "inference.queue"
    ticket: Path | None = None
    try:
        queue.mkdir(exist_ok=True)
        ticket = queue / f"{time.time_ns():020d}-{os.getpid()}"
        ticket.touch()
        deadline = time.monotonic() + QUEUE_PATIENCE_S
        while time.monotonic() < deadline and any(t.name < ticket.name and _live_ticket(t) for t in queue.iterdir()):
            time.sleep(0.02)
    except OSError as e:  # a queue that cannot be kept only loses the order, never the lock
        log.debug("inference queue: %s", e)
    try:
        with FileLock(str(path)):
            yield
    finally:
        if ticket is not None:
            ticket.unlink(missing_ok=True)


QUEUE_PATIENCE_S = 3600.0  # the longest a call waits for older tickets before it competes for the lock anyway


def _live_ticket(ticket: Path) -> bool:
    """Whether a queue ticket belongs to a process that still runs (a killed process's ticket is removed)."""
    try:
        pid = int(ticket.name.rsplit("-", 1)[1])
        if pid == os.getpid():
            return True
        os.kill(pid, 0)
        return True
    except (ValueError, IndexError):
        return False
    except PermissionError:
        return True  # another user's live process
    except (ProcessLookupError, OSError):
        ticket.unlink(missing_ok=True)
        return False


THREADS_RECHECK_S = 2.0  # a thread choice is kept for the next call that starts this soon after the previous one ended
STOP = ["<|im_end|>", "</tool_call>"]


def parse_call(text: str, tools: list[dict[str, Any]], call_id: str) -> list[ToolCall]:
    """The call in a local model's `text` if it is valid JSON that fits the call schema of `tools`, else []."""
    import jsonschema

    start = text.find("{")
    try:
        obj, _ = json.JSONDecoder().raw_decode(text[start:]) if start >= 0 else (None, 0)
    except json.JSONDecodeError:
        return []
    if isinstance(obj, dict) and "arguments" not in obj and isinstance(obj.get("parameters"), dict):
        obj = {"name": obj.get("name"), "arguments": obj["parameters"]}  # the Llama 3 family's way of writing it
    if not jsonschema.Draft202012Validator(call_schema(tools)).is_valid(obj):
        return []
    return [ToolCall(call_id, obj["name"], json.dumps(obj["arguments"], ensure_ascii=False))]


class GGUFTemplate:
    """A model's own chat template (the GGUF's `tokenizer.chat_template`, a Jinja2 template), for a local model of
    another family than the embedded one (`--model-path`): rendered with llama-cpp-python's Jinja2 formatter, as
    llama.cpp's server does. The conversation is given to it in the roles every template knows: the tools, when
    the template does not take them itself, are described in the system message (Qwen's tool format, a JSON object
    {"name", "arguments"} between <tool_call> tags); a tool call is the assistant's text and a tool's result a user
    message. A template that refuses a system message gets it in front of the first user message."""

    def __init__(self, template: str, eos: str, bos: str) -> None:
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        self.template = template
        self.formatter = Jinja2ChatFormatter(template, eos, bos)
        self.bos = bos
        self.takes_tools = "tools" in template
        self.stop = [s for s in (eos, "</tool_call>") if s]

    @classmethod
    def of(cls, llm: Any) -> "GGUFTemplate | None":
        """The template of a loaded model; None when its GGUF has none."""
        template = (getattr(llm, "metadata", None) or {}).get("tokenizer.chat_template")
        if not template:
            return None

        def text(token: int) -> str:
            try:
                return llm.detokenize([token], special=True).decode("utf-8", "replace") if token >= 0 else ""
            except TypeError:  # older llama-cpp-python: no `special`
                return llm.detokenize([token]).decode("utf-8", "replace") if token >= 0 else ""

        return cls(template, text(llm.token_eos()), text(llm.token_bos()))

    @staticmethod
    def plain_messages(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None,
                       describe_tools: bool) -> list[dict[str, str]]:
        out: list[dict[str, str]] = []
        for m in messages:
            role, content = m["role"], m.get("content") or ""
            if role == "tool":
                content, role = f"<tool_response>\n{content}\n</tool_response>", "user"
            elif role == "assistant" and m.get("tool_calls"):
                calls = []
                for c in m["tool_calls"]:
                    try:
                        args = json.loads(c["function"]["arguments"])
                    except (json.JSONDecodeError, TypeError):
                        args = c["function"]["arguments"]
                    calls.append("<tool_call>\n" + json.dumps({"name": c["function"]["name"], "arguments": args},
                                                               ensure_ascii=False) + "\n</tool_call>")
                content = "\n".join([content, *calls]) if content else "\n".join(calls)
            if out and out[-1]["role"] == role == "user":  # several tool results: one message
                out[-1]["content"] += "\n" + content
            else:
                out.append({"role": role, "content": content})
        if tools and describe_tools:
            preamble = _TOOLS_PREAMBLE.format(tools="\n".join(json.dumps(t, separators=(",", ":")) for t in tools))
            if out and out[0]["role"] == "system":
                out[0]["content"] += preamble
            else:
                out.insert(0, {"role": "system", "content": preamble.strip()})
        return out

    def render(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> str:
        plain = self.plain_messages(messages, tools, describe_tools=not self.takes_tools)
        given = tools if tools and self.takes_tools else None
        try:
            return self.formatter(messages=plain, tools=given).prompt
        except Exception:  # noqa: BLE001 - a template that refuses a system turn (it raises): merged into the user's
            if not plain or plain[0]["role"] != "system":
                raise
            system, rest = plain[0]["content"], plain[1:]
            if rest and rest[0]["role"] == "user":
                rest[0] = {"role": "user", "content": f"{system}\n\n{rest[0]['content']}"}
            else:
                rest.insert(0, {"role": "user", "content": system})
            return self.formatter(messages=rest, tools=given).prompt
MIN_PREFIX_TOKENS = 256  # a shorter system turn is evaluated in well under 3 s: not worth a saved state


def _cpu_has_amx() -> bool:
    try:
        return "amx_tile" in Path("/proc/cpuinfo").read_text("utf-8", errors="replace")
    except OSError:
        return False


@contextmanager
def llama_load_settings() -> Iterator[None]:
    """Models loaded inside this block skip llama.cpp's extra CPU buffer types (weights repacked for AMX tiles)
    on a CPU with AMX: with them, llama-cpp-python 0.3.36 crashes in its first decode on such CPUs (seen on a
    2-core Intel Xeon VM). ONTOBUILD_LLAMA_EXTRA_BUFFERS=1 keeps them anyway, =0 skips them on any CPU."""
    import llama_cpp.llama as llama_module

    setting = os.environ.get("ONTOBUILD_LLAMA_EXTRA_BUFFERS", "").strip()
    lib = llama_module.llama_cpp
    original = lib.llama_model_default_params
    if setting == "1" or (setting != "0" and not _cpu_has_amx()) or \
            not any(name == "use_extra_bufts" for name, *_ in original()._fields_):
        yield
        return

    def params() -> Any:
        p = original()
        p.use_extra_bufts = False
        return p

    lib.llama_model_default_params = params
    try:
        log.info("llama.cpp: loading without extra CPU buffer types (AMX)")
        yield
    finally:
        lib.llama_model_default_params = original


class LocalChat:
    """llama-cpp-python in process; the default when no API key is configured."""

    backend = "local"

    def __init__(self, model_path: str | Path | None = None, n_ctx: int = 8192, n_threads: int | None = None,
                 seed: int = 0, prefix_cache: "PrefixCache | None" = None) -> None:
        try:
            import llama_cpp  # noqa: F401 - installed?
        except ImportError:
            raise ModelUnavailable(
                "llama-cpp-python is not installed, so the embedded local model cannot run: install the local "
                "extra in your checkout (pip install -e '.[local]': a C compiler builds it; without one, "
                "'.[local-prebuilt]'), or set OPENAI_API_KEY, or pass --base-url for your own server."
            ) from None
        from .localmodel import MODEL_NAME, SHA256, default_model_path

        path = Path(model_path) if model_path else default_model_path()
        self._path, self._known_sha256 = path, (None if model_path else SHA256)
        if not path.is_file():
            raise ModelUnavailable(f"Model file {path} does not exist.")
        self.model = MODEL_NAME if not model_path else path.name
        try:
            self._fixed_threads = n_threads or cores.setting()
        except ValueError as e:
            raise ModelUnavailable(str(e)) from None
        self.threads = cores.choose_threads(self._fixed_threads)
        self._n_ctx = n_ctx
        start = time.perf_counter()
        self._llm = self._load(seed)
        self.load_seconds = time.perf_counter() - start
        self._grammars: dict[str, Any] = {}
        self._seed = seed
        self.usage = Usage(self.backend, self.model)
        self.prefix_cache: PrefixCache | None = prefix_cache
        self._prefix_settings: dict[str, Any] | None = None
        self._kept: dict[str, list[int]] = {}  # announced stable starts of system prompts -> their tokens
        self.open_single_calls = False  # see opened_calls
        self._last_call_end: float | None = None  # see _adapt_threads
        # ONTOBUILD_PROMPT_LOOKUP=1: greedy calls without a grammar are decoded with prompt-lookup drafts
        # (promptlookup.py: fewer steps for a repaired query; not the default, as a batch's logits differ from one
        # token's and can turn a near tie, so a reply may differ from one-token-at-a-time decoding)
        self.prompt_lookup = os.environ.get("ONTOBUILD_PROMPT_LOOKUP", "").strip() == "1"
        self._im_end: int | None = None
        # another model than the embedded one is prompted in its own chat format (its GGUF's template), unless that
        # is ChatML, the embedded model's (rendered by render_qwen, with the prefix cache and prompt lookup)
        found = GGUFTemplate.of(self._llm) if model_path else None
        self.template = found if found is not None and "<|im_start|>" not in found.template else None
        if self.template is not None:
            self.prompt_lookup = False
            log.info("%s: prompted with its own chat template", path.name)
        log.info("loaded %s in %.1f s", path.name, self.load_seconds)

    def _load(self, seed: int) -> Any:
        from llama_cpp import Llama

        try:
            with llama_load_settings():
                return Llama(model_path=str(self._path), n_ctx=self._n_ctx, n_threads=self.threads,
                             n_threads_batch=self.threads, n_batch=512, seed=seed, verbose=False)
        except (ValueError, RuntimeError) as e:
            raise ModelUnavailable(f"llama.cpp could not load {self._path}: {e}.") from None

    def ping(self) -> str:
        """"" when the model is loaded (or its file is there to load again), else why not."""
        if self._llm is not None or self._path.is_file():
            return ""
        return f"the model file {self._path} is gone"

    def release(self) -> None:
        """Give the model's memory back (its weights and context) before a long step that needs no model; a
        later call loads it again."""
        llm, self._llm = self._llm, None
        if llm is not None:
            llm.close()
            log.info("model released")

    # ---- kept prompt prefixes --------------------------------------------------------------------------
    def keep_prefix(self, system_start: str) -> None:
        """Announce that calls whose system message starts with `system_start` (instructions, examples, an
        ontology's view: the stable part, placed first) will repeat, in this process and in later ones. The
        model's state after that prefix is then kept (prefixcache.py: the last few in memory, all on disk,
        bounded), so it is evaluated once, not per call nor per process. Calls without an announced prefix
        still reuse whatever the previous call left in the context (llama-cpp-python's prefix match)."""
        from .prefixcache import PrefixCache

        if getattr(self, "template", None) is not None:  # prompts in the model's own template: no kept prefixes
            return
        if getattr(self._llm, "_is_recurrent", False) or getattr(self._llm, "_is_hybrid", False):
            log.info("prefix cache: not used for a recurrent model (its state cannot be cut at a prefix)")
            return
        if self.prefix_cache is None:
            self.prefix_cache = PrefixCache()
        text = "<|im_start|>system\n" + system_start
        tokens = self._llm.tokenize(text.encode("utf-8"), special=True)
        if len(tokens) >= MIN_PREFIX_TOKENS:
            self._kept[system_start] = tokens
            log.info("prefix cache: keeping a prompt start of %d tokens", len(tokens))

    def _kept_prefix(self, messages: list[dict[str, Any]], tokens: list[int]) -> list[int]:
        """The longest announced prefix this prompt starts with ([] when none). Tokens are compared, allowing
        the last few tokens of the prefix to merge differently with the text that follows it."""
        if not self._kept or not messages or messages[0]["role"] != "system":
            return []
        content = messages[0]["content"] or ""
        best: list[int] = []
        for start, prefix in self._kept.items():
            if not content.startswith(start) or len(prefix) <= len(best):
                continue
            n = 0
            for a, b in zip(prefix, tokens):
                if a != b:
                    break
                n += 1
            if n >= len(prefix) - 4 and n < len(tokens):
                best = prefix[:n]
        return best

    def _settings(self) -> dict[str, Any]:
        """What a saved state depends on besides the model file and the tokens."""
        if self._prefix_settings is None:
            import llama_cpp

            from .prefixcache import model_identity

            params = getattr(self._llm, "context_params", None)
            self._prefix_settings = {
                "model": model_identity(self._path, self._known_sha256),
                "llama_cpp": getattr(llama_cpp, "__version__", "?"), "n_ctx": self._llm.n_ctx(),
                **{k: str(getattr(params, k)) for k in ("type_k", "type_v", "flash_attn", "flash_attn_type",
                                                        "swa_full") if params is not None and hasattr(params, k)}}
        return self._prefix_settings

    def _common_prefix(self, tokens: list[int]) -> int:
        """How many leading tokens of `tokens` the model's context holds now."""
        import numpy as np

        n = min(int(self._llm.n_tokens), len(tokens))
        if n <= 0:
            return 0
        held = np.asarray(self._llm.input_ids[:n])
        differ = np.flatnonzero(held != np.asarray(tokens[:n], dtype=held.dtype))
        return int(differ[0]) if differ.size else n

    def _reusable(self, tokens: list[int]) -> int:
        """The prompt tokens llama-cpp-python will not evaluate again for `tokens` (its prefix match in
        Llama.generate: the common prefix with the context, less one token when it covers the whole prompt, so
        that fresh logits are computed)."""
        common = self._common_prefix(tokens)
        if common == len(tokens):
            if int(self._llm.n_tokens) == len(tokens) and not getattr(self._llm, "_requires_eval", True):
                return common
            return max(0, common - 1)
        return common

    def _state_bytes(self) -> bytes:
        import ctypes

        import llama_cpp

        size = int(llama_cpp.llama_state_get_size(self._llm.ctx))
        buf = (ctypes.c_uint8 * size)()
        n = int(llama_cpp.llama_state_get_data(self._llm.ctx, buf, size))
        if n <= 0 or n > size:
            raise RuntimeError(f"llama.cpp returned {n} bytes of state (of {size})")
        return ctypes.string_at(buf, n)

    def _load_state(self, tokens: tuple[int, ...], data: bytes) -> bool:
        """Put a saved state into the context; False (and an empty context) when llama.cpp refuses it."""
        import ctypes

        import llama_cpp

        buf = (ctypes.c_uint8 * len(data)).from_buffer_copy(data)
        try:
            ok = int(llama_cpp.llama_state_set_data(self._llm.ctx, buf, len(data))) == len(data)
        except Exception as e:  # noqa: BLE001 - a foreign state must never break the call
            log.warning("prefix cache: llama.cpp could not load a state (%s)", e)
            ok = False
        if not ok:
            self._llm.reset()
            self._llm._ctx.kv_cache_clear()
            return False
        self._llm.input_ids[:len(tokens)] = tokens
        self._llm.n_tokens = len(tokens)
        self._llm._requires_eval = True
        return True

    def _prepare_prefix(self, prefix: list[int]) -> tuple[int, int]:
        """Make the context hold `prefix` (the system turn), from the context itself, a kept state or by
        evaluating it (then its state is kept). Returns (tokens evaluated, tokens loaded from the cache)."""
        from .prefixcache import PrefixState, prefix_key

        cache = self.prefix_cache
        assert cache is not None
        held = self._common_prefix(prefix)
        if held == len(prefix):
            return 0, 0
        key = prefix_key(self._settings()["model"], self._settings(), prefix)
        state = cache.get(key, prefix)
        if state is not None:
            if self._load_state(state.tokens, state.data):
                log.info("prefix cache: loaded the state of %d prompt tokens", len(prefix))
                return 0, len(prefix)
            cache.discard(key)
            held = 0
        self._llm.n_tokens = held  # eval() drops the context after this point
        self._llm.eval(prefix[held:])
        try:
            cache.put(PrefixState(key, tuple(prefix), self._state_bytes()))
        except RuntimeError as e:
            log.warning("prefix cache: the state could not be saved (%s)", e)
        return len(prefix) - held, 0

    def _lookup_start(self, tokens: list[int]) -> int:
        """Where prompt-lookup drafts are looked up from: after the system turn and the first user turn (the second
        <|im_end|>), so that only the model's own earlier replies and what followed them are drafted from (a first
        reply is drafted from nothing: drafts from the hints are kept too rarely to pay for themselves)."""
        if self._im_end is None:
            self._im_end = self._llm.tokenize(b"<|im_end|>", add_bos=False, special=True)[0]
        ends = [i for i, t in enumerate(tokens) if t == self._im_end][:2]
        return ends[1] + 1 if len(ends) == 2 else len(tokens)

    def _grammar(self, tools: list[dict[str, Any]]) -> Any:
        from llama_cpp import LlamaGrammar

        schema = json.dumps(call_schema(tools), sort_keys=True)
        if schema not in self._grammars:
            self._grammars[schema] = LlamaGrammar.from_json_schema(schema, verbose=False)
        return self._grammars[schema]

    def _parse_call(self, text: str, tools: list[dict[str, Any]]) -> list[ToolCall]:
        return parse_call(text, tools, f"call_{self.usage.calls}")

    def fix_threads(self, threads: int | None) -> None:
        """Use `threads` for every call from now on (None: choose them per call again, see cores.py)."""
        self._fixed_threads = threads
        if threads:
            self._set_threads(threads)

    def _adapt_threads(self) -> None:
        """Use only the cores that are free now (unless the user fixed the count): see cores.py. A call that starts
        within THREADS_RECHECK_S of the previous call's end (the next attempt at a question, the next question of a
        batch) keeps the previous choice: sampling the cores costs a sixth of a second, held inside the inference
        lock, and the other processes' load has not had the time to change."""
        if self._fixed_threads:
            return
        ended = self._last_call_end
        if ended is not None and time.monotonic() - ended < THREADS_RECHECK_S:
            return
        self._set_threads(cores.choose_threads())

    def _set_threads(self, threads: int) -> None:
        ctx = getattr(self._llm, "_ctx", None)
        if threads != self.threads and ctx is not None and hasattr(ctx, "set_n_threads"):
            log.info("model threads: %d -> %d", self.threads, threads)
            ctx.set_n_threads(threads, threads)
            self.threads = threads

    def chat(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None,
             tool_choice: str = "required", max_tokens: int = 1024, temperature: float = 0.0) -> ChatReply:
        if self._llm is None:  # released (release): loaded again
            self._llm = self._load(self._seed)
        use_tools = bool(tools) and tool_choice != "none"
        template = getattr(self, "template", None)
        prompt = (template.render(messages, tools if use_tools else None) if template is not None else
                  render_qwen(messages, tools if use_tools else None))
        stop = template.stop if template is not None else STOP
        # a template that writes the BOS token itself: not added again
        add_bos = template is None or not template.bos or not prompt.startswith(template.bos)
        self.last_prompt = prompt
        start = time.perf_counter()
        # tokenized as create_completion would (the model adds no BOS token for Qwen), and passed as tokens
        tokens = self._llm.tokenize(prompt.encode("utf-8"), add_bos=add_bos, special=True)
        # one tool to call: its opening is given (free generation only; the grammar writes the whole call)
        opening = call_opening(tools[0]["function"]["name"]) if use_tools and self.open_single_calls and \
            len(tools) == 1 and tool_choice == "required" else ""  # type: ignore[index]
        opened = self._llm.tokenize((prompt + opening).encode("utf-8"), add_bos=add_bos, special=True) \
            if opening else tokens
        n_prompt = len(opened)
        if n_prompt + max_tokens > self._llm.n_ctx():
            raise OntoError(f"The prompt ({n_prompt} tokens) does not fit the local model's context "
                            f"({self._llm.n_ctx()} tokens); the input slice is too large.")
        prefix = self._kept_prefix(messages, tokens)
        completion_tokens = 0
        evaluated = reused = loaded = 0
        waited = 0.0
        text = ""
        calls: list[ToolCall] = []
        # Free generation is ~4x faster than grammar-constrained sampling over Qwen's 150k-token vocabulary,
        # and Qwen writes its native <tool_call> JSON well; the grammar is the fallback when that fails.
        for attempt, constrained in enumerate((False, True) if use_tools else (False,)):
            asked = time.perf_counter()
            with inference_lock():
                waited += time.perf_counter() - asked
                self._adapt_threads()
                if prefix and attempt == 0:
                    done, loaded = self._prepare_prefix(prefix)
                    evaluated += done
                sent = tokens if constrained else opened
                kept = self._reusable(sent)
                evaluated += len(sent) - kept
                if attempt == 0:
                    reused = n_prompt - evaluated
                if self.prompt_lookup and temperature == 0.0 and not constrained:
                    from .promptlookup import greedy_completion

                    gen = greedy_completion(self._llm, sent, max_tokens, stop, lookup_from=self._lookup_start(sent))
                    generated, n_generated = gen.text, gen.completion_tokens
                    log.debug("prompt lookup: %d tokens in %d steps (%d of %d drafted tokens kept)",
                              n_generated, gen.steps, gen.accepted, gen.drafted)
                else:
                    out = self._llm.create_completion(
                        sent, max_tokens=max_tokens, temperature=temperature, seed=self._seed, stop=stop,
                        grammar=self._grammar(tools) if constrained else None,  # type: ignore[arg-type]
                    )
                    generated = out["choices"][0]["text"]
                    n_generated = out.get("usage", {}).get("completion_tokens", 0)
                self._last_call_end = time.monotonic()
            text = ("" if constrained else opening) + generated
            completion_tokens += n_generated
            if not use_tools:
                break
            calls = self._parse_call(text, tools)  # type: ignore[arg-type]
            if calls:
                break
            log.info("free tool call did not fit the schema; retrying with the grammar: %r", text[:200])
        reply = ChatReply(content=None if calls else text, tool_calls=calls, prompt_tokens=n_prompt,
                          completion_tokens=completion_tokens, seconds=time.perf_counter() - start - waited,
                          wait_seconds=waited, prompt_evaluated=evaluated, prompt_reused=reused,
                          prompt_loaded=loaded)
        log.debug("model call: %d prompt tokens, %d evaluated, %d reused (%d from the prefix cache)", n_prompt,
                  evaluated, reused, loaded)
        self.usage.add(reply)
        return reply


# ---- local, on xllamacpp ------------------------------------------------------------------------------
# The embedded model on xllamacpp: llama.cpp's server, in process, from a prebuilt wheel (no compiler needed to
# install it). The same prompts as LocalChat (render_qwen, the given opening of a single tool's call, STOP), the same
# rail: a call written freely is checked against the call's JSON Schema and, when it does not fit, written again under
# that schema (the server turns it into a grammar). The server keeps the last prompt's evaluated tokens (cache_prompt):
# a call that starts like the previous one evaluates only what follows. What LocalChat has and this has not: prompt
# prefixes saved to disk across processes, prompt lookup, the thread count chosen per call, a GGUF's own template.


class XLlamaChat:
    """The embedded (or a --model-path ChatML) model on xllamacpp's in-process llama.cpp server."""

    backend = "local"

    def __init__(self, model_path: str | Path | None = None, n_ctx: int = 8192, n_threads: int | None = None,
                 seed: int = 0) -> None:
        try:
            import xllamacpp
        except ImportError:
            raise ModelUnavailable("xllamacpp is not installed, so the embedded local model cannot run on it: install "
                                   "the local-prebuilt extra in your checkout (pip install -e '.[local-prebuilt]'), or "
                                   "set OPENAI_API_KEY, or pass --base-url for your own server.") from None
        from .localmodel import MODEL_NAME, default_model_path

        path = Path(model_path) if model_path else default_model_path()
        if not path.is_file():
            raise ModelUnavailable(f"Model file {path} does not exist.")
        self._path = path
        self.model = MODEL_NAME if not model_path else path.name
        try:
            self.threads = cores.choose_threads(n_threads or cores.setting())
        except ValueError as e:
            raise ModelUnavailable(str(e)) from None
        params = xllamacpp.CommonParams()
        params.model.path = str(path)
        params.n_ctx = n_ctx
        params.n_batch = 512
        params.n_parallel = 1  # one slot: its kept context is the previous call's
        params.cpuparams.n_threads = self.threads
        params.cpuparams_batch.n_threads = self.threads
        params.warmup = False
        params.verbosity = -1
        self._params = params
        self._seed = seed
        self._n_ctx = n_ctx
        start = time.perf_counter()
        self._server: Any = self._load()
        self.load_seconds = time.perf_counter() - start
        self.usage = Usage(self.backend, self.model)
        self.open_single_calls = False  # see llm.opened_calls
        log.info("loaded %s on xllamacpp in %.1f s", path.name, self.load_seconds)

    def _load(self) -> Any:
        import xllamacpp

        try:
            return xllamacpp.Server(self._params)
        except Exception as e:  # noqa: BLE001 - whatever llama.cpp says of a file it cannot load
            raise ModelUnavailable(f"llama.cpp (xllamacpp) could not load {self._path}: {e}.") from None

    def keep_prefix(self, system_start: str) -> None:
        """Prompt prefixes are not saved across processes here; within one, the server reuses the previous call's
        evaluated tokens by itself."""

    def ping(self) -> str:
        return "" if self._server is not None or self._path.is_file() else f"the model file {self._path} is gone"

    def release(self) -> None:
        """Give the model's memory back; a later call loads it again."""
        if self._server is not None:
            self._server = None
            log.info("model released")

    def _complete(self, prompt: str, max_tokens: int, temperature: float, schema: dict | None) -> dict[str, Any]:
        request: dict[str, Any] = {"prompt": prompt, "n_predict": max_tokens, "temperature": temperature,
                                   "seed": self._seed, "stop": STOP, "cache_prompt": True}
        if schema is not None:
            request["json_schema"] = schema
        reply = self._server.handle_completions(request)
        if not isinstance(reply, dict) or "error" in reply or not reply.get("choices"):
            raise OntoError(f"llama.cpp (xllamacpp) failed: {str(reply)[:300]}")
        return reply

    def chat(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None,
             tool_choice: str = "required", max_tokens: int = 1024, temperature: float = 0.0) -> ChatReply:
        if self._server is None:
            self._server = self._load()
        use_tools = bool(tools) and tool_choice != "none"
        prompt = render_qwen(messages, tools if use_tools else None)
        opening = call_opening(tools[0]["function"]["name"]) if use_tools and self.open_single_calls and \
            len(tools) == 1 and tool_choice == "required" else ""  # type: ignore[index]
        start = time.perf_counter()
        prompt_tokens = completion_tokens = evaluated = reused = 0
        waited = 0.0
        text = ""
        calls: list[ToolCall] = []
        for attempt, constrained in enumerate((False, True) if use_tools else (False,)):
            asked = time.perf_counter()
            with inference_lock():
                waited += time.perf_counter() - asked
                reply = self._complete(prompt if constrained else prompt + opening, max_tokens, temperature,
                                       call_schema(tools) if constrained else None)  # type: ignore[arg-type]
            timings = reply.get("timings") or {}
            usage = reply.get("usage") or {}
            if attempt == 0:
                prompt_tokens = int(usage.get("prompt_tokens") or 0)
                reused = int(timings.get("cache_n") or 0)
            evaluated += int(timings.get("prompt_n") or 0)
            completion_tokens += int(usage.get("completion_tokens") or 0)
            text = ("" if constrained else opening) + str(reply["choices"][0].get("text") or "")
            if not use_tools:
                break
            calls = parse_call(text, tools, f"call_{self.usage.calls}")  # type: ignore[arg-type]
            if calls:
                break
            log.info("free tool call did not fit the schema; retrying with the grammar: %r", text[:200])
        if prompt_tokens + max_tokens > self._n_ctx:
            log.info("prompt of %d tokens near the context of %d", prompt_tokens, self._n_ctx)
        result = ChatReply(content=None if calls else text, tool_calls=calls, prompt_tokens=prompt_tokens,
                           completion_tokens=completion_tokens, seconds=time.perf_counter() - start - waited,
                           wait_seconds=waited, prompt_evaluated=evaluated, prompt_reused=reused)
        self.usage.add(result)
        return result


LLAMA_LIBRARIES = ("llama-cpp-python", "xllamacpp")


def local_chat(model_path: str | Path | None = None, n_threads: int | None = None) -> ChatModel:
    """The embedded model on the llama.cpp binding that is installed: llama-cpp-python (LocalChat: built from source
    by pip; kept prompt prefixes on disk, prompt lookup), else xllamacpp (XLlamaChat: a prebuilt wheel, no
    compiler needed). ONTOBUILD_LLAMA_LIBRARY=llama-cpp-python|xllamacpp chooses one."""
    import importlib.util

    chosen = os.environ.get("ONTOBUILD_LLAMA_LIBRARY", "").strip().lower()
    if chosen and chosen not in LLAMA_LIBRARIES:
        raise InputError(f"ONTOBUILD_LLAMA_LIBRARY={chosen!r}: use {' or '.join(LLAMA_LIBRARIES)}.")
    if chosen == "xllamacpp" or (not chosen and importlib.util.find_spec("llama_cpp") is None
                                 and importlib.util.find_spec("xllamacpp") is not None):
        return XLlamaChat(model_path=model_path, n_threads=n_threads)
    return LocalChat(model_path=model_path, n_threads=n_threads)


# ---- choosing ----------------------------------------------------------------------------------------
@dataclass
class LLMOptions:
    backend: str = "auto"  # auto | openai | local
    model: str | None = None
    base_url: str | None = None
    api_key: str | None = None
    model_path: str | None = None
    threads: int | None = None  # the local model's threads (default: the free cores, per call)
    timeout: float | None = None  # seconds per model server call (default: ONTOBUILD_MODEL_TIMEOUT, else 120)
    retries: int | None = None  # retries of a failed server call (default: ONTOBUILD_MODEL_RETRIES, else 2)
    extra: dict[str, Any] = field(default_factory=dict)


def open_model(opts: LLMOptions | dict[str, Any] | None = None) -> ChatModel:
    """The configured model: `openai` when a key or base URL is set (flags or environment), else `local`."""
    if isinstance(opts, dict):
        opts = LLMOptions(**{k: v for k, v in opts.items() if v is not None})
    opts = opts or LLMOptions()
    backend = opts.backend or "auto"
    if backend == "auto":
        has_remote = opts.api_key or opts.base_url or os.environ.get("OPENAI_API_KEY") or os.environ.get("OPENAI_BASE_URL")
        backend = "openai" if has_remote and not opts.model_path else "local"
    if backend == "openai":
        return OpenAIChat(model=opts.model, base_url=opts.base_url, api_key=opts.api_key, timeout=opts.timeout,
                          retries=opts.retries)
    if backend == "local":
        return local_chat(model_path=opts.model_path, n_threads=opts.threads)
    raise InputError(f"Unknown backend '{backend}': use auto, openai or local.")


MODEL_KEYS = ("backend", "base_url", "api_key", "model_path", "threads", "model_timeout", "model_retries")


def model_settings(model: str | ChatModel | None = None, **settings: Any) -> tuple[ChatModel | None, dict[str, Any]]:
    """Split the caller's model choice into an open model object (or None) and the options of `open_model`.

    `model` is a model name on an OpenAI-compatible server, or an object with a `chat` method (an open
    `ChatModel`, a cassette); `settings` are `backend`, `base_url`, `api_key`, `model_path`, `threads`,
    `model_timeout`, `model_retries` (the command-line options of the same names)."""
    unknown = sorted(set(settings) - set(MODEL_KEYS))
    if unknown:
        raise TypeError(f"unknown model setting(s): {', '.join(unknown)} (known: {', '.join(MODEL_KEYS)})")
    chat_model = model if model is not None and not isinstance(model, str) else None
    if chat_model is not None and not callable(getattr(chat_model, "chat", None)):
        raise InputError(f"model must be a model name or an object with a chat() method, not {type(model).__name__}.")
    options = {"backend": settings.get("backend"), "model": model if isinstance(model, str) else None,
               "base_url": settings.get("base_url"), "api_key": settings.get("api_key"),
               "model_path": settings.get("model_path"), "threads": settings.get("threads"),
               "timeout": settings.get("model_timeout"), "retries": settings.get("model_retries")}
    return chat_model, options
