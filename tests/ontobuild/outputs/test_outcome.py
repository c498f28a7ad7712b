from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ontocore.errors import InputError
from ontobuild.outputs.outcome import write_index_outcome
from ontocore.folders import atomic_write, new_outcome_dir, write_json


def test_atomic_write(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    atomic_write(path, "one")
    atomic_write(path, b"two")
    assert path.read_text() == "two"
    assert path.stat().st_mode & 0o777 == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["a.txt"]  # no temporary file left
    write_json(tmp_path / "b.json", {"é": [1, 2]})
    assert json.loads((tmp_path / "b.json").read_text("utf-8")) == {"é": [1, 2]}


def test_new_outcome_dir(tmp_path: Path) -> None:
    first = new_outcome_dir(root=tmp_path)
    second = new_outcome_dir(root=tmp_path)
    assert re.fullmatch(r"\d{8}_\d{6}", first.name)
    assert first != second and second.is_dir()
    if second.name.startswith(first.name):
        assert second.name == first.name + "_2"
    explicit = new_outcome_dir(out=tmp_path / "x" / "y")
    assert explicit.is_dir() and new_outcome_dir(out=explicit) == explicit
    (tmp_path / "file").write_text("")
    with pytest.raises(InputError):
        new_outcome_dir(out=tmp_path / "file")


def test_write_index_outcome(tiny_index, tmp_path: Path) -> None:
    stats = write_index_outcome(tiny_index, tmp_path, reason=False, extra_stats={"llm": {"calls": 3},
                                                                                "seconds": {"agent": 1.5}})
    names = {p.name for p in tmp_path.iterdir()}
    assert names == {"entities_index.json", "ontology.owl", "ontology.ttl", "ontology.jsonld", "reasoner.txt",
                     "report.html", "stats.json"}
    assert (tmp_path / "reasoner.txt").read_text() == "not checked: disabled with --no-reason\n"
    on_disk = json.loads((tmp_path / "stats.json").read_text())
    assert on_disk == stats
    assert stats["counts"] == {"classes": 3, "properties": 2, "individuals": 2, "facts": 3, "triples": 45,
                               "skipped": 0}
    # 35 of the index, 6 of the ontology's header (version IRI, label, created, creator and the two annotation
    # properties), 4 of QUDT units (the property's, the fact's in grams, the annotation property and its label)
    assert stats["llm"] == {"calls": 3}
    assert stats["seconds"]["agent"] == 1.5 and "owl" in stats["seconds"]
    # stats.json is written last
    mtimes = {p.name: p.stat().st_mtime_ns for p in tmp_path.iterdir()}
    assert mtimes["stats.json"] == max(mtimes.values())
