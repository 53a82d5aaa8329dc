"""The report as one self-contained HTML page: styles, scripts, SVG and data inline, so it
opens offline and travels as one file. IR is highlighted by Pygments (its MLIR, LLVM and
diff lexers)."""

from __future__ import annotations

import difflib
import html
import json

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import RegexLexer
from pygments.lexers import DiffLexer, LlvmLexer, PythonLexer
from pygments.token import Comment, Keyword, Name, Number, Operator, Punctuation, String, Text
import torch

from pipeline.tools.peak import fma_gflops
from pipeline.tools.report.charts import lifetimes, time_bars
from pipeline.tools.report.graph import fusion_svg, nest_color
from pipeline.tools.report.model import Report

MAX_TEXT = 100_000
"""Characters of one stage's IR in the page (the LLVM stages of a real model run to MBs)."""
MAX_DIFF_LINES = 400

STYLE = """
body { font-family: -apple-system, Helvetica, Arial, sans-serif; margin: 0 2em 4em; color: #222; }
h1 { font-size: 1.5em; } h2 { border-bottom: 1px solid #ccc; margin-top: 2em; }
nav a { margin-right: 1em; } table { border-collapse: collapse; font-size: 13px; }
td, th { border: 1px solid #ddd; padding: 2px 6px; text-align: left; vertical-align: top; }
tr.nest-row { cursor: pointer; } tr.nest-row:hover, tr.selected { background: #fff6c8; }
.swatch { display: inline-block; width: 12px; height: 12px; border: 1px solid #777; margin-right: 4px; }
#fusion-layout { display: flex; gap: 1em; align-items: flex-start; }
#fusion-graph { max-height: 80vh; overflow: auto; border: 1px solid #ddd; flex: 3; }
#nest-panel { flex: 2; font-size: 13px; position: sticky; top: 0; max-height: 80vh; overflow: auto; }
#fusion-graph svg g.node { cursor: pointer; }
#fusion-graph.focus svg g.node { opacity: 0.2; } #fusion-graph.focus svg g.node.hit { opacity: 1; }
details { margin: 0.3em 0; } summary { cursor: pointer; font-family: monospace; }
.hl pre { font-size: 12px; overflow-x: auto; } .muted { color: #777; } code { font-size: 12px; }
"""

SCRIPT = """
const data = JSON.parse(document.getElementById('report-data').textContent);
function selectNest(id) {
  const nest = data.nests[id];
  const graph = document.getElementById('fusion-graph');
  if (graph) {
    graph.classList.add('focus');
    graph.querySelectorAll('g.node').forEach(g => g.classList.toggle('hit', g.classList.contains('nest-' + id)));
    const first = graph.querySelector('g.node.hit');
    if (first) {  // bring the nest's ops into the graph's view
      const at = first.getBoundingClientRect(), box = graph.getBoundingClientRect();
      graph.scrollLeft += at.left - box.left - box.width / 2;
      graph.scrollTop += at.top - box.top - box.height / 2;
    }
  }
  document.querySelectorAll('tr.nest-row').forEach(r => r.classList.toggle('selected', r.dataset.nest == id));
  const panel = document.getElementById('nest-panel');
  const rows = nest.origin.map(k => {
    const op = data.aten[k];
    return '<tr><td><a href="#op-' + k + '">#' + k + '</a></td><td><code>' + op.name + '</code></td><td>' +
           (op.source ? '<code>' + escapeHtml(op.source) + '</code>' : '<span class="muted">-</span>') + '</td></tr>';
  });
  panel.innerHTML = '<h3>nest ' + id + ': <code>' + nest.kind + '</code></h3><p><code>' + escapeHtml(nest.shape) +
    '</code></p><p>' + Object.entries(nest.schedule).map(([k, v]) => k + ' = ' + v).join(', ') + '</p>' +
    (nest.seconds !== null ? '<p>' + (nest.seconds * 1e3).toFixed(3) + ' ms per call</p>' : '') +
    '<p>' + nest.origin.length + ' aten op(s):</p><table>' + rows.join('') + '</table>';
}
function escapeHtml(s) {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
document.querySelectorAll('tr.nest-row, g.bar').forEach(r =>
  r.addEventListener('click', () => selectNest(Number(r.dataset.nest))));
document.querySelectorAll('#fusion-graph g.node').forEach(g => g.addEventListener('click', event => {
  const nest = [...g.classList].find(c => c.startsWith('nest-'));
  if (nest) { event.preventDefault(); selectNest(Number(nest.slice(5))); }
}));
"""


class MlirLexer(RegexLexer):
    """MLIR's generic syntax (Pygments has no MLIR lexer; MLIR's own is not on PyPI)."""

    name = "MLIR"
    tokens = {"root": [
        (r"//.*?$", Comment.Single),
        (r'"(\\.|[^"\\])*"', String),
        (r"%[\w.$-]+(#\d+)?", Name.Variable),
        (r"\^[\w.$-]+", Name.Label),
        (r"@[\w.$-]+", Name.Function),
        (r"!?\b(tensor|memref|vector|index|[iuf]\d+|bf16|none|ptr)\b", Keyword.Type),
        (r"\b[a-z_]+\.[\w.]+", Keyword),
        (r"#[\w.$-]+", Name.Constant),
        (r"-?\d+\.\d*([eE][+-]?\d+)?|0x[0-9a-fA-F]+|-?\d+", Number),
        (r"[=:,()\[\]{}<>]|->", Punctuation),
        (r"[+*/-]", Operator),
        (r"\s+", Text),
        (r"[\w.$-]+", Name),
        (r".", Text),
    ]}


def _highlight(text: str, lexer: object) -> str:
    cut = len(text) > MAX_TEXT
    body = highlight(text[:MAX_TEXT], lexer, HtmlFormatter(cssclass="hl"))
    return body + (f'<p class="muted">(the first {MAX_TEXT} of {len(text)} characters; all of it: '
                   'pipeline.compile(..., dump_dir=...) or the driver\'s --dump-dir)</p>' if cut else "")


def _lexer(stage: str) -> object:
    return PythonLexer() if stage == "fx" else LlvmLexer() if stage in ("ll", "opt.ll") else MlirLexer()


def _diff(before: str, after: str) -> tuple[str, int, int]:
    lines = list(difflib.unified_diff(before.splitlines(), after.splitlines(), "before", "after", lineterm="", n=2))
    added = sum(1 for line in lines if line.startswith("+") and not line.startswith("+++"))
    removed = sum(1 for line in lines if line.startswith("-") and not line.startswith("---"))
    text = "\n".join(lines[:MAX_DIFF_LINES]) + (f"\n... ({len(lines) - MAX_DIFF_LINES} more lines)"
                                                if len(lines) > MAX_DIFF_LINES else "")
    return (highlight(text, DiffLexer(), HtmlFormatter(cssclass="hl")) if lines else
            '<p class="muted">no change</p>'), added, removed


def render(report: Report) -> str:
    e = html.escape
    total = report.timings.get("total_s", 0.0) + report.timings.get("capture_s", 0.0)
    sizes = ", ".join(f"{k} = {v}" for k, v in report.sizes.items())
    out = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>pipeline report: {e(report.name)}</title>",
        f"<style>{STYLE}{HtmlFormatter(cssclass='hl').get_style_defs('.hl')}</style></head><body>",
        f"<h1>pipeline: <code>{e(report.name)}</code></h1>",
        f"<p>{len(report.aten)} aten ops in {len(report.nests)} loop nests; compiled in {total:.1f} s; "
        f"sizes for the memory plan and the profile: {e(sizes) or 'none'}.</p>",
        "<nav><a href='#stages'>stages</a><a href='#fusion'>fusion</a><a href='#nests'>loop nests</a>"
        "<a href='#memory'>memory plan</a><a href='#ops'>aten ops</a><a href='#ir'>IR</a>"
        "<a href='#passes'>passes</a></nav>",
        "<h2 id='stages'>Stages</h2><table><tr><th>stage</th><th>compile time</th><th>ops</th></tr>",
    ]
    for stage, _, seconds, count in report.stages:
        t = f"{seconds:.2f} s" if seconds is not None else "-"
        out.append(f"<tr><td><a href='#ir-{e(stage)}'>{e(stage)}</a></td><td>{t}</td><td>{count}</td></tr>")
    out.append("</table>")

    svg = fusion_svg(report)
    out.append("<h2 id='fusion'>Fusion: which aten ops each loop nest computes</h2>"
               "<p>Each aten op is colored by its loop nest; a thick border: computed in several nests "
               "(a view, or a producer recomputed by its consumers); white and dashed: no code of its own. "
               "Click a node or a nest to see its ops and their source lines.</p><div id='fusion-layout'>")
    out.append(f"<div id='fusion-graph'>{svg}</div>" if svg else
               "<div id='fusion-graph' class='muted'>(no picture: graphviz's dot is not installed, "
               "or the graph is too large)</div>")
    out.append("<div id='nest-panel' class='muted'>Select a loop nest.</div></div>")

    out.append("<h2 id='nests'>Loop nests and their schedule</h2><table><tr><th>nest</th><th>op</th>"
               "<th>result</th><th>order</th><th>parallel (chunk)</th><th>partition</th><th>vector</th>"
               "<th>tile</th><th>sparse (constants folded)</th><th>aten ops</th><th>time per call</th></tr>")
    for n in report.nests:
        s = n.schedule
        t = f"{n.seconds * 1e3:.3f} ms" if n.seconds is not None else "-"
        out.append(f"<tr class='nest-row' data-nest='{n.id}'><td><span class='swatch' style='background:"
                   f"{nest_color(n.id)}'></span>{n.id}</td><td><code>{e(n.kind)}</code></td>"
                   f"<td><code>{e(n.shape)}</code></td>"
                   + "".join(f"<td>{e(s.get(k, '-'))}</td>" for k in ("order", "parallel", "partition", "vector", "tile", "sparse"))
                   + f"<td>{len(n.origin)}</td><td>{t}</td></tr>")
    out.append("</table>")
    bars = time_bars(report.nests)
    out.append("<h3 id='profile'>Time per loop nest</h3>" + (bars or "<p class='muted'>(compile with profile=True, "
                                                                     "or the driver's --profile)</p>"))
    out.append(_tuning(report))
    chart = lifetimes(report.buffers, report.peak_bytes)
    out.append("<h2 id='memory'>Memory plan</h2>" + (chart or "<p class='muted'>(no temporaries)</p>"))

    out.append("<h2 id='ops'>Aten ops</h2><table><tr><th>#</th><th>op</th><th>result</th><th>nests</th>"
               "<th>source</th></tr>")
    for a in report.aten:
        nests = ", ".join(str(n) for n in a.nests) or "<span class='muted'>no code</span>"
        out.append(f"<tr id='op-{a.id}'><td>{a.id}</td><td><code>{e(a.name)}</code></td><td><code>{e(a.type)}"
                   f"</code></td><td>{nests}</td><td><code>{e(a.source or '')}</code></td></tr>")
    out.append("</table><h2 id='ir'>IR of each stage</h2>")
    for stage, text, _, _ in report.stages:
        out.append(f"<details id='ir-{e(stage)}'><summary>{e(stage)}</summary>{_highlight(text, _lexer(stage))}"
                   "</details>")
    out.append("<h2 id='passes'>Each pass: before / after</h2>")
    for stage, name, before, after, seconds in report.passes:
        body, added, removed = _diff(before, after)
        out.append(f"<details class='pass'><summary>{e(stage)}: {e(name)} <span class='muted'>{seconds:.3f} s, "
                   f"+{added} -{removed}</span></summary>{body}</details>")
    data = {"nests": [{"id": n.id, "kind": n.kind, "shape": n.shape, "schedule": n.schedule, "origin": n.origin,
                       "seconds": n.seconds} for n in report.nests],
            "aten": [{"name": a.name, "source": a.source, "nests": a.nests} for a in report.aten]}
    out.append("<script type='application/json' id='report-data'>"
               + json.dumps(data).replace("</", "<\\/") + "</script>")
    out.append(f"<script>{SCRIPT}</script></body></html>")
    return "\n".join(out)


def _tuning(report: Report) -> str:
    """Each tuned nest's register tile: where it came from, its candidates' times, and
    the share of the machine's peak the chosen one reached."""
    e = html.escape
    t = report.tuning
    if t is None or not t.nests:
        return ("<h3 id='tuning'>Tuning</h3><p class='muted'>(no register-tiled nest, or tune=\"off\")</p>")
    out = [f"<h3 id='tuning'>Tuning</h3><p>budget {e(t.budget)}: {len(t.nests)} nests, {t.rounds} measured "
           f"rounds, {t.seconds:.1f} s.</p><table><tr><th>nests</th><th>shape</th><th>chosen</th><th>from</th>"
           "<th>of peak</th><th>candidates (time per call)</th></tr>"]
    for n in t.nests:
        ids = ", ".join(str(k) for k in (report.tuned or {}).get(n.key, []))
        source = "cache" if n.cached else "measured" if n.tried else "heuristic"
        share = n.peak({"f32": fma_gflops(torch.float32), "f64": fma_gflops(torch.float64)}) if n.gflops else None
        peak = f"{share:.0%}" if share is not None else "-"
        tried = "<br>".join(f"{s * 1e6:.1f} us: {e(str(c))}" for c, s in sorted(n.tried, key=lambda cs: cs[1]))
        out.append(f"<tr><td>{e(ids or '-')}</td><td><code>{e(n.nest)}</code></td><td>{e(str(n.choice))}</td>"
                   f"<td>{source}</td><td>{peak}</td><td>{tried or '-'}</td></tr>")
    out.append("</table>")
    return "".join(out)
