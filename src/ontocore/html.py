"""Page pieces shared by the build report (ontobuild/report.py) and the answers report (ontouse/report.py): one
self-contained HTML page (inline CSS and a few lines of script; nothing fetched), its sections, cards, tables and
pictures, and how a fact's source reads for a person."""

from __future__ import annotations

from html import escape
from typing import Any, Iterable

REPORT_FILE = "report.html"

_CSS = """
body{font-family:Helvetica,Arial,sans-serif;margin:0;color:#1d2733;background:#f6f8fa}
header{background:#24384f;color:#fff;padding:14px 24px}header h1{margin:0;font-size:20px}
header p{margin:4px 0 0;color:#c8d3df;font-size:13px}
main{padding:8px 24px 40px;max-width:1300px}
section{background:#fff;border:1px solid #dde3ea;border-radius:6px;margin:16px 0;padding:12px 16px}
h2{font-size:16px;margin:4px 0 10px}h3{font-size:14px;margin:12px 0 6px}
.cards{display:flex;flex-wrap:wrap;gap:10px}.card{border:1px solid #dde3ea;border-radius:6px;padding:8px 12px;
min-width:110px}.card b{display:block;font-size:20px}.card span{font-size:12px;color:#5b6b7c}
.ok{color:#1a7f37}.bad{color:#c62828}.warn{color:#9a6700}
table{border-collapse:collapse;width:100%;font-size:13px}th,td{border-bottom:1px solid #e6eaef;padding:4px 6px;
text-align:left;vertical-align:top}th{background:#f0f3f6}
td.src{color:#5b6b7c;font-size:12px}code,pre{font-family:Menlo,Consolas,monospace;font-size:12px}
pre{background:#f3f5f7;padding:8px;overflow-x:auto;white-space:pre-wrap}
.picture{overflow:auto;max-height:720px;border:1px solid #eef1f4;padding:4px;background:#fff}
.picture svg{max-width:none}.note{color:#5b6b7c;font-size:12px}.qual{color:#8a4b00}
summary{font-size:13px;cursor:pointer}
input.filter{padding:5px 8px;width:320px;margin-bottom:8px;border:1px solid #c5ced8;border-radius:4px}
ul.facts{margin:0;padding-left:16px}
"""

# Filters the rows of a table by the text of an input (data-filter names the table's id).
_SCRIPT = """
document.querySelectorAll('input.filter').forEach(function(box){
  box.addEventListener('input',function(){
    var q=box.value.toLowerCase();
    document.querySelectorAll('#'+box.dataset.filter+' tbody tr').forEach(function(tr){
      tr.style.display=tr.textContent.toLowerCase().indexOf(q)<0?'none':'';});});});
"""


def page(title: str, subtitle: str, sections: Iterable[str]) -> str:
    """A whole HTML page."""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width\"><title>{escape(title)}</title>"
            f"<style>{_CSS}</style></head><body><header><h1>{escape(title)}</h1><p>{escape(subtitle)}</p></header>"
            f"<main>{''.join(sections)}</main><script>{_SCRIPT}</script></body></html>\n")


def section(title: str, body: str, section_id: str = "") -> str:
    ident = f' id="{escape(section_id)}"' if section_id else ""
    return f"<section{ident}><h2>{escape(title)}</h2>{body}</section>"


def cards(items: list[tuple[str, Any]]) -> str:
    return '<div class="cards">' + "".join(f'<div class="card"><b>{escape(str(v))}</b><span>{escape(k)}</span></div>'
                                           for k, v in items) + "</div>"


def table(head: list[str], rows: Iterable[list[str]], table_id: str = "", filter_hint: str = "") -> str:
    """An HTML table; cells are given as HTML (escape what comes from data)."""
    box = (f'<input class="filter" data-filter="{table_id}" placeholder="{escape(filter_hint)}">'
           if table_id and filter_hint else "")
    ident = f' id="{table_id}"' if table_id else ""
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return (f"{box}<table{ident}><thead><tr>{''.join(f'<th>{escape(h)}</th>' for h in head)}</tr></thead>"
            f"<tbody>{body}</tbody></table>")


def picture(svg: str, what: str, left_out: int = 0) -> str:
    if not svg:
        return f'<p class="note">No {escape(what)} to draw.</p>'
    note = f'<p class="note">{left_out} more not drawn (see the ontology files).</p>' if left_out else ""
    return f'<div class="picture" data-picture="{escape(what)}">{svg}</div>{note}'


def source_text(source: dict[str, str]) -> str:
    """A fact's source for a person: the file and JSON path, or the text chunk and its sentence."""
    if not source:
        return ""
    if source.get("chunk"):
        sentence = source.get("sentence", "")
        place = ", ".join(f"{key} {source[key]}" for key in ("page", "slide", "section") if source.get(key))
        where = f"{source['chunk']} ({place})" if place else source["chunk"]
        return f"{where}: \u201c{sentence}\u201d" if sentence else where
    return " ".join(x for x in (source.get("file", ""), source.get("path", "")) if x)
