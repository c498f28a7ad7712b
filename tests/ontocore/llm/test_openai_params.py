"""Any OpenAI model: a server that refuses `max_tokens` and a non-default temperature (as OpenAI's reasoning
models do) gets `max_completion_tokens` and no temperature, decided from its error, not from the model's name;
a plain server's request is unchanged. Against a real local HTTP server (tests/fake_openai.py)."""

from __future__ import annotations

from fake_openai import FakeOpenAI

from ontocore.llm import OpenAIChat
from ontocore.llm.openai_compatible import REASONING_TOKENS


def test_a_reasoning_model_gets_the_parameters_it_accepts() -> None:
    with FakeOpenAI("reasoning") as server:
        chat = OpenAIChat(model="any-model-name", base_url=server.base_url, api_key="sk-test", retries=0)
        reply = chat.chat([{"role": "user", "content": "hi"}], max_tokens=50)
        assert reply.content == "ok"
        sent = [r["body"] for r in server.requests]
        assert "max_tokens" in sent[0] and "temperature" in sent[0]  # first as for any model
        final = sent[-1]
        # a reasoning model: its reasoning budget on top of the step's 50 tokens, and a low reasoning effort
        assert final["max_completion_tokens"] == 50 + REASONING_TOKENS and "max_tokens" not in final
        assert "temperature" not in final and final["reasoning_effort"] == "low"
        n = len(server.requests)
        chat.chat([{"role": "user", "content": "again"}], max_tokens=20)  # remembered: one request
        assert len(server.requests) == n + 1
        assert server.requests[-1]["body"]["max_completion_tokens"] == 20 + REASONING_TOKENS


def test_a_plain_model_request_is_unchanged() -> None:
    with FakeOpenAI("script", script={"hi": "hello"}) as server:
        chat = OpenAIChat(model="plain", base_url=server.base_url, api_key="sk-test", retries=0)
        assert chat.chat([{"role": "user", "content": "hi"}], max_tokens=50).content == "hello"
        body = server.requests[0]["body"]
        assert body["max_tokens"] == 50 and body["temperature"] == 0.0 and "max_completion_tokens" not in body
        assert len(server.requests) == 1


def test_a_redirect_is_not_followed_and_the_key_stays_home() -> None:
    import pytest

    from ontocore.errors import ModelServerError

    with FakeOpenAI("script", script={"hi": "hello"}) as other:
        with FakeOpenAI("redirect", location=other.base_url + "/chat/completions") as server:
            chat = OpenAIChat(model="plain", base_url=server.base_url, api_key="sk-secret-key", retries=0)
            with pytest.raises(ModelServerError, match="redirected the request") as err:
                chat.chat([{"role": "user", "content": "hi"}], max_tokens=5)
            assert "sk-secret-key" not in str(err.value)
        assert other.requests == []  # nothing, and no key, reached the other address


def test_a_model_that_reasons_gets_a_budget_that_fits(monkeypatch) -> None:
    """A model that thinks 3000 tokens before a reply: the step's 50 tokens are cut ("length"); seen reasoning, the
    request is made again with the reasoning budget and effort, and later calls get them at once."""
    monkeypatch.delenv("ONTOBUILD_REASONING_TOKENS", raising=False)
    with FakeOpenAI("thinking", think=3000) as server:
        chat = OpenAIChat(model="thinker", base_url=server.base_url, api_key="sk-test", retries=0)
        assert chat.chat([{"role": "user", "content": "hi"}], max_tokens=50).content == "ok"
        sent = [r["body"] for r in server.requests]
        assert sent[0]["max_tokens"] == 50 and "reasoning_effort" not in sent[0]
        assert sent[1]["max_tokens"] == 50 + 2 * REASONING_TOKENS and sent[1]["reasoning_effort"] == "low"
        chat.chat([{"role": "user", "content": "again"}], max_tokens=50)
        assert len(server.requests) == 3 and server.requests[2]["body"]["max_tokens"] == 50 + REASONING_TOKENS


def test_a_reasoning_budget_too_small_is_a_clear_model_budget_error(monkeypatch) -> None:
    """The server refuses reasoning_effort (it is dropped); the model still thinks past the budget twice: a
    ModelBudgetError that says what happened and what to change, never "No data available"."""
    import pytest

    from ontocore.errors import ModelBudgetError

    monkeypatch.setenv("ONTOBUILD_REASONING_TOKENS", "100")
    with FakeOpenAI("thinking", think=5000, effort_ok=False) as server:
        chat = OpenAIChat(model="thinker", base_url=server.base_url, api_key="sk-test", retries=0)
        with pytest.raises(ModelBudgetError) as err:
            chat.chat([{"role": "user", "content": "hi"}], max_tokens=50)
        message = str(err.value)
        assert 'finish_reason "length"' in message and "ONTOBUILD_REASONING_TOKENS (now 100)" in message
        assert "reasoning" in message and chat.reasoning_effort == ""
        assert not any("reasoning_effort" in r["body"] for r in server.requests[-1:])


def test_a_reply_cut_at_the_budget_of_a_plain_model_is_a_model_budget_error() -> None:
    import pytest

    from ontocore.errors import ModelBudgetError

    with FakeOpenAI("thinking", think=0) as server:  # no reasoning; a 5-token reply cut at 3
        chat = OpenAIChat(model="plain", base_url=server.base_url, api_key="sk-test", retries=0)
        with pytest.raises(ModelBudgetError, match="all 3 completion tokens the step allows"):
            chat.chat([{"role": "user", "content": "hi"}], max_tokens=3)
        assert len(server.requests) == 1


def test_openai_base_url_alone_selects_the_server_without_a_key(monkeypatch) -> None:
    """How Ollama, vLLM and LM Studio users configure every OpenAI client: OPENAI_BASE_URL and no key."""
    from ontocore.llm import open_model

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with FakeOpenAI("script", script={"hi": "hello"}) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        model = open_model({"model": "local-llama"})
        assert model.backend == "openai" and model.chat([{"role": "user", "content": "hi"}]).content == "hello"
        assert server.requests[0]["auth"] == "Bearer not-needed"
