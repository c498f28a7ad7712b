"""A real Oxigraph SPARQL server on 127.0.0.1 for tests (PyPI package `oxigraph`, in the test extra)."""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

from ontouse.storage.endpoint import wait_ready


def oxigraph_cli() -> str | None:
    local = Path(sys.executable).parent / "oxigraph"
    return str(local) if local.exists() else shutil.which("oxigraph")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def oxigraph_server(graphs: dict[str | None, list[Path]], workdir: Path) -> Iterator[str]:
    """Load each list of files into its named graph (None: the default graph), serve them read-only, and yield
    the query URL; the server is stopped on exit."""
    cli = oxigraph_cli()
    if cli is None:
        pytest.skip("the oxigraph server (PyPI package `oxigraph`, in the test extra) is not installed")
    db = workdir / "oxigraph-db"
    for graph, files in graphs.items():
        extra = ["--graph", graph] if graph else []
        subprocess.run([cli, "load", "--location", str(db), "--file", *map(str, files), *extra], check=True,
                       capture_output=True, timeout=120)
    port = free_port()
    proc = subprocess.Popen([cli, "serve-read-only", "--location", str(db), "--bind", f"127.0.0.1:{port}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/query"
    try:
        if not wait_ready(url, 30):
            pytest.fail("the oxigraph server did not start")
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)
