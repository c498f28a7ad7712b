"""`ontobuild --dry-run FILES`: the files are read without the model and the plan says what was found and which
model calls the build will make (one per record shape, per reference code cannot decide, at most one per sentence
that gives a value or joins two things). Made-up domain: a bicycle repair shop."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ontobuild.cli import main
from ontobuild.dryrun import dry_run

FILES = {
    "mechanics.csv": "mechanic_id,name,since\nM1,Ola,2015\nM2,Ben,2019\n",
    "repairs.csv": "repair_id,mechanic_id,minutes,part\n1,M1,45,chain\n2,M2,30,brake pad\n3,M1,90,wheel\n",
    "bikes.json": json.dumps({"bikes": [{"model": "Tourer", "weight (kg)": 13.2}, {"model": "Sprint", "weight (kg)": 8.1}]}),
    "shop.md": "# Opening\n\nThe shop opens at 8:00 and closes at 18:00.\n\n# Policy\n\nEvery repair is guaranteed.\n",
}


@pytest.fixture
def files(tmp_path: Path) -> list[Path]:
    for name, text in FILES.items():
        (tmp_path / name).write_text(text, "utf-8")
    return [tmp_path / n for n in FILES]


def test_dry_run_predicts_the_calls(files: list[Path]) -> None:
    plan = dry_run(files)
    assert plan["inputs"]["tables"] == {"mechanics.csv": 2, "repairs.csv": 3}
    shapes = {(s["file"], s["records"]) for s in plan["shapes"]}
    assert shapes == {("mechanics.csv", 2), ("repairs.csv", 3), ("bikes.json", 2)}
    assert [r["reference"] for r in plan["references"]] == ["repairs.csv 'mechanic_id' -> mechanics.csv 'mechanic_id'"]
    calls = plan["calls"]
    assert calls["map_records"]["calls"] == 3  # one per record shape
    asked = sum(1 for r in plan["references"] if r["decided_by"] == "model")
    assert calls["confirm_reference"]["calls"] == asked
    assert calls["confirm_reference"]["calls"] + calls["confirm_reference"]["decided_by_code"] == 1
    assert [c["numbers"] > 0 for c in plan["chunks"]] == [True, False]  # the times; the policy has no number
    assert calls["read_sentence"]["calls_at_most"] == 1  # the opening times; the policy has nothing to ask
    assert plan["total"]["calls"] == 3 + asked and plan["total"]["calls_at_most"] == 4 + asked
    assert calls["map_records"]["prompt_tokens"] > 100


def test_dry_run_cli_prints_the_plan_and_writes_nothing(files: list[Path], tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ONTOBUILD_BACKEND", "openai")  # no model is opened: a missing key would fail otherwise
    before = sorted(p.name for p in tmp_path.iterdir())
    result = CliRunner().invoke(main, ["--dry-run", *map(str, files)])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "mechanics.csv: 2 row(s)" in out and "repairs.csv: 3 row(s)" in out
    assert "record shapes: 3" in out and "map_records: 3 (one per record shape)" in out
    assert "text chunks: 2 (1 with numbers" in out and "read_sentence: at most 1" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # no outcome folder
    printed = json.loads(CliRunner().invoke(main, ["--dry-run", "--json", *map(str, files)]).stdout)
    assert printed["calls"]["map_records"]["calls"] == 3


def test_dry_run_names_the_encoding_and_refuses_like_a_build(tmp_path: Path) -> None:
    path = tmp_path / "mechanics.csv"
    path.write_bytes("mechanic_id,name\nM1,Zoë\nM2,José\n".encode("cp1252"))
    result = CliRunner().invoke(main, ["--dry-run", str(path)])
    assert result.exit_code == 0, result.output
    assert "warning: mechanics.csv: read as Windows-1252 (cp1252), not UTF-8" in result.stdout
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2,3\n", "utf-8")
    result = CliRunner().invoke(main, ["--dry-run", str(bad)])
    assert result.exit_code == 2 and "row 2 has 3 cells" in result.output
    result = CliRunner().invoke(main, ["--dry-run"])
    assert result.exit_code == 2


def test_a_reference_code_cannot_decide_is_a_model_call_with_its_prompt_sized(tmp_path: Path) -> None:
    (tmp_path / "mechanics.csv").write_text(FILES["mechanics.csv"], "utf-8")
    (tmp_path / "jobs.csv").write_text("job,done_by,minutes\nJ1,M1,45\nJ2,M2,30\nJ3,M1,90\n", "utf-8")
    plan = dry_run([tmp_path / "mechanics.csv", tmp_path / "jobs.csv"])
    (ref,) = plan["references"]
    assert ref["reference"] == "jobs.csv 'done_by' -> mechanics.csv 'mechanic_id'" and ref["decided_by"] == "model"
    assert plan["calls"]["confirm_reference"]["calls"] == 1
    assert plan["calls"]["confirm_reference"]["prompt_tokens"] == ref["prompt_tokens"] > 100
    assert plan["total"]["calls"] == 3


def test_the_prediction_holds_for_a_recorded_build(tmp_path: Path) -> None:
    """The cassette build (real exchanges of the embedded model, replayed: one map_records, a read_sentence per
    sentence) makes the calls the dry run predicts."""
    from conftest import cassette_model
    from ontobuild.pipeline import run_build

    here = Path(__file__).resolve().parents[1]
    files = [here / "data" / "mini_fleet.json", here / "data" / "mini_fleet_notes.txt"]
    plan = dry_run(files)
    stats = run_build(files, out=tmp_path / "out", model=cassette_model(here / "cassettes" / "build_mini.json"),
                      reason=False)
    assert plan["total"]["calls"] <= stats["llm"]["calls"] <= plan["total"]["calls_at_most"]
    asked = plan["calls"]["read_sentence"]["calls_at_most"]  # one per sentence with something to decide
    assert plan["calls"]["map_records"]["calls"] == 1 and 2 <= stats["llm"]["calls"] <= 1 + asked


def test_the_dry_run_subcommand_prints_what_the_flag_prints(files: list[Path], monkeypatch) -> None:
    """`ontobuild dry-run FILE...` is `ontobuild --dry-run FILE...`; --max-input-mb reaches the reading as an
    argument and leaves the environment as it was."""
    monkeypatch.delenv("ONTOBUILD_MAX_INPUT_MB", raising=False)
    flag = CliRunner().invoke(main, ["--dry-run", *map(str, files)])
    command = CliRunner().invoke(main, ["dry-run", *map(str, files)])
    assert command.exit_code == flag.exit_code == 0 and command.stdout == flag.stdout
    big = files[0].with_name("many_mechanics.csv")
    big.write_text("mechanic_id,name\n" + "".join(f"M{i},Ola\n" for i in range(300)), "utf-8")
    for args in (["dry-run"], ["--dry-run"]):
        refused = CliRunner().invoke(main, [*args, "--max-input-mb", "0.001", str(big)])
        assert refused.exit_code == 2 and "more than the 0.001 MB an input may have" in refused.output
    import os

    assert "ONTOBUILD_MAX_INPUT_MB" not in os.environ
    assert "dry-run" in CliRunner().invoke(main, ["--help"]).stdout  # the subcommands are listed
