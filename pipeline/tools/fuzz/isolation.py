"""Crash isolation: every compiled call runs in a forked child.

A defect in generated code can kill the process (a segfault reading outside a buffer)
or never return. The fuzzer must report that as a failure of the case and go on, so
each call runs in a child process that sends its outcome back through a pipe; a call
that kills the child, or gives no result within CHILD_SECONDS, is recorded as such
and the remaining calls run in a new child. (The test suite's conftest.in_child runs a
test module's function in a new Python process; these are calls of objects already in
memory, the compiled function and the loaded library, which only a fork shares.)
"""

from __future__ import annotations

import faulthandler
import os
import pickle
import select
import signal
import struct
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch

CHILD_SECONDS = 120.0  # a call without a result after this long has hung


@dataclass(frozen=True)
class Ran:
    """One call run in a child process: its outputs, or what it raised, or how it died."""

    outputs: tuple[torch.Tensor, ...] | None = None
    error: str | None = None
    """`ExceptionType: message`."""
    died: str | None = None
    """`signal SIGSEGV`, `exit code 3`, `hung: ...`: the call killed the child."""

    def text(self) -> str:
        if self.died:
            return f"killed the process ({self.died})"
        return f"raised {self.error}" if self.error else "returned"


def run_isolated(calls: Sequence[Callable[[], Any]], timeout: float = CHILD_SECONDS) -> list[Ran]:
    """Run each call (it returns a tensor or a tuple of them) in a forked child, one
    after another, on one thread; a call that kills the child (a segfault) or hangs
    is reported as such and the rest run in a new child."""
    results: list[Ran] = []
    while len(results) < len(calls):
        results += _child(calls[len(results):], timeout)
    return results


def _child(calls: Sequence[Callable[[], Any]], timeout: float) -> list[Ran]:
    """The outcomes of the calls in one child, up to and including one that kills it."""
    read, write = os.pipe()
    for stream in (sys.stdout, sys.stderr):  # else the child's copy of a buffer is written twice
        if stream is not None:
            stream.flush()
    pid = os.fork()
    if pid == 0:  # the child: never returns into the caller
        try:
            os.close(read)
            faulthandler.disable()  # a segfault is a result here, not a traceback on stderr
            torch.set_num_threads(1)  # also the OpenMP threads of an exported library
            for call in calls:
                try:
                    value = call()
                    ran = Ran(outputs=tuple(t.detach().clone() for t in (value if isinstance(value, tuple | list)
                                                                          else (value,))))
                except Exception as err:  # noqa: BLE001 - what a call raises is its outcome
                    ran = Ran(error=f"{type(err).__name__}: {err}")
                data = pickle.dumps(ran, protocol=pickle.HIGHEST_PROTOCOL)
                data = struct.pack("<Q", len(data)) + data
                while data:
                    data = data[os.write(write, data):]
        finally:
            os._exit(0)
    os.close(write)
    out: list[Ran] = []
    buffer = b""
    deadline = time.monotonic() + timeout
    try:
        while True:
            ready, _, _ = select.select([read], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                os.kill(pid, signal.SIGKILL)
                out.append(Ran(died=f"hung: no result in {timeout:.0f} s"))
                break
            chunk = os.read(read, 1 << 20)
            if not chunk:
                break
            buffer += chunk
            while len(buffer) >= 8 and len(buffer) >= 8 + struct.unpack("<Q", buffer[:8])[0]:
                size = struct.unpack("<Q", buffer[:8])[0]
                out.append(pickle.loads(buffer[8:8 + size]))
                buffer = buffer[8 + size:]
                deadline = time.monotonic() + timeout
    finally:
        os.close(read)
        _, status = os.waitpid(pid, 0)
    if len(out) < len(calls) and not (out and out[-1].died):
        how = (f"signal {signal.Signals(-os.waitstatus_to_exitcode(status)).name}" if os.WIFSIGNALED(status)
               else f"exit code {os.waitstatus_to_exitcode(status)}")
        out.append(Ran(died=how))
    return out
