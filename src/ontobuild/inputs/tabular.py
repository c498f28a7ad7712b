"""Tables read from files: CSV/TSV (dialect sniffed, header cells made distinct), streamed row by row for big tables,
and spreadsheets (every sheet a table, read with python-calamine); the encoding each file was read in noted."""

from __future__ import annotations

import csv
import io
import logging
import datetime as dt
from pathlib import Path
from typing import Any, Iterator

from ontocore.errors import InputError
from ontocore.codepages import guess_codepage
from ontocore.files import MIXED, decode_text, encoding_name, is_utf8, read_text

from .limits import check_fields, max_input_bytes

log = logging.getLogger(__name__)


def strict_rows(text: str, delimiter: str) -> list[list[str]] | None:
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
    text = read_noting_encoding(path, warnings, encodings, encoding)
    default = "\t" if path.suffix.lower() in (".tsv", ".tab") else ","
    rows = strict_rows(text, default)  # RFC 4180 first: a quoted cell may hold delimiters and "" quotes
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
    return table_records(path, rows, warnings)


def table_records(path: Path | str, rows: list[list[str]], warnings: list[str] | None) -> list[dict[str, str | None]]:
    """Records {header: cell} of the rows of a table whose first row is the header (blank rows removed)."""
    header = _distinct_header(path, [h.strip() for h in rows[0]], warnings)
    return [_record(path, header, row, line) for line, row in enumerate(rows[1:], 2)]


def _record(path: Path | str, header: list[str], row: list[str], line: int) -> dict[str, str | None]:
    if len(row) > len(header) and any(cell.strip() for cell in row[len(header):]):
        raise InputError(f"{path}: row {line} has {len(row)} cells but the header has {len(header)} columns "
                         "(a delimiter inside an unquoted cell?).")
    cells = [c if c.strip() else None for c in row[:len(header)]] + [None] * (len(header) - len(row))
    return dict(zip(header, cells))


STREAMED_SUFFIXES = (".csv", ".tsv", ".tab")  # the tables a build can read as streams (tables/streaming/)
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
    if strict_rows(lines, default) is None:
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


def read_noting_encoding(path: Path, warnings: list[str] | None, encodings: dict[str, str] | None,
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
        out.append((table, table_records(table, rows, warnings)))
    return out
