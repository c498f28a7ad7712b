"""The outcome folder of a run: atomic writes and the files every run leaves behind.

An outcome folder holds entities_index.json, ontology.owl (RDF/XML), ontology.ttl, reasoner.txt, report.html
(report.py) and stats.json; stats.json is written last, so its presence means the folder is complete."""

from __future__ import annotations

import json
import logging
import os
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from .errors import InputError
from .index import EntitiesIndex
from .owl import serialize_graph, to_graph

log = logging.getLogger(__name__)

INDEX_FILE = "entities_index.json"
OWL_FILE = "ontology.owl"
TTL_FILE = "ontology.ttl"
REASONER_FILE = "reasoner.txt"
STATS_FILE = "stats.json"


def atomic_write(path: str | Path, data: bytes | str) -> Path:
    """Write `data` to `path` so that readers see the old file or the whole new one, never a part."""
    path = Path(path)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    try:
        mode = path.stat().st_mode & 0o777  # keep the mode of the file being replaced
    except FileNotFoundError:
        mode = 0o644  # mkstemp would leave it private (0600)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        _fsync_dir(path.parent)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return path


def _fsync_dir(folder: Path) -> None:
    """Make the rename durable (best effort: not every platform can open a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_json(path: str | Path, obj: Any) -> Path:
    """Atomically write `obj` as indented UTF-8 JSON with a final newline."""
    return atomic_write(path, json.dumps(obj, indent=2, ensure_ascii=False) + "\n")


def new_outcome_dir(root: str | Path = "outcomes", out: str | Path | None = None) -> Path:
    """Create and return the folder of a new run.

    With `out`, that folder (created if needed; it may exist). Otherwise root/YYYYmmdd_HHMMSS, with
    _2, _3, ... appended when a folder of that name already exists."""
    try:
        if out is not None:
            path = Path(out)
            if path.exists() and not path.is_dir():
                raise InputError(f"{path} exists and is not a folder; choose another --out.")
            path.mkdir(parents=True, exist_ok=True)
            return path
        root = Path(root)
        root.mkdir(parents=True, exist_ok=True)
        stem = datetime.now().strftime("%Y%m%d_%H%M%S")
        n = 1
        while True:
            path = root / (stem if n == 1 else f"{stem}_{n}")
            try:
                path.mkdir()
                return path
            except FileExistsError:
                n += 1
    except OSError as e:
        raise InputError(f"cannot create the outcome folder: {e.strerror or e} ({e.filename}).") from None


def write_index_outcome(idx: EntitiesIndex, outdir: str | Path, reason: bool = True,
                        extra_stats: dict[str, Any] | None = None, timeout_s: float = 120,
                        coverage: dict[str, Any] | None = None) -> dict[str, Any]:
    """Write all outcome files of `idx` into `outdir` and return the stats (also written to stats.json).

    Stats: counts (classes, properties, individuals, facts, triples, skipped), the reasoner verdict,
    seconds per step, plus `extra_stats` merged in at the top level (e.g. key "llm"). `coverage` (what the
    build kept and skipped) goes into report.html."""
    from .reason import ReasonerReport, check  # local: keeps `import outcome` light
    from .report import write_build_report

    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    timings: dict[str, float] = {}
    t0 = time.monotonic()

    atomic_write(outdir / INDEX_FILE, idx.to_json())
    timings["index"] = time.monotonic() - t0

    t = time.monotonic()
    graph = to_graph(idx)
    rdfxml, turtle = serialize_graph(graph)
    atomic_write(outdir / OWL_FILE, rdfxml)
    atomic_write(outdir / TTL_FILE, turtle)
    timings["owl"] = time.monotonic() - t

    t = time.monotonic()
    if reason:
        report = check(outdir / OWL_FILE, timeout_s=timeout_s)
    else:
        report = ReasonerReport.not_checked("disabled with --no-reason")
    atomic_write(outdir / REASONER_FILE, report.render())
    timings["reasoner"] = time.monotonic() - t

    stats: dict[str, Any] = {
        "outcome": str(outdir),
        "counts": {**idx.counts(), "triples": len(graph), "skipped": len(idx.skipped)},
        "reasoner": report.to_dict(),
        "seconds": {k: round(v, 3) for k, v in timings.items()},
    }
    for key, value in (extra_stats or {}).items():
        if key == "seconds" and isinstance(value, dict):
            stats["seconds"].update(value)
        else:
            stats[key] = value
    t = time.monotonic()
    write_build_report(idx, outdir, stats, coverage)
    stats["seconds"]["report"] = round(time.monotonic() - t, 3)
    stats["seconds"]["write_outcome"] = round(time.monotonic() - t0, 3)
    write_json(outdir / STATS_FILE, stats)
    log.info("outcome written to %s", outdir)
    return stats
