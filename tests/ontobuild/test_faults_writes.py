"""Folders a run cannot write, and a persisted store whose files are damaged: each is a clear error (exit 2, naming
the path and what to do) or is rebuilt with a warning, never "Internal error"; and a persisted store keeps everything
it needs, its lock too, inside its own folder (nothing left beside it in the user's folder, also after SIGTERM).

A folder that "cannot be written" is one owned by another user: when the tests run as root (who may write anywhere)
the run is made in a child process that has given up root (`as_another_user`)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import pytest
from click.testing import CliRunner

import ontobuild.pipeline  # noqa: F401 - the modules a child that gave up root runs, imported while they can be read
import ontouse.storage.persist  # noqa: F401
from ontobuild.cli import main as build_main
from ontouse.cli import main as ask_main

NOBODY = 65534
TTL = ("@prefix ex: <http://example.org/kiln#> .\n"
       "ex:k1 ex:label \"Kiln one\" ; ex:maxTempC 1280 .\nex:k2 ex:label \"Kiln two\" ; ex:maxTempC 1100 .\n")
COUNT = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"


@pytest.fixture
def shared() -> Path:
    """A folder this process can write and another user can read but not write (mode 755)."""
    folder = Path(tempfile.mkdtemp(prefix="onto-faults-"))
    folder.chmod(0o755)
    (folder / "kilns.ttl").write_text(TTL, "utf-8")
    (folder / "kilns.json").write_text(json.dumps([{"kiln": "K1", "max_temp_c": 1280}]), "utf-8")
    (folder / "locked").mkdir()
    (folder / "locked").chmod(0o555)  # nobody but root writes here
    yield folder
    import shutil

    (folder / "locked").chmod(0o755)
    shutil.rmtree(folder, ignore_errors=True)


def as_another_user(fn: Callable[[], Any]) -> Any:
    """fn()'s result, computed by a user who cannot write the `locked` folder: this process when it is not root,
    else a forked child that gave up root first (its result comes back as JSON)."""
    if os.geteuid() != 0:
        return fn()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        try:
            os.close(read)
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            os.environ["HOME"] = tempfile.gettempdir()
            out = json.dumps(fn())
        except BaseException as e:  # noqa: BLE001
            out = json.dumps({"crash": f"{type(e).__name__}: {e}"})
        os.write(write, out.encode())
        os._exit(0)
    os.close(write)
    data = b""
    while chunk := os.read(read, 65536):
        data += chunk
    os.close(read)
    os.waitpid(pid, 0)
    return json.loads(data)


def count(stdout: str) -> str:
    """The count of a `--sparql COUNT --json` answer (SPARQL 1.1 JSON results)."""
    return json.loads(stdout)["results"]["bindings"][0]["n"]["value"]


def cli(main: Callable, args: list[str]) -> Callable[[], dict[str, Any]]:
    def run() -> dict[str, Any]:
        result = CliRunner().invoke(main, args)
        return {"code": result.exit_code, "stderr": result.stderr, "stdout": result.stdout}
    return run


def test_out_inside_a_folder_that_cannot_be_written_is_a_clear_error(shared: Path) -> None:
    out = shared / "locked" / "kilns"
    r = as_another_user(cli(build_main, [str(shared / "kilns.json"), "--out", str(out), "--no-reason"]))
    assert "crash" not in r, r
    assert r["code"] == 2 and "Internal error" not in r["stderr"], r["stderr"]
    assert "cannot create the outcome folder" in r["stderr"] and str(out) in r["stderr"], r["stderr"]
    assert os.listdir(shared / "locked") == []


def test_a_store_whose_folder_cannot_be_written_is_a_clear_error(shared: Path) -> None:
    store = shared / "locked" / "store"
    r = as_another_user(cli(ask_main, ["--ontology", str(shared / "kilns.ttl"), "--store-path", str(store),
                                       "--sparql", COUNT]))
    assert "crash" not in r, r
    assert r["code"] == 2 and "Internal error" not in r["stderr"], r["stderr"]
    assert "cannot be written" in r["stderr"] and str(store) in r["stderr"], r["stderr"]
    assert os.listdir(shared / "locked") == []


def test_a_store_another_user_keeps_is_read_where_it_cannot_be_written(shared: Path) -> None:
    store = shared / "locked" / "store"
    (shared / "locked").chmod(0o755)
    r = CliRunner().invoke(ask_main, ["--ontology", str(shared / "kilns.ttl"), "--store-path", str(store),
                                      "--sparql", COUNT, "--json"])
    assert r.exit_code == 0, r.output
    (shared / "locked").chmod(0o555)
    for entry in [store, *store.rglob("*")]:
        entry.chmod(0o555 if entry.is_dir() else 0o444)
    r = as_another_user(cli(ask_main, ["--ontology", str(shared / "kilns.ttl"), "--store-path", str(store),
                                       "--sparql", COUNT, "--json"]))
    assert "crash" not in r, r
    assert r["code"] == 0, r["stderr"]
    assert count(r["stdout"]) == "4"
    for entry in [store, *store.rglob("*")]:
        entry.chmod(0o755 if entry.is_dir() else 0o644)


def test_a_damaged_store_is_built_again_from_the_files(shared: Path) -> None:
    store = shared / "store"
    args = ["--ontology", str(shared / "kilns.ttl"), "--store-path", str(store), "--sparql", COUNT, "--json"]
    first = CliRunner().invoke(ask_main, args)
    assert first.exit_code == 0, first.output
    for sst in (store / "db").glob("*.sst"):  # cut short: "Corruption: Sst file size mismatch" when opened
        sst.write_bytes(sst.read_bytes()[: sst.stat().st_size // 2])
    again = CliRunner().invoke(ask_main, args)
    assert again.exit_code == 0 and "Internal error" not in again.output, again.output
    assert "damaged" in again.stderr and "building it again" in again.stderr
    assert count(again.stdout) == count(first.stdout) == "4"


def test_a_store_keeps_its_lock_inside_its_own_folder_also_after_sigterm(shared: Path) -> None:
    r = CliRunner().invoke(ask_main, ["--ontology", str(shared / "kilns.ttl"), "--store-path",
                                      str(shared / "store"), "--sparql", COUNT])
    assert r.exit_code == 0, r.output
    assert sorted(os.listdir(shared)) == ["kilns.json", "kilns.ttl", "locked", "store"]
    # a graph that takes a while to load, interrupted while its store is being built
    big = shared / "many.nt"
    with open(big, "w", encoding="utf-8") as fh:
        for i in range(400_000):
            fh.write(f"<http://example.org/kiln#k{i}> <http://example.org/kiln#firing> \"{i}\" .\n")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    proc = subprocess.Popen([sys.executable, "-m", "ontouse", "--ontology", str(big), "--store-path",
                             str(shared / "big-store"), "--sparql", COUNT], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not list((shared / "big-store").glob(".partial-*")):
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert sorted(os.listdir(shared)) == ["big-store", "kilns.json", "kilns.ttl", "locked", "many.nt", "store"]
    assert not list((shared / "big-store").glob(".partial-*"))  # the half-built store went
