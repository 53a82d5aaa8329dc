"""`pipeline`: a staged xDSL compiler for PyTorch functions that call autograd.grad.

Library entry points, one per stage done so far:

    captured = pipeline.capture(fn, example_args, dynamic_shapes)   # FX, symbolic
    imported = pipeline.to_aten(captured)                          # aten dialect
    outputs  = pipeline.run_reference(imported.module, args, imported.weights)
"""

from frontend.capture import Captured, CaptureError, capture
from frontend.import_fx import Imported, UnsupportedOpError, import_graph as to_aten
from frontend.reference import run_reference

__all__ = [
    "Captured",
    "CaptureError",
    "Imported",
    "UnsupportedOpError",
    "capture",
    "run_reference",
    "to_aten",
]
