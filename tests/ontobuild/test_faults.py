"""The fault suite: hostile and broken inputs, a misbehaving model server, interrupted runs, exit codes,
outcome folders and secrets. (Hostile queries and hostile RDF files: test_sandbox.py.)

Every case asserts the exit code, the message, that no outcome folder (or hidden partial folder) remains
when the run failed, and that no file outside the outcome folder changed. The model server is the fake
OpenAI-compatible server of fake_openai.py on 127.0.0.1; it tests error handling and loop mechanics only."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

import pytest
from click.testing import CliRunner

from fake_openai import FakeOpenAI, dead_url
from ontobuild.cli import main as build_main
from ontocore.files import read_json_file
from ontobuild.ontology.entries import Fact
from ontobuild.ontology.index import EntitiesIndex
from ontobuild.outputs.outcome import write_index_outcome
from ontouse.cli import main as ask_main

KEY = "sk-fault-suite-0123456789abcdef"
FLEET = {"trucks": [{"id": "T1", "name": "Truck one", "payload_t": 18, "depot": "North"},
                    {"id": "T2", "name": "Truck two", "payload_t": 12, "depot": "South"}]}
LIBRARY_TEXT = "The Dune novel has 412 pages. The reading room holds 30 seats.\n"


# ---- helpers ----------------------------------------------------------------------------------------------
def snapshot(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def run(main: Callable, args: list[str], root: Path, out: Path | None, ok: bool) -> Any:
    """Invoke a CLI in-process; assert the files outside `out` did not change and, for a failure, that `out`
    and every hidden partial folder are absent."""
    before = {k: v for k, v in snapshot(root).items() if out is None or not k.startswith(out.name + os.sep)}
    result = CliRunner().invoke(main, args)
    after = snapshot(root)
    if out is not None:
        after = {k: v for k, v in after.items() if not k.startswith(out.name + os.sep)}
        assert out.exists() == ok, result.output
    assert after == before, "a file outside the outcome folder changed"
    assert not [p for p in root.rglob(".*partial-*")], "a partial folder was left behind"
    assert "Traceback" not in result.output
    return result


def fleet_index() -> EntitiesIndex:
    idx = EntitiesIndex(base_iri="http://example.org/fleet#")
    idx.add_class("Truck")
    idx.add_class("Depot")
    idx.add_property("basedAt", "object", domain=["Truck"], range="Depot")
    idx.add_property("payloadT", "datatype", domain=["Truck"], range="xsd:decimal", unit="t")
    for name, label, payload, depot in (("T1", "Truck one", "18", "North"), ("T2", "Truck two", "12", "South")):
        idx.add_individual(depot, classes=["Depot"], label=depot, source={"file": "fleet.json", "path": "$"})
        idx.add_individual(name, classes=["Truck"], label=label, source={"file": "fleet.json", "path": "$"})
        idx.add_fact(name, Fact("payloadT", literal=payload, datatype="xsd:decimal", source={"file": "fleet.json"}))
        idx.add_fact(name, Fact("basedAt", object=depot, source={"file": "fleet.json"}))
    return idx


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "fleet.json").write_text(json.dumps(FLEET), "utf-8")
    (tmp_path / "library.txt").write_text(LIBRARY_TEXT, "utf-8")
    write_index_outcome(fleet_index(), tmp_path / "onto", reason=False)
    (tmp_path / "questions.json").write_text(json.dumps(["How many trucks are there?", "Which colour is the sky?"]))
    return tmp_path


def server_args(url: str) -> list[str]:
    return ["--backend", "openai", "--base-url", url, "--api-key", KEY, "--model-timeout", "1",
            "--model-retries", "0"]


# ---- 1. malformed, huge, deep, binary and hostile inputs (ontobuild) ------------------------------------
BAD_INPUTS = [
    ("missing.json", None, "no such file"),
    ("empty.json", b"", "is empty"),
    ("binary.json", b"\x00\x01\x02garbage\x00", "binary file"),
    ("undecodable.txt", b"caf\x81 cr\x8dme", "is not text in UTF-8"),  # Latin-1/cp1252 text is read (test_spreadsheets)
    ("broken.json", b'{"trucks": [1, 2', "not valid JSON"),
    ("dupkeys.json", b'{"id": 1, "id": 2}', "appears twice"),
    ("deep.json", b"[" * 5000 + b"]" * 5000, "nested more than"),
    ("deepobj.json", b'{"a":' * 3000 + b"1" + b"}" * 3000, "nested more than"),
    ("binary.txt", b"text\x00\x00\x00more", "binary file"),
]


@pytest.mark.parametrize("name,content,message", BAD_INPUTS)
def test_bad_input_files(work: Path, name: str, content: bytes | None, message: str) -> None:
    if content is not None:
        (work / name).write_bytes(content)
    out = work / "out"
    r = run(build_main, [str(work / name), "--out", str(out), *server_args(dead_url())], work, out, ok=False)
    assert r.exit_code == 2 and message in r.stderr and r.stderr.startswith("Error: ")


def test_a_directory_is_not_an_input(work: Path) -> None:
    out = work / "out"
    r = run(build_main, [str(work / "onto"), "--out", str(out), *server_args(dead_url())], work, out, ok=False)
    assert r.exit_code == 2 and "is a directory" in r.stderr


@pytest.mark.parametrize("text,expected", [
    ('{"a": NaN, "b": 1}', {"a": None, "b": 1}),  # a table export's empty cell
    ('{"a": Infinity, "b": -Infinity}', {"a": "Infinity", "b": "-Infinity"}),
    ('{"a": 1e999}', {"a": "1e999"}),  # beyond a float: kept as written
    ('{"a": ' + "7" * 5000 + "}", {"a": "7" * 5000}),  # beyond Python's int conversion: kept as written
    ('{"name\\ud800": "x\\udc00y"}', {"name\ufffd": "x\ufffdy"}),  # lone surrogates repaired, not fatal
])
def test_odd_json_values_are_kept(tmp_path: Path, text: str, expected: dict) -> None:
    (tmp_path / "odd.json").write_text(text, "utf-8")
    assert read_json_file(tmp_path / "odd.json") == expected


@pytest.mark.parametrize("mutate,message", [
    (lambda d: d.update(base_iri="not an iri#"), "not an absolute IRI"),
    (lambda d: d.update(base_iri="http://example.org/a b#"), "not an absolute IRI"),
    (lambda d: d["individuals"].update(Truck={"name": "Truck", "classes": ["Depot"]}), "both a class and an individual"),
    (lambda d: d["classes"].update(payloadT={"name": "payloadT"}), "both a class and a property"),
    (lambda d: d["individuals"]["T1"]["facts"].append({"property": "payloadT", "literal": "heavy",
                                                       "datatype": "xsd:decimal"}), "not a valid xsd:decimal"),
    (lambda d: d["individuals"]["T1"]["facts"].append({"property": "basedAt", "object": "Nowhere"}),
     "unknown individual 'Nowhere'"),
    (lambda d: d.update(classes=[]), "is not a valid entities index"),
])
def test_hostile_index(work: Path, mutate: Callable[[dict], None], message: str) -> None:
    data = json.loads((work / "onto" / "entities_index.json").read_text("utf-8"))
    mutate(data)
    (work / "bad_index.json").write_text(json.dumps(data), "utf-8")
    out = work / "out"
    r = run(build_main, ["--from-index", str(work / "bad_index.json"), "--out", str(out), "--no-reason"], work,
            out, ok=False)
    assert r.exit_code == 2 and message in r.stderr


# ---- 2. a misbehaving model server ---------------------------------------------------------------------
SERVER_FAULTS = [
    ("garbage", 1, "not a chat completion"),
    ("empty_body", 1, "not a chat completion"),
    ("html", 1, "HTTP 502"),
    ("http500_echo_key", 1, "HTTP 500"),
    ("http401", 2, "refused the API key"),
    ("slow", 1, "did not answer within 1 s"),
    ("no_choices", 1, "without a message"),
    ("unknown_tool", 1, "no tool named 'no_such_tool'"),
    ("bad_arguments", 1, "not valid JSON"),
    ("prose", 1, "must answer with a tool call"),
    ("same_call", 1, "Invalid arguments"),
]


@pytest.mark.parametrize("mode,code,message", SERVER_FAULTS)
def test_build_with_a_misbehaving_server(work: Path, mode: str, code: int, message: str) -> None:
    out = work / "out"
    with FakeOpenAI(mode, delay_s=3) as server:
        started = time.monotonic()
        r = run(build_main, [str(work / "fleet.json"), "--out", str(out), "--no-reason", *server_args(server.base_url)],
                work, out, ok=False)
    assert r.exit_code == code and message in r.stderr, r.stderr
    assert KEY not in r.output and time.monotonic() - started < 10
    if mode in ("unknown_tool", "bad_arguments", "prose", "same_call"):
        assert len(server.requests) == 3  # the error went back to the model, a bounded number of times


def test_dead_server_gives_up_at_once(work: Path) -> None:
    out = work / "out"
    started = time.monotonic()
    r = run(build_main, [str(work / "fleet.json"), "--out", str(out), *server_args(dead_url())], work, out, ok=False)
    assert r.exit_code == 1 and "Cannot reach the model server at http://127.0.0.1:" in r.stderr
    assert time.monotonic() - started < 5


def test_timeout_and_retries_from_the_environment(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ONTOBUILD_MODEL_TIMEOUT", "0.5")
    monkeypatch.setenv("ONTOBUILD_MODEL_RETRIES", "1")
    out = work / "out"
    with FakeOpenAI("slow", delay_s=3) as server:
        r = run(build_main, [str(work / "fleet.json"), "--out", str(out), "--backend", "openai", "--base-url",
                             server.base_url, "--api-key", KEY], work, out, ok=False)
    assert r.exit_code == 1 and "within 0.5 s (2 attempt(s))" in r.stderr and len(server.requests) == 2


def test_bad_timeout_setting_is_a_configuration_error(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ONTOBUILD_MODEL_TIMEOUT", "soon")
    out = work / "out"
    r = run(build_main, [str(work / "fleet.json"), "--out", str(out), "--backend", "openai", "--base-url",
                         dead_url(), "--api-key", KEY], work, out, ok=False)
    assert r.exit_code == 2 and "ONTOBUILD_MODEL_TIMEOUT" in r.stderr


@pytest.mark.parametrize("mode,code,message", [
    ("http500_echo_key", 1, "Stopped at question 1 of 2"),
    ("http401", 2, "refused the API key"),
    ("prose", 1, "Every question failed (1)"),
])
def test_batch_with_a_misbehaving_server(work: Path, mode: str, code: int, message: str) -> None:
    out = work / "answers"
    questions = work / "questions.json"
    if mode == "prose":  # (a question code reads whole is answered without the model: the next test)
        questions = work / "sky.json"
        questions.write_text(json.dumps(["Which colour is the sky?"]))
    with FakeOpenAI(mode) as server:
        r = run(ask_main, ["--ontology", str(work / "onto"), "--questions", str(questions), "--out",
                           str(out), "-q", *server_args(server.base_url)], work, out, ok=False)
    assert r.exit_code == code and message in r.stderr and KEY not in r.output


def test_a_question_code_reads_whole_is_answered_when_the_model_writes_no_plan(work: Path) -> None:
    """A server that answers with prose: "how many trucks are there?" is counted by code (ontouse/written.py),
    the other question fails, and the batch says so."""
    out = work / "answers"
    with FakeOpenAI("prose") as server:
        r = run(ask_main, ["--ontology", str(work / "onto"), "--questions", str(work / "questions.json"), "--out",
                           str(out), "-q", *server_args(server.base_url)], work, out, ok=True)
    assert r.exit_code == 0 and "1/2 answered, 1 failed" in r.stdout
    answers = json.loads((out / "answers.json").read_text())
    assert answers[0]["state"] == "answered" and answers[1]["state"] == "error"


def test_batch_with_a_dead_server(work: Path) -> None:
    out = work / "answers"
    r = run(ask_main, ["--ontology", str(work / "onto"), "--questions", str(work / "questions.json"), "--out",
                       str(out), "-q", *server_args(dead_url())], work, out, ok=False)
    assert r.exit_code == 1 and "Cannot reach the model server" in r.stderr


def test_partial_failures_are_counted(work: Path) -> None:
    out = work / "answers"
    with FakeOpenAI("script", script={"How many trucks": "SELECT COUNT(*) FROM Truck"}) as server:
        r = run(ask_main, ["--ontology", str(work / "onto"), "--questions", str(work / "questions.json"), "--out",
                           str(out), "-q", *server_args(server.base_url)], work, out, ok=True)
    assert r.exit_code == 0 and "1/2 answered, 1 failed" in r.stdout
    stats = json.loads((out / "stats.json").read_text())
    answers = json.loads((out / "answers.json").read_text())
    assert stats["answered"] == 1 and stats["failed"] == 1
    assert answers[0]["rows"][0][0]["value"] == "2" and answers[1]["state"] == "error"
    assert (out / "report.html").is_file()


def test_single_question_with_a_dead_server(work: Path) -> None:
    r = run(ask_main, ["--ontology", str(work / "onto"), "How many trucks are there?", *server_args(dead_url())],
            work, None, ok=False)
    assert r.exit_code == 1 and "Cannot reach the model server" in r.stderr


# ---- 3. outcome folders ----------------------------------------------------------------------------------
def test_out_into_a_non_empty_folder_is_refused(work: Path) -> None:
    taken = work / "taken"
    taken.mkdir()
    (taken / "notes.md").write_text("mine")
    r = run(build_main, ["--from-index", str(work / "onto" / "entities_index.json"), "--out", str(taken),
                         "--no-reason"], work, None, ok=False)
    assert r.exit_code == 2 and "not empty" in r.stderr and "--force" in r.stderr
    assert sorted(p.name for p in taken.iterdir()) == ["notes.md"]


def test_force_replaces_the_folder_when_the_run_succeeds(work: Path) -> None:
    taken = work / "taken"
    taken.mkdir()
    (taken / "coverage.json").write_text("{}")  # a previous build's file must not stay next to the new one
    r = CliRunner().invoke(build_main, ["--from-index", str(work / "onto" / "entities_index.json"), "--out",
                                        str(taken), "--no-reason", "--force"])
    assert r.exit_code == 0, r.output
    assert "coverage.json" not in {p.name for p in taken.iterdir()} and (taken / "stats.json").is_file()
    assert json.loads((taken / "stats.json").read_text())["outcome"] == str(taken)


def test_out_holding_an_input_is_refused_even_with_force(work: Path) -> None:
    r = run(build_main, ["--from-index", str(work / "onto" / "entities_index.json"), "--out", str(work / "onto"),
                         "--no-reason", "--force"], work, None, ok=False)
    assert r.exit_code == 2 and "holds an input" in r.stderr


def test_failed_run_into_the_default_folder_leaves_nothing(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(work)
    with FakeOpenAI("prose") as server:
        r = run(build_main, [str(work / "fleet.json"), *server_args(server.base_url)], work, None, ok=False)
    assert r.exit_code == 1 and not [p for p in (work / "outcomes").iterdir()]


def test_keep_partial_keeps_an_incomplete_folder(work: Path) -> None:
    out = work / "out"
    with FakeOpenAI("prose") as server:
        r = CliRunner().invoke(build_main, [str(work / "fleet.json"), "--out", str(out), "--keep-partial",
                                            *server_args(server.base_url)])
    kept = work / "out.incomplete"
    assert r.exit_code == 1 and not out.exists() and (kept / "building.log").is_file()
    assert KEY not in (kept / "building.log").read_text("utf-8")  # secrets never reach a file


def test_a_chat_ended_by_a_dead_server_leaves_no_folder(work: Path) -> None:
    out = work / "chat"
    r = CliRunner().invoke(ask_main, ["--ontology", str(work / "onto"), "--chat", "--out", str(out),
                                      *server_args(dead_url())], input="How many trucks are there?\n")
    assert r.exit_code == 1 and "The conversation stopped" in r.stderr and not out.exists()


# ---- 4. exit codes ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("main,args,code,message", [
    (build_main, [], 2, "give the data FILES"),
    (build_main, ["x.json", "--backend", "nope"], 2, "Invalid value for '--backend'"),
    (build_main, ["x.json", "--model-timeout", "0"], 2, "--model-timeout"),
    (ask_main, [], 2, "give a QUESTION"),
    (ask_main, ["q", "--sparql", "SELECT * {}"], 2, "give only one of"),
    (ask_main, ["--ontology", "/nonexistent/x.ttl", "q"], 2, "no such file"),
])
def test_usage_and_configuration_errors_exit_2(main: Callable, args: list[str], code: int, message: str) -> None:
    r = CliRunner().invoke(main, args)
    assert r.exit_code == code and message in r.output


# ---- 5. interrupted runs (real signals to a real process) --------------------------------------------------
def _cli(name: str) -> str:
    path = Path(sys.executable).parent / name
    if not path.exists():
        pytest.skip(f"{name} is not installed (pip install -e .)")
    return str(path)


def _processes_mentioning(marker: str) -> list[int]:
    out = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if marker in (proc / "cmdline").read_bytes().decode("utf-8", "replace"):
                    out.append(int(proc.name))
            except OSError:
                pass
    return out


@pytest.mark.parametrize("sig,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_signal_during_a_model_call(work: Path, sig: int, code: int) -> None:
    out = work / "out"
    with FakeOpenAI("slow", delay_s=20) as server:
        proc = subprocess.Popen([_cli("ontobuild"), str(work / "fleet.json"), "--out", str(out), "--backend",
                                 "openai", "--base-url", server.base_url, "--api-key", KEY, "--model-timeout", "30"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120  # a fresh environment compiles the model client's modules first
        while not server.requests and time.monotonic() < deadline:
            time.sleep(0.1)
        assert server.requests, "the build never called the model"
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == code, err
    assert ("Interrupted" if code == 130 else "Terminated") in err and "Traceback" not in err
    assert not out.exists() and not list(work.glob(".out.partial-*"))


def test_sigterm_during_the_reasoner_leaves_no_process(work: Path, poc_index_path: Path) -> None:
    out = work / "reasoned"
    proc = subprocess.Popen([_cli("ontobuild"), "--from-index", str(poc_index_path), "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not any(
            pid != proc.pid for pid in _processes_mentioning("ontobuild.ontology.reason")):
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 143, err
    time.sleep(0.5)
    assert _processes_mentioning("ontobuild.ontology.reason") == [] and _processes_mentioning("ontobuild-reason-") == []
    assert not out.exists() and not list(work.glob(".reasoned.partial-*"))


def test_sigkill_during_the_reasoner(work: Path, poc_index_path: Path) -> None:
    """SIGKILL cannot be handled: the reasoner child dies with its parent, and the next run sweeps the partial
    folder the killed run left."""
    out = work / "killed"
    proc = subprocess.Popen([_cli("ontobuild"), "--from-index", str(poc_index_path), "--out", str(out)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not any(
            pid != proc.pid for pid in _processes_mentioning("ontobuild.ontology.reason")):
        time.sleep(0.05)
    proc.kill()
    proc.wait(timeout=10)
    time.sleep(1.0)
    assert _processes_mentioning("ontobuild.ontology.reason") == []
    assert len(list(work.glob(".killed.partial-*"))) == 1
    r = CliRunner().invoke(build_main, ["--from-index", str(work / "onto" / "entities_index.json"), "--out",
                                        str(work / "next"), "--no-reason"])
    assert r.exit_code == 0 and not list(work.glob(".killed.partial-*")) and not out.exists()


def test_an_empty_out_folder_is_used_as_is(work: Path) -> None:
    empty = work / "empty"
    empty.mkdir()
    r = CliRunner().invoke(build_main, ["--from-index", str(work / "onto" / "entities_index.json"), "--out",
                                        str(empty), "--no-reason"])
    assert r.exit_code == 0 and (empty / "stats.json").is_file() and not (work / "empty_2").exists()
