"""Checkpoints of a streamed build (`CHECKPOINT_FILE`, in the unfinished outcome folder): the inputs' fingerprint,
the model's decisions once made, and after every batch what is written and counted, so that a resumed run truncates
the files to the last committed batch and goes on without asking the model again."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ...ontology.index import EntitiesIndex
from ..mapping import CountingCoverage, Decision, FieldPlan, apply_mapping
from ..references.proposing import Plan
from .profile import Table
from .rows import batch_index

CHECKPOINT_FILE = ".stream-checkpoint.json"


def fingerprint(paths: list[Path]) -> list[list[Any]]:
    """The inputs as a resumed run must find them again: name, size, modification time."""
    return [[p.name, p.stat().st_size, p.stat().st_mtime_ns] for p in paths]


def save_checkpoint(path: Path, data: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data), "utf-8")
    with open(tmp, "rb+") as fh:
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def commit_batch(path: Path, done: dict[str, Any]) -> None:
    data = json.loads(path.read_text("utf-8"))
    data["done"] = done
    save_checkpoint(path, data)


def truncate_to(path: Path, size: int) -> None:
    with open(path, "ab") as fh:
        fh.truncate(size)


def read_checkpoint(folder: Path, paths: list[Path]) -> dict[str, Any] | None:
    """The checkpoint of an interrupted streamed build in `folder` when it was made from the same inputs, else
    None."""
    path = folder / CHECKPOINT_FILE
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return data if data.get("inputs") == fingerprint(paths) else None


def saved_decisions(order: list[Table], plan: Plan) -> dict[str, Any]:
    """The model's decisions and the schema made from them, so that a resumed run does not ask again."""
    return {"tables": [{"file": t.file, "decision": vars(t.decision), "record_class": t.shape.record_class,
                        "plans": {k: _plan_dict(p) for k, p in t.shape.plans.items()}} for t in order],
            "references": [{"source": r.source.file, "column": r.column, "target": r.target.file, "key": r.key,
                            "confirmed": r.confirmed, "property": r.property, "inverse": r.inverse,
                            "decided_by": r.decided_by, "reason": r.reason} for r in plan.references]}


def _plan_dict(p: FieldPlan) -> dict[str, Any]:
    d = {k: v for k, v in vars(p).items() if k != "sub"}
    d["sub"] = {k: _plan_dict(s) for k, s in p.sub.items()}
    return d


def _plan_from(d: dict[str, Any]) -> FieldPlan:
    return FieldPlan(**{**d, "sub": {k: _plan_from(s) for k, s in d.get("sub", {}).items()}})


def restore_decisions(idx: EntitiesIndex, order: list[Table], plan: Plan, resume: dict[str, Any],
             sample_cov: CountingCoverage) -> list[dict[str, Any]]:
    """The decisions of the checkpoint taken again: each table's mapping re-applied to its sample (the schema), the
    references' verdicts and names set; what coverage.json lists of the references."""
    saved = {t["file"]: t for t in resume["decisions"]["tables"]}
    for table in order:
        entry = saved[table.file]
        table.shape.plans = {k: _plan_from(p) for k, p in entry["plans"].items()}
        table.decision = Decision(**entry["decision"])
        apply_mapping(batch_index(idx), table.shape, table.decision, sample_cov)
    out = []
    refs = {(r["source"], r["column"], r["target"], r["key"]): r for r in resume["decisions"]["references"]}
    for ref in plan.references:
        r = refs.get((ref.source.file, ref.column, ref.target.file, ref.key))
        if r is None:
            continue
        ref.confirmed, ref.property, ref.inverse = r["confirmed"], r["property"], r["inverse"]
        ref.decided_by, ref.reason = r["decided_by"], r["reason"]
        out.append({"reference": ref.describe(), "confirmed": ref.confirmed, "property": ref.property,
                    "inverse": ref.inverse, "decided_by": ref.decided_by, "why": ref.reason})
    return out
