"""`report.html`: what a person looks at in an outcome folder. One self-contained page (inline CSS, SVG and a
few lines of script; nothing fetched), written atomically with the rest of the folder.

A build report shows the counts, the cost, the reasoner's verdict, the coverage (what was skipped and why),
a picture of the class hierarchy, a picture of how the classes relate (object properties from domain to
range), and a table of the individuals with their facts and each fact's source. The page pieces (`page`,
`section`, ...) are ontocore.html, shared with the answers report of `ontoask` (ontouse/report.py)."""

from __future__ import annotations

import logging
from datetime import datetime
from html import escape
from pathlib import Path
from typing import Any, Iterable

from ontocore.drawing import MAX_NODES, Diagram, engine, to_svg
from ontocore.html import REPORT_FILE, cards, page, picture, section, source_text, table

from ..ontology.index import EntitiesIndex

log = logging.getLogger(__name__)

MAX_INDIVIDUALS = 2000  # rows of the individuals table; the rest is in entities_index.json


# ---- build report ----------------------------------------------------------------------------------
def class_hierarchy(idx: EntitiesIndex) -> tuple[Diagram, int]:
    """Classes with their number of individuals, subclass edges (drawn up); (diagram, classes left out)."""
    members: dict[str, int] = {}
    for ind in idx.individuals.values():
        for c in ind.classes:
            members[c] = members.get(c, 0) + 1
    names = sorted(idx.classes, key=lambda c: (-members.get(c, 0), c))
    shown = set(names[:MAX_NODES])
    d = Diagram(rankdir="BT")
    for name in sorted(shown):
        d.node(name, f"{idx.classes[name].label or name}\n{members.get(name, 0)} individual(s)")
    for name in sorted(shown):
        for parent in idx.classes[name].superclasses:
            d.edge(name, parent)
    return d, len(names) - len(shown)


def class_relations(idx: EntitiesIndex) -> tuple[Diagram, int]:
    """Object properties as edges from each domain class to the range class; (diagram, properties left out)."""
    d = Diagram(rankdir="LR")
    props = sorted((p for p in idx.properties.values() if p.kind == "object"), key=lambda p: p.name)
    left = 0
    for p in props:
        ends = [c for c in (*p.domain, p.range) if c in idx.classes]
        if len(d.nodes) + len(set(ends) - set(d.nodes)) > MAX_NODES:
            left += 1
            continue
        for c in ends:
            d.node(c, idx.classes[c].label or c)
        for dom in p.domain:
            if p.range:
                d.edge(dom, p.range, p.label or p.name)
    return d, left


def _fact_value(idx: EntitiesIndex, fact: Any) -> str:
    if fact.object is not None:
        target = idx.individuals.get(fact.object)
        stated = fact.source.get("stated_of", "") if fact.source else ""
        return f'<a href="#i-{escape(fact.object)}">{escape(target.label if target else fact.object)}</a>' + \
            (f' <span class="note">stated of \u201c{escape(stated)}\u201d</span>' if stated else "")
    unit = f" {fact.unit}" if fact.unit else ""
    qualifier = f' <span class="qual">({escape(fact.qualifier)})</span>' if getattr(fact, "qualifier", "") else ""
    stated = fact.source.get("stated_of", "") if fact.source else ""
    return escape(f"{fact.literal}{unit}") + qualifier + \
        (f' <span class="note">stated of \u201c{escape(stated)}\u201d</span>' if stated else "")


def _individual_rows(idx: EntitiesIndex) -> Iterable[list[str]]:
    for name in sorted(idx.individuals)[:MAX_INDIVIDUALS]:
        ind = idx.individuals[name]
        facts = "".join(f"<li><b>{escape(f.property)}</b>: {_fact_value(idx, f)} "
                        f'<span class="note">\u2190 {escape(source_text(f.source))}</span></li>' for f in ind.facts)
        yield [f'<span id="i-{escape(name)}">{escape(ind.label or name)}</span>', escape(", ".join(ind.classes)),
               f'<ul class="facts">{facts}</ul>', f'<span class="note">{escape(source_text(ind.source))}</span>']


def _coverage_section(coverage: dict[str, Any] | None, idx: EntitiesIndex) -> str:
    rows = []
    for key in ("json_leaves", "text_chunks", "text_sentences", "text_numbers"):
        part = (coverage or {}).get(key)
        if isinstance(part, dict) and "total" in part:
            pct = f"{100 * part.get('covered', 0) / part['total']:.1f}%" if part["total"] else "-"
            rows.append([escape(key.replace("_", " ")), str(part["total"]), str(part.get("covered", 0)),
                         str(part.get("skipped", 0)), pct])
    body = table(["input", "total", "kept", "skipped", "kept %"], rows) if rows else \
        '<p class="note">No coverage recorded (built from an index).</p>'
    refs = [r for r in (coverage or {}).get("references", []) or [] if "confirmed" in r]
    if refs:
        body += "<h3>References between record sets</h3>" + table(
            ["candidate (column -> key)", "model's decision", "link", "inverse"],
            ([escape(r["reference"]), "confirmed" if r["confirmed"] else "rejected", escape(r.get("property", "")),
              escape(r.get("inverse", ""))] for r in refs))
    skipped = [e for key in ("json", "text") for e in (coverage or {}).get(key, []) or []
               if isinstance(e, dict) and e.get("status") == "skipped"]
    skipped += [s for s in idx.skipped if isinstance(s, dict)]
    if skipped:
        body += "<h3>Skipped, and why</h3>" + table(
            ["where", "value", "reason"],
            ([escape(" ".join(str(s.get(k, "")) for k in ("file", "path", "chunk") if s.get(k))),
              escape(str(s.get("value", ""))[:200]), escape(str(s.get("reason", "")))] for s in skipped[:500]))
    else:
        body += '<p class="ok">Nothing was skipped.</p>'
    return section("Coverage", body, "coverage")


def _properties_section(idx: EntitiesIndex, coverage: dict[str, Any] | None) -> str:
    """Every property with what it measures and how often it is used; the merges of synonymous properties; the
    classes read from text that hold a single individual (for review)."""
    uses: dict[str, int] = {}
    for _, f in idx.iter_facts():
        uses[f.property] = uses.get(f.property, 0) + 1
    rows = ([escape(n), escape(p.kind), escape(getattr(p, "dimension", "") or ""), escape(p.unit or p.range),
             escape(", ".join(p.domain)), str(uses.get(n, 0))] for n, p in sorted(idx.properties.items()))
    body = table(["property", "kind", "measures", "unit / range", "domain", "facts"], rows, "properties",
                 "filter properties")
    merges = (coverage or {}).get("merges") or []
    if merges:
        body += "<h3>Merged: one concept, one property</h3>" + table(
            ["merged", "into", "facts moved", "why"],
            ([escape(m["merged"]), escape(m["into"]), str(m.get("facts", "")), escape(m.get("why", ""))]
             for m in merges))
    from_text = [(n, next(r for r in p.roles if r.startswith("From text, e.g. "))) for n, p in
                 sorted(idx.properties.items()) if any(r.startswith("From text, e.g. ") for r in p.roles)]
    if from_text:
        body += "<h3>Names read from text, with the sentence each came from</h3>" + table(
            ["property", "sentence"], ([escape(n), escape(r[len("From text, e.g. "):].strip("'"))]
                                       for n, r in from_text))
    outside = (coverage or {}).get("outside_vocabulary") or []
    if outside:
        body += ("<h3>Statements your vocabulary has no term for (not written; new terms the text would need)</h3>"
                 + table(["sentence", "what"], ([escape(o.get("sentence", "")),
                                                 escape(o.get("link") or o.get("value") or "")] for o in outside)))
    lonely = []
    for c in sorted(idx.classes):
        held = [i for i in idx.individuals.values() if c in i.classes]
        if len(held) == 1 and "chunk" in held[0].source and c != "TextChunk":
            lonely.append([escape(c), escape(held[0].label)])
    if lonely:
        body += "<h3>Classes read from text with a single individual (review them)</h3>" + \
            table(["class", "its only individual"], lonely)
    return section(f"Properties ({len(idx.properties)})", body, "properties")


def _repair_html(repair: dict[str, Any] | None) -> str:
    """What the reasoner's repair round changed, and what remains."""
    if not isinstance(repair, dict):
        return ""
    done = repair.get("repaired") or []
    left = repair.get("remaining") or []
    html = f"<h3>Repair round: {len(done)} repaired, {len(left)} remaining</h3>"
    if done:
        html += table(["problem", "what was involved", "fix"],
                      ([escape(r["problem"]), "<br>".join(escape(x) for x in r.get("involved", [])), escape(r["fix"])]
                       for r in done))
    if left:
        html += "<p>Remaining:</p><ul>" + "".join(f"<li>{escape(str(x))}</li>" for x in left) + "</ul>"
    return html


def _vocabulary_section(coverage: dict[str, Any] | None) -> str:
    """With `--schema`: each built term and the vocabulary term it became, or that it stays a new term, and why."""
    alignments = (coverage or {}).get("alignments") or []
    if not alignments:
        return ""
    aligned = [a for a in alignments if a.get("iri")]
    new = [a for a in alignments if not a.get("iri")]
    body = (f"<p>{len(aligned)} built term(s) became terms of your vocabulary; {len(new)} new term(s) were created "
            "because none of its terms fits.</p>")
    body += "<h3>Built terms on your vocabulary</h3>" + table(
        ["built", "kind", "became", "how", "other candidates"],
        ([escape(a["term"]), escape(a["kind"]), f'{escape(a["name"])} <span class="note">{escape(a["iri"])}</span>',
          escape(a["how"]), escape(", ".join(c for c in a.get("candidates", []) if c != a["name"]))]
         for a in aligned), "alignments", "filter alignments")
    body += "<h3>New terms (nothing in your vocabulary fits)</h3>" + table(
        ["term", "kind", "why", "candidates refused by code"],
        ([escape(a["term"]), escape(a["kind"]), escape(a["how"] + (f" among {', '.join(a['candidates'])}"
                                                                   if a.get("candidates") else "")),
          escape("; ".join(a.get("refused", [])))] for a in new), "new-terms", "filter new terms")
    return section("Your vocabulary", body, "vocabulary")


def build_report(idx: EntitiesIndex, stats: dict[str, Any], coverage: dict[str, Any] | None = None,
                 title: str = "") -> str:
    counts = stats.get("counts", {})
    llm = stats.get("llm") or {}
    reasoner = stats.get("reasoner") or {}
    status = str(reasoner.get("status", "not checked"))
    css = {"consistent": "ok", "inconsistent": "bad"}.get(status, "warn")
    seconds = stats.get("seconds", {})
    total = seconds.get("total") or round(sum(v for v in seconds.values() if isinstance(v, (int, float))), 2)
    summary = cards([(k, counts.get(k, 0)) for k in ("classes", "properties", "individuals", "facts", "triples")]
                    + [("LLM calls", llm.get("calls", 0)),
                       ("prompt + completion tokens", f"{llm.get('prompt_tokens', 0)} + {llm.get('completion_tokens', 0)}"),
                       ("seconds", total)])
    checks = reasoner.get("checks") or []
    who = "; ".join(f"{c.get('check')}: {c.get('status')} on {c.get('on')}" for c in checks) or "HermiT"
    verdict = (f'<p>Reasoner ({escape(who) if checks else who}): <b class="{css}">{escape(status)}</b> '
               f'{escape(str(reasoner.get("reason", "")))}'
               "</p>" + "".join(f"<pre>{escape(str(x))}</pre>" for x in reasoner.get("details", [])[:20]))
    outputs = stats.get("outputs") or {}
    if outputs.get("files"):
        verdict += (f'<p class="note">Written: {escape(", ".join(outputs["files"]))} '
                    f'({escape(str(outputs.get("why", "")))})</p>')
    verdict += _repair_html(stats.get("repair"))
    if llm.get("model"):
        verdict += f'<p class="note">Model: {escape(str(llm.get("backend", "")))} {escape(str(llm["model"]))}</p>'
    if stats.get("ontology_iri"):
        verdict += f'<p class="note">Ontology IRI: <code>{escape(str(stats["ontology_iri"]))}</code></p>'
    inputs = stats.get("inputs") or {}
    if inputs.get("warnings"):  # encodings other than UTF-8, header names changed, sheets left out
        verdict += ('<p class="warn">Read differently from what the files say:</p><ul>'
                    + "".join(f"<li>{escape(str(w))}</li>" for w in inputs["warnings"]) + "</ul>")
    hierarchy, h_left = class_hierarchy(idx)
    relations, r_left = class_relations(idx)
    sections = [
        section("Summary", summary + verdict, "summary"),
        _coverage_section(coverage, idx),
        _properties_section(idx, coverage),
        *filter(None, [_vocabulary_section(coverage)]),
        section("Class hierarchy", picture(to_svg(hierarchy), "class hierarchy", h_left), "classes"),
        section("How the classes relate", picture(to_svg(relations), "class relations", r_left), "relations"),
        section(f"Individuals ({len(idx.individuals)})",
                table(["individual", "classes", "facts (and where each came from)", "source"],
                      _individual_rows(idx), "individuals", "filter individuals, classes, facts, sources")
                + (f'<p class="note">The first {MAX_INDIVIDUALS} are shown; all are in entities_index.json.</p>'
                   if len(idx.individuals) > MAX_INDIVIDUALS else ""), "individuals"),
    ]
    subtitle = f"{datetime.now():%Y-%m-%d %H:%M} \u00b7 pictures drawn by {engine()}"
    return page(title or "ontobuild report", subtitle, sections)


def write_build_report(idx: EntitiesIndex, outdir: Path, stats: dict[str, Any],
                       coverage: dict[str, Any] | None = None, name: str = "") -> Path:
    from ontocore.folders import atomic_write

    title = f"ontobuild report: {name or outdir.name}"
    return atomic_write(outdir / REPORT_FILE, build_report(idx, stats, coverage, title))
