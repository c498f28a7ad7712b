"""A real OpenLink Virtuoso server on 127.0.0.1 for tests (Debian package `virtuoso-opensource-7-bin`); the
tests that use it are skipped where it is not installed."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import time
from pathlib import Path
from typing import Iterator

import pytest

from ontouse.storage.endpoint import wait_ready
from oxigraph_server import free_port

INI = """[Database]
DatabaseFile = {d}/virtuoso.db
ErrorLogFile = {d}/virtuoso.log
LockFile = {d}/virtuoso.lck
TransactionFile = {d}/virtuoso.trx
xa_persistent_file = {d}/virtuoso.pxa
MaxCheckpointRemap = 2000
Striping = 0
TempStorage = TempDatabase

[TempDatabase]
DatabaseFile = {d}/virtuoso-temp.db
TransactionFile = {d}/virtuoso-temp.trx
MaxCheckpointRemap = 2000
Striping = 0

[Parameters]
ServerPort = 127.0.0.1:{isql}
DisableUnixSocket = 1
DirsAllowed = ., {d}
NumberOfBuffers = 10000
MaxDirtyBuffers = 6000
ServerThreads = 4
CheckpointInterval = 0

[HTTPServer]
ServerPort = 127.0.0.1:{http}
ServerRoot = {d}
ServerThreads = 4
MaxClientConnections = 4

[SPARQL]
ResultSetMaxRows = 100000
MaxQueryExecutionTime = 60
"""


@contextlib.contextmanager
def virtuoso_server(graphs: dict[str, list[Path]], workdir: Path) -> Iterator[str]:
    """Load each list of Turtle files into its named graph, and yield the SPARQL query URL."""
    server, isql = shutil.which("virtuoso-t"), shutil.which("isql-vt")
    if not server or not isql:
        pytest.skip("Virtuoso is not installed (Debian: apt-get install virtuoso-opensource-7-bin)")
    d = workdir / "virtuoso"
    d.mkdir()
    isql_port, http_port = free_port(), free_port()
    (d / "virtuoso.ini").write_text(INI.format(d=d, isql=isql_port, http=http_port))
    proc = subprocess.Popen([server, "-f", "-c", str(d / "virtuoso.ini")], cwd=d, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        for _ in range(300):
            ok = subprocess.run([isql, str(isql_port), "dba", "dba", "exec=select 1;"], capture_output=True,
                                timeout=30).returncode == 0
            if ok:
                break
            time.sleep(0.2)
        else:
            pytest.fail("Virtuoso did not start")
        for graph, files in graphs.items():
            for f in files:
                copy = d / f.name
                shutil.copyfile(f, copy)
                stmt = f"DB.DBA.TTLP_MT(file_to_string_output('{copy}'), '', '{graph}');"
                subprocess.run([isql, str(isql_port), "dba", "dba", f"exec={stmt}"], check=True,
                               capture_output=True, timeout=120)
        url = f"http://127.0.0.1:{http_port}/sparql"
        if not wait_ready(url, 30):
            pytest.fail("Virtuoso's SPARQL endpoint did not start")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
