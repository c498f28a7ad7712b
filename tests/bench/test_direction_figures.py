"""The counts of bench/direction_figures.py over a tiny recorded run written here: each question's `direction`
record (from its trace) against the state the run scored."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # bench/ is a package at the repository root, not an installed one
    sys.path.insert(0, str(ROOT))

from bench.direction_figures import figures  # noqa: E402


def test_each_choice_is_counted_by_the_state_of_its_answer(tmp_path: Path) -> None:
    trace = tmp_path / "trace"
    trace.mkdir()
    records = [
        {"kind": "question", "question": "Which parcels left Harwick?"},
        {"kind": "direction", "used": "to_depot", "chosen": ["from_depot", "from_depot"]},
        {"kind": "question", "question": "Who mentors Ivo?"},
        {"kind": "direction", "used": "mentor", "chosen": ["mentor"]},
        {"kind": "question", "question": "Which parcels reached Oswick?"},
        {"kind": "direction", "used": "from_depot", "chosen": ["to_depot", "from_depot"]},
        {"kind": "question", "question": "How many depots are there?"},
    ]
    (trace / "answers_courier.log").write_text("\n".join(json.dumps(r) for r in records), "utf-8")
    results = tmp_path / "ask_spider.json"
    run = {"commit": "abc", "traces": str(trace), "questions": [
        {"question": "Which parcels left Harwick?", "correct": True, "state": "answered", "repairs": ["direction"]},
        {"question": "Who mentors Ivo?", "correct": False, "state": "answered", "repairs": []},
        {"question": "Which parcels reached Oswick?", "correct": False, "state": "unsure", "repairs": []},
        {"question": "How many depots are there?", "correct": True, "state": "answered", "repairs": []}]}
    results.write_text(json.dumps(run), "utf-8")
    text, counts = figures(results)
    assert counts == {"agreed with the plan / stated wrong": 1, "disagreed with itself: kept / unsure": 1,
                      "turned round / right": 1}
    assert "Questions asked it: 3 of 4" in text
