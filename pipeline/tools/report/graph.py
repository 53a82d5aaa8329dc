"""The fusion picture: the aten graph laid out by graphviz's `dot`, nodes colored by the
loop nest they ended in.

Each node is an aten op (`aten-k`, linked to its row in the op table, which gives its
source line) in exactly one nest's color, its home: the first nest that computes it
(class `home-K`). An op computed in several nests (a view read by several loops, a cheap
producer recomputed by its consumers) has a thick border and the class `nest-K` of each;
an op that became no code (an alias, a value overwritten before it is read) is white
and dashed (class `nocode`).
"""

from __future__ import annotations

import colorsys
import html

from pipeline.tools.report.model import Report

MAX_NODES = 3000
"""Beyond this `dot` takes minutes: the report lists the ops without a picture."""


def nest_color(nest: int) -> str:
    """A distinct, light color per nest (golden-ratio hues)."""
    r, g, b = colorsys.hls_to_rgb((nest * 0.618033988749895) % 1.0, 0.78, 0.65)
    return f"#{int(r * 255):02x}{int(g * 255):02x}{int(b * 255):02x}"


def fusion_svg(report: Report) -> str | None:
    """The SVG, or None when graphviz is missing or the graph is too large."""
    if len(report.aten) > MAX_NODES:
        return None
    try:
        import graphviz
    except ImportError:
        return None
    dot = graphviz.Digraph("fusion", graph_attr={"rankdir": "TB", "bgcolor": "transparent", "nodesep": "0.15",
                                                   "ranksep": "0.3"},
                           node_attr={"shape": "box", "style": "rounded,filled", "fontname": "Helvetica",
                                      "fontsize": "10", "height": "0.3"},
                           edge_attr={"arrowsize": "0.5", "color": "#8a8a8a"})
    for name in report.arguments:
        dot.node(f"arg-{name}", name, id=f"arg-{name}", shape="ellipse", fillcolor="#eeeeee")
    for node in report.aten:
        short = node.name.removeprefix("aten.")
        tooltip = f"{node.name} #{node.id}: {node.type}\n{node.source or '(no source line)'}\nnests: " + (
            ", ".join(map(str, node.nests)) or "none (no code)")
        attrs = {"id": f"aten-{node.id}", "href": f"#op-{node.id}", "tooltip": html.escape(tooltip),
                 "class": " ".join(["aten", f"home-{node.nests[0]}" if node.nests else "nocode"]
                                   + [f"nest-{n}" for n in node.nests])}
        if not node.nests:
            attrs.update(fillcolor="white", style="rounded,dashed")
        else:
            attrs.update(fillcolor=nest_color(node.nests[0]))
            if len(node.nests) > 1:
                attrs.update(penwidth="3")
        dot.node(f"n{node.id}", f"{short} #{node.id}", **attrs)
        for i in node.inputs:
            dot.edge(f"n{i}", f"n{node.id}")
        for a in node.arguments:
            dot.edge(f"arg-{a}", f"n{node.id}")
    try:
        svg = dot.pipe(format="svg", encoding="utf-8")
    except (graphviz.ExecutableNotFound, graphviz.CalledProcessError):
        return None
    return svg[svg.index("<svg"):]
