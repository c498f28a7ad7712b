"""Any OpenAI model: a server that refuses `max_tokens` and a non-default temperature (as OpenAI's reasoning
models do) gets `max_completion_tokens` and no temperature, decided from its error, not from the model's name;
a plain server's request is unchanged. Against a real local HTTP server (tests/fake_openai.py)."""

from __future__ import annotations

from fake_openai import FakeOpenAI

from ontocore.llm import OpenAIChat


def test_a_reasoning_model_gets_the_parameters_it_accepts() -> None:
    with FakeOpenAI("reasoning") as server:
        chat = OpenAIChat(model="any-model-name", base_url=server.base_url, api_key="sk-test", retries=0)
        reply = chat.chat([{"role": "user", "content": "hi"}], max_tokens=50)
        assert reply.content == "ok"
        sent = [r["body"] for r in server.requests]
        assert "max_tokens" in sent[0] and "temperature" in sent[0]  # first as for any model
        final = sent[-1]
        assert final["max_completion_tokens"] == 50 and "max_tokens" not in final and "temperature" not in final
        n = len(server.requests)
        chat.chat([{"role": "user", "content": "again"}], max_tokens=20)  # remembered: one request
        assert len(server.requests) == n + 1 and server.requests[-1]["body"]["max_completion_tokens"] == 20


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
