"""Documents against Markdown: the same content as a Markdown domain of bench/domains, as an HTML page, a Word
document and a PDF (written by LibreOffice from the HTML: `soffice --convert-to docx`, then `pdf`), each built by
`ontobuild` with the embedded model; the text facts of each build are compared with the Markdown build's.

    python -m bench.documents_bench                         # the roastery domain
    python -m bench.documents_bench --domain ferry --domain water
    python -m bench.documents_bench --reuse                 # score the outcome folders already built
    python -m bench.documents_bench --build pdf             # build the PDF again, score the others as built

The documents are written into bench/domains/<name>/documents/ (kept, so that a re-run reads the same bytes; made
again with --remake). Outcome folders: outcomes/documents/<name>/<format>. A text fact is a datatype fact whose
source is a text chunk (not the TextChunk individuals that keep each chunk verbatim), as (subject label, property,
value, unit); agreement = facts of the document's build that the Markdown build states too / the Markdown build's
facts. Provenance: the share of a document's text facts whose source names its section (and, for the PDF, its
page). Before any model call, the chunks of each document are compared with the Markdown's (the same chunks give
the same prompts). Results: bench/results/documents.json and documents.md. Development figures: the domains are ours."""

from __future__ import annotations

import argparse
import html
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOMAINS = ROOT / "bench" / "domains"
RESULTS = ROOT / "bench" / "results"
FORMATS = ("md", "html", "docx", "pdf")


def markdown_file(domain: str) -> Path:
    return next(p for p in sorted((DOMAINS / domain).glob("*.md")))


def to_html(markdown: str, title: str) -> str:
    """The Markdown's headings and paragraphs as an HTML page (all the bench domains hold)."""
    out = [f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title></head><body>"]
    for block in re.split(r"\n\s*\n", markdown.strip()):
        m = re.match(r"(#{1,6})\s+(.*)", block)
        if m:
            n = len(m.group(1))
            out.append(f"<h{n}>{html.escape(m.group(2).strip())}</h{n}>")
        else:
            out.append(f"<p>{html.escape(' '.join(block.split()))}</p>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def make_documents(domain: str, remake: bool = False) -> dict[str, Path]:
    md = markdown_file(domain)
    folder = DOMAINS / domain / "documents"
    files = {"md": md, **{fmt: folder / f"{md.stem}.{fmt}" for fmt in FORMATS[1:]}}
    if not remake and all(p.is_file() for p in files.values()):
        return files
    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if soffice is None:
        raise SystemExit("LibreOffice is needed to write the documents (Debian: apt-get install "
                         "libreoffice-writer-nogui)")
    folder.mkdir(parents=True, exist_ok=True)
    files["html"].write_text(to_html(md.read_text("utf-8"), md.stem), encoding="utf-8")
    profile = f"-env:UserInstallation=file://{folder.resolve()}/.lo-profile"
    for target, source in (("docx:MS Word 2007 XML", files["html"]), ("pdf", folder / f"{md.stem}.docx")):
        subprocess.run([soffice, "--headless", profile, "--convert-to", target, "--outdir", str(folder), str(source)],
                       check=True, capture_output=True, timeout=300)
    shutil.rmtree(folder / ".lo-profile", ignore_errors=True)
    return files


def text_facts(outcome: Path) -> tuple[set[tuple[str, str, str, str]], list[dict]]:
    """(subject label, property, value, unit) of every text fact of a build, and their sources."""
    index = json.loads((outcome / "entities_index.json").read_text("utf-8"))
    props = index.get("properties", {})
    facts, sources = set(), []
    for ind in index.get("individuals", {}).values():
        if "TextChunk" in ind.get("classes", []):
            continue
        for f in ind.get("facts", []):
            if "literal" not in f or "chunk" not in (f.get("source") or {}):
                continue
            unit = f.get("unit") or props.get(f["property"], {}).get("unit", "")
            facts.add((" ".join(str(ind.get("label", "")).lower().split()), f["property"], str(f["literal"]), unit))
            sources.append(f["source"])
    return facts, sources


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--domain", action="append", default=[])
    ap.add_argument("--reuse", action="store_true", help="score the outcome folders already built")
    ap.add_argument("--build", action="append", choices=FORMATS, default=[],
                    help="build only these formats (repeatable); the others are scored from their outcome folders")
    ap.add_argument("--remake", action="store_true", help="write the documents again with LibreOffice")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT / "src"))
    import ontobuild
    from ontobuild.inputs.readers import load_inputs

    from ontocore.llm import open_model

    model = None
    record: dict = {"when": time.strftime("%Y-%m-%d %H:%M:%S"), "domains": {}}
    for domain in args.domain or ["roastery"]:
        files = make_documents(domain, args.remake)
        chunks = {fmt: [(c.text, c.lead) for c in load_inputs([p]).chunks] for fmt, p in files.items()}
        row: dict = {"files": {fmt: str(p.relative_to(ROOT)) for fmt, p in files.items()}, "formats": {}}
        facts: dict[str, set] = {}
        for fmt, path in files.items():
            out = ROOT / "outcomes" / "documents" / domain / fmt
            if not args.reuse and (not args.build or fmt in args.build):
                if model is None:
                    model = open_model({"backend": "local"})
                started = time.perf_counter()
                result = ontobuild.build([path], out=out, force=True, model=model)
                seconds = round(time.perf_counter() - started, 1)
                calls = result.stats["llm"]["calls"]
            else:
                stats = json.loads((out / "stats.json").read_text("utf-8"))
                seconds, calls = stats["seconds"].get("total"), stats["llm"]["calls"]
            found, sources = text_facts(out)
            facts[fmt] = found
            placed = [s for s in sources if s.get("section") and (fmt != "pdf" or s.get("page"))]
            row["formats"][fmt] = {"chunks": len(chunks[fmt]), "same_chunks_as_markdown": chunks[fmt] == chunks["md"],
                                   "text_facts": len(found), "seconds": seconds, "llm_calls": calls,
                                   "facts_with_place": f"{len(placed)}/{len(sources)}",
                                   "example_source": sources[0] if sources else None}
        for fmt in FORMATS[1:]:
            same = facts[fmt] & facts["md"]
            row["formats"][fmt]["agree_with_markdown"] = f"{len(same)}/{len(facts['md'])}"
            row["formats"][fmt]["agreement"] = round(len(same) / len(facts["md"]), 3) if facts["md"] else None
            row["formats"][fmt]["only_in_document"] = sorted(map(list, facts[fmt] - facts["md"]))
            row["formats"][fmt]["only_in_markdown"] = sorted(map(list, facts["md"] - facts[fmt]))
        record["domains"][domain] = row
        print(json.dumps({domain: {f: {k: v for k, v in r.items() if k in ("text_facts", "agreement",
                                                                            "facts_with_place", "seconds")}
                                   for f, r in row["formats"].items()}}, indent=1))
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / "documents.json"
    history = json.loads(out.read_text("utf-8")) if out.is_file() else []
    history.append(record)
    out.write_text(json.dumps(history, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    lines = ["# Documents against Markdown (development figures: our own domains)", "",
             "`python -m bench.documents_bench` (see its docstring): the same content as Markdown, HTML, Word and PDF "
             "(LibreOffice), each built by ontobuild with the embedded model.", "",
             "| when | domain | format | same chunks as the Markdown | text facts | agree with the Markdown's | "
             "facts naming their section (and page) | seconds |", "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for rec in history:
        for domain, row in rec["domains"].items():
            for fmt, r in row["formats"].items():
                lines.append(f"| {rec['when']} | {domain} | {fmt} | {r['same_chunks_as_markdown']} | {r['text_facts']} | "
                             f"{r.get('agree_with_markdown', '-')} | {r['facts_with_place'] if fmt != 'md' else '-'} | "
                             f"{r['seconds']} |")
    (RESULTS / "documents.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
