"""A differential fuzzer: random energy functions, compiled, against eager PyTorch.

    python -m pipeline fuzz [--minutes M] [--seed S] [--out DIR] [--shrink-minutes M] [--cases N]

Hypothesis draws a program over an atomic system: per-atom, per-edge and per-triplet
values (positions, edge vectors, distances to start; triplets are pairs of edges
leaving one atom, a third symbolic size T), elementwise chains, reductions along
features and to scalars, gathers from atoms to edges and from edges to triplets and
scatters back, dense layers
with weights, broadcasts, concatenations and reshapes, values read by several
consumers; the energy sums some of them, the forces are -dE/dpos by
`torch.autograd.grad`. Its parameters come in a random order, and it draws how it
is compiled and called (a `Plan`): the example arguments as a list or as a dict in
any key order, `dynamic_shapes` as a list or as a dict keyed by name, calls by
position, by keyword in any order, and mixed. Each program is compiled once
(symbolic N, E and T, the IR verified after every pass) and run at sizes it was
not traced at. A case fails (`CaseFailed`, each failure of one of `KINDS`) when

- the compiler raises (`compile`), or a call at a valid size raises (`raised`);
- its error against a float64 evaluation of the same program exceeds the tolerance
  (1e-5 relative in f32, 1e-10 in f64), 10x the error of eager PyTorch in the same
  dtype and 10x the program's own sensitivity to the order of its sums (the float64
  evaluation with the edges listed in another order: a program whose forces are the
  rounding noise of a cancelling sum has no right answer to match) (`numbers`);
- 1 and 2 threads disagree bit for bit (`threads`);
- a form of example arguments, `dynamic_shapes` or call gives other numbers than the
  list, the dict keyed by name and the positional call (`binding`);
- at an empty or degenerate size (N = 0 with E = 0, E = 0 with N > 0, one atom,
  T = 0) the result is wrong (`degenerate`), or an out-of-range index (N = 0 with
  E > 0, an edge to atom N) does not raise IndexError naming `edge_index`
  (`bad-index`);
- a call kills its process (a segfault) or hangs (`crash`): every compiled call runs
  in a forked child, so this is a failure of the case, not of the fuzzer;
- the exported library (`export_library`, loaded by `pipeline.load_library` and
  called through its C ABI; one case in four) differs from the JIT on one thread in a
  single bit or in what it raises for its status codes (`library`);
- nothing was compared: the reference is not finite at any size (`nothing-compared`;
  the driver rejects such programs before compiling them, and counts them).

A failure of a new kind is shrunk and written out as a standalone reproducer `.py`;
the run goes on to the end of its time, counting the cases of every kind, and ends
with a summary (cases, exported, rejected, failures by kind).

The package, by job: `programs` (the generator and its Value/Program types), `systems`
(the clusters, the degenerate and bad-index inputs), `plans` (the binding forms),
`reference` (the float64 reference and the tolerance), `isolation` (forked children),
`case` (one case: `check`, the failure kinds), `driver` (the loop, shrinking,
reproducers, the summary, `main`). What tests and reproducers use is imported here.
"""

from pipeline.tools.fuzz.case import KINDS, CaseFailed, Checked, can_export, check
from pipeline.tools.fuzz.driver import Outcome, fuzz, main, reproducer
from pipeline.tools.fuzz.isolation import run_isolated
from pipeline.tools.fuzz.plans import Plan
from pipeline.tools.fuzz.programs import ARGS, TEMPLATE
from pipeline.tools.fuzz.reference import finite_sizes
from pipeline.tools.fuzz.systems import SIZES

__all__ = ["ARGS", "KINDS", "SIZES", "TEMPLATE", "CaseFailed", "Checked", "Outcome", "Plan", "can_export", "check",
           "finite_sizes", "fuzz", "main", "reproducer", "run_isolated"]
