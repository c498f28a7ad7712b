"""`report.html` of an `ontoask` outcome folder: per question the answer, the SPARQL that ran, the support
triples with the source each came from (when the ontology has an index), and a picture of the evidence
subgraph. The page frame and pictures are ontobuild's (report.py, drawing.py)."""

from __future__ import annotations

import re
from datetime import datetime
from html import escape
from pathlib import Path
from typing import Any

from ontocore.drawing import Diagram, engine, to_svg
from ontocore.html import REPORT_FILE, cards, page, picture, section, source_text, table

_TYPE = ("rdf:type", "a", "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>")
_LABEL = ("rdfs:label", "skos:prefLabel", "skos:altLabel")



def _evaluated(row: dict[str, Any]) -> str:
    """" (1800 of the prompt tokens reused)": what a kept prompt prefix saved, when it saved anything."""
    reused = row.get("prompt_reused") or 0
    return f" ({reused} of the prompt tokens reused)" if reused else ""

def _is_iri(text: str) -> bool:
    """Support terms are shown as prefix:local, <iri> or a literal's lexical form."""
    if text.startswith("<") and text.endswith(">"):
        return True
    prefix, sep, local = text.partition(":")
    return bool(sep) and " " not in text and not local.startswith("//") and \
        (prefix == "" or re.fullmatch(r"[A-Za-z][\w.-]*", prefix) is not None)


def evidence_diagram(support: list[list[str]]) -> Diagram:
    """The support triples as a graph: things as boxes, classes as ellipses, literal values as notes."""
    d = Diagram(rankdir="LR")
    for i, (s, p, o) in enumerate(support):
        d.node(s, s)
        if p in _TYPE:
            d.node(o, o, "ellipse")
            d.edge(s, o, "a", dashed=True)
        elif _is_iri(o):
            d.node(o, o)
            d.edge(s, o, p)
        else:
            node = f"literal {i}"
            d.node(node, o if len(o) <= 60 else o[:57] + "...", "note")
            d.edge(s, node, p)
    return d


def _support_table(row: dict[str, Any]) -> str:
    sources = row.get("sources") or []
    body = []
    for i, (s, p, o) in enumerate(row.get("support") or []):
        src = sources[i] if i < len(sources) else {}
        body.append([f"<code>{escape(s)}</code>", f"<code>{escape(p)}</code>", escape(o),
                     f'<span class="note">{escape(source_text(src))}</span>'])
    return table(["subject", "predicate", "object", "source"], body)


def _question(i: int, row: dict[str, Any]) -> str:
    state = str(row.get("state", ""))
    css = {"answered": "ok", "error": "bad"}.get(state, "warn")
    correct = row.get("correct")
    verdict = "" if correct is None else (' \u00b7 <b class="ok">correct</b>' if correct
                                          else ' \u00b7 <b class="bad">not the expected answer</b>')
    parts = []
    if row.get("asked"):
        parts.append(f'<p class="note">asked as: {escape(str(row["asked"]))}</p>')
    parts.append(f"<p><b>{escape(str(row.get('answer', '')))}</b></p>")
    parts.append(f'<p class="note"><span class="{css}">{escape(state)}</span>{verdict} \u00b7 '
                 f"{row.get('llm_calls', 0)} LLM call(s), {row.get('prompt_tokens', 0)} + "
                 f"{row.get('completion_tokens', 0)} tokens{_evaluated(row)}, {row.get('seconds', 0)} s</p>")
    if row.get("error"):
        parts.append(f'<p class="note">{escape(str(row["error"]))}</p>')
    if row.get("support"):
        parts.append("<h3>Evidence</h3>" + picture(to_svg(evidence_diagram(row["support"])), "evidence"))
        parts.append("<h3>Support triples</h3>" + _support_table(row))
    queries = row.get("sparql") or []
    if queries:
        parts.append(f"<details><summary>SPARQL ({len(queries)} quer{'y' if len(queries) == 1 else 'ies'})"
                     "</summary>" + "".join(f"<pre>{escape(q)}</pre>" for q in queries) + "</details>")
    if row.get("sql"):
        parts.append(f"<details><summary>Plan (SQL)</summary><pre>{escape(str(row['sql']))}</pre></details>")
    return section(f"{i}. {row.get('question', '')}", "".join(parts), f"q{i}")


def answers_report(rows: list[dict[str, Any]], stats: dict[str, Any], title: str) -> str:
    llm = stats.get("llm") or {}
    n = len(rows) or 1
    scored = [r["correct"] for r in rows if r.get("correct") is not None]
    items: list[tuple[str, Any]] = [("questions", len(rows)),
                                    ("answered", sum(r.get("state") == "answered" for r in rows))]
    if scored:
        items.append(("expected answers", f"{sum(scored)}/{len(scored)}"))
    items += [("LLM calls per question", f"{sum(r.get('llm_calls', 0) for r in rows) / n:.1f}"),
              ("seconds per question", f"{sum(r.get('seconds', 0) for r in rows) / n:.1f}"),
              ("tokens in all", llm.get("prompt_tokens", 0) + llm.get("completion_tokens", 0))]
    if llm.get("prompt_reused"):
        items.append(("prompt tokens evaluated / reused",
                      f"{llm.get('prompt_evaluated', 0)} / {llm.get('prompt_reused', 0)}"))
    ontology = ", ".join(str(x) for x in stats.get("ontology", []))
    head = cards(items) + f'<p class="note">Ontology: {escape(ontology)}</p>'
    if stats.get("summary"):
        head += f'<p class="note">{escape(str(stats["summary"]))}</p>'
    subtitle = f"{datetime.now():%Y-%m-%d %H:%M} \u00b7 pictures drawn by {engine()}"
    return page(title, subtitle, [section("Summary", head, "summary")]
                + [_question(i, r) for i, r in enumerate(rows, 1)])


def write_answers_report(outdir: Path, rows: list[dict[str, Any]], stats: dict[str, Any], name: str = "") -> Path:
    from ontocore.folders import atomic_write

    return atomic_write(outdir / REPORT_FILE, answers_report(rows, stats, f"ontoask answers: {name or outdir.name}"))
