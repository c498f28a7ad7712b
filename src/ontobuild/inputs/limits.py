"""How much input a build takes: the largest input file (--max-input-mb) and the most columns of a table or fields of
a record shape (ONTOBUILD_MAX_COLUMNS); each refused with an InputError that says which limit to raise."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from ontocore.errors import InputError


DEFAULT_MAX_INPUT_MB = 100.0
_max_input_mb: ContextVar[float | None] = ContextVar("max_input_mb", default=None)


@contextmanager
def input_size_limit(mb: float | None) -> Iterator[None]:
    """Within this block an input file may have at most `mb` MB (a build's or a dry run's `max_input_mb`; None:
    ONTOBUILD_MAX_INPUT_MB, else 100)."""
    token = _max_input_mb.set(mb)
    try:
        yield
    finally:
        _max_input_mb.reset(token)


def max_input_bytes() -> int:
    """The largest input file accepted: the `input_size_limit` in force (--max-input-mb), else
    ONTOBUILD_MAX_INPUT_MB (default 100 MB)."""
    mb = _max_input_mb.get()
    if mb is None:
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


MAX_FIELDS = 1000  # fields of one record shape (columns of a table) at most: ONTOBUILD_MAX_COLUMNS


def max_fields() -> int:
    """The most fields a record shape may have (the columns of a table): ONTOBUILD_MAX_COLUMNS, else MAX_FIELDS.
    Every field is a line of the shape's one mapping prompt and a property of the ontology: a table of a hundred
    thousand columns is not a table a model can map, and each of its rows would be one individual of that many facts."""
    raw = os.environ.get("ONTOBUILD_MAX_COLUMNS", "").strip()
    try:
        return int(raw) if raw else MAX_FIELDS
    except ValueError:
        raise InputError(f"ONTOBUILD_MAX_COLUMNS={raw!r} is not a whole number.") from None


def check_fields(where: str, n: int) -> None:
    """InputError when a table or record shape has more fields than max_fields()."""
    limit = max_fields()
    if n > limit:
        raise InputError(f"{where} has {n} columns (fields); a table may have at most {limit}, each of them a line "
                         "of the one prompt that maps it and a property of the ontology. Leave out the columns you "
                         "do not need or split the table (ONTOBUILD_MAX_COLUMNS raises the limit).")
