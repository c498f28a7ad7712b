"""What the text step offers the model, measured without a model on Text2KGBench's development sentences (its
vocabulary given, as with `--schema`): for each gold triple, whether code reads its subject and its object as things
of the sentence (`things`), and whether code offers a link between those two things with the gold relation among the
link's choices (`offered`). A gold triple that is not offered cannot be stated by any model: this bounds the text
step's recall, and `links` per gold triple shows how many questions the model must answer "none" to. Per kind of link
(what "is" says a thing is, a clause's subject and a thing after its verb, a thing and a name inside its phrase): how
many have a gold triple among their choices and how many have none (the links a model that never says "none" would
state wrongly, by the benchmark's gold, which misses some true facts).

    python -m bench.text_candidates                 # the first 50 sentences of each vocabulary
    python -m bench.text_candidates --limit 10 --no-save
    python -m bench.text_candidates --start 50       # sentences 51-100: ones the reading rules were not written from

Matching as the benchmark's score.py does (token Jaccard >= 0.5 of labels). Development figures: the development
part, whose sentences guided the reading rules. Results: bench/results/text_candidates.json and .md."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from bench.text_bench import T2K, _load_scorer

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"


def measure(vocab: str, limit: int, scorer: Any, embedder: Any, start: int = 0) -> dict[str, int]:
    from ontobuild.ontology.index import EntitiesIndex
    from ontobuild.ontology.vocabulary import load_vocabulary
    from ontobuild.text import grammar
    from ontobuild.text.proposals import proposals
    from ontobuild.text.quantities import find_quantities
    from ontobuild.text.reading import read_sentence
    from ontobuild.text.resolving import resolve_things
    from ontobuild.text.step import new_state

    folder = T2K / "dev" / vocab
    voc = load_vocabulary([folder / "ontology.ttl"])
    relation_names = {r["label"]: r["name"] for r in json.loads((folder / "ontology.json").read_text())["relations"]}
    local = {name: voc.terms[iri].iri.rsplit("#", 1)[-1] for iri, name in voc.names.items()}
    state = new_state([], voc)
    state.embedder = embedder
    state.class_labels = {voc.names.get(t.iri, ""): t.label or voc.names.get(t.iri, "") for t in voc.of_kind("class")}

    def same(a: str, b: str) -> bool:
        return scorer.jaccard(scorer.tokens(a), scorer.tokens(b)) >= 0.5

    out = {"gold": 0, "things": 0, "offered": 0, "links": 0, "options": 0}
    rows = [json.loads(x) for x in (folder / "sentences.jsonl").read_text(encoding="utf-8").split("\n") if x.strip()]
    for row in rows[start:start + limit]:
        text, idx, history = row["text"], EntitiesIndex(), []
        gold = [(s, relation_names.get(r, r), o) for s, r, o in row["triples"]]
        labels: list[str] = []
        offered: set[int] = set()
        for sentence in grammar.parse(text):
            reading = read_sentence(text, sentence, find_quantities(text), [])
            labels += [t.label for t in reading.things] + [v.quantity.written for v in reading.values]
            resolved = resolve_things(idx, reading, history, state.packages)
            _, links, _, _ = proposals(idx, reading, resolved, state)
            for k in links:
                a, b = reading.thing(k.subject), reading.thing(k.object)
                out["links"] += 1
                out["options"] += len(k.options)
                names = {local.get(o, o) for o in k.options}
                hit = False
                for i, (s, r, o) in enumerate(gold):
                    if r in names and (same(a.label, s) and same(b.label, o) or same(b.label, s) and same(a.label, o)):
                        offered.add(i)
                        hit = True
                # per kind of link: what "is" says a thing is, a clause's subject and a thing after its verb, a
                # thing and a name inside its phrase; whether some gold triple is among its choices
                kind = "is" if k.kind == "clause" and k.words in ("is", "was", "are", "were") else k.kind
                out[f"{kind}_{'gold' if hit else 'no_gold'}"] = out.get(f"{kind}_{'gold' if hit else 'no_gold'}", 0) + 1
        out["gold"] += len(gold)
        out["things"] += sum(1 for s, _, o in gold if any(same(x, s) for x in labels) and any(same(x, o) for x in labels))
        out["offered"] += len(offered)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--limit", type=int, default=50)
    ap.add_argument("--start", type=int, default=0, help="sentences skipped at the start of each vocabulary")
    ap.add_argument("--label", default="")
    ap.add_argument("--no-save", action="store_true")
    a = ap.parse_args(argv)
    from ontocore import embeddings
    embedder = embeddings.Embedder() if embeddings.available() else None
    scorer = _load_scorer(T2K / "score.py", "t2k_score")
    per, total = {}, {"gold": 0, "things": 0, "offered": 0, "links": 0, "options": 0}
    for vocab in sorted(p.name for p in (T2K / "dev").iterdir() if p.is_dir()):
        per[vocab] = measure(vocab, a.limit, scorer, embedder, a.start)
        for k, n in per[vocab].items():
            total[k] = total.get(k, 0) + n
        print(vocab, per[vocab], flush=True)
    g = total["gold"] or 1
    print(f"all: things read {total['things']}/{total['gold']} ({total['things'] / g:.3f}), offered with the gold "
          f"relation {total['offered']}/{total['gold']} ({total['offered'] / g:.3f}), {total['links']} links asked")
    print("links per kind, with a gold triple among their choices / with none: " + ", ".join(
        f"{kind} {total.get(kind + '_gold', 0)} / {total.get(kind + '_no_gold', 0)}" for kind in ("is", "clause",
                                                                                               "modifier")))
    if a.no_save:
        return 0
    commit = subprocess.run(["git", "rev-parse", "--short=10", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    run = {"label": a.label or commit, "commit": commit, "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
           "limit": a.limit, "start": a.start, "embedder": embedder is not None, "total": total, "vocabularies": per}
    path = RESULTS / "text_candidates.json"
    saved = json.loads(path.read_text()) if path.is_file() else {"runs": []}
    saved["runs"].append(run)
    path.write_text(json.dumps(saved, indent=1) + "\n", encoding="utf-8")
    lines = ["# What the text step offers the model (Text2KGBench development part, no model)", "",
             "Command: `python -m bench.text_candidates`; bench/text_candidates.py says what is counted. "
             "Development figures.", "", "| run | commit | sentences of each vocabulary | gold triples | both things read | "
             "offered with the gold relation | links asked | links of 'is', 'clause', 'modifier' with / without a gold triple among "
             "their choices |", "|---|---|---|---|---|---|---|---|"]
    for r in saved["runs"]:
        t = r["total"]
        kinds = " · ".join(f"{t.get(k + '_gold', 0)} / {t.get(k + '_no_gold', 0)}" for k in ("is", "clause", "modifier")) \
            if "is_gold" in t else ""
        lines.append(f"| {r['label']} | {r['commit']} | {r.get('start', 0) + 1}-{r.get('start', 0) + r['limit']} | {t['gold']} | {t['things']} | {t['offered']} | "
                     f"{t['links']} | {kinds} |")
    (RESULTS / "text_candidates.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
