"""Vocabulary alignment benchmark: how many of the terms a build uses are the given vocabulary's IRIs.

    python -m bench.schema_bench --index OUTCOME/entities_index.json --schema VOCAB.ttl [--name NAME]

Aligns an index built without a vocabulary (what `ontobuild FILES` wrote) onto the vocabulary with the embedded
local model, the same post-pass `ontobuild FILES --schema VOCAB` runs, and reports per kind (classes and properties
that hold data) how many are the vocabulary's terms, the new terms, the model calls and seconds. Results go to
bench/results/schema.json (one entry per --name)."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from ontobuild.ontology.alignment import align, iri_share
from ontobuild.ontology.indexfile import load_index
from ontocore.llm import open_model
from ontocore.folders import atomic_write
from ontobuild.ontology.vocabulary import load_vocabulary

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "schema.json"


def run(index: Path, schema: Path, model: Any = None) -> dict[str, Any]:
    idx = load_index(index)
    vocab = load_vocabulary([schema])
    model = model or open_model({"backend": "local"})
    t = time.perf_counter()
    records = align(model, idx, vocab)
    seconds = time.perf_counter() - t
    share = iri_share(idx, vocab)
    used = share["classes"]["used"] + share["properties"]["used"]
    given = share["classes"]["vocabulary"] + share["properties"]["vocabulary"]
    return {"index": str(index), "schema": str(schema), "share_of_given_iris": round(given / used, 3) if used else 0.0,
            "terms": share, "llm": model.usage.as_dict(), "seconds": round(seconds, 1),
            "alignments": [{k: r[k] for k in ("term", "kind", "name", "how", "candidates", "refused")} | {"iri": r["iri"]}
                           for r in records]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--index", type=Path, required=True)
    ap.add_argument("--schema", type=Path, required=True)
    ap.add_argument("--name", default="")
    args = ap.parse_args()
    result = run(args.index, args.schema)
    results = json.loads(RESULTS.read_text()) if RESULTS.is_file() else {}
    results[args.name or args.schema.parent.name] = result
    atomic_write(RESULTS, json.dumps(results, indent=1, ensure_ascii=False) + "\n")
    print(json.dumps({k: result[k] for k in ("share_of_given_iris", "terms", "seconds")}, indent=1))


if __name__ == "__main__":
    main()
