"""Tools built on the library, which the library never imports: the compile report
(`report/`), the differential fuzzer (`fuzz/`) and the machine's ceilings (`peak.py`).
The driver (`python -m pipeline report|fuzz`, `run --profile`) reaches them."""
