"""Run a function in a forked child process and get its result back.

    job = Forked(lambda: work(part))     # the child starts now, from this process's state
    ...                                  # the parent works on meanwhile
    value = job.result()                 # the child's return value, or its exception raised here

Fork, not spawn: the child starts with the parent's objects (an IR module of tens of
thousands of ops) without pickling them; only the result travels back, pickled
through a pipe. The child never returns into the caller's code: it leaves with
`os._exit`, so no atexit handler or buffered output of the parent runs twice. It must
not use threads the parent had (torch's OpenMP pool): only the forking thread exists
in the child.
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
import traceback
from collections.abc import Callable
from typing import Any


class WorkerError(RuntimeError):
    """The child failed in a way that cannot be raised as its own exception."""


def can_fork() -> bool:
    """Whether this platform forks safely (Linux; macOS's system libraries do not)."""
    return hasattr(os, "fork") and sys.platform.startswith("linux")


class Forked:
    """A function running in a forked child; `result()` waits for it."""

    def __init__(self, work: Callable[[], Any], what: str = "worker"):
        self.what = what
        read, write = os.pipe()
        for stream in (sys.stdout, sys.stderr):  # else the child's copy of a buffer is written twice
            if stream is not None:
                stream.flush()
        try:
            self.pid = os.fork()
        except OSError:
            os.close(read), os.close(write)
            raise
        if self.pid == 0:  # the child
            os.close(read)
            code = 1
            try:
                try:
                    payload = pickle.dumps((True, work()), protocol=pickle.HIGHEST_PROTOCOL)
                except BaseException as err:  # noqa: BLE001 - every failure goes back to the parent
                    text = "".join(traceback.format_exception(err))
                    try:
                        payload = pickle.dumps((False, (err, text)), protocol=pickle.HIGHEST_PROTOCOL)
                    except Exception:  # an exception that does not pickle goes back as text
                        payload = pickle.dumps((False, (None, text)), protocol=pickle.HIGHEST_PROTOCOL)
                with os.fdopen(write, "wb") as out:
                    out.write(payload)
                code = 0
            finally:
                os._exit(code)
        os.close(write)
        self._pipe = os.fdopen(read, "rb")
        self._done = False

    def result(self) -> Any:
        """The child's return value; its exception (or a WorkerError) is raised here."""
        try:
            data = self._pipe.read()  # read before waiting: the child blocks on a full pipe
        finally:
            self._pipe.close()
            _, status = os.waitpid(self.pid, 0)
            self._done = True
        if not data:
            how = (f"signal {signal.Signals(-os.waitstatus_to_exitcode(status)).name}"
                   if os.WIFSIGNALED(status) else f"exit code {os.waitstatus_to_exitcode(status)}")
            raise WorkerError(f"{self.what}: the child process died ({how}) without a result")
        try:
            ok, value = pickle.loads(data)
        except Exception as err:  # e.g. an exception class whose arguments do not round-trip
            raise WorkerError(f"{self.what}: the child's result does not unpickle: {err}") from err
        if ok:
            return value
        err, text = value
        if err is None:
            raise WorkerError(f"{self.what} failed in the child process:\n{text}")
        err.add_note(f"(raised while {self.what}, in a forked process:\n{text})")
        raise err

    def cancel(self) -> None:
        """Kill the child (if still running) and reap it."""
        if not self._done:
            self._done = True
            self._pipe.close()
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(self.pid, 0)


__all__ = ["Forked", "WorkerError", "can_fork"]
