"""The error of the capture stage (its own module: the argument and guard checks raise it too)."""


class CaptureError(Exception):
    """The function cannot be captured as a graph valid at every size."""
