"""References between tables, without a model: on every Spider4SPARQL database's table exports (JSON), the
candidate references code finds (`keys.find_references`) and what code decides about each (`keys.weigh`: yes,
no, or ask the model), against the database's declared foreign keys. With --builds, also the links the last
end-to-end builds made (outcomes/tables_bench/<db>_json/coverage.json, code's and the model's decisions), scored
the same way: link precision (made links that are declared keys) and recall (declared keys that were linked).

    python -m bench.links_bench                # code's decisions only
    python -m bench.links_bench --builds       # and the links of the builds on disk

Two tables that share ids (one to one) are linked in one direction with its inverse: a link stated in the
direction opposite to the declared key counts as that key. Results: bench/results/links.json and links.md."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from bench.report import RESULTS, write_json
from bench.tables_bench import OUT, TABLES, _parse_reference, real_foreign_keys

Key = tuple[str, str, str, str]


def _is_real(ref: Key, real: set[Key]) -> bool:
    return ref in real or (ref[2], ref[3], ref[0], ref[1]) in real


def code_decisions(db: str) -> dict[str, Any]:
    """Every candidate of `db` with code's verdict and whether it is a declared key."""
    from ontobuild.dryrun import dry_run

    real = real_foreign_keys(db)
    rows = []
    for r in dry_run(sorted((TABLES / db / "json").iterdir()))["references"]:
        ref = _parse_reference(r["reference"])
        rows.append({"reference": r["reference"], "verdict": r["verdict"], "declared": _is_real(ref, real),
                     "why": r["why"]})
    found = {_parse_reference(r["reference"]) for r in rows}
    missing = sorted(" ".join(k) for k in real if not _is_real(k, found) and (k[2], k[3], k[0], k[1]) not in found)
    return {"db": db, "declared": len(real), "candidates": rows, "not_candidates": missing}


def build_links(db: str) -> dict[str, Any] | None:
    """The links the build on disk made, scored against the declared keys (None when there is no build)."""
    path = OUT / f"{db}_json" / "coverage.json"
    if not path.is_file():
        return None
    real = real_foreign_keys(db)
    made = [_parse_reference(r["reference"]) for r in json.loads(path.read_text("utf-8")).get("references", [])
            if r.get("confirmed")]
    right = [m for m in made if _is_real(m, real)]
    linked = {k for k in real if k in made or (k[2], k[3], k[0], k[1]) in made}
    return {"made": len(made), "right": len(right), "declared": len(real), "linked": len(linked),
            "wrong": sorted(" ".join(m) for m in made if not _is_real(m, real))}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--builds", action="store_true", help="also score the links of the builds on disk")
    args = ap.parse_args(argv)
    if not TABLES.is_dir():
        print(f"no table exports at {TABLES}", file=sys.stderr)
        return 2
    dbs = sorted(p.name for p in TABLES.iterdir() if p.is_dir())
    per_db = [code_decisions(db) for db in dbs]
    tally: dict[str, dict[str, int]] = {v: {"declared": 0, "not declared": 0} for v in ("yes", "no", "ask")}
    for d in per_db:
        for c in d["candidates"]:
            tally[c["verdict"]]["declared" if c["declared"] else "not declared"] += 1
    builds = {db: b for db in dbs if args.builds and (b := build_links(db)) is not None}
    result = {"benchmark": "links", "command": "python -m bench.links_bench " + " ".join(argv or sys.argv[1:]),
              "code": tally, "per_db": per_db, "builds": builds}
    write_json(RESULTS / "links.json", result)
    lines = ["# References between tables (no model)", "",
             f"Command: `{result['command'].strip()}`. Candidates on the ten Spider4SPARQL export sets (JSON) and "
             "what code decides about each, against the declared foreign keys.", "",
             "| code's verdict | a declared key | not a declared key |", "|---|---|---|"]
    lines += [f"| {v} | {t['declared']} | {t['not declared']} |" for v, t in tally.items()]
    lines += ["", "| database | declared keys | candidates | code: yes | code: no | asked | not even a candidate |",
              "|---|---|---|---|---|---|---|"]
    for d in per_db:
        c = d["candidates"]
        lines.append(f"| {d['db']} | {d['declared']} | {len(c)} | {sum(x['verdict'] == 'yes' for x in c)} | "
                     f"{sum(x['verdict'] == 'no' for x in c)} | {sum(x['verdict'] == 'ask' for x in c)} | "
                     f"{', '.join(d['not_candidates']) or '-'} |")
    lines += ["", "Decided by code as no:", ""]
    lines += [f"- {d['db']}: {x['reference']} ({'declared' if x['declared'] else 'not declared'}): {x['why']}"
              for d in per_db for x in d["candidates"] if x["verdict"] == "no"]
    lines += ["", "Left to the model:", ""]
    lines += [f"- {d['db']}: {x['reference']} ({'declared' if x['declared'] else 'not declared'})"
              for d in per_db for x in d["candidates"] if x["verdict"] == "ask"]
    if builds:
        made = sum(b["made"] for b in builds.values())
        right = sum(b["right"] for b in builds.values())
        declared = sum(b["declared"] for b in builds.values())
        linked = sum(b["linked"] for b in builds.values())
        lines += ["", "## Links of the builds on disk (outcomes/tables_bench)", "",
                  f"Precision {right}/{made}, recall {linked}/{declared}.", "",
                  "| database | links made | declared keys among them | declared keys | linked | wrong links |",
                  "|---|---|---|---|---|---|"]
        lines += [f"| {db} | {b['made']} | {b['right']} | {b['declared']} | {b['linked']} | "
                  f"{'; '.join(b['wrong']) or '-'} |" for db, b in builds.items()]
    (RESULTS / "links.md").write_text("\n".join(lines) + "\n", "utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
