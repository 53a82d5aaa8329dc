"""Load an exported library (`export_library`'s `<name>.so` + `<name>.json`) and call it
from Python through its C ABI, as a C program would: no JIT, no compile.

    lib = pipeline.load_library("build/lennard_jones.so")
    energy, forces = lib(pos=pos, edge_index=edge_index)

The manifest beside the library is the record of its calling convention (argument
names, dtypes and dims, size symbols, outputs). Before `dlopen`, the file's size and
SHA-256 are checked against it, and its target against this CPU: a truncated or
damaged copy, or one compiled for features this CPU lacks, is refused with an error
naming the file, never loaded (mapping or running it could crash the process).
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import llvmlite.binding as llvm
import torch

from pipeline.signature import CallError


class LibraryError(Exception):
    """The file is not an intact library of pipeline's with its manifest."""


STATUS_ERRORS = {3: IndexError, 5: RuntimeError}
"""PIPELINE_ERROR_INDEX and PIPELINE_ERROR_ASSERT raise what the JIT raises; every other
code raises CallError."""


def read_manifest(path: str | Path) -> dict[str, Any]:
    """The manifest of the library at `path`, after checking the library's size and
    SHA-256 against it."""
    path = Path(path)
    where = path.with_suffix(".json")
    if not path.is_file():
        raise LibraryError(f"{path}: no such file")
    try:
        manifest = json.loads(where.read_text())
    except FileNotFoundError:
        raise LibraryError(f"{path}: its manifest {where.name} is missing (export_library writes both; "
                           "keep them together)") from None
    except (OSError, ValueError) as e:
        raise LibraryError(f"{path}: its manifest {where.name} cannot be read: {e}") from None
    if not isinstance(manifest, dict) or "library_sha256" not in manifest or "library_bytes" not in manifest:
        raise LibraryError(f"{path}: the manifest {where.name} has no library_bytes / library_sha256 "
                           "(exported by an older pipeline: export it again)")
    data = path.read_bytes()
    if len(data) != manifest["library_bytes"]:
        raise LibraryError(f"{path}: {len(data)} bytes, but its manifest says {manifest['library_bytes']} "
                           "(truncated, or not the library the manifest describes)")
    if hashlib.sha256(data).hexdigest() != manifest["library_sha256"]:
        raise LibraryError(f"{path}: its SHA-256 differs from the manifest's (damaged or replaced)")
    _check_target(path, manifest.get("target", {}))
    return manifest


def _check_target(path: Path, target: dict[str, Any]) -> None:
    """A library compiled for another machine would stop the process at its first
    instruction this CPU lacks (SIGILL): refuse it, naming what is missing."""
    triple = llvm.get_process_triple()
    if target.get("triple") and target["triple"].split("-")[0] != triple.split("-")[0]:
        raise LibraryError(f"{path} was compiled for {target['triple']}; this machine is {triple}")
    want = {f[1:] for f in target.get("features", "").split(",") if f.startswith("+")}
    have = {f[1:] for f in llvm.get_host_cpu_features().flatten().split(",") if f.startswith("+")}
    if want - have:
        raise LibraryError(f"{path} was compiled for {target.get('cpu')}, whose features this CPU "
                           f"({llvm.get_host_cpu_name()}) lacks: {', '.join(sorted(want - have))}; export it "
                           "again here, or with target_cpu= a CPU both have (e.g. x86-64-v3)")


class Library:
    """An exported library, called like the compiled function it came from (positional
    or keyword arguments; torch tensors); the outputs are new tensors."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.manifest = read_manifest(self.path)
        m = self.manifest
        self.name: str = m["name"]
        self._dll = ctypes.CDLL(str(self.path.resolve()))
        self._run = getattr(self._dll, f"{self.name}_run")
        self._shapes = getattr(self._dll, f"{self.name}_output_shapes")
        self._run.restype = self._shapes.restype = ctypes.c_int
        self.inputs = [(a["name"], getattr(torch, a["dtype"]), a["dims"]) for a in m["inputs"]]
        self.outputs = [(getattr(torch, o["dtype"]), len(o["dims"])) for o in m["outputs"]]
        self.sizes = [s["name"] for s in m["sizes"]]
        self._message = ctypes.create_string_buffer(1024)

    def __call__(self, *args: Any, **kwargs: Any) -> tuple[torch.Tensor, ...]:
        tensors = self._bind(args, kwargs)
        sizes: dict[str, int] = {}
        for (name, dtype, dims), t in zip(self.inputs, tensors):
            if not isinstance(t, torch.Tensor) or t.dtype != dtype or t.dim() != len(dims) or t.device.type != "cpu":
                got = f"{t.dtype} {tuple(t.shape)} on {t.device}" if isinstance(t, torch.Tensor) else type(t).__name__
                raise CallError(f"{self.name}: argument '{name}' must be a cpu {dtype} tensor of dims {dims}; "
                                f"got {got}")
            for k, (d, n) in enumerate(zip(dims, t.shape)):  # the C ABI sees sizes, not shapes
                if isinstance(d, int) and n != d:
                    raise CallError(f"{self.name}: argument '{name}' dim {k} is {n}; expected {d}")
                if isinstance(d, str) and sizes.setdefault(d, int(n)) != n:
                    raise CallError(f"{self.name}: argument '{name}' dim {k} is {d} = {n}, but an earlier "
                                    f"argument gave {d} = {sizes[d]}")
                if not isinstance(d, (int, str)):
                    raise CallError(f"{self.name}: argument '{name}' has dim {k} = {d}, which a call cannot check")
        c_sizes = (ctypes.c_int64 * max(1, len(self.sizes)))(*(sizes.get(s, 0) for s in self.sizes))
        rank = sum(r for _, r in self.outputs)
        shapes = (ctypes.c_int64 * max(1, rank))()
        self._check(self._shapes(c_sizes, shapes, self._message, ctypes.c_size_t(len(self._message))))
        outs, k = [], 0
        for dtype, r in self.outputs:
            outs.append(torch.empty(list(shapes[k:k + r]), dtype=dtype))
            k += r
        keep = [t.contiguous() for t in tensors]
        pointers = [ctypes.c_void_p(t.data_ptr()) for t in keep + outs]
        self._check(self._run(c_sizes, *pointers, self._message, ctypes.c_size_t(len(self._message))))
        return tuple(outs)

    def copy_to(self, directory: Path, *, name: str | None = None, target_cpu: str | None = None) -> Path:
        """Copy the library, its header and manifest (and `pipeline_potential.h`) into
        `directory`: what `export_library` wrote, as it is (its symbols carry its name, its
        code its CPU)."""
        if name not in (None, self.name) or target_cpu is not None:
            raise LibraryError(f"{self.path} is compiled as '{self.name}' for {self.manifest['target'].get('cpu')}; "
                               "a loaded library can only be copied: compile the model again to rename or retarget it")
        directory.mkdir(parents=True, exist_ok=True)
        files = [self.path, self.path.with_suffix(".h"), self.path.with_suffix(".json")]
        if "potential" in self.manifest:
            files.append(self.path.with_name(self.manifest["potential"]["header"]))
        for f in files:
            if f.resolve() != (directory / f.name).resolve():
                shutil.copyfile(f, directory / f.name)
        return directory / self.path.name

    def _bind(self, args: Sequence[Any], kwargs: dict[str, Any]) -> list[Any]:
        names = [n for n, _, _ in self.inputs]
        if len(args) > len(names):
            raise CallError(f"{self.name} takes {len(names)} arguments ({', '.join(names)}), got {len(args)}")
        bound = dict(zip(names, args))
        for key, value in kwargs.items():
            if key not in names or key in bound:
                raise CallError(f"{self.name}: argument '{key}' is " + ("given twice" if key in bound else
                                f"not one of {', '.join(names)}"))
            bound[key] = value
        missing = [n for n in names if n not in bound]
        if missing:
            raise CallError(f"{self.name} is missing argument(s) {', '.join(repr(m) for m in missing)}")
        return [bound[n] for n in names]

    def _check(self, code: int) -> None:
        if code:
            raise STATUS_ERRORS.get(code, CallError)(self._message.value.decode(errors="replace"))


def load_library(path: str | Path) -> Library:
    """The exported library at `path` (its manifest beside it), checked and loaded."""
    return Library(path)


__all__ = ["Library", "LibraryError", "load_library", "read_manifest"]
