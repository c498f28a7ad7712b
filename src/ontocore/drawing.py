"""Pictures of graphs as inline SVG, laid out by a real layout engine.

Graphviz's `dot` draws them when it is installed (the system package `graphviz`); without it, grandalf (a pure
Python Sugiyama layout, installed with the package) places the nodes and routes the edges, and this module only
writes the SVG elements at the computed positions. Either way the SVG is self-contained (no fonts or scripts
fetched) and can be inlined in an HTML page."""

from __future__ import annotations

import logging
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from html import escape

log = logging.getLogger(__name__)

MAX_NODES = 150  # more than this is not readable as one picture; the caller says what was left out
_FONT = "Helvetica,Arial,sans-serif"


@dataclass
class Diagram:
    """Nodes (id -> label, shape 'box' | 'ellipse' | 'note') and labelled edges (tail, head, label, dashed)."""

    nodes: dict[str, tuple[str, str]] = field(default_factory=dict)
    edges: list[tuple[str, str, str, bool]] = field(default_factory=list)
    rankdir: str = "BT"  # dot's direction: BT puts superclasses on top of subclasses

    def node(self, node_id: str, label: str, shape: str = "box") -> None:
        self.nodes.setdefault(node_id, (label, shape))

    def edge(self, tail: str, head: str, label: str = "", dashed: bool = False) -> None:
        if tail in self.nodes and head in self.nodes and (tail, head, label, dashed) not in self.edges:
            self.edges.append((tail, head, label, dashed))


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_dot(d: Diagram) -> str:
    ids = {n: f"n{i}" for i, n in enumerate(d.nodes)}
    lines = [f"digraph G {{ rankdir={d.rankdir}; bgcolor=transparent;",
             f'  node [fontname="{_FONT}", fontsize=11, style=filled, fillcolor="#eef4fb", color="#4a77a8"];',
             f'  edge [fontname="{_FONT}", fontsize=9, color="#555555"];']
    for n, (label, shape) in d.nodes.items():
        fill = ', fillcolor="#fff7e0", color="#b08a2e"' if shape == "note" else ""
        lines.append(f"  {ids[n]} [label={_quote(label)}, shape={'box' if shape == 'note' else shape}{fill}];")
    for tail, head, label, dashed in d.edges:
        style = ", style=dashed" if dashed else ""
        lines.append(f"  {ids[tail]} -> {ids[head]} [label={_quote(label)}{style}];")
    return "\n".join(lines) + "\n}\n"


def _with_dot(d: Diagram, timeout_s: float) -> str | None:
    dot = shutil.which("dot")
    if not dot:
        return None
    try:
        proc = subprocess.run([dot, "-Tsvg"], input=to_dot(d).encode("utf-8"), capture_output=True,
                              timeout=timeout_s, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        log.warning("graphviz failed (%s); drawing with grandalf", e)
        return None
    if proc.returncode != 0:
        log.warning("graphviz failed: %s", proc.stderr.decode("utf-8", "replace").strip()[:300])
        return None
    svg = proc.stdout.decode("utf-8", "replace")
    return svg[svg.find("<svg"):]  # without the XML prolog and DOCTYPE, to inline in HTML


def _with_grandalf(d: Diagram) -> str:
    from grandalf.graphs import Edge, Graph, Vertex
    from grandalf.layouts import SugiyamaLayout
    from grandalf.routing import EdgeViewer, route_with_lines

    class _View:
        def __init__(self, w: float, h: float) -> None:
            self.w, self.h, self.xy = w, h, (0.0, 0.0)

    vertices = {n: Vertex(n) for n in d.nodes}
    for n, v in vertices.items():
        label = d.nodes[n][0]
        v.view = _View(max(40.0, 7.0 * max(len(x) for x in label.split("\n")) + 16), 18.0 * (label.count("\n") + 1) + 10)
    edges = []
    for tail, head, label, dashed in d.edges:
        if tail == head:
            continue
        # BT: the head (a superclass) above the tail, as dot draws it
        e = Edge(vertices[head], vertices[tail]) if d.rankdir == "BT" else Edge(vertices[tail], vertices[head])
        e.view = EdgeViewer()
        e.info = (label, dashed, d.rankdir == "BT")
        edges.append(e)
    graph = Graph(list(vertices.values()), edges)
    for component in graph.C:
        layout = SugiyamaLayout(component)
        layout.route_edge = route_with_lines
        layout.init_all()
        layout.draw()
    # components are laid out separately: place them side by side
    parts, x_off = [], 0.0
    for component in graph.C:
        xs = [v.view.xy[0] for v in component.sV]
        ws = [v.view.w for v in component.sV]
        left = min(x - w / 2 for x, w in zip(xs, ws))
        right = max(x + w / 2 for x, w in zip(xs, ws))
        parts.append((component, x_off - left))
        x_off += right - left + 30
    svg, max_y = [], 0.0
    for component, dx in parts:
        for e in component.sE:
            label, dashed, reverse = e.info
            pts = [(x + dx, y) for x, y in e.view._pts]
            if reverse:
                pts.reverse()
            path = " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)
            dash = ' stroke-dasharray="4,3"' if dashed else ""
            svg.append(f'<polyline points="{path}" fill="none" stroke="#555" marker-end="url(#arrow)"{dash}/>')
            if label:
                (x0, y0), (x1, y1) = pts[0], pts[-1]
                svg.append(f'<text x="{(x0 + x1) / 2 + 4:.1f}" y="{(y0 + y1) / 2:.1f}" font-size="9">'
                           f"{escape(label)}</text>")
        for v in component.sV:
            x, y = v.view.xy[0] + dx, v.view.xy[1]
            w, h = v.view.w, v.view.h
            max_y = max(max_y, y + h / 2)
            label, shape = d.nodes[v.data]
            fill, stroke = ("#fff7e0", "#b08a2e") if shape == "note" else ("#eef4fb", "#4a77a8")
            rx = h / 2 if shape == "ellipse" else 3
            svg.append(f'<g class="node"><title>{escape(label)}</title><rect x="{x - w / 2:.1f}" y="{y - h / 2:.1f}" '
                       f'width="{w:.1f}" height="{h:.1f}" rx="{rx:.1f}" fill="{fill}" stroke="{stroke}"/>')
            for i, line in enumerate(label.split("\n")):
                ty = y - h / 2 + 17 + 18 * i
                svg.append(f'<text x="{x:.1f}" y="{ty:.1f}" text-anchor="middle" font-size="11">{escape(line)}</text>')
            svg.append("</g>")
    min_y = min((v.view.xy[1] - v.view.h / 2 for c, _ in parts for v in c.sV), default=0.0)
    width, height = max(x_off, 40.0), max(max_y - min_y, 20.0)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width + 20:.0f}pt" height="{height + 20:.0f}pt" '
            f'viewBox="-10 {min_y - 10:.1f} {width + 20:.1f} {height + 20:.1f}" font-family="{_FONT}">'
            '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" '
            'orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#555"/></marker></defs>'
            + "".join(svg) + "</svg>")


def to_svg(d: Diagram, timeout_s: float = 30.0) -> str:
    """The diagram as an inline SVG element ('' for an empty diagram)."""
    if not d.nodes:
        return ""
    svg = _with_dot(d, timeout_s)
    if svg is None:
        svg = _with_grandalf(d)
    return re.sub(r"<!--.*?-->\s*", "", svg, flags=re.S)


def engine() -> str:
    """Which layout engine draws the pictures on this machine."""
    return "graphviz" if shutil.which("dot") else "grandalf"
