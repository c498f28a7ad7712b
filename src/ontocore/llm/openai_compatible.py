"""The `openai` backend: chat completions on any OpenAI-compatible endpoint (OpenAI, Ollama, vLLM, llama.cpp server,
LM Studio) with native tools. A request is adapted to the parameters the server refuses (decided from its error,
never from the model's name), and a reasoning model gets a reasoning budget on top of each step's."""

from __future__ import annotations

import logging
import os
import time
from typing import Any

from ..errors import InputError, ModelBudgetError, ModelServerError, ModelUnavailable
from ..redaction import redact, register_secret
from .interface import ChatReply, ToolCall, Usage

log = logging.getLogger(__name__)

DEFAULT_OPENAI_MODEL = "gpt-4o-mini"


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
            kwargs["tools"] = [{k: v for k, v in t.items() if k != "shown"} for t in tools]  # checked form: a
            # server that constrains its output (strict tools, grammars) does it with the call's own choices
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
