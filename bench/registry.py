"""What the benchmark runs: the models, their sizes and dtypes, and the five contenders.

One table that every other module of bench/ reads: the command line checks names against
it, the workers build from it, the report orders its columns by it. So it imports none of
them, and nothing heavy (`python -m bench --help` does not load torch). A model is an
example (`examples/<name>.py`, float32) or, with `real`, a potential of
`examples/real_models.py` in its "bench" configuration (float64, as MLIP users run MD),
skipped where its package does not import.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


ROOT = Path(__file__).resolve().parent.parent
SCHEMA = "pipeline-bench/1"

FULL_SIZES = [32, 1024, 16384]
QUICK_SIZES = [32, 1024]
REAL_SIZES = [64, 512, 2048]
REAL_QUICK_SIZES = [64, 512]
FULL_THREADS = [1, 2]
QUICK_THREADS = [1]


@dataclass(frozen=True)
class Spec:
    """A model of the registry: an example (examples/<name>.py), or, with `real`, a real
    potential built by examples/real_models.py in its "bench" configuration (skipped where
    its package does not import). A cell of the grid names its `base` model, the
    constructor sizes that differ from base's (`config`), its neighbours per atom and
    its atom counts."""

    label: str
    dtype: str
    real: bool = False
    base: str | None = None
    config: tuple[tuple[str, object], ...] = ()
    neighbors: float | None = None
    atoms: tuple[int, ...] = ()

    def sizes(self, quick: bool) -> list[int]:
        if self.atoms:
            return list(self.atoms[:1] if quick else self.atoms)
        if self.real:
            return REAL_QUICK_SIZES if quick else REAL_SIZES
        return QUICK_SIZES if quick else FULL_SIZES


MODELS = {
    "mlp": Spec("MLP", "float32"),
    "lennard_jones": Spec("Lennard-Jones", "float32"),
    "schnet": Spec("SchNet-like", "float32"),
    "e3nn_like": Spec("e3nn", "float32"),
    "nequip": Spec("NequIP (l<=2, 32 features, 2 layers)", "float64", real=True),
    "allegro": Spec("Allegro (l<=2, 64 scalar + 16 tensor features, 2 layers)", "float64", real=True),
    "mace": Spec("MACE (8x0e+8x1o, l<=2, correlation 3, 2 interactions)", "float64", real=True),
}
ALIASES = {"lj": "lennard_jones", "e3nn": "e3nn_like", "bp": "mlp"}

GRID_ATOMS = (512, 2048)
GRID_NEIGHBORS = (15, 50)


def _grid() -> dict[str, Spec]:
    """The grid of issue 31: widths, l_max, depths and densities users run, not the one
    configuration each model was tuned on. Each cell at GRID_NEIGHBORS neighbours per
    atom and GRID_ATOMS atoms; the models' own dtypes (f64 for the real potentials)."""
    cells: dict[str, tuple[str, str, bool, dict[str, object]]] = {}
    for irreps, lmax in [(f"{c}x0e + {c}x1o", l) for c in (8, 32, 128) for l in (2, 3)]:
        width = irreps.split("x")[0]
        cells[f"mace-{width}x-l{lmax}"] = (f"MACE ({irreps}, l<={lmax}, correlation 3)", "mace", True,
                                           {"hidden_irreps": irreps, "max_ell": lmax})
    for f in (16, 32, 64):
        for lmax in (1, 2):
            for layers in (2, 4):
                cells[f"nequip-f{f}-l{lmax}-L{layers}"] = (
                    f"NequIP ({f} features, l<={lmax}, {layers} layers)", "nequip", True,
                    {"num_features": f, "l_max": lmax, "num_layers": layers})
                cells[f"allegro-f{f}-l{lmax}-L{layers}"] = (
                    f"Allegro ({4 * f} scalar + {f} tensor features, l<={lmax}, {layers} layers)", "allegro", True,
                    {"num_scalar_features": 4 * f, "num_tensor_features": f, "l_max": lmax, "num_layers": layers})
    for f in (64, 128):
        cells[f"schnet-f{f}"] = (f"SchNet-like ({f} features)", "schnet", False, {"features": f})
    for h in (64, 128, 256):
        cells[f"mlp-h{h}"] = (f"MLP (16-{h}-{h}-1)", "mlp", False, {"hidden": h})
    grid = {}
    for name, (label, base, real, config) in cells.items():
        for nb in GRID_NEIGHBORS:
            grid[f"{name}-n{nb}"] = Spec(f"{label}, {nb} neighbours", "float64" if real else "float32", real,
                                         base, tuple(config.items()), float(nb), GRID_ATOMS)
    return grid


GRID = _grid()
QUICK_GRID = ["nequip-f32-l2-L4-n50", "allegro-f16-l2-L2-n15", "mace-32x-l2-n50", "schnet-f128-n50", "mlp-h128-n15"]
"""A cut of the grid that runs in about ten minutes: one cell per model family (both
densities among them), at N = 512, one thread."""


def spec(name: str) -> Spec:
    """The model or grid cell `name`."""
    return MODELS[name] if name in MODELS else GRID[name]
CONTENDERS = ["eager", "tc_graph", "tc_fn", "aoti", "ours"]
PEERS = [c for c in CONTENDERS if c != "ours"]
LABELS = {
    "eager": "eager",
    "tc_graph": "compile(fx)",
    "tc_fn": "compile(fn)",
    "aoti": "AOTInductor",
    "ours": "ours",
}
INDUCTOR = ("tc_graph", "tc_fn", "aoti")
MEMORY_CONTENDERS = ("eager", "ours")
