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
    its package does not import)."""

    label: str
    dtype: str
    real: bool = False

    def sizes(self, quick: bool) -> list[int]:
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
