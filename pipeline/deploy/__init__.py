"""Deployment: a compiled function as a standalone library (`export.py`: the C ABI from
the signature record, the C templates of `templates/` filled by `c_text.py`),
`pipeline_potential.h` (the one ABI of every potential library), and the loader that
calls an exported library from Python through that ABI (`library.py`). Imports the
compiler, never the MD integrations or the tools."""
