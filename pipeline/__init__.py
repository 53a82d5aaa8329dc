"""`pipeline`: a staged xDSL compiler for PyTorch functions that call autograd.grad.

    compiled = pipeline.compile(fn, example_args, dynamic_shapes)   # native code
    energy, forces = compiled(pos, edge_index)                      # any N and E
    compiled.ir("loops")                                            # any stage's IR
    pipeline.export_library(compiled, "out/")                       # .so + .h, no Python
    pipeline.load_library("out/main.so")(pos, edge_index)          # its C ABI, from Python
    pipeline.write_report(compiled, "report.html")                  # with compile(..., trace=True)

a potential for MD (energy, per-atom energies, forces, virial; ASE and LAMMPS):

    potential = pipeline.compile_potential(model, example, cutoff=5.0, species=["Ar"])
    potential = pipeline.load_potential("sevenn:7net-0")            # or a model file, or a .so

and, stage by stage:

    captured = pipeline.capture(fn, example_args, dynamic_shapes)   # FX, symbolic
    imported = pipeline.to_aten(captured)                          # aten dialect
    outputs  = pipeline.run_reference(imported.module, args, imported.weights)

Names are imported on first use, so `python -m pipeline opt` does not load torch.
"""

from importlib import import_module
from typing import Any

_EXPORTS = {
    "Captured": "frontend.capture",
    "CaptureError": "frontend.capture",
    "capture": "frontend.capture",
    "Imported": "frontend.import_fx",
    "UnsupportedOpError": "frontend.import_fx",
    "to_aten": "frontend.import_fx",
    "run_reference": "frontend.reference",
    "compile": "pipeline.compiler",
    "compile_potential": "pipeline.md.potential",
    "Potential": "pipeline.md.potential",
    "load_potential": "pipeline.md.load",
    "CompiledFunction": "pipeline.compiler",
    "CallError": "pipeline.signature",
    "Signature": "pipeline.signature",
    "export_library": "pipeline.deploy.export",
    "load_library": "pipeline.deploy.library",
    "write_report": "pipeline.tools.report",
    "PassBrokeIR": "pipeline.verify",
    "verify_ir": "pipeline.verify",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'pipeline' has no attribute {name!r}")
    attr = "import_graph" if name == "to_aten" else name
    return getattr(import_module(_EXPORTS[name]), attr)
