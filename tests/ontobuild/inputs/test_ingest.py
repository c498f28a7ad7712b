"""The reader registry of the inputs (`READERS`): one entry per suffix decides how a file is read, a file of
another suffix is refused naming the formats read, and the messages naming the formats come from it. Made-up domain:
beehives."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ontocore.errors import InputError
from ontobuild.inputs.chunks import Chunk
from ontobuild.inputs.readers import READERS, Inputs, Reader, input_formats, load_inputs, reader_for


def test_every_suffix_has_one_reader_and_other_suffixes_are_refused() -> None:
    assert all(s == s.lower() and s.startswith(".") for s in READERS)
    assert reader_for(Path("hives.TSV")) is READERS[".tsv"]
    for other in ("hives.log", "hives"):
        with pytest.raises(InputError) as e:
            reader_for(Path(other))
        assert "unsupported format" in str(e.value) and "; supported: JSON (.json), " in str(e.value)
    assert READERS[".csv"] is READERS[".tab"] and READERS[".md"] is READERS[".markdown"]
    assert READERS[".pdf"].kind == "PDF" and READERS[".htm"] is READERS[".html"]


def test_the_messages_name_every_suffix_of_the_registry() -> None:
    assert input_formats() == "JSON, JSON Lines, CSV/TSV, spreadsheets, Markdown, text, PDF, Word, PowerPoint, HTML"
    with pytest.raises(InputError) as e:
        load_inputs([])
    assert all(suffix in str(e.value) for suffix in READERS)


def test_each_kind_of_file_is_read_by_its_entry(tmp_path: Path) -> None:
    (tmp_path / "hives.tab").write_text("hive\tframes\nNorth\t10\nSouth\t8\n", encoding="utf-8")
    (tmp_path / "visits.ndjson").write_text('{"hive": "North", "day": "2024-05-01"}\n', encoding="utf-8")
    (tmp_path / "notes.markdown").write_text("# Spring\n\nThe North hive has 10 frames.\n", encoding="utf-8")
    (tmp_path / "tips.json").write_text(json.dumps(["Smoke calms the bees.", "Check the queen weekly."]),
                                        encoding="utf-8")
    (tmp_path / "keepers.json").write_text(json.dumps([{"keeper": "Ada", "hives": 2}]), encoding="utf-8")
    inputs = load_inputs([tmp_path / n for n in ("hives.tab", "visits.ndjson", "notes.markdown", "tips.json",
                                                 "keepers.json")])
    assert inputs.tables == {"hives.tab": 2, "visits.ndjson": 1}
    assert [name for name, _ in inputs.json_docs] == ["hives.tab", "visits.ndjson", "keepers.json"]
    assert [(c.id, c.lead) for c in inputs.chunks] == [("notes.markdown#1", len("Spring: ")), ("tips.json#1", 0),
                                                       ("tips.json#2", 0)]


def test_a_new_format_is_one_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def read_lines_as_text(path: Path, inputs: Inputs, max_chars: int) -> None:
        inputs.chunks.append(Chunk(f"{path.name}#1", path.name, path.read_text("utf-8")))

    monkeypatch.setitem(READERS, ".log", Reader("logs", read_lines_as_text))
    (tmp_path / "swarm.log").write_text("The South hive swarmed at noon.", encoding="utf-8")
    assert [c.text for c in load_inputs([tmp_path / "swarm.log"]).chunks] == ["The South hive swarmed at noon."]
    assert input_formats().endswith(", logs")
