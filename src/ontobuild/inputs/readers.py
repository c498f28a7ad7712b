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
(`input_formats`). Tables are read by `tabular`, text cut by `chunks`, the size limits are in `limits`."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from ontocore.errors import InputError
from ontocore.files import read_json_file, read_text_file, unique_keys

from .chunks import Chunk, markdown_parts, paragraph_pieces
from .limits import check_input_size, max_input_bytes
from .tabular import read_noting_encoding, read_sheets, read_table, strict_rows, table_records

log = logging.getLogger(__name__)


@dataclass
class Inputs:
    json_docs: list[tuple[str, Any]] = field(default_factory=list)  # (file, data)
    chunks: list[Chunk] = field(default_factory=list)
    encodings: dict[str, str] = field(default_factory=dict)  # file name -> codec, for text read in another than UTF-8
    tables: dict[str, int] = field(default_factory=dict)  # table (file, or book.xlsx/Sheet) -> rows
    warnings: list[str] = field(default_factory=list)  # what was read differently from what the file says
    streamed: list[Path] = field(default_factory=list)  # tables read as streams by the build (tables/streaming/)
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


# ---- the readers, by file suffix -----------------------------------------------------------------------------

def _add_records(inputs: Inputs, table: str, rows: list[Any]) -> None:
    inputs.json_docs.append((table, rows))
    inputs.tables[table] = len(rows)


def _add_chunks(inputs: Inputs, name: str, texts: list[str], continues: list[bool], leads: list[int] | None = None,
                sections: list[str] | None = None, pages: list[int | None] | None = None,
                page_unit: str = "page") -> None:
    """Chunks `name#N` of a file's texts, numbered on from the file's chunks read before; `continues`: whether each
    goes on with the paragraph of the one before."""
    start = len([c for c in inputs.chunks if c.file == name])
    inputs.chunks += [Chunk(f"{name}#{start + i + 1}", name, t, leads[i] if leads else 0,
                            sections[i] if sections else "", pages[i] if pages else None, page_unit, continues[i])
                      for i, t in enumerate(texts)]


def _read_sheets_into(path: Path, inputs: Inputs, max_chars: int) -> None:
    for table, rows in read_sheets(path, inputs.warnings):
        _add_records(inputs, table, rows)


def _read_table_into(path: Path, inputs: Inputs, max_chars: int) -> None:
    _add_records(inputs, path.name, read_table(path, inputs.warnings, inputs.encodings, inputs.encoding))


def _read_lines_into(path: Path, inputs: Inputs, max_chars: int) -> None:
    _add_records(inputs, path.name, read_json_lines(path, inputs.encoding))


def _read_markdown_into(path: Path, inputs: Inputs, max_chars: int) -> None:
    parts = markdown_parts(read_noting_encoding(path, inputs.warnings, inputs.encodings, inputs.encoding), max_chars)
    _add_chunks(inputs, path.name, [f"{head}: {piece}" if head else piece for head, piece, _ in parts],
                [goes_on for _, _, goes_on in parts], [len(head) + 2 if head else 0 for head, _, _ in parts],
                [head for head, _, _ in parts])


def tab_table_rows(text: str) -> list[list[str]] | None:
    """The rows of a text that is a tab-separated table, as Excel saves a sheet as "Text (Tab delimited)" or
    "Unicode Text" (.txt, UTF-16): at least two non-blank lines, each with the same number (one or more) of tabs
    outside quotes; None for any other text (prose)."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) < 2 or "\t" not in lines[0]:
        return None
    rows = strict_rows(text, "\t")
    return rows if rows is not None and len(rows[0]) >= 2 else None


def _read_text_into(path: Path, inputs: Inputs, max_chars: int) -> None:
    text = read_noting_encoding(path, inputs.warnings, inputs.encodings, inputs.encoding)
    rows = tab_table_rows(text)
    if rows is not None:  # a spreadsheet saved as tab-separated text: a table, not prose
        _add_records(inputs, path.name, table_records(path, rows, inputs.warnings))
        return
    pieces = paragraph_pieces(text, max_chars)
    _add_chunks(inputs, path.name, [piece for piece, _ in pieces], [goes_on for _, goes_on in pieces])


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
    continues: list[bool] = []
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
            _add_records(inputs, table, table_records(table, rows, inputs.warnings))
            continue
        body = block.text if block.kind == "text" else "\n".join(" ".join(r) for r in block.rows)
        for piece, goes_on in paragraph_pieces(body, max_chars):
            texts.append(f"{head}: {piece}" if head else piece)
            continues.append(goes_on)
            leads.append(len(head) + 2 if head else 0)
            sections.append(head)
            pages.append(block.page)
    if not texts and not names:
        raise InputError(f"{path} holds no text{' on any page with a text layer' if doc.skipped else ''}.")
    _add_chunks(inputs, path.name, texts, continues, leads, sections, pages, doc.unit)


def _read_json_into(path: Path, inputs: Inputs, max_chars: int) -> None:
    data = read_json_file(path, inputs.encoding)
    if isinstance(data, list) and data and all(isinstance(x, str) for x in data):
        pieces = [piece for x in data for piece in paragraph_pieces(x, max_chars)]
        _add_chunks(inputs, path.name, [piece for piece, _ in pieces], [goes_on for _, goes_on in pieces])
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
