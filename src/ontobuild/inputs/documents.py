"""Documents as inputs: PDF (its text layer), Word (.docx), HTML pages and PowerPoint slides (.pptx), read into one
shape, a list of `Block`s in reading order: headings (with their level), paragraphs and tables (rows of cells), each
with the page (PDF) or slide (PPTX) it is on. `readers` turns the blocks into the same text chunks a Markdown file
gives (each chunk starts with the path of the headings above it) and the tables into records (the table path).

Readers, all from the package registry: pypdf (PDF, pure Python), python-docx (.docx), python-pptx (.pptx) and the
standard library's html.parser (HTML). A PDF page without a text layer (a scanned image) is left out and named in
`Document.skipped` with the reason; so is a PDF that cannot be decrypted. Headings of a PDF are told by their font
size against the body text's (and by the document's outline, when it names them); a PDF's tables are not marked in
its text layer and are read as text lines."""

from __future__ import annotations

import logging
import re
from collections import Counter
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from ontocore.errors import InputError

log = logging.getLogger(__name__)


@dataclass
class Block:
    """One piece of a document in reading order: a heading (`level`: 0 a title, 1 the top heading level, ...), a
    paragraph, or a table (`rows` of cell texts; the first row is its header, `caption` its caption if any)."""
    kind: str  # "heading" | "text" | "table"
    text: str = ""
    level: int = 1
    rows: list[list[str]] = field(default_factory=list)
    page: int | None = None  # the PDF page or the slide it is on (1-based); None when the format has no pages
    caption: str = ""


@dataclass
class Document:
    blocks: list[Block] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # what was left out and why ("page 3: no text layer ...")
    unit: str = "page"  # what `Block.page` counts: "page" or "slide"


def _clean(text: str) -> str:
    return " ".join(text.replace("\u00ad", "").split())


def _need(module: str, package: str, path: Path) -> Any:
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:  # a dependency of the package; only a broken install lacks it
        raise InputError(f"{path}: reading this format needs {package} (pip install {package}).") from None


# ---- PDF ------------------------------------------------------------------------------------------------------

@dataclass
class _Line:
    y: float
    size: float
    parts: list[tuple[float, str]] = field(default_factory=list)  # (x, text)

    def text(self) -> str:
        out = ""
        for _, piece in sorted(self.parts, key=lambda p: p[0]):
            if out and not out[-1].isspace() and not piece[:1].isspace():
                out += " "
            out += piece
        return _clean(out)


def _pdf_lines(page: Any) -> list[_Line]:
    """The text lines of a page, top to bottom, each with its font size (the largest of its pieces)."""
    pieces: list[tuple[float, float, float, str]] = []  # (y, x, size, text)

    def visit(text: str, cm: Any, tm: Any, font: Any, size: float) -> None:
        if not text or not text.strip():
            return
        # position and scale: the text matrix in the current transformation matrix
        x = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
        y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
        scale = (abs(tm[0] * cm[0] + tm[1] * cm[2]) + abs(tm[3] * cm[3] + tm[2] * cm[1])) / 2 or 1.0
        for i, part in enumerate(text.split("\n")):
            if part.strip():
                pieces.append((y - i * size * scale * 1.2, x, round(size * scale, 1), part))

    page.extract_text(visitor_text=visit)
    lines: list[_Line] = []
    for y, x, size, text in sorted(pieces, key=lambda p: (-p[0], p[1])):
        near = next((ln for ln in lines if abs(ln.y - y) < max(size, ln.size) * 0.45), None)
        if near is None:
            lines.append(_Line(y, size, [(x, text)]))
        else:
            near.parts.append((x, text))
            near.size = max(near.size, size)
    lines.sort(key=lambda ln: -ln.y)
    return lines


def _outline_titles(reader: Any) -> dict[tuple[int, str], int]:
    """(page index, title folded) -> depth (1-based) of every entry of the PDF's outline (bookmarks)."""
    out: dict[tuple[int, str], int] = {}

    def walk(items: Any, depth: int) -> None:
        for item in items:
            if isinstance(item, list):
                walk(item, depth + 1)
                continue
            try:
                page = reader.get_destination_page_number(item)
                out[(page, _clean(str(item.title)).lower())] = depth
            except Exception:  # noqa: BLE001 - a broken outline entry is only a lost hint
                continue

    try:
        walk(reader.outline, 1)
    except Exception:  # noqa: BLE001 - same
        pass
    return out


def read_pdf(path: Path) -> Document:
    """The text layer of a PDF as blocks: lines grouped into paragraphs by their spacing, headings told by a font
    size larger than the body text's (levels by size) or by the outline."""
    pypdf = _need("pypdf", "pypdf", path)
    try:
        reader = pypdf.PdfReader(str(path))
        if reader.is_encrypted and not reader.decrypt(""):
            raise InputError(f"{path} is encrypted with a password; save an unprotected copy.")
        pages = [(_pdf_lines(p), bool(_has_images(p))) for p in reader.pages]
    except InputError:
        raise
    except FileNotFoundError:
        raise InputError(f"{path}: no such file.") from None
    except Exception as e:  # noqa: BLE001 - pypdf raises many error types for damaged files
        raise InputError(f"{path} is not a readable PDF: {' '.join(str(e).split())[:300]}.") from None
    doc = Document()
    outline = _outline_titles(reader)
    sizes: Counter[float] = Counter()
    for lines, _ in pages:
        for ln in lines:
            sizes[ln.size] += len(ln.text())
    if not sizes:
        raise InputError(f"{path} has no text layer on any page (a scanned document?): run OCR on it first, or "
                         "give the text another way.")
    body = sizes.most_common(1)[0][0]
    head_sizes = sorted({s for s in sizes if s >= body * 1.15}, reverse=True)
    gaps: Counter[float] = Counter()  # the body text's line spacing: the smallest gap that recurs between its lines
    for lines, _ in pages:
        for a, b in zip(lines, lines[1:]):
            if a.size == b.size == body and body * 0.9 <= a.y - b.y < body * 3:
                gaps[round((a.y - b.y) * 2) / 2] += 1
    recurring = [g for g, n in gaps.items() if n >= 2] or list(gaps)
    leading = min(recurring) if recurring else body * 1.2
    widths = sorted(len(ln.text()) for lines, _ in pages for ln in lines if ln.size == body)
    full = widths[int(len(widths) * 0.8)] if widths else 0  # the characters of a full line of body text
    for number, (lines, images) in enumerate(pages, 1):
        if not lines:
            if images:
                doc.skipped.append(f"page {number}: no text layer (a scanned image?); run OCR on it to read it")
            continue
        para: list[str] = []
        last: _Line | None = None
        heading: tuple[int, list[str], float] | None = None  # (level, lines, size): a heading over several lines

        def flush_para() -> None:
            if para:
                doc.blocks.append(Block("text", _join_lines(para), page=number))
                para.clear()

        def flush_heading() -> None:
            nonlocal heading
            if heading is not None:
                doc.blocks.append(Block("heading", _clean(" ".join(heading[1])), level=heading[0], page=number))
                heading = None

        for ln in lines:
            text = ln.text()
            depth = outline.get((number - 1, text.lower()))
            is_head = depth is not None or (ln.size in head_sizes and len(text) <= 200)
            gap = (last.y - ln.y) if last is not None else 0.0
            if is_head:
                flush_para()
                level = head_sizes.index(ln.size) + 1 if ln.size in head_sizes else depth or 1
                if heading is not None and heading[2] == ln.size and gap < ln.size * 1.6:
                    heading[1].append(text)  # the same heading, wrapped
                else:
                    flush_heading()
                    heading = (level, [text], ln.size)
            else:
                flush_heading()
                # a paragraph ends at space between lines, or at a short line that ends a sentence (no space)
                ended = bool(para) and para[-1][-1:] in ".!?:" and len(para[-1]) < full * 0.7
                if para and last is not None and (gap > max(leading * 1.3, ln.size * 1.1) or ended):
                    flush_para()
                para.append(text)
            last = ln
        flush_heading()
        flush_para()
    return doc


def _has_images(page: Any) -> bool:
    try:
        return bool(page.images)
    except Exception:  # noqa: BLE001 - an image pypdf cannot decode is still an image
        return True


def _join_lines(lines: list[str]) -> str:
    """The lines of a paragraph as one text; a word hyphenated at a line end is joined ("dehumidi-" "fier")."""
    out = ""
    for line in lines:
        if out.endswith("-") and len(out) > 1 and out[-2].isalpha() and line[:1].islower():
            out = out[:-1] + line
        else:
            out = f"{out} {line}" if out else line
    return _clean(out)


# ---- Word ----------------------------------------------------------------------------------------------------

_HEADING_STYLE = re.compile(r"^(?:heading|überschrift|titre|título|titolo|kop)\s*(\d)$", re.I)


def _docx_level(paragraph: Any) -> int | None:
    """The heading level of a Word paragraph (0: the document's title), from its style's name or outline level."""
    from docx.oxml.ns import qn

    style = paragraph.style
    name = (style.name or "") if style is not None else ""
    if name.lower() in ("title", "titel", "titre", "título", "titolo"):
        return 0
    m = _HEADING_STYLE.match(name)
    if m:
        return int(m.group(1))
    for element in (paragraph._p, getattr(style, "element", None)):  # an outline level set directly or by style
        ppr = element.find(qn("w:pPr")) if element is not None else None
        lvl = ppr.find(qn("w:outlineLvl")) if ppr is not None else None
        if lvl is not None and (lvl.get(qn("w:val")) or "").isdigit() and int(lvl.get(qn("w:val"))) < 9:
            return int(lvl.get(qn("w:val"))) + 1
    return None


def read_docx(path: Path) -> Document:
    """The body of a Word document in order: headings (by style or outline level), paragraphs and tables."""
    docx = _need("docx", "python-docx", path)
    from docx.table import Table
    from docx.text.paragraph import Paragraph
    from docx.oxml.ns import qn

    try:
        document = docx.Document(str(path))
    except FileNotFoundError:
        raise InputError(f"{path}: no such file.") from None
    except Exception as e:  # noqa: BLE001 - damaged or not a Word file
        raise InputError(f"{path} is not a readable Word (.docx) document: {' '.join(str(e).split())[:300]}.") from None
    doc = Document()
    caption = ""
    for child in document.element.body.iterchildren():
        if child.tag == qn("w:p"):
            p = Paragraph(child, document)
            text = _clean(p.text)
            if not text:
                continue
            style = (p.style.name or "").lower() if p.style is not None else ""
            if style == "caption":
                caption = text
                continue
            level = _docx_level(p)
            doc.blocks.append(Block("heading", text, level=level) if level is not None else Block("text", text))
        elif child.tag == qn("w:tbl"):
            rows = _table_rows(Table(child, document))
            if rows:
                doc.blocks.append(Block("table", rows=rows, caption=caption))
            caption = ""
    return doc


def _table_rows(table: Any) -> list[list[str]]:
    """The cell texts of a Word table, a cell spanning several columns given once per column it spans."""
    rows = []
    for row in table.rows:
        cells = [_clean(c.text) for c in row.cells]
        if any(cells):
            rows.append(cells)
    return rows


# ---- PowerPoint ----------------------------------------------------------------------------------------------

def read_pptx(path: Path) -> Document:
    """Each slide: its title as a heading, the text of its shapes as paragraphs and its tables as tables, all on
    that slide's number."""
    pptx = _need("pptx", "python-pptx", path)
    try:
        deck = pptx.Presentation(str(path))
    except FileNotFoundError:
        raise InputError(f"{path}: no such file.") from None
    except Exception as e:  # noqa: BLE001 - damaged or not a PowerPoint file
        raise InputError(f"{path} is not a readable PowerPoint (.pptx) file: {' '.join(str(e).split())[:300]}.") from None
    doc = Document(unit="slide")
    for number, slide in enumerate(deck.slides, 1):
        title_shape = slide.shapes.title
        title = _clean(title_shape.text_frame.text) if title_shape is not None and title_shape.has_text_frame else ""
        doc.blocks.append(Block("heading", title or f"Slide {number}", level=1, page=number))
        title_id = title_shape.shape_id if title_shape is not None else None
        shapes = sorted((s for s in slide.shapes if s.shape_id != title_id),
                        key=lambda s: ((s.top or 0), (s.left or 0)))
        for shape in shapes:
            if getattr(shape, "has_table", False) and shape.has_table:
                rows = [[_clean(c.text) for c in row.cells] for row in shape.table.rows]
                rows = [r for r in rows if any(r)]
                if rows:
                    doc.blocks.append(Block("table", rows=rows, page=number))
            elif shape.has_text_frame:
                for paragraph in shape.text_frame.paragraphs:
                    text = _clean("".join(run.text for run in paragraph.runs))
                    if text:
                        doc.blocks.append(Block("text", text, page=number))
    return doc


# ---- HTML ----------------------------------------------------------------------------------------------------

_SKIP = {"script", "style", "noscript", "template", "svg", "nav", "head", "button", "select", "iframe", "object"}
_BLOCK = {"p", "div", "section", "article", "main", "header", "footer", "aside", "li", "ul", "ol", "dl", "dt", "dd",
          "blockquote", "pre", "figure", "figcaption", "form", "fieldset", "address", "hr", "body", "html", "br"}
_VOID = {"br", "hr", "img", "input", "meta", "link", "area", "base", "col", "embed", "source", "track", "wbr"}


class _HTMLBlocks(HTMLParser):
    """Blocks of an HTML page: h1-h6 headings, the text of block elements as paragraphs, tables (th/td cells; a
    table inside a cell gives its text to the cell). Scripts, styles, navigation and forms' controls are left
    out."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[Block] = []
        self.text: list[str] = []
        self.skip = 0
        self.heading: int | None = None
        self.tables: list[dict[str, Any]] = []  # open tables: rows, the row and cell being read, caption
        self.title = ""
        self._in_title = False

    def _flush(self) -> None:
        text = _clean("".join(self.text))
        self.text.clear()
        if not text:
            return
        if self.heading is not None:
            self.blocks.append(Block("heading", text, level=self.heading))
        else:
            self.blocks.append(Block("text", text))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = True
        if tag in _SKIP or dict(attrs).get("hidden") is not None and tag not in _VOID:
            if tag not in _VOID:
                self.skip += 1
            return
        if self.skip:
            return
        table = self.tables[-1] if self.tables else None
        if tag == "table":
            if table is not None and table["cell"] is not None:  # nested: its text joins the cell
                table["nested"] += 1
                return
            self._flush()
            self.tables.append({"rows": [], "row": None, "cell": None, "caption": None, "nested": 0})
        elif table is not None and table["nested"]:
            if tag in ("td", "th", "tr", "br", "p", "li"):
                self.text.append(" ")
        elif table is not None and tag == "tr":
            table["row"] = []
        elif table is not None and tag in ("td", "th"):
            if table["row"] is None:
                table["row"] = []
            self.text.clear()
            table["cell"] = tag
        elif table is not None and tag == "caption":
            self.text.clear()
            table["caption"] = ""
        elif re.fullmatch(r"h[1-6]", tag) and table is None:
            self._flush()
            self.heading = int(tag[1])
        elif tag in _BLOCK:
            if table is not None and table["cell"] is not None:
                self.text.append(" ")
            else:
                self._flush()

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        if tag in _SKIP:
            self.skip = max(0, self.skip - 1)
            return
        if self.skip:
            return
        table = self.tables[-1] if self.tables else None
        if table is not None and table["nested"]:
            if tag == "table":
                table["nested"] -= 1
            return
        if table is not None and tag in ("td", "th"):
            if table["row"] is not None and table["cell"] is not None:
                table["row"].append(_clean("".join(self.text)))
            self.text.clear()
            table["cell"] = None
        elif table is not None and tag == "tr":
            if table["row"] is not None and any(table["row"]):
                table["rows"].append(table["row"])
            table["row"] = None
        elif table is not None and tag == "caption":
            table["caption"] = _clean("".join(self.text))
            self.text.clear()
        elif tag == "table" and table is not None:
            self.tables.pop()
            if table["row"]:
                table["rows"].append(table["row"])
            if table["rows"]:
                self.blocks.append(Block("table", rows=table["rows"], caption=table["caption"] or ""))
        elif re.fullmatch(r"h[1-6]", tag) and self.heading is not None:
            self._flush()
            self.heading = None
        elif tag in _BLOCK and table is None:
            self._flush()

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        if not self.skip:
            self.text.append(data)

    def close(self) -> None:
        super().close()
        self._flush()


def read_html(path: Path) -> Document:
    """The blocks of an HTML page (html.parser of the standard library; its encoding told as for any text file,
    files.read_text)."""
    from ontocore.files import read_text

    text, _ = read_text(path)
    parser = _HTMLBlocks()
    try:
        parser.feed(text)
        parser.close()
    except Exception as e:  # noqa: BLE001 - html.parser is lenient; anything it raises is the file's
        raise InputError(f"{path} is not a readable HTML page: {' '.join(str(e).split())[:300]}.") from None
    return Document(blocks=parser.blocks)


READ = {".pdf": read_pdf, ".docx": read_docx, ".docm": read_docx, ".pptx": read_pptx, ".html": read_html,
        ".htm": read_html, ".xhtml": read_html}


def read_document(path: Path) -> Document:
    """The blocks of a document, by its suffix (READ)."""
    return READ[path.suffix.lower()](path)
