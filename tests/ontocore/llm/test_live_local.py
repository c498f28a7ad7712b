"""Live tests against the real embedded model (marked `live`; a few minutes at most in all)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from ontocore.agent import run_agent
from ontobuild.check import record_weight

pytestmark = pytest.mark.live


QUESTION = [{"role": "system", "content": "You record facts by calling tools."},
            {"role": "user", "content": "The Orion lamp weighs 2.4 kg. Record it."}]


def _local_model_or_skip():
    from ontocore.errors import ModelUnavailable
    from ontocore.llm import open_model

    try:
        return open_model({"backend": "local"})
    except ModelUnavailable as e:
        pytest.skip(str(e))


def test_embedded_model_makes_a_real_tool_call(monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    from ontocore.llm import open_model

    model = open_model()  # no key: the embedded local model is the default
    assert model.backend == "local"
    result = run_agent(model, list(QUESTION), [record_weight])
    assert result.state == "answered"
    assert result.output in ("record_weight(product='Orion lamp', weight_kg=2.4)",
                             "record_weight(product='Orion', weight_kg=2.4)")
    assert model.usage.calls == 1 and model.usage.completion_tokens > 0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_same_code_against_an_openai_compatible_server() -> None:
    pytest.importorskip("uvicorn")
    _local_model_or_skip()
    from ontocore.llm import OpenAIChat
    from ontocore.llm.localmodel import default_model_path

    port = _free_port()
    server = subprocess.Popen(
        # llama_cpp.server's own main, with the model loaded as ontobuild loads it (llm.llama_load_settings)
        [sys.executable, "-c", "import runpy, sys; from ontocore.llm.localchat import llama_load_settings; "
         "sys.argv[0] = 'llama_cpp.server'; ctx = llama_load_settings(); ctx.__enter__(); "
         "runpy.run_module('llama_cpp.server', run_name='__main__')", "--model", str(default_model_path()), "--host", "127.0.0.1",
         "--port", str(port), "--chat_format", "chatml-function-calling", "--n_ctx", "4096",
         "--model_alias", "local-qwen"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 90
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2)
                break
            except OSError:
                if time.time() > deadline or server.poll() is not None:
                    pytest.fail("llama_cpp.server did not start")
                time.sleep(0.5)
        model = OpenAIChat(model="local-qwen", base_url=f"http://127.0.0.1:{port}/v1", api_key="unused")
        result = run_agent(model, list(QUESTION), [record_weight])
        assert result.state == "answered", result.reason
        call = result.steps[-1].arguments
        assert call["product"].lower().startswith("orion") and float(call["weight_kg"]) == 2.4
        assert model.usage.calls >= 1 and model.usage.prompt_tokens > 0
    finally:
        server.terminate()
        server.wait(timeout=20)


def test_check_model_command_without_a_key(monkeypatch) -> None:
    from click.testing import CliRunner

    from ontobuild.cli import main

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    result = CliRunner().invoke(main, ["--check-model"])
    assert result.exit_code == 0, result.output
    assert "backend: local" in result.output and "state: answered" in result.output
    assert "call: record_weight(product='Orion" in result.output and "weight_kg=2.4)" in result.output


def test_load_settings_skip_extra_buffers_when_asked_and_restore_the_library(monkeypatch) -> None:
    lib = pytest.importorskip("llama_cpp.llama").llama_cpp
    from ontocore.llm.localchat import llama_load_settings

    if not any(name == "use_extra_bufts" for name, *_ in lib.llama_model_default_params()._fields_):
        pytest.skip("this llama.cpp has no extra buffer types setting")
    original = lib.llama_model_default_params
    monkeypatch.setenv("ONTOBUILD_LLAMA_EXTRA_BUFFERS", "0")
    with llama_load_settings():
        assert lib.llama_model_default_params().use_extra_bufts is False
    assert lib.llama_model_default_params is original
    monkeypatch.setenv("ONTOBUILD_LLAMA_EXTRA_BUFFERS", "1")
    with llama_load_settings():
        assert lib.llama_model_default_params is original


def test_a_released_model_answers_again() -> None:
    # a build gives the model's memory back before writing the rows of big tables (tablestream); a later call loads
    # it again
    model = _local_model_or_skip()
    model.release()
    assert model._llm is None
    result = run_agent(model, list(QUESTION), [record_weight])
    assert result.state == "answered" and model._llm is not None


def test_the_embedded_model_on_the_prebuilt_binding_makes_a_real_tool_call(monkeypatch) -> None:
    """xllamacpp (a prebuilt wheel, no compiler): the same prompt and rails, a real call (free, or under the call's
    JSON Schema as a grammar)."""
    pytest.importorskip("xllamacpp")
    from ontocore.llm import XLlamaChat, open_model

    monkeypatch.setenv("ONTOBUILD_LLAMA_LIBRARY", "xllamacpp")
    model = open_model({"backend": "local"})
    assert isinstance(model, XLlamaChat) and model.backend == "local"
    result = run_agent(model, list(QUESTION), [record_weight])
    assert result.state == "answered"
    assert result.output in ("record_weight(product='Orion lamp', weight_kg=2.4)",
                             "record_weight(product='Orion', weight_kg=2.4)")
    assert model.usage.calls >= 1 and model.usage.completion_tokens > 0
