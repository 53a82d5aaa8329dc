"""Two small SVG charts, drawn by hand because they are a few rectangles each: the time
per loop nest (with profile=True) and the memory plan's lifetimes."""

from __future__ import annotations

import html

from pipeline.tools.report.graph import nest_color
from pipeline.tools.report.model import Buffer, Nest


def _bytes(n: int | None) -> str:
    if n is None:
        return "?"
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return str(n)


def time_bars(nests: list[Nest], limit: int = 30) -> str | None:
    """Horizontal bars, slowest loop first: one bar per timed loop (its nests named)."""
    loops: dict[int, list[Nest]] = {}
    for n in nests:
        if n.loop is not None and n.seconds is not None:
            loops.setdefault(n.loop, []).append(n)
    if not loops:
        return None
    rows = sorted(loops.values(), key=lambda ns: -(ns[0].seconds or 0.0))[:limit]
    longest = max(ns[0].seconds or 0.0 for ns in rows) or 1.0
    width, bar, height = 760, 380, 20
    out = [f'<svg id="time-chart" class="chart" xmlns="http://www.w3.org/2000/svg" width="{width}" '
           f'height="{height * len(rows) + 10}" role="img" aria-label="time per loop nest">']
    for k, ns in enumerate(rows):
        seconds, y = ns[0].seconds or 0.0, 5 + k * height
        label = "nests " + ", ".join(str(n.id) for n in ns) if len(ns) > 1 else f"nest {ns[0].id}"
        gf = f", {ns[0].gflops:.1f} GFLOP/s" if ns[0].gflops else ""
        w = max(1.0, bar * seconds / longest)
        out.append(f'<g class="bar" data-nest="{ns[0].id}"><text x="0" y="{y + 14}" font-size="12">{label}</text>'
                   f'<rect x="150" y="{y + 2}" width="{w:.1f}" height="{height - 5}" fill="{nest_color(ns[0].id)}" '
                   f'stroke="#555"><title>{html.escape(label)}: {seconds * 1e3:.3f} ms{gf}</title></rect>'
                   f'<text x="{155 + w:.1f}" y="{y + 14}" font-size="11">{seconds * 1e3:.3f} ms{gf}</text></g>')
    out.append("</svg>")
    return "".join(out)


def lifetimes(buffers: list[Buffer], peak: int | None) -> str | None:
    """One row per arena slot, one rectangle per buffer over the top-level ops it lives
    across; the title gives the planned peak (all arenas at these sizes)."""
    if not buffers:
        return None
    slots = sorted({b.slot for b in buffers}, key=lambda s: (s.split()[0], int(s.split()[-1])))
    end = max(b.end for b in buffers) + 1
    width, left, height = 760, 110, 18
    scale = (width - left - 10) / end
    out = [f'<svg id="memory-chart" class="chart" xmlns="http://www.w3.org/2000/svg" width="{width}" '
           f'height="{height * len(slots) + 30}" role="img" aria-label="memory plan">',
           f'<text x="0" y="12" font-size="12">planned peak: {_bytes(peak)} '
           f'(x: position among the function\'s top-level ops, 0 to {end - 1})</text>']
    for row, slot in enumerate(slots):
        y = 20 + row * height
        out.append(f'<text x="0" y="{y + 13}" font-size="11">{html.escape(slot)}</text>')
        for b in (b for b in buffers if b.slot == slot):
            x, w = left + b.start * scale, max(2.0, (b.end - b.start + 1) * scale)
            out.append(f'<rect class="buffer" x="{x:.1f}" y="{y + 2}" width="{w:.1f}" height="{height - 5}" '
                       f'fill="#7aa6d8" stroke="#335"><title>{html.escape(slot)}: ops {b.start}-{b.end}, '
                       f'{_bytes(b.bytes)}</title></rect>')
    out.append("</svg>")
    return "".join(out)
