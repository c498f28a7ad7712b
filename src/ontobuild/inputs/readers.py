"""Reading the inputs: structured data (JSON trees, JSON lists of records, JSON Lines, CSV/TSV tables), and free
text cut into chunks.

A `.json` file holding a list of strings is text (one chunk per string, split further when too long);
any other JSON is structured data. `.jsonl`/`.ndjson` hold one JSON object per line, `.csv`/`.tsv` a table with a
header row (its dialect sniffed), and every sheet of a spreadsheet (`.xlsx`, `.xlsm`, `.xlsb`, `.xls`, `.ods`, read
with python-calamine) a table with a header row: all become a list of records, like a JSON list of objects. A
workbook of one sheet is one table named like the file; a workbook of several sheets gives one table per sheet,
named `book.xlsx/Sheet`. Text is read in UTF-8, UTF-16 or the Windows code page its letters tell, line by line when
its lines mix UTF-8 and a code page, or in the encoding the user names (files.read_text); which encoding a file
was read in, and what was changed in a header, is in `Inputs.report()`. `.txt` files are split
on blank lines into chunks (a `.txt` that is a tab-separated table, as Excel saves one, is a table), `.md` files by
heading and paragraph (each chunk keeps its headings). Documents (PDF, Word, PowerPoint, HTML: documents.py) give
chunks the same way, each with its page or slide and section, and their tables are tables. All files of one
run form one dataset. Which reader reads a file is decided by its suffix in one place, `READERS` (a file of another
suffix is refused, naming the formats read); the messages that name the formats read are made from it
(`input_formats`)."""

from __future__ import annotations

import csv
import io
import json
import logging
import os
import re
import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from ontocore.errors import InputError
from ontocore.codepages import guess_codepage
from ontocore.files import (MIXED, decode_text, encoding_name, is_utf8, read_json_file, read_text, read_text_file,
                            unique_keys)

from ..tables.mapping import check_fields

log = logging.getLogger(__name__)


@dataclass
class Chunk:
    id: str  # "file#N"
    file: str
    text: str
    lead: int = 0  # characters at the start that are the path of headings above it (context, not content)
    section: str = ""  # the path of the headings above it ("Returns > Refunds"), as the lead says it
    page: int | None = None  # the page (PDF) or slide (PPTX) it is on; None for formats without pages
    page_unit: str = "page"  # what `page` counts: "page" or "slide"

    def place(self) -> dict[str, str]:
        """Where the chunk is in its file, for a fact's source: {"page": "3", "section": "Returns > Refunds"}
        (only what is known; "slide" instead of "page" for a slide)."""
        out: dict[str, str] = {}
        if self.page is not None:
            out[self.page_unit] = str(self.page)
        if self.section:
            out["section"] = self.section
        return out


@dataclass
class Inputs:
    json_docs: list[tuple[str, Any]] = field(default_factory=list)  # (file, data)
    chunks: list[Chunk] = field(default_factory=list)
    encodings: dict[str, str] = field(default_factory=dict)  # file name -> codec, for text read in another than UTF-8
    tables: dict[str, int] = field(default_factory=dict)  # table (file, or book.xlsx/Sheet) -> rows
    warnings: list[str] = field(default_factory=list)  # what was read differently from what the file says
    streamed: list[Path] = field(default_factory=list)  # tables read as streams by the build (tablestream.py)
    encoding: str | None = None  # the codec the user named for every text input (--encoding), else told per file

    def report(self) -> dict[str, Any]:
        """What stats.json and the report say about the inputs: tables and their rows, encodings other than
        UTF-8, warnings."""
        out: dict[str, Any] = {}
        if self.tables:
            out["tables"] = dict(self.tables)
        if self.encodings:
            out["encodings"] = dict(self.encodings)
        if self.warnings:
            out["warnings"] = list(self.warnings)
        return out


def split_text(text: str, max_chars: int = 900) -> list[str]:
    """Paragraphs (blank-line separated), long ones cut at sentence ends to at most `max_chars`."""
    out: list[str] = []
    for para in re.split(r"\n\s*\n", text):
        para = " ".join(para.split())
        while len(para) > max_chars:
            cut = para.rfind(". ", 0, max_chars)
            cut = cut + 1 if cut > max_chars // 3 else max_chars
            out.append(para[:cut].strip())
            para = para[cut:].strip()
        if para:
            out.append(para)
    return out


_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")


def split_markdown(text: str, max_chars: int = 900) -> list[str]:
    """Markdown: chunks by heading and paragraph; each chunk starts with the path of the headings above it
    ("Returns > Refunds: ..."), so that a paragraph keeps what it is about."""
    return [f"{head}: {piece}" if head else piece for head, piece in markdown_parts(text, max_chars)]


def markdown_parts(text: str, max_chars: int = 900) -> list[tuple[str, str]]:
    """(path of the headings above it, text) of each chunk of a Markdown text."""
    out: list[tuple[str, str]] = []
    path: list[str] = []
    block: list[str] = []

    def flush() -> None:
        if block:
            head = " > ".join(path)
            out.extend((head, piece) for piece in split_text("\n".join(block), max_chars))
            block.clear()

    for line in text.splitlines():
        m = _HEADING.match(line)
        if m:
            flush()
            level = len(m.group(1))
            path[:] = path[:level - 1] + [m.group(2).strip()]
        else:
            block.append(line)
    flush()
    return out


def _strict_rows(text: str, delimiter: str) -> list[list[str]] | None:
    """The rows read with the strict RFC 4180 dialect and the file type's delimiter, when every row then has the
    header's number of cells (more than one); None to fall back to sniffing (";" or "|" tables)."""
    try:
        rows = [r for r in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, quotechar='"',
                                      doublequote=True, strict=True) if any(c.strip() for c in r)]
    except csv.Error:
        return None
    if len(rows) < 2 or len(rows[0]) < 2 or any(len(r) != len(rows[0]) for r in rows):
        return None
    return rows


def _distinct_header(path: Path | str, header: list[str], warnings: list[str] | None = None) -> list[str]:
    """Header names made distinct: an empty name becomes column_N, a repeated one name_2, name_3 (both columns
    are kept), each with a warning (logged, and added to `warnings`)."""
    check_fields(str(path), len(header))
    out: list[str] = []
    taken: set[str] = set()
    for i, name in enumerate(header, 1):
        new = name or f"column_{i}"
        n = 2
        while new in taken:
            new, n = f"{name or 'column'}_{n}", n + 1
        taken.add(new)
        if new != name:
            message = f"{path}: header column {i} {'has no name' if not name else f'repeats {name!r}'}; kept as {new!r}"
            log.warning("%s", message)
            if warnings is not None:
                warnings.append(message)
        out.append(new)
    return out


def read_table(path: Path, warnings: list[str] | None = None, encodings: dict[str, str] | None = None,
               encoding: str | None = None) -> list[dict[str, str | None]]:
    """The rows of a CSV/TSV file as records {header: cell}; an empty cell is None. The delimiter and quoting are
    sniffed from the start of the file; the first row is the header. The encoding is `encoding` or detected
    (files.read_text); one other than UTF-8 is added to `encodings` and `warnings`."""
    text = _read_noting_encoding(path, warnings, encodings, encoding)
    default = "\t" if path.suffix.lower() in (".tsv", ".tab") else ","
    rows = _strict_rows(text, default)  # RFC 4180 first: a quoted cell may hold delimiters and "" quotes
    if rows is None:
        try:
            dialect: Any = csv.Sniffer().sniff(text[:65536], delimiters=",;\t|")
        except csv.Error:
            dialect = csv.excel_tab if default == "\t" else csv.excel
        try:
            rows = list(csv.reader(io.StringIO(text, newline=""), dialect))
        except csv.Error as e:
            raise InputError(f"{path} is not a readable table: {e}.") from None
    rows = [r for r in rows if any(cell.strip() for cell in r)]
    if len(rows) < 2:
        raise InputError(f"{path} has no data rows under its header.")
    return _records(path, rows, warnings)


def _records(path: Path | str, rows: list[list[str]], warnings: list[str] | None) -> list[dict[str, str | None]]:
    """Records {header: cell} of the rows of a table whose first row is the header (blank rows removed)."""
    header = _distinct_header(path, [h.strip() for h in rows[0]], warnings)
    return [_record(path, header, row, line) for line, row in enumerate(rows[1:], 2)]


def _record(path: Path | str, header: list[str], row: list[str], line: int) -> dict[str, str | None]:
    if len(row) > len(header) and any(cell.strip() for cell in row[len(header):]):
        raise InputError(f"{path}: row {line} has {len(row)} cells but the header has {len(header)} columns "
                         "(a delimiter inside an unquoted cell?).")
    cells = [c if c.strip() else None for c in row[:len(header)]] + [None] * (len(header) - len(row))
    return dict(zip(header, cells))


STREAMED_SUFFIXES = (".csv", ".tsv", ".tab")  # the tables a build can read as streams (tablestream.py)
_HEAD = 1 << 20  # bytes of a streamed table read first, to tell its encoding and dialect


def count_table_rows(path: Path) -> int:
    """The data rows of a CSV/TSV file as its line breaks count them (a quoted cell over several lines counts more):
    enough to decide whether a build streams it, without reading it as a table."""
    n, last = 0, b"\n"
    with open(path, "rb") as fh:
        while block := fh.read(1 << 24):
            n += block.count(b"\n")
            last = block[-1:]
    return max(0, n + (last != b"\n") - 1)


def iter_table(path: Path, warnings: list[str] | None = None, encodings: dict[str, str] | None = None,
               encoding: str | None = None) -> Iterator[dict[str, str | None]]:
    """The records of a CSV/TSV file one at a time, as read_table gives them (the same header rules, empty cells
    None, blank rows left out), reading it as a stream: the encoding and dialect are told from its first
    megabyte, and each line is read in UTF-8 or, when it is not, in the code page told (as read_table reads lines of
    mixed encodings); `encoding`: the codec the user named, the only one then."""
    with open(path, "rb") as fh:
        head = fh.read(_HEAD)
    if not head.strip():
        raise InputError(f"{path} is empty.")
    whole = len(head) < _HEAD
    cut = head if whole else head[:head.rfind(b"\n") + 1] or head
    text, codec = decode_text(cut, path, encoding)
    if not is_utf8(codec) and not encoding:
        _note_encoding(path, codec, warnings, encodings)
    default = "\t" if path.suffix.lower() in (".tsv", ".tab") else ","
    lines = text if whole else text[:text.rfind("\n") + 1]
    dialect: Any = None
    if _strict_rows(lines, default) is None:
        try:
            dialect = csv.Sniffer().sniff(text[:65536], delimiters=",;\t|")
        except csv.Error:
            dialect = csv.excel_tab if default == "\t" else csv.excel
    # line by line (bytes), unless the text is UTF-16/32 or has no line feeds (old Mac line ends): then as text
    by_line = _LineDecoder(path, codec, encoding) if b"\n" in head and not codec.startswith("utf-16") and \
        not codec.startswith("utf-32") else None
    opener = {"utf-16-le": "utf-16-le", "utf-16-be": "utf-16-be"}.get(codec, codec.split(MIXED)[-1])
    try:
        with (open(path, "rb") if by_line else open(path, encoding=opener, newline="")) as fh:
            source: Any = by_line.lines(fh) if by_line else fh
            if not by_line and codec in ("utf-16-le", "utf-16-be") and fh.read(1) != "\ufeff":
                fh.seek(0)
            reader = (csv.reader(source, delimiter=default, quotechar='"', doublequote=True, strict=True)
                      if dialect is None else csv.reader(source, dialect))
            header: list[str] | None = None
            rows = 0
            for row in reader:
                if not any(cell.strip() for cell in row):
                    continue
                if header is None:
                    header = _distinct_header(path, [h.strip() for h in row], warnings)
                    continue
                rows += 1
                yield _record(path, header, row, reader.line_num)
    except UnicodeDecodeError as e:
        raise InputError(f"{path} is not {encoding_name(codec)} throughout (bad bytes near offset {e.start} of a "
                         "block); save it as UTF-8.") from None
    except csv.Error as e:
        raise InputError(f"{path} is not a readable table: {e}.") from None
    if not rows:
        raise InputError(f"{path} has no data rows under its header.")
    if by_line is not None and by_line.other and is_utf8(codec):  # lines after the first megabyte were not UTF-8
        log.warning("%s: %d line(s) are not UTF-8 (the first: line %d) and were read as %s", path, by_line.other,
                    by_line.first, encoding_name(by_line.codepage))
        _note_encoding(path, f"utf-8{MIXED}{by_line.codepage}", warnings, encodings)


class _LineDecoder:
    """A streamed table's lines, each decoded in UTF-8 or, when it is not, in the code page of the table (told
    from its first megabyte, else from the first such line): rows appended by two programs are read as each was
    written. `encoding`: the codec the user named, the only one then."""

    def __init__(self, path: Path, codec: str, encoding: str | None) -> None:
        self.path, self.encoding = path, encoding
        self.codepage = "" if is_utf8(codec) else codec.split(MIXED)[-1]
        self.other = 0  # lines read in the code page
        self.first = 0  # the first of them

    def lines(self, fh: Any) -> Iterator[str]:
        if fh.read(3) != b"\xef\xbb\xbf":
            fh.seek(0)
        for n, raw in enumerate(fh, 1):
            if self.encoding:
                try:
                    yield raw.decode(self.encoding)
                except UnicodeDecodeError as e:
                    raise InputError(f"{self.path} is not {encoding_name(self.encoding)} throughout: line {n} has the "
                                     f"byte 0x{raw[e.start]:02x}, which {self.encoding} does not read; name another "
                                     "--encoding, or leave it out to have the encoding told line by line.") from None
                continue
            try:
                yield raw.decode("utf-8")
                continue
            except UnicodeDecodeError:
                pass
            codepage = self.codepage or guess_codepage(raw)
            if codepage is None:
                raise InputError(f"{self.path}: line {n} is not text in UTF-8 or a Windows code page that can be "
                                 "told; save the file as UTF-8 (or name its encoding with --encoding).")
            self.codepage = codepage
            self.other += 1
            self.first = self.first or n
            yield raw.decode(codepage)


def _note_encoding(path: Path, codec: str, warnings: list[str] | None, encodings: dict[str, str] | None) -> None:
    """An encoding other than UTF-8 noted in `encodings` (file name -> codec) and `warnings`."""
    if encodings is not None:
        encodings[path.name] = codec
    if warnings is not None:
        warnings.append(f"{path.name}: lines in two encodings, read as {encoding_name(codec)}" if MIXED in codec else
                        f"{path.name}: read as {encoding_name(codec)}, not UTF-8")


def _read_noting_encoding(path: Path, warnings: list[str] | None, encodings: dict[str, str] | None,
                          encoding: str | None = None) -> str:
    text, codec = read_text(path, encoding)
    if not is_utf8(codec) and not encoding:
        _note_encoding(path, codec, warnings, encodings)
    return text


def _cell_text(value: Any) -> str | None:
    """A spreadsheet cell as the text a CSV export of it holds (None when empty): whole numbers without '.0',
    other numbers in their shortest exact form, dates and times in ISO 8601, booleans as true/false."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value != value:  # NaN
            return None
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
    if isinstance(value, dt.datetime):
        return value.date().isoformat() if value.time() == dt.time(0) else value.isoformat()
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return str(value)
    text = str(value)
    return text if text.strip() else None


UNPACKED_FACTOR = 10  # a zipped workbook may unpack to at most this many times the largest input allowed


def _check_unpacked_size(path: Path) -> None:
    """InputError when a zipped workbook (XLSX, ODS) would unpack to more than UNPACKED_FACTOR times the largest
    input allowed (a zip bomb is small on disk and huge in memory); other files are left to their reader."""
    import zipfile

    try:
        with zipfile.ZipFile(path) as z:
            unpacked = sum(max(info.file_size, 0) for info in z.infolist())
    except (zipfile.BadZipFile, OSError, ValueError):
        return  # not a zip (XLS is not): the reader says what is wrong
    limit = UNPACKED_FACTOR * max_input_bytes()
    if unpacked > limit:
        raise InputError(f"{path} unpacks to {unpacked / 1e6:.1f} MB, more than {UNPACKED_FACTOR} times the "
                         f"{limit / UNPACKED_FACTOR / 1e6:g} MB an input may have; raise --max-input-mb (or "
                         "ONTOBUILD_MAX_INPUT_MB) if the workbook is genuine and the machine has the memory for it.")


def read_sheets(path: Path, warnings: list[str] | None = None) -> list[tuple[str, list[dict[str, str | None]]]]:
    """(table name, records) of every sheet of a spreadsheet that holds a table (a header row and data rows); the
    first non-blank row of a sheet is its header, cells are read as a CSV export would write them (_cell_text).
    Sheets without data rows are left out with a warning; a workbook with none is refused."""
    try:
        from python_calamine import CalamineWorkbook
    except ImportError:  # a dependency of the package; only a broken install lacks it
        raise InputError(f"{path}: reading spreadsheets needs python-calamine (pip install python-calamine).") from None
    _check_unpacked_size(path)
    try:
        book = CalamineWorkbook.from_path(str(path))
        sheets = [(name, book.get_sheet_by_name(name).to_python(skip_empty_area=False)) for name in book.sheet_names]
    except FileNotFoundError:
        raise InputError(f"{path}: no such file.") from None
    except Exception as e:  # noqa: BLE001 - calamine raises its own error types for damaged files
        raise InputError(f"{path} is not a readable spreadsheet: {' '.join(str(e).split())[:300]}.") from None
    tables: list[tuple[str, list[list[str]]]] = []
    for name, grid in sheets:
        rows = [[_cell_text(c) or "" for c in row] for row in grid]
        rows = [r for r in rows if any(c.strip() for c in r)]
        used = [i for r in rows for i, c in enumerate(r) if c.strip()]
        first, width = (min(used), max(used) + 1) if used else (0, 0)  # empty columns around the table go
        rows = [(r + [""] * width)[first:width] for r in rows]
        if len(rows) < 2:
            message = f"{path.name}: sheet {name!r} has no data rows under a header; left out"
            log.warning("%s", message)
            if warnings is not None:
                warnings.append(message)
            continue
        tables.append((name, rows))
    if not tables:
        raise InputError(f"{path} has no sheet with data rows under a header row.")
    out = []
    for name, rows in tables:
        table = path.name if len(tables) == 1 else f"{path.name}/{name}"
        out.append((table, _records(table, rows, warnings)))
    return out


def read_json_lines(path: Path, encoding: str | None = None) -> list[Any]:
    """JSON Lines: one JSON value (a record object) per line; blank lines are ignored."""
    out = []
    for line_no, line in enumerate(read_text_file(path, encoding).splitlines(), 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line, object_pairs_hook=unique_keys)
        except ValueError as e:
            raise InputError(f"{path}: line {line_no} is not valid JSON ({e}).") from None
        if not isinstance(value, dict):
            raise InputError(f"{path}: line {line_no} is not a JSON object (JSON Lines inputs hold one record "
                             "per line).")
        out.append(value)
    if not out:
        raise InputError(f"{path} holds no records.")
    return out


DEFAULT_MAX_INPUT_MB = 100.0


def max_input_bytes() -> int:
    """The largest input file accepted: --max-input-mb / ONTOBUILD_MAX_INPUT_MB (default 100 MB)."""
    try:
        mb = float(os.environ.get("ONTOBUILD_MAX_INPUT_MB") or DEFAULT_MAX_INPUT_MB)
    except ValueError:
        raise InputError("ONTOBUILD_MAX_INPUT_MB must be a number of megabytes.") from None
    return int(mb * 1e6)


def check_input_size(path: Path, limit: int | None = None) -> None:
    """InputError when `path` is larger than an input may be (max_input_bytes)."""
    limit = max_input_bytes() if limit is None else limit
    try:
        size = path.stat().st_size
    except OSError:
        return  # a missing file is reported by its reader
    if size > limit:
        raise InputError(f"{path} is {size / 1e6:.1f} MB, more than the {limit / 1e6:g} MB an input may have; "
                         "raise --max-input-mb (or ONTOBUILD_MAX_INPUT_MB) if the machine has the memory for it.")


# ---- the readers, by file suffix -----------------------------------------------------------------------------

def _add_records(inputs: Inputs, table: str, rows: list[Any]) -> None:
    inputs.json_docs.append((table, rows))
    inputs.tables[table] = len(rows)


def _add_chunks(inputs: Inputs, name: str, texts: list[str], leads: list[int] | None = None,
                sections: list[str] | None = None, pages: list[int | None] | None = None,
                page_unit: str = "page") -> None:
    """Chunks `name#N` of a file's texts, numbered on from the file's chunks read before."""
    start = len([c for c in inputs.chunks if c.file == name])
    inputs.chunks += [Chunk(f"{name}#{start + i + 1}", name, t, leads[i] if leads else 0,
                            sections[i] if sections else "", pages[i] if pages else None, page_unit)
                      for i, t in enumerate(texts)]


def _read_sheets_into(path: Path, inputs: Inputs, max_chars: int) -> None:
    for table, rows in read_sheets(path, inputs.warnings):
        _add_records(inputs, table, rows)


def _read_table_into(path: Path, inputs: Inputs, max_chars: int) -> None:
    _add_records(inputs, path.name, read_table(path, inputs.warnings, inputs.encodings, inputs.encoding))


def _read_lines_into(path: Path, inputs: Inputs, max_chars: int) -> None:
    _add_records(inputs, path.name, read_json_lines(path, inputs.encoding))


def _read_markdown_into(path: Path, inputs: Inputs, max_chars: int) -> None:
    parts = markdown_parts(_read_noting_encoding(path, inputs.warnings, inputs.encodings, inputs.encoding), max_chars)
    _add_chunks(inputs, path.name, [f"{head}: {piece}" if head else piece for head, piece in parts],
                [len(head) + 2 if head else 0 for head, _ in parts], [head for head, _ in parts])


def tab_table_rows(text: str) -> list[list[str]] | None:
    """The rows of a text that is a tab-separated table, as Excel saves a sheet as "Text (Tab delimited)" or
    "Unicode Text" (.txt, UTF-16): at least two non-blank lines, each with the same number (one or more) of tabs
    outside quotes; None for any other text (prose)."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) < 2 or "\t" not in lines[0]:
        return None
    rows = _strict_rows(text, "\t")
    return rows if rows is not None and len(rows[0]) >= 2 else None


def _read_text_into(path: Path, inputs: Inputs, max_chars: int) -> None:
    text = _read_noting_encoding(path, inputs.warnings, inputs.encodings, inputs.encoding)
    rows = tab_table_rows(text)
    if rows is not None:  # a spreadsheet saved as tab-separated text: a table, not prose
        _add_records(inputs, path.name, _records(path, rows, inputs.warnings))
        return
    _add_chunks(inputs, path.name, split_text(text, max_chars))


def _read_document_into(path: Path, inputs: Inputs, max_chars: int) -> None:
    """A PDF, Word, PowerPoint or HTML document (documents.py): its paragraphs become chunks that start with the
    path of the headings above them, as a Markdown file's do, each knowing its page (or slide) and section; its
    tables (a header row and data rows, two columns or more) become tables named `file/<caption or heading>`;
    what was left out (a page without a text layer) is a warning."""
    from .documents import read_document

    doc = read_document(path)
    for why in doc.skipped:
        message = f"{path.name}: {why}"
        log.warning("%s", message)
        inputs.warnings.append(message)
    heads: list[tuple[int, str]] = []  # the open headings: (level, text)
    texts: list[str] = []
    leads: list[int] = []
    sections: list[str] = []
    pages: list[int | None] = []
    names: set[str] = set()
    for block in doc.blocks:
        head = " > ".join(text for _, text in heads)
        if block.kind == "heading":
            heads[:] = [(lvl, text) for lvl, text in heads if lvl < block.level] + [(block.level, block.text)]
            continue
        if block.kind == "table" and len(block.rows) >= 2 and max(len(r) for r in block.rows) >= 2:
            rows = [r + [""] * (max(len(x) for x in block.rows) - len(r)) for r in block.rows]
            label = block.caption or (heads[-1][1] if heads else "") or f"table {len(names) + 1}"
            table = f"{path.name}/{label.replace('/', '-')}"
            n = 2
            while table in names or table in inputs.tables:
                table, n = f"{path.name}/{label.replace('/', '-')} {n}", n + 1
            names.add(table)
            _add_records(inputs, table, _records(table, rows, inputs.warnings))
            continue
        body = block.text if block.kind == "text" else "\n".join(" ".join(r) for r in block.rows)
        for piece in split_text(body, max_chars):
            texts.append(f"{head}: {piece}" if head else piece)
            leads.append(len(head) + 2 if head else 0)
            sections.append(head)
            pages.append(block.page)
    if not texts and not names:
        raise InputError(f"{path} holds no text{' on any page with a text layer' if doc.skipped else ''}.")
    _add_chunks(inputs, path.name, texts, leads, sections, pages, doc.unit)


def _read_json_into(path: Path, inputs: Inputs, max_chars: int) -> None:
    data = read_json_file(path, inputs.encoding)
    if isinstance(data, list) and data and all(isinstance(x, str) for x in data):
        _add_chunks(inputs, path.name, [piece for x in data for piece in split_text(x, max_chars)])
    elif isinstance(data, (dict, list)) and data:
        inputs.json_docs.append((path.name, data))
    else:
        raise InputError(f"{path} holds no data (an empty or scalar JSON value).")


@dataclass(frozen=True)
class Reader:
    """How a file of some suffixes is read: `read(path, inputs, max_chars)` adds its records or chunks to
    `inputs`; `kind` names the format in messages ("CSV/TSV")."""
    kind: str
    read: Callable[[Path, Inputs, int], None]


def _entries(kind: str, read: Callable[[Path, Inputs, int], None], *suffixes: str) -> dict[str, Reader]:
    return dict.fromkeys(suffixes, Reader(kind, read))


# THE registry: file suffix (lower case) -> its reader. A new input format is one entry here.
READERS: dict[str, Reader] = {
    **_entries("JSON", _read_json_into, ".json"),
    **_entries("JSON Lines", _read_lines_into, ".jsonl", ".ndjson"),
    **_entries("CSV/TSV", _read_table_into, ".csv", ".tsv", ".tab"),
    **_entries("spreadsheets", _read_sheets_into, ".xlsx", ".xlsm", ".xlsb", ".xls", ".ods"),
    **_entries("Markdown", _read_markdown_into, ".md", ".markdown"),
    **_entries("text", _read_text_into, ".txt", ".text"),
    **_entries("PDF", _read_document_into, ".pdf"),
    **_entries("Word", _read_document_into, ".docx", ".docm"),
    **_entries("PowerPoint", _read_document_into, ".pptx"),
    **_entries("HTML", _read_document_into, ".html", ".htm", ".xhtml"),
}


def reader_for(path: Path) -> Reader:
    """The reader of a file, by its suffix (READERS); InputError for a suffix not in the registry."""
    reader = READERS.get(path.suffix.lower())
    if reader is None:
        raise InputError(f"{path}: unsupported format ({path.suffix or 'no suffix'}); supported: "
                         f"{input_formats(with_suffixes=True)}.")
    return reader


def input_formats(with_suffixes: bool = False) -> str:
    """The formats the registry reads, for messages: "JSON, JSON Lines, CSV/TSV, ..." or, `with_suffixes`,
    "JSON (.json), JSON Lines (.jsonl, .ndjson), ... or text (.txt, .text)"."""
    kinds: dict[str, list[str]] = {}
    for suffix, reader in READERS.items():
        kinds.setdefault(reader.kind, []).append(suffix)
    if not with_suffixes:
        return ", ".join(kinds)
    parts = [f"{kind} ({', '.join(suffixes)})" for kind, suffixes in kinds.items()]
    return ", ".join(parts[:-1]) + " or " + parts[-1] if len(parts) > 1 else parts[0]


def check_inputs(paths: list[Path]) -> list[Reader]:
    """The reader of each input, or InputError for the first that is missing, a folder or of a format not read
    (before any file is read)."""
    for path in paths:
        if path.is_dir():
            raise InputError(f"{path} is a directory, not a file.")
        if not path.exists():
            raise InputError(f"{path}: no such file.")
    return [reader_for(path) for path in paths]


def load_inputs(paths: list[Path], max_chars: int = 900, stream: Iterable[Path] = (), encoding: str | None = None
                ) -> Inputs:
    """Read every input with the reader its suffix names (READERS), or raise InputError naming the file and the
    spot; nothing is written here. The tables in `stream` are only checked and listed (`Inputs.streamed`).
    `encoding`: the codec the user named for every text input (files.check_encoding), else told per file."""
    stream = set(stream)
    if not paths:
        raise InputError(f"No input files given: pass one or more files of {input_formats(with_suffixes=True)}.")
    readers = check_inputs(paths)
    inputs = Inputs(encoding=encoding)
    limit = max_input_bytes()
    for path, reader in zip(paths, readers):
        check_input_size(path, limit)
        if path in stream:
            inputs.streamed.append(path)  # read by the build as a stream, not here
            continue
        reader.read(path, inputs, max_chars)
    return inputs
