"""A failed build keeps what it paid for: every decision the model took is saved in the unfinished outcome folder as
it is taken (ontocore.savedcalls), the folder is kept as NAME.incomplete when the build fails or is killed after
it, the error says how to go on, and `--resume` asks the model nothing it answered before.

On recorded real exchanges of the embedded model (tests/cassettes/build_resume.json; re-record with
ONTOBUILD_RECORD=1): two made-up tables of a weaving workshop, whose mappings and whose one reference (a column not
named after the table it refers to) the model decides."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ontobuild.pipeline import run_build
from ontocore.cassette import ReplayChat
from ontocore.savedcalls import SAVED_CALLS_FILE, SavedCalls, SavingChat, call_key, refuse_to_ask

from conftest import cassette_model

HERE = Path(__file__).resolve().parents[1]
CASSETTE = HERE / "cassettes" / "build_resume.json"
TABLES = {
    "looms.csv": "loom_code,maker,width_cm\nLM-A,Harrow,120\nLM-B,Harrow,90\nLM-C,Ostby,150\n",
    "weavings.csv": "piece_no,title,woven_on,hours\n31,Dune Blanket,LM-A,40\n32,Tide Runner,LM-C,12\n"
                    "33,Moss Throw,LM-A,25\n34,Salt Scarf,LM-B,6\n",
}


def tables(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in TABLES.items():
        (folder / name).write_text(text, "utf-8")
    return [folder / name for name in TABLES]


def recorded() -> int:
    return len(json.loads(CASSETTE.read_text("utf-8"))["exchanges"])


def index_of(outcome: Path) -> dict:
    """The entities index of an outcome, but for its namespace (named after the outcome folder)."""
    return {k: v for k, v in json.loads((outcome / "entities_index.json").read_text("utf-8")).items()
            if k != "base_iri"}


def test_a_build_that_failed_after_its_model_calls_resumes_with_no_new_call(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    files = tables(tmp_path / "in")
    model = cassette_model(CASSETTE)
    whole = run_build(files, out=tmp_path / "whole", model=model, reason=False)  # the reference: one whole build
    assert whole["llm"]["calls"] == recorded() >= 3 and whole["llm"]["replayed"] == 0
    assert not (tmp_path / "whole" / SAVED_CALLS_FILE).exists()  # a finished outcome keeps no saved calls

    import importlib

    build = importlib.import_module("ontobuild.pipeline")  # the builder's steps
    def internal_error(*args, **kwargs):
        raise KeyError("something after the model calls")

    monkeypatch.setattr(build, "_finish", internal_error)  # an internal error after every model call was made
    out = tmp_path / "out"
    with pytest.raises(KeyError) as failed:
        run_build(files, out=out, model=ReplayChat(CASSETTE), reason=False)
    monkeypatch.undo()
    kept = tmp_path / "out.incomplete"
    note = " ".join(getattr(failed.value, "__notes__", []))
    assert f"--out {out} --resume" in note and str(kept) in note and f"{recorded()} model call(s)" in note
    assert not out.exists() and len(SavedCalls(kept / SAVED_CALLS_FILE)) == recorded()

    again = ReplayChat(CASSETTE)
    stats = run_build(files, out=out, model=again, reason=False, resume=True)
    assert again.position == 0  # the model was asked nothing
    assert stats["llm"]["calls"] == 0 and stats["llm"]["replayed"] == recorded()
    assert not kept.exists() and not (out / SAVED_CALLS_FILE).exists()
    assert index_of(out) == index_of(tmp_path / "whole")


def test_a_killed_build_resumes_with_no_new_call(tmp_path: Path) -> None:
    """SIGKILL after the model's calls (while the reasoner runs): the hidden unfinished folder is found again."""
    if not CASSETTE.is_file():
        pytest.skip("no cassette recorded yet (ONTOBUILD_RECORD=1)")
    files = tables(tmp_path / "in")
    out = tmp_path / "out"
    script = ("import sys; from pathlib import Path; from ontobuild.pipeline import run_build; "
              "from ontocore.cassette import ReplayChat; "
              "run_build([Path(p) for p in sys.argv[3:]], out=Path(sys.argv[2]), model=ReplayChat(sys.argv[1]))")
    env = {**os.environ, "PYTHONPATH": str(HERE.parent / "src")}
    proc = subprocess.Popen([sys.executable, "-c", script, str(CASSETTE), str(out), *map(str, files)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    saved = 0
    while time.monotonic() < deadline and proc.poll() is None and saved < recorded():
        saved = sum(len(SavedCalls(p / SAVED_CALLS_FILE)) for p in tmp_path.glob(".out.partial-*"))
        time.sleep(0.01)
    if proc.poll() is not None:
        pytest.skip("the build finished before it could be killed")
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)
    assert saved == recorded() and not out.exists()
    again = ReplayChat(CASSETTE)
    stats = run_build(files, out=out, model=again, reason=False, resume=True)
    assert again.position == 0 and stats["llm"]["calls"] == 0 and stats["llm"]["replayed"] == recorded()
    assert not list(tmp_path.glob(".out.*")) and not (out / SAVED_CALLS_FILE).exists()


def test_a_failure_before_any_decision_keeps_nothing(tmp_path: Path) -> None:
    """Nothing paid, nothing kept: the folder goes as before, and the error carries no note."""
    files = tables(tmp_path / "in")
    with pytest.raises(Exception) as failed:
        run_build(files, out=tmp_path / "out", model=SavingChat(SavedCalls(tmp_path / "none.jsonl"),
                                                                 opener=refuse_to_ask("the test"), name="none"))
    assert not getattr(failed.value, "__notes__", None)
    assert sorted(os.listdir(tmp_path)) == ["in"]


def test_saved_calls_survive_a_torn_line_and_are_keyed_by_the_whole_request(tmp_path: Path) -> None:
    from ontocore.llm import ChatReply, ToolCall

    path = tmp_path / SAVED_CALLS_FILE
    calls = SavedCalls(path)
    reply = ChatReply(content=None, tool_calls=[ToolCall("c0", "pick", '{"x": 1}')], prompt_tokens=9)
    key = call_key("local/m", [{"role": "user", "content": "a"}], None, "required", 30, 0.0)
    calls.add([(key, reply, "local/m", "a")])
    with open(path, "a", encoding="utf-8") as fh:
        fh.write('{"key": "cut sh')  # a kill in the middle of a write
    again = SavedCalls(path)
    assert len(again) == 1 and again.torn == 1 and again.get(key).tool_calls[0].arguments == '{"x": 1}'
    assert key != call_key("local/m", [{"role": "user", "content": "a"}], None, "required", 31, 0.0)
    assert key != call_key("local/m", [{"role": "user", "content": "a"}], None, "required", 30, 0.0, opened=True)
    assert key != call_key("openai/m", [{"role": "user", "content": "a"}], None, "required", 30, 0.0)


def test_the_command_line_says_how_to_resume() -> None:
    from click.testing import CliRunner

    import click

    from ontocore.cliutil import friendly_errors

    @click.command()
    @click.option("-v", "--verbose", count=True)
    @friendly_errors
    def failing(verbose: int) -> None:
        error = KeyError("x")
        error.add_note("The 3 model call(s) this build made are saved in o.incomplete: run the same command with "
                       "--out o --resume to go on without asking them again.")
        raise error

    result = CliRunner().invoke(failing, [])
    assert result.exit_code == 1 and result.stderr.startswith("Internal error: KeyError")
    assert "--out o --resume" in result.stderr and len(result.stderr.strip().splitlines()) == 1
