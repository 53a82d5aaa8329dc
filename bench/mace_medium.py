"""MACE at MACE-MP-0 "medium"'s architecture: ours (constants folded or dense) and eager.

    PYTHONPATH=. /path/to/venv-mace/bin/python bench/mace_medium.py --atoms 128 --run ours
    ... --run ours-dense    (without sparse-contractions: the U matrices multiplied densely)
    ... --run eager

mace-torch's `ScaleShiftMACE` with medium's hyperparameters (128x0e + 128x1o, max_ell 3,
correlation 3, 2 interactions, r_max 6, 89 elements, radial MLP 3 x 64), random weights,
f64, one thread, ~28 neighbours per atom. Prints one JSON line: the median call, the
compile time and, for ours, the share of the nests unrolled over structural constants'
nonzeros (compiled with trace=True to attribute the loop nests: its compile_s includes
printing every pass, 2-3x a plain compile). One contender per process:
eager at N = 512 holds ~10 GB.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np
import torch

import pipeline
import pipeline.compiler as compiler
from examples import real_models as rm
from pipeline.tools.report.model import _nests


def medium() -> torch.nn.Module:
    import mace  # noqa: F401  (sets what e3nn 0.4.4's import needs)
    from e3nn import o3
    from mace import modules

    interaction = modules.interaction_classes["RealAgnosticResidualInteractionBlock"]
    default = torch.get_default_dtype()
    torch.manual_seed(0)
    torch.set_default_dtype(torch.float64)
    try:
        return modules.ScaleShiftMACE(
            r_max=6.0, num_bessel=8, num_polynomial_cutoff=5, max_ell=3, interaction_cls=interaction,
            interaction_cls_first=interaction, num_interactions=2, num_elements=89,
            hidden_irreps=o3.Irreps("128x0e+128x1o"), MLP_irreps=o3.Irreps("16x0e"), atomic_energies=np.zeros(89),
            avg_num_neighbors=40.0, atomic_numbers=list(range(1, 90)), correlation=3,
            gate=torch.nn.functional.silu, radial_MLP=[64, 64, 64], atomic_inter_scale=1.0, atomic_inter_shift=0.0)
    finally:
        torch.set_default_dtype(default)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--atoms", type=int, default=128)
    p.add_argument("--run", choices=["ours", "ours-dense", "eager"], default="ours")
    p.add_argument("--calls", type=int, default=3)
    args = p.parse_args()
    torch.set_num_threads(1)
    fn = rm._mace_energy_forces(medium(), 89)
    inputs = rm.inputs(args.atoms, torch.float64, 1, neighbors=40.0)
    out = {"run": args.run, "atoms": args.atoms, "edges": int(inputs["edge_index"].shape[1])}
    call, compiled = fn, None
    if args.run != "eager":
        if args.run == "ours-dense":
            compiler.STAGES = [(s, [q for q in ps if q != "sparse-contractions"]) for s, ps in compiler.STAGES]
        start = time.perf_counter()
        compiled = pipeline.compile(fn, rm.inputs(24, torch.float64, 0, neighbors=40.0), rm.dynamic_shapes,
                                    profile=True, trace=True, tune="off")
        out["compile_s"] = round(compiled.timings["total_s"], 1)
        out["wall_compile_s"] = round(time.perf_counter() - start, 1)
        compiled.num_threads = 1
        call = compiled
    want = fn(**inputs) if args.run == "eager" else None
    got = call(**inputs)  # warm-up (and the arenas)
    if compiled is not None:
        compiled.reset_profile()
    times = []
    for _ in range(args.calls):
        start = time.perf_counter()
        call(**inputs)
        times.append(time.perf_counter() - start)
    out["call_s"] = round(statistics.median(times), 4)
    if compiled is not None:
        nests = _nests(compiled, compiled.trace)
        total = sum(r.seconds for r in compiled.profile())
        folded = sum(n.seconds or 0.0 for n in nests if "sparse" in n.schedule)
        out.update(sparse_nests=sum("sparse" in n.schedule for n in nests),
                   sparse_share=round(folded / total, 3) if total else None)
        want = fn(**inputs)
        out["forces_rel_err"] = float(((got[1] - want[1]).abs().max() / want[1].abs().max()).item())
    print(json.dumps(out))


if __name__ == "__main__":
    main()
