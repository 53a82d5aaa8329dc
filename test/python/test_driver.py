"""`python -m pipeline` on every file of examples/: each command either works or says, in
one line and with exit code 2, what the file needs (a model file of the protocol of
pipeline/examples.py, an extra, a script run with python); never a traceback.

Every file gets the cheapest command (`capture --emit aten`); every model command runs on
the file that is no model file of the protocol but looks most like one
(examples/real_models.py); a few full runs (compile, run, compare with eager; export) on
the small examples. Each is a subprocess, as a user runs it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, needs_tools

EXAMPLES = Path(ROOT) / "examples"
FILES = sorted(str(p.relative_to(ROOT)) for p in EXAMPLES.rglob("*")
               if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc")
MODEL_FILES = {"examples/mlp.py", "examples/lennard_jones.py", "examples/schnet.py", "examples/e3nn_like.py",
               "examples/three_body.py"}
"""The files that follow the protocol: every command works on them."""


def driver(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pipeline", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def works_or_says_why(result: subprocess.CompletedProcess[str], what: str) -> bool:
    """True when the command worked; else its whole stderr is one `error: ` line and it
    exited with 2 (the file cannot be used) or 1 (the compile failed)."""
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout, f"{what}:\n{result.stderr[-3000:]}"
    if result.returncode == 0:
        return True
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), f"{what} -> {result.returncode}:\n{result.stderr[-3000:]}"
    assert result.returncode in (1, 2), f"{what} -> {result.returncode}: {lines[0]}"
    return False


def test_the_sweep_sees_every_kind_of_file() -> None:
    assert MODEL_FILES <= set(FILES)
    assert {"examples/real_models.py", "examples/md_potentials.py", "examples/common.py",
            "examples/md/run_ase.py", "examples/md/in.argon", "examples/deploy/deploy.c"} <= set(FILES)


@pytest.mark.parametrize("path", FILES)
def test_capture_every_file(path: str) -> None:
    """The one command every file gets: a model file captures, any other file is refused
    in one line naming what it lacks (exit 2)."""
    result = driver("capture", path, "--emit", "aten")
    worked = works_or_says_why(result, f"capture {path}")
    if path in MODEL_FILES:
        assert worked and "func.func" in result.stdout, result.stderr[-2000:]
    else:
        assert not worked and result.returncode == 2, result.stderr


@pytest.mark.parametrize("command", [
    ["run"], ["run", "--training"], ["compile", "--emit", "so", "-o", "{tmp}"],
    ["capture", "--emit", "fx"], ["report", "-o", "{tmp}/report.html"],
], ids=lambda c: " ".join(c).replace(" {tmp}", "").replace("/report.html", ""))
def test_every_command_on_a_file_of_another_protocol(command: list[str], tmp_path: Path) -> None:
    """examples/real_models.py defines `energy_forces`, `inputs` and `dynamic_shapes`, but
    its energy_forces(name, model_dtype, config) builds one of several models: each
    command says so in one line (it ended in a TypeError from deep inside the driver)."""
    args = [a.replace("{tmp}", str(tmp_path)) for a in command]
    result = driver(args[0], "examples/real_models.py", *args[1:])
    assert not works_or_says_why(result, " ".join(args)) and result.returncode == 2
    assert "examples/real_models.py" in result.stderr and "nequip" in result.stderr, result.stderr


@pytest.mark.parametrize("args, message", [
    (["opt", "examples/mlp.py"], "reads MLIR"),
    (["opt", "examples/no_such_file.mlir"], "no such file"),
    (["compile", "examples/no_such_file.py"], "no such file"),
    (["compile", "examples/mlp.py", "--emit", "so"], "needs -o"),
    (["report", "examples/mlp.py"], "needs -o"),
    (["bench", "examples/mlp.py"], "not a file"),
])
def test_usage_errors_are_one_line(args: list[str], message: str) -> None:
    result = driver(*args)
    assert not works_or_says_why(result, " ".join(args)) and result.returncode == 2
    assert message in result.stderr, result.stderr


def test_run_compares_with_eager() -> None:
    result = driver("run", "examples/mlp.py", "--atoms", "40", "--repeat", "2", "--threads", "1")
    assert works_or_says_why(result, "run mlp"), result.stderr
    assert "mlp: 40 atoms" in result.stdout and "max rel err" in result.stdout, result.stdout


def test_run_training_in_f64() -> None:
    result = driver("run", "examples/lennard_jones.py", "--training", "--dtype", "f64", "--atoms", "30",
                    "--repeat", "1")
    assert works_or_says_why(result, "run lennard_jones --training"), result.stderr
    assert "lennard_jones_training: 30 atoms" in result.stdout and "grad0" in result.stdout, result.stdout


@needs_tools("cc")
def test_compile_emits_a_library(tmp_path: Path) -> None:
    result = driver("compile", "examples/lennard_jones.py", "--emit", "so", "-o", str(tmp_path))
    assert works_or_says_why(result, "compile --emit so"), result.stderr
    assert {p.name for p in tmp_path.iterdir()} >= {"lennard_jones.so", "lennard_jones.h", "lennard_jones.json"}
