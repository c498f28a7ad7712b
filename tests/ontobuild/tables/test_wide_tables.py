"""A table far wider than any a model can map (100,000 columns and two rows) is refused at once with the stated limit
(ONTOBUILD_MAX_COLUMNS, default 1000 columns), before any model call; tables within the limit are read as always,
and a row of many columns is mapped in time linear in its cells (no fact compared with every other)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fake_openai import dead_url
from ontobuild.ontology.entries import Fact
from ontobuild.ontology.index import EntitiesIndex
from ontobuild.inputs.readers import load_inputs
from ontocore.errors import InputError

SRC = Path(__file__).resolve().parents[3] / "src"


def test_a_table_of_100000_columns_is_refused_at_once_with_the_limit(tmp_path: Path) -> None:
    n = 100_000
    wide = tmp_path / "sensors.csv"
    wide.write_text(",".join(f"probe_{i}" for i in range(n)) + "\n" + ",".join(str(i) for i in range(n)) + "\n"
                    + ",".join(f"r{i}" for i in range(n)) + "\n", "utf-8")
    out = tmp_path / "out"
    run = subprocess.run([sys.executable, "-m", "ontobuild", str(wide), "--out", str(out), "--backend", "openai",
                          "--base-url", dead_url(), "--api-key", "k", "--model-retries", "0"],
                         capture_output=True, text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(SRC)})
    assert run.returncode == 2, run.stderr
    assert "100000 columns" in run.stderr and "at most 1000" in run.stderr and "ONTOBUILD_MAX_COLUMNS" in run.stderr
    assert "model server" not in run.stderr and not out.exists()


def test_the_column_limit_holds_for_json_records_and_can_be_raised(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    kilns = tmp_path / "kilns.json"
    kilns.write_text(json.dumps([{f"zone_{i}_temp_c": i for i in range(8)}, {f"zone_{i}_temp_c": i + 1
                                                                              for i in range(8)}]), "utf-8")
    crates = tmp_path / "crates.csv"
    crates.write_text("a,b,c,d,e,f\n1,2,3,4,5,6\n", "utf-8")
    monkeypatch.setenv("ONTOBUILD_MAX_COLUMNS", "5")
    with pytest.raises(InputError, match="crates.csv has 6 columns"):
        load_inputs([crates])
    from ontobuild.tables.mapping import find_records, group_shapes

    data = load_inputs([kilns]).json_docs[0][1]
    with pytest.raises(InputError, match="kilns.json has 8 columns"):
        group_shapes(find_records("kilns.json", data))
    monkeypatch.setenv("ONTOBUILD_MAX_COLUMNS", "8")
    assert len(group_shapes(find_records("kilns.json", data))[0].keys) == 8
    assert load_inputs([crates]).tables == {"crates.csv": 1}


def test_an_individual_of_many_facts_refuses_only_the_same_fact_twice() -> None:
    idx = EntitiesIndex()
    idx.add_class("Probe")
    idx.add_individual("P1", ["Probe"])
    for i in range(300):
        idx.add_property(f"reading{i}", "datatype", range="xsd:integer")
        assert idx.add_fact("P1", Fact(f"reading{i}", literal=str(i)))
    assert not idx.add_fact("P1", Fact("reading7", literal="7"))  # the same fact: refused
    assert idx.add_fact("P1", Fact("reading7", literal="8"))  # another value: kept
    idx.rename("reading7", "readingSeven")  # facts changed in place: the kept keys are forgotten
    assert not idx.add_fact("P1", Fact("readingSeven", literal="8"))
    assert len(idx.individuals["P1"].facts) == 301
