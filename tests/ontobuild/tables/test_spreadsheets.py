"""Spreadsheets and encodings: an XLSX workbook, an ODS sheet and CSV files saved in cp1252, UTF-16 or with a
byte order mark read like their UTF-8 CSV twin (the same cells kept, the same index built by the model-free
mapping path); the encoding used is named in the inputs' report; a file in no readable encoding gets one clear
message. Made-up domain: a community orchard (trees, varieties, harvests)."""

from __future__ import annotations

import codecs
import zipfile
from pathlib import Path

import pytest

from ontocore.errors import InputError
from ontobuild.ontology.index import EntitiesIndex
from ontobuild.inputs.readers import load_inputs
from ontobuild.tables.references.proposing import find_references, ordered_for_mapping
from ontobuild.tables.mapping import Coverage, Decision, apply_mapping, file_stem, find_records, group_shapes

HEADER = ["tree_id", "variety", "planted", "height_m", "pruned", "note"]
ROWS = [
    ["1", "Reinette grise", "2014-03-21", "3.5", "true", "Près du mur"],
    ["2", "Boskoop", "2016-11-02", "2.75", "false", ""],
    ["3", "Cox’s Orange", "2019-04-09", "1.8", "true", "needs a stake – €4 spent"],
]
CSV = "\r\n".join(",".join(f'"{c}"' if "," in c else c for c in row) for row in [HEADER, *ROWS]) + "\r\n"


def _xlsx(path: Path, sheets: dict[str, list[list[object]]]) -> None:
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    book.remove(book.active)
    for name, rows in sheets.items():
        sheet = book.create_sheet(name)
        for row in rows:
            sheet.append(row)
    book.save(path)


def _typed_rows() -> list[list[object]]:
    """The rows as a spreadsheet holds them: numbers, booleans and dates typed, empty cells empty."""
    import datetime as dt

    out: list[list[object]] = [HEADER]
    for tree_id, variety, planted, height, pruned, note in ROWS:
        out.append([int(tree_id), variety, dt.date.fromisoformat(planted), float(height), pruned == "true",
                    note or None])
    return out


def _ods(path: Path, rows: list[list[str]]) -> None:
    """A minimal OpenDocument spreadsheet, written by hand (the format is a zip of XML)."""
    from xml.sax.saxutils import escape

    def cell(text: str) -> str:
        if not text:
            return "<table:table-cell/>"
        return f'<table:table-cell office:value-type="string"><text:p>{escape(text)}</text:p></table:table-cell>'

    body = "".join("<table:table-row>" + "".join(cell(c) for c in row) + "</table:table-row>" for row in rows)
    content = ('<?xml version="1.0" encoding="UTF-8"?><office:document-content '
               'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
               'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
               'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2">'
               f'<office:body><office:spreadsheet><table:table table:name="Trees">{body}</table:table>'
               '</office:spreadsheet></office:body></office:document-content>')
    manifest = ('<?xml version="1.0" encoding="UTF-8"?><manifest:manifest '
                'xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">'
                '<manifest:file-entry manifest:full-path="/" '
                'manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/>'
                '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>'
                '</manifest:manifest>')
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(zipfile.ZipInfo("mimetype"), "application/vnd.oasis.opendocument.spreadsheet")
        z.writestr("content.xml", content, compress_type=zipfile.ZIP_DEFLATED)
        z.writestr("META-INF/manifest.xml", manifest, compress_type=zipfile.ZIP_DEFLATED)


def _facts(path: Path) -> tuple[list[dict], set[tuple[str, str, str | None]]]:
    """The records read from `path`, and the facts the model-free mapping makes of them."""
    inputs = load_inputs([path])
    ((name, rows),) = inputs.json_docs
    idx, cov = EntitiesIndex(), Coverage()
    for shape in group_shapes(find_records(name, rows)):
        apply_mapping(idx, shape, Decision(record_class="Tree", name_key="variety"), cov)
    facts = {(ind, f.property, f.literal or f.object) for ind, i in idx.individuals.items() for f in i.facts}
    return rows, facts


def _utf8_twin(tmp_path: Path) -> tuple[list[dict], set]:
    path = tmp_path / "twin" / "trees.csv"
    path.parent.mkdir()
    path.write_bytes(CSV.encode("utf-8"))
    return _facts(path)


@pytest.mark.parametrize("codec,bom,name", [
    ("cp1252", b"", "Windows-1252"), ("utf-16-le", codecs.BOM_UTF16_LE, "UTF-16"),
    ("utf-16-be", codecs.BOM_UTF16_BE, "UTF-16"), ("utf-8", codecs.BOM_UTF8, None), ("utf-16-le", b"", "UTF-16 LE"),
])
def test_csv_in_other_encodings_reads_like_its_utf8_twin(tmp_path: Path, codec: str, bom: bytes,
                                                          name: str | None) -> None:
    rows, facts = _utf8_twin(tmp_path)
    path = tmp_path / "trees.csv"
    path.write_bytes(bom + CSV.encode(codec))
    got_rows, got_facts = _facts(path)
    assert got_rows == rows and got_facts == facts
    assert rows[2]["variety"] == "Cox’s Orange" and rows[0]["note"] == "Près du mur"
    report = load_inputs([path]).report()
    if name is None:  # UTF-8, with or without a byte order mark: nothing to say
        assert "encodings" not in report and "warnings" not in report
    else:
        assert report["encodings"] == {"trees.csv": report["encodings"]["trees.csv"]}
        assert any(name in w and "trees.csv" in w for w in report["warnings"])


def test_xlsx_workbook_reads_like_its_csv_twin(tmp_path: Path) -> None:
    rows, facts = _utf8_twin(tmp_path)
    path = tmp_path / "trees.xlsx"
    _xlsx(path, {"Sheet1": _typed_rows(), "Empty": []})
    got_rows, got_facts = _facts(path)
    assert got_rows == rows  # typed cells read as a CSV export writes them
    assert got_facts == facts
    report = load_inputs([path]).report()
    assert report["tables"] == {"trees.xlsx": 3}
    assert any("'Empty'" in w for w in report["warnings"])  # the empty sheet is left out, and said so


def test_ods_sheet_reads_like_its_csv_twin(tmp_path: Path) -> None:
    rows, facts = _utf8_twin(tmp_path)
    path = tmp_path / "trees.ods"
    _ods(path, [HEADER, *ROWS])
    got_rows, got_facts = _facts(path)
    assert got_rows == rows and got_facts == facts


def test_each_sheet_is_a_table_and_sheets_refer_to_each_other(tmp_path: Path) -> None:
    path = tmp_path / "orchard.xlsx"
    _xlsx(path, {
        "Trees": _typed_rows(),
        "Harvests": [["harvest_id", "tree_id", "kg"], [100, 1, 31.5], [101, 3, 12], [102, 1, 28]],
    })
    inputs = load_inputs([path])
    assert [name for name, _ in inputs.json_docs] == ["orchard.xlsx/Trees", "orchard.xlsx/Harvests"]
    assert inputs.tables == {"orchard.xlsx/Trees": 3, "orchard.xlsx/Harvests": 3}
    assert file_stem("orchard.xlsx/Harvests") == "harvests" and file_stem("trees.xlsx") == "trees"
    shapes = [s for f, d in inputs.json_docs for s in group_shapes(find_records(f, d))]
    plan = find_references(shapes)
    assert {(r.source.file, r.column, r.target.file) for r in plan.references} == {
        ("orchard.xlsx/Harvests", "tree_id", "orchard.xlsx/Trees")}
    assert ordered_for_mapping(shapes, plan)[0].file == "orchard.xlsx/Trees"
    harvests = next(s for s in shapes if s.file.endswith("Harvests"))
    assert [r.fields["kg"] for r in harvests.records] == ["31.5", "12", "28"]


def test_a_table_placed_anywhere_on_its_sheet_is_found(tmp_path: Path) -> None:
    rows, facts = _utf8_twin(tmp_path)
    path = tmp_path / "trees.xlsx"
    _xlsx(path, {"Sheet1": [[], [], *([None, None, *row] for row in _typed_rows())]})  # from C3
    got_rows, got_facts = _facts(path)
    assert got_rows == rows and got_facts == facts
    assert "warnings" not in load_inputs([path]).report()


def test_duplicate_header_in_a_sheet_keeps_both_columns_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "pickers.xlsx"
    _xlsx(path, {"Sheet1": [["name", "name", None], ["Ines", "Ines M.", "x"], ["Tom", "Tom B.", "y"]]})
    inputs = load_inputs([path])
    ((_, rows),) = inputs.json_docs
    assert rows[0] == {"name": "Ines", "name_2": "Ines M.", "column_3": "x"}
    assert len(inputs.report()["warnings"]) == 2


@pytest.mark.parametrize("content,message", [
    (b"tree,variety\n1,\x81\x8d\x90\n", "not text in UTF-8, UTF-16 or a Windows code page"),
    (codecs.BOM_UTF16_LE + b"t\x00r\x00\x00\xd8", "starts as UTF-16"),
    (b"PK\x03\x04\x00\x00binary", "binary"),
])
def test_unreadable_text_gets_one_clear_message(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "trees.csv"
    path.write_bytes(content)
    with pytest.raises(InputError, match=message):
        load_inputs([path])


def test_a_damaged_workbook_is_refused_clearly(tmp_path: Path) -> None:
    path = tmp_path / "trees.xlsx"
    path.write_bytes(b"PK\x03\x04 this is not a workbook")
    with pytest.raises(InputError, match="not a readable spreadsheet"):
        load_inputs([path])
    _xlsx(path, {"Sheet1": [["only a header"]]})
    with pytest.raises(InputError, match="no sheet with data rows"):
        load_inputs([path])


def test_text_in_cp1252_is_read_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes("The orchard’s oldest tree – a Reinette – gives 30 kg.\n".encode("cp1252"))
    inputs = load_inputs([path])
    assert inputs.chunks[0].text.startswith("The orchard’s oldest tree – a Reinette")
    assert inputs.encodings == {"notes.txt": "cp1252"}


def test_the_build_report_shows_the_input_warnings(tmp_path: Path) -> None:
    from ontobuild.outputs.report import build_report

    path = tmp_path / "trees.csv"
    path.write_bytes(CSV.encode("cp1252"))
    stats = {"ontology_iri": "http://example.org/ontobuild/orchard", "inputs": load_inputs([path]).report()}
    page = build_report(EntitiesIndex(), stats)
    assert "trees.csv: read as Windows-1252 (cp1252), not UTF-8" in page
    assert "http://example.org/ontobuild/orchard" in page


def test_dry_run_of_the_workbook_and_the_cp1252_csv_matches_the_utf8_twin(tmp_path: Path) -> None:
    from ontobuild.dryrun import dry_run

    def shapes(path: Path) -> list[tuple]:
        return [(s["pattern"], s["records"], s["fields"], s["id_key"]) for s in dry_run([path])["shapes"]]

    (tmp_path / "utf8").mkdir()
    twin = tmp_path / "utf8" / "trees.csv"
    twin.write_bytes(CSV.encode("utf-8"))
    book, legacy = tmp_path / "trees.xlsx", tmp_path / "trees.csv"
    _xlsx(book, {"Sheet1": _typed_rows()})
    legacy.write_bytes(CSV.encode("cp1252"))
    assert shapes(book) == shapes(legacy) == shapes(twin) == [("$[*]", 3, 6, "tree_id")]


def test_a_workbook_that_unpacks_to_far_more_than_it_weighs_is_refused(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("ONTOBUILD_MAX_INPUT_MB", "0.01")  # 10 kB: 100 kB unpacked at most
    path = tmp_path / "bomb.xlsx"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("xl/worksheets/sheet1.xml", b"<" + b" " * 300_000 + b">")
    assert path.stat().st_size < 10_000
    with pytest.raises(InputError, match="unpacks to 0.3 MB"):
        load_inputs([path])
