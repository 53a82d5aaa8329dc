"""Molecular dynamics: `compile_potential` (a model of per-atom energies -> energy,
forces, virial), and one small module per engine, each written against the public API
the way ASE's calculators are: `ase.py` (an ASE calculator), `lammps/` (a LAMMPS pair
style that loads any exported potential)."""
