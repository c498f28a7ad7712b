"""A JSONL trace of every LLM exchange and tool call (building.log, answers.log)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, TextIO

from .redaction import redact


class Trace:
    """Append-only JSONL; each line is flushed as written so an interrupted run keeps what happened."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path else None
        self._fh: TextIO | None = None
        self.records: list[dict[str, Any]] = []

    def write(self, kind: str, **fields: Any) -> None:
        rec = {"t": round(time.time(), 3), "kind": kind, **fields}
        self.records.append(rec)
        if self.path is None:
            return
        if self._fh is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = open(self.path, "a", encoding="utf-8", errors="backslashreplace")  # lone surrogates too
        self._fh.write(redact(json.dumps(rec, ensure_ascii=False, default=str)) + "\n")
        self._fh.flush()

    def close(self) -> None:
        if self._fh:
            self._fh.close()
            self._fh = None

    def __enter__(self) -> "Trace":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
