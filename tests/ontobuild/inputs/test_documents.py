"""Documents as inputs (`ontobuild.inputs`): PDF, Word, PowerPoint and HTML files made by real writers
(fpdf2 and LibreOffice for PDF, python-docx and LibreOffice for Word, python-pptx for slides) are read into the same
chunks a Markdown file of the same content gives (headings as sections), with their page or slide; tables inside
documents become tables; a page without a text layer is left out with its reason; an unknown suffix is refused
naming the formats read. Made-up domains: a glassworks and a bicycle courier depot."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from ontocore.errors import InputError
from ontobuild.inputs.readers import load_inputs

DATA = Path(__file__).resolve().parents[2] / "data" / "documents"

TITLE = "Lindqvist Glassworks: Furnace Handbook"
INTRO = "For furnace crews and the batch house. Checked in May 2031."
SECTIONS = [
    ("Melting", ["The main tank furnace holds 42 t of molten glass at 1480 to 1520 \u00b0C. Its crown is "
                 "inspected every 3 months.",
                 "The working end runs at about 1150 \u00b0C."]),
    ("Annealing", ["The lehr is 28 m long and moves at 0.5 m/min. Vases leave it below 60 \u00b0C."]),
]
MARKDOWN = "\n\n".join([f"# {TITLE}", INTRO] + [part for head, paras in SECTIONS
                                                 for part in [f"## {head}", *paras]]) + "\n"
TABLE = [["Mould", "Cavities", "Weight (kg)"], ["M-11", "4", "38"], ["M-12", "6", "51"]]


def _chunks(path: Path) -> list[tuple[str, int, str]]:
    return [(c.text, c.lead, c.section) for c in load_inputs([path]).chunks]


def _markdown(tmp_path: Path) -> list[tuple[str, int, str]]:
    (tmp_path / "handbook.md").write_text(MARKDOWN, encoding="utf-8")
    return _chunks(tmp_path / "handbook.md")


def _html(tmp_path: Path, table: bool = True) -> Path:
    import html

    parts = ["<!DOCTYPE html><html><head><meta charset='utf-8'><title>Furnace</title>",
             "<script>var x = '<p>not text</p>';</script><style>p {color: red}</style></head><body>",
             "<nav><a href='/'>Home</a> | <a href='/glass'>Glass</a></nav>",
             f"<h1>{html.escape(TITLE)}</h1>", f"<p>{html.escape(INTRO)}</p>"]
    for head, paras in SECTIONS:
        parts.append(f"<h2>{head}</h2>")
        parts += [f"<p>{html.escape(p)}</p>" for p in paras]
    if table:
        parts.append("<table><caption>Moulds</caption>" + "".join(
            "<tr>" + "".join(f"<{'th' if i == 0 else 'td'}>{c}</{'th' if i == 0 else 'td'}>" for c in row) + "</tr>"
            for i, row in enumerate(TABLE)) + "</table>")
    parts.append("</body></html>")
    path = tmp_path / "handbook.html"
    path.write_text("\n".join(parts), encoding="utf-8")
    return path


def _docx(tmp_path: Path) -> Path:
    docx = pytest.importorskip("docx")
    document = docx.Document()
    document.add_heading(TITLE, level=1)
    document.add_paragraph(INTRO)
    for head, paras in SECTIONS:
        document.add_heading(head, level=2)
        for p in paras:
            document.add_paragraph(p)
    document.add_paragraph("Moulds", style="Caption")
    table = document.add_table(rows=len(TABLE), cols=len(TABLE[0]))
    for r, row in enumerate(TABLE):
        for c, cell in enumerate(row):
            table.cell(r, c).text = cell
    path = tmp_path / "handbook.docx"
    document.save(str(path))
    return path


def _pdf(tmp_path: Path, scanned_page: bool = True) -> Path:
    """A PDF written by fpdf2: headings in larger type, body text wrapped over lines, the second section on page 2,
    and (scanned_page) a third page that is only an image."""
    fpdf = pytest.importorskip("fpdf")
    pdf = fpdf.FPDF()
    pdf.set_auto_page_break(True, margin=15)
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 20)
    pdf.multi_cell(0, 10, TITLE, new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "", 11)
    pdf.ln(3)
    pdf.multi_cell(0, 6, INTRO, new_x="LMARGIN", new_y="NEXT")
    for i, (head, paras) in enumerate(SECTIONS):
        if i == 1:
            pdf.add_page()
        pdf.ln(4)
        pdf.set_font("Helvetica", "B", 15)
        pdf.multi_cell(0, 8, head, new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", "", 11)
        for p in paras:
            pdf.ln(3)
            pdf.multi_cell(60, 6, p, new_x="LMARGIN", new_y="NEXT")  # narrow: each paragraph over several lines
    if scanned_page:
        from PIL import Image

        pdf.add_page()
        pdf.image(Image.new("L", (200, 280), color=200), x=10, y=10, w=180)
    path = tmp_path / "handbook.pdf"
    pdf.output(str(path))
    return path


def test_html_gives_the_chunks_of_the_same_markdown_and_its_table(tmp_path: Path) -> None:
    inputs = load_inputs([_html(tmp_path)])
    assert [(c.text, c.lead, c.section) for c in inputs.chunks] == _markdown(tmp_path)
    assert inputs.chunks[1].section == f"{TITLE} > Melting" and inputs.chunks[1].page is None
    assert inputs.tables == {"handbook.html/Moulds": 2}
    assert inputs.json_docs[0][1][1] == {"Mould": "M-12", "Cavities": "6", "Weight (kg)": "51"}
    assert not any("not text" in c.text or "Home" in c.text for c in inputs.chunks)


def test_word_document_made_by_python_docx(tmp_path: Path) -> None:
    inputs = load_inputs([_docx(tmp_path)])
    assert [(c.text, c.lead, c.section) for c in inputs.chunks] == _markdown(tmp_path)
    assert inputs.tables == {"handbook.docx/Moulds": 2}
    assert inputs.json_docs[0][1][0]["Weight (kg)"] == "38"


def test_pdf_made_by_fpdf2_keeps_pages_and_sections_and_names_the_scanned_page(tmp_path: Path) -> None:
    inputs = load_inputs([_pdf(tmp_path)])
    assert [(c.text, c.lead, c.section) for c in inputs.chunks] == _markdown(tmp_path)
    assert [c.page for c in inputs.chunks] == [1, 1, 1, 2]
    assert inputs.chunks[3].place() == {"page": "2", "section": f"{TITLE} > Annealing"}
    assert inputs.warnings == ["handbook.pdf: page 3: no text layer (a scanned image?); run OCR on it to read it"]


def test_a_pdf_with_no_text_layer_at_all_is_refused_with_the_reason(tmp_path: Path) -> None:
    fpdf = pytest.importorskip("fpdf")
    from PIL import Image

    pdf = fpdf.FPDF()
    pdf.add_page()
    pdf.image(Image.new("L", (100, 100), color=120), x=10, y=10, w=100)
    pdf.output(str(tmp_path / "scan.pdf"))
    with pytest.raises(InputError, match="no text layer on any page"):
        load_inputs([tmp_path / "scan.pdf"])


def test_slides_made_by_python_pptx(tmp_path: Path) -> None:
    pptx = pytest.importorskip("pptx")
    from pptx.util import Inches

    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Depot hours"
    slide.placeholders[1].text_frame.text = "The depot opens at 06:30. Cargo bikes are charged overnight."
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Fleet"
    shape = slide.shapes.add_table(3, 2, Inches(1), Inches(2), Inches(6), Inches(2))
    for r, row in enumerate([["Bike", "Load (kg)"], ["Haul One", "120"], ["Haul Two", "150"]]):
        for c, cell in enumerate(row):
            shape.table.cell(r, c).text = cell
    deck.save(str(tmp_path / "depot.pptx"))
    inputs = load_inputs([tmp_path / "depot.pptx"])
    assert [(c.text, c.place()) for c in inputs.chunks] == [
        ("Depot hours: The depot opens at 06:30. Cargo bikes are charged overnight.",
         {"slide": "1", "section": "Depot hours"})]
    assert inputs.tables == {"depot.pptx/Fleet": 2}


def test_files_made_by_libreoffice(tmp_path: Path) -> None:
    """Committed files that LibreOffice wrote (tests/data/documents/README.md says how), and, where LibreOffice is
    installed, a PDF it exports now from the python-docx document."""
    md = (DATA / "depot.md").read_text("utf-8")
    (tmp_path / "depot.md").write_text(md, encoding="utf-8")
    want = _chunks(tmp_path / "depot.md")
    for name in ("depot.docx", "depot.pdf", "depot.html"):
        inputs = load_inputs([DATA / name])
        assert [(c.text, c.lead, c.section) for c in inputs.chunks][:len(want)] == want, name
        # a table: in Word and HTML a table of the bikes; a PDF's text layer does not mark tables (text lines)
        assert inputs.tables == ({} if name.endswith(".pdf") else {f"{name}/Parcels": 3}), name
    pages = [c.page for c in load_inputs([DATA / "depot.pdf"]).chunks]
    assert pages[:len(want)] == [1, 1, 1, 2]  # "Parcels" starts page 2
    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if soffice is None:
        return
    source = _docx(tmp_path)
    subprocess.run([soffice, "--headless", f"-env:UserInstallation=file://{tmp_path}/lo", "--convert-to", "pdf",
                    "--outdir", str(tmp_path / "out"), str(source)], check=True, capture_output=True, timeout=180)
    # python-docx's default style sets no space between paragraphs: a paragraph ends at a short line ending a
    # sentence; the last one runs on into the table's text (a PDF does not mark tables)
    assert _chunks(tmp_path / "out" / "handbook.pdf")[:3] == _markdown(tmp_path)[:3]


def test_an_unknown_suffix_is_refused_naming_the_formats_read(tmp_path: Path) -> None:
    path = tmp_path / "furnace.xml"
    path.write_text("<furnace><tank>42</tank></furnace>", encoding="utf-8")
    (tmp_path / "ok.md").write_text("# A\n\nText.\n", encoding="utf-8")
    with pytest.raises(InputError) as e:
        load_inputs([tmp_path / "ok.md", path])
    message = str(e.value)
    assert "unsupported format (.xml); supported:" in message and "PDF (.pdf)" in message and "JSON" in message
    assert "not valid JSON" not in message


def test_a_tab_separated_utf16_text_is_a_table(tmp_path: Path) -> None:
    """Excel's "Unicode Text": UTF-16 with a byte order mark, tab-separated, CRLF."""
    rows = ["Courier\tShift\tParcels", "Ines\tearly\t41", "Jo\tlate\t37"]
    (tmp_path / "shifts.txt").write_bytes("\r\n".join(rows).encode("utf-16"))
    (tmp_path / "memo.txt").write_text("Parcels go out at noon.\tThen the bikes return.\n\nNothing else.",
                                       encoding="utf-8")
    inputs = load_inputs([tmp_path / "shifts.txt", tmp_path / "memo.txt"])
    assert inputs.tables == {"shifts.txt": 2}
    assert inputs.json_docs[0][1][0] == {"Courier": "Ines", "Shift": "early", "Parcels": "41"}
    assert [c.file for c in inputs.chunks] == ["memo.txt", "memo.txt"]


def test_sources_of_text_facts_name_the_page_and_section() -> None:
    from ontobuild.pipeline import place_sources
    from ontobuild.ontology.entries import Fact
    from ontobuild.ontology.index import EntitiesIndex
    from ontobuild.inputs.chunks import Chunk
    from ontocore.html import source_text

    idx = EntitiesIndex()
    cls = idx.ensure_class("Furnace", "")
    prop = idx.ensure_datatype_property("capacity", "xsd:decimal", cls, "t", "")
    name = idx.ensure_individual("MainTank", "main tank", cls, "", {"chunk": "h.pdf#2"})
    idx.add_fact(name, Fact(prop, literal="42", datatype="xsd:decimal", source={"chunk": "h.pdf#2",
                                                                                "sentence": "It holds 42 t."}))
    place_sources(idx, [Chunk("h.pdf#2", "h.pdf", "Melting: It holds 42 t.", 9, "Melting", 3)])
    fact = idx.individuals[name].facts[0]
    assert fact.source == {"chunk": "h.pdf#2", "sentence": "It holds 42 t.", "page": "3", "section": "Melting"}
    assert idx.individuals[name].source["page"] == "3"
    assert source_text(fact.source) == "h.pdf#2 (page 3, section Melting): \u201cIt holds 42 t.\u201d"
    EntitiesIndex.from_dict(idx.to_dict())  # the index's schema takes the new keys
