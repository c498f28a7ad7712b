"""The multi-table build benchmark (bench/multitable_bench.py) as a test: every multi-table export we have (the ten
Spider4SPARQL exports when ../shared is there, our three domains' tables, the made-up exports of bench/exports) is
built end to end with the model's recorded real decisions (bench/recordings/multitable, replayed by key: no model);
an internal error, a failed build or a request that was not recorded fails it. No reasoner (HermiT would add about
5 s per export; `python -m bench.multitable_bench --reason` runs it)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # bench/ is a package at the repository root, not an installed one
    sys.path.insert(0, str(ROOT))

from bench.multitable_bench import exports, run_export  # noqa: E402

EXPORTS = exports()


@pytest.mark.parametrize("export", EXPORTS, ids=[e.name for e in EXPORTS])
def test_every_multi_table_export_builds_without_an_internal_error(export, tmp_path: Path) -> None:
    assert export.recording.is_file(), f"no recording: python -m bench.multitable_bench --record --export {export.name}"
    row = run_export(export, tmp_path)
    assert row["status"] == "ok", f"{row.get('error')}\n{row.get('traceback', '')}"
    assert row["calls"]["asked"] == 0 and row["cells"]["total"] == row["cells"]["covered"] + row["cells"]["skipped"]


def test_tables_that_share_a_reference_name_are_all_linked(tmp_path: Path) -> None:
    """The made-up exports' point: several tables refer to one table under the name of its own id column."""
    by_name = {e.name: e for e in EXPORTS}
    for name, column, link in (("permits", "permit_number", "permit"), ("rentals", "serial", "instrument")):
        row = run_export(by_name[name], tmp_path)
        assert row["status"] == "ok", row.get("error")
        links = [x for x in row["references"]["links"] if f"'{column}'" in x["reference"]]
        assert len(links) >= 2 and {x["property"] for x in links} == {link}, links
        assert all(x["linked"] > 0 and x["unmatched"] == 0 for x in links)
