"""`ontoask mcp`: the official MCP Python SDK's stdio client starts the real command and calls its tools.

The model side is an OpenAI-compatible server that replays real exchanges with the embedded model
(`tests/cassettes/api_orchard.json`, see test_api.py)."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import pytest

from api_fixture import FOLDER, QUESTIONS
from test_api import CASSETTE, REPO, check_first_answer

pytest.importorskip("mcp")


def _value(result: Any) -> Any:
    """The JSON value a tool returned (its text content)."""
    assert result.content, result
    return json.loads(result.content[0].text)


async def _session_calls(params: Any) -> dict[str, Any]:
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client

    out: dict[str, Any] = {}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            info = await session.initialize()
            out["server"] = info.serverInfo.name
            out["tools"] = {t.name: t for t in (await session.list_tools()).tools}
            out["schema"] = await session.call_tool("describe_schema", {})
            out["count"] = await session.call_tool("sparql", {
                "query": "SELECT (COUNT(?t) AS ?n) WHERE { ?t a <http://orchard.example/onto#Tree> }"})
            out["update"] = await session.call_tool("sparql", {"query": "DELETE WHERE { ?s ?p ?o }"})
            out["service"] = await session.call_tool("sparql", {
                "query": "SELECT * WHERE { SERVICE <http://elsewhere.example/sparql> { ?s ?p ?o } }"})
            out["ask"] = await session.call_tool("ask", {"question": QUESTIONS[0]})
    return out


def test_mcp_tools_over_stdio_with_the_sdk_client() -> None:
    import anyio
    from mcp import StdioServerParameters

    from cassette_server import CassetteServer

    if not CASSETTE.is_file():
        pytest.skip("no cassette recorded yet")
    with CassetteServer(CASSETTE) as model_server:
        env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
        env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), os.environ.get("PYTHONPATH", "")])
        params = StdioServerParameters(command=sys.executable, env=env, args=[
            "-m", "ontouse", "mcp", "--ontology", str(FOLDER), "--backend", "openai",
            "--base-url", model_server.base_url, "--model", "recorded"])
        out = anyio.run(_session_calls, params)
        assert not model_server.mismatches, model_server.mismatches
    assert out["server"] == "ontoask"
    assert set(out["tools"]) == {"ask", "sparql", "describe_schema"}
    assert "question" in json.dumps(out["tools"]["ask"].inputSchema)

    schema = _value(out["schema"])
    assert {c["name"]: c["instances"] for c in schema["classes"]} == {"Tree": 4, "Plot": 2}

    count = _value(out["count"])
    assert count["results"]["bindings"][0]["n"]["value"] == "4"
    for refused in (out["update"], out["service"]):  # through the sandbox's check, as every query
        assert refused.isError and "Traceback" not in refused.content[0].text

    assert not out["ask"].isError, out["ask"].content
    check_first_answer(_value(out["ask"]))
